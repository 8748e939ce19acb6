/* The particle swarm run: the case's swarm on the device, its iterations in chunks of
 * output_every, and the outputs: the best value after every iteration (convergence.csv), the
 * best position (best.csv) and a one-line summary (summary.json). */
#include "io/io.h"
#include "run/pso_case.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The case at `path` under the options' objective. */
static clp_status load_case(const clp_options *opts, const char *path, clp__pso_case *c,
                            clp_error *err) {
    return clp__pso_case_load(path, clp_options_enum(opts, "pso.objective"), c, err);
}

clp_status clp_pso_source(const clp_options *opts, const char *case_path, char **out,
                          clp_error *err) {
    clp__pso_case c;
    clp_status st = load_case(opts, case_path, &c, err);
    if (st != CLP_OK)
        return st;
    st = clp__pso_source(opts, &c.params, out, err);
    clp__pso_case_free(&c);
    return st;
}

static clp_status output_path(const char *dir, const char *name, char *path, size_t size,
                              clp_error *err) {
    if ((size_t)snprintf(path, size, "%s/%s", dir, name) < size)
        return CLP_OK;
    return CLP_FAIL_AT(err, CLP_IO, dir, -1, -1, "the output folder's name is too long");
}

static clp_status open_convergence(const char *dir, clp__csv **out, clp_error *err) {
    static const char *const columns[] = {"iteration", "best"};
    char path[1024], why[512];
    snprintf(path, sizeof path, "%s", dir);
    if (!clp__make_dirs(path, why, sizeof why))
        return CLP_FAIL_AT(err, CLP_IO, dir, -1, -1, "cannot create the output folder: %s", why);
    clp_status st = output_path(dir, "convergence.csv", path, sizeof path, err);
    return st != CLP_OK ? st : clp__csv_open(path, columns, 2, out, err);
}

/* best.csv: one row (component, value) per dimension. */
static clp_status write_best(const char *dir, const double *x, int dim, clp_error *err) {
    static const char *const columns[] = {"component", "value"};
    clp_status st = CLP_OK;
    clp__csv *csv = NULL;
    char path[1024];
    CLP_TRY(output_path(dir, "best.csv", path, sizeof path, err));
    CLP_TRY(clp__csv_open(path, columns, 2, &csv, err));
    for (int i = 0; i < dim; i++) {
        const double row[2] = {i, x[i]};
        CLP_TRY(clp__csv_row(csv, row, err));
    }
    st = clp__csv_close(csv, err);
    csv = NULL;
fail:
    if (csv) {
        clp_error ignored = CLP_ERROR_INIT;
        clp__csv_close(csv, &ignored);
    }
    return st;
}

/* summary.json: {"best": ..., "particle": ..., "iterations": ..., "seconds": ...} on one line.
 * JSON has no infinities: a best of -inf is written as the string "-inf". */
static clp_status write_summary(const char *dir, double best, uint32_t particle,
                                uint64_t iterations, double seconds, clp_error *err) {
    char path[1024];
    clp_status st = output_path(dir, "summary.json", path, sizeof path, err);
    if (st != CLP_OK)
        return st;
    json_t *root = json_object();
    json_object_set_new(root, "best", isfinite(best) ? json_real(best) : json_string("-inf"));
    json_object_set_new(root, "particle", json_integer(particle));
    json_object_set_new(root, "iterations", json_integer((json_int_t)iterations));
    json_object_set_new(root, "seconds", json_real(seconds));
    char *text = json_dumps(root, 0);
    json_decref(root);
    if (!text)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for %s", path);
    FILE *f = fopen(path, "w");
    const bool ok = f && fprintf(f, "%s\n", text) >= 0;
    const bool closed = f && fclose(f) == 0;
    free(text);
    if (!ok || !closed)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s", path);
    return CLP_OK;
}

clp_status clp_pso_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                       const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    clp__pso_case c = {0};
    clp__pso_system *sys = NULL;
    clp__csv *csv = NULL;
    double *history = NULL, *best_position = NULL;
    clp__progress progress;
    CLP_REQUIRE(!config->restart, err, CLP_USAGE,
                "--restart is not supported for model pso: PSO runs write no checkpoints");
    CLP_REQUIRE(!config->timing, err, CLP_USAGE,
                "--timing is not supported for model pso: its iterations are not profiled; the "
                "progress line gives the rate");
    CLP_TRY(load_case(opts, case_path, &c, err));
    const clp__pso_params *p = &c.params;
    history = malloc(((size_t)c.iterations + 1) * sizeof *history);
    best_position = malloc((size_t)p->dim * sizeof *best_position);
    CLP_REQUIRE(history && best_position, err, CLP_NOMEM,
                "out of host memory for the history of %llu iterations",
                (unsigned long long)c.iterations);
    CLP_INFO(CLP_LOG_RUN, "%zu particles in %d dimensions, objective %s, %llu iterations",
             p->particles, p->dim, clp_options_enum(opts, "pso.objective"),
             (unsigned long long)c.iterations);
    CLP_TRY(clp__pso_system_open(worker, opts, config->cache, p, (size_t)c.iterations, &sys, err));
    if (config->out_dir)
        CLP_TRY(open_convergence(config->out_dir, &csv, err));
    if (config->progress) {
        clp__progress_init(&progress, config->progress, 0.0, (double)c.iterations,
                           CLP__PROGRESS_PLAIN_INTERVAL);
        progress.steps_only = true;
    }
    size_t rows = 0, n = 0;
    uint32_t particle = 0;
    double outputs = 0;
    const double start = clp__now();
    for (uint64_t done = 0;;) {
        /* the device keeps every iteration's best: read the new ones, write them as rows */
        CLP_TRY(clp__pso_system_read(sys, rows, history, &n, best_position, &particle, err));
        CLP_REQUIRE(n == done + 1, err, CLP_CHECK,
                    "the device's history holds %zu values after %llu iterations, not %llu", n,
                    (unsigned long long)done, (unsigned long long)done + 1);
        const double outputs_start = clp__now();
        for (; csv && rows < n; rows++) {
            const double row[2] = {(double)rows, history[rows]};
            CLP_TRY(clp__csv_row(csv, row, err));
        }
        outputs += clp__now() - outputs_start;
        const double seconds = clp__now() - start - outputs;
        const double rate =
            done && seconds > 0 ? (double)p->particles * (double)done / seconds : 0.0;
        if (config->progress) {
            snprintf(progress.note, sizeof progress.note, "best %.6g", history[n - 1]);
            if (done == c.iterations)
                clp__progress_finish(&progress, done, (double)done, rate);
            else
                clp__progress_update(&progress, done, (double)done, rate);
        }
        if (done == c.iterations)
            break;
        const uint64_t left = c.iterations - done;
        const uint64_t chunk = left < c.output_every ? left : c.output_every;
        CLP_TRY(clp__pso_system_run(sys, (size_t)chunk, err));
        done += chunk;
    }
    /* the iterations and the reads of the history, without the file writes */
    const double seconds = clp__now() - start - outputs;
    if (csv) {
        st = clp__csv_close(csv, err);
        csv = NULL;
        CLP_TRY(st);
    }
    const double best = history[c.iterations];
    CLP_REQUIRE(best != INFINITY, err, CLP_CHECK,
                "no particle found a finite value of the objective in %llu iterations: it was "
                "+inf or NaN at every point evaluated (%zu particles in [%g, %g]^%d)",
                (unsigned long long)c.iterations, p->particles, p->lower, p->upper, p->dim);
    CLP_INFO(CLP_LOG_RUN, "best %.9g at particle %u after %llu iterations in %.3f s", best,
             particle, (unsigned long long)c.iterations, seconds);
    if (config->out_dir) {
        CLP_TRY(write_best(config->out_dir, best_position, p->dim, err));
        CLP_TRY(write_summary(config->out_dir, best, particle, c.iterations, seconds, err));
    }
fail:
    if (csv) {
        clp_error ignored = CLP_ERROR_INIT;
        clp__csv_close(csv, &ignored);
    }
    clp__pso_system_close(sys);
    free(history);
    free(best_position);
    clp__pso_case_free(&c);
    return st;
}
