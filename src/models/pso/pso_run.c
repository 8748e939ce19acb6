/* The particle swarm run: the case's swarm on the device, its iterations in chunks of
 * output_every, and the outputs: the best value after every iteration (convergence.csv), the
 * best position (best.csv) and a one-line summary (summary.json). */
#include "io/io.h"
#include "run/pacer.h"
#include "models/pso/pso_case.h"
#include "models/models.h"
#include "run/run_flags.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The case at `path` under the options' objective. */
static clp_status load_case(const clp_options *opts, const char *path, clp__pso_case *c,
                            clp_error *err) {
    return clp__pso_case_load(path, clp_options_enum(opts, "pso.objective"), c, err);
}

clp_status clp_pso_source(const clp_options *opts, const clp_device_info *dev,
                          const char *case_path, char **out, clp_error *err) {
    (void)dev; /* the program depends on the options and the case only */
    clp__pso_case c;
    clp_status st = load_case(opts, case_path, &c, err);
    if (st != CLP_OK)
        return st;
    st = clp__pso_source(opts, &c.params, out, err);
    clp__pso_case_free(&c);
    return st;
}

/* best.csv: one row (component, value) per dimension. */
static clp_status write_best(const char *dir, const double *x, int dim, clp_error *err) {
    static const char *const columns[] = {"component", "value"};
    double *rows = malloc(2 * (size_t)dim * sizeof *rows);
    if (!rows)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for best.csv");
    for (int i = 0; i < dim; i++) {
        rows[2 * i] = i;
        rows[2 * i + 1] = x[i];
    }
    const clp_status st = clp__csv_write_table(dir, "best.csv", columns, 2, rows, (size_t)dim, err);
    free(rows);
    return st;
}

static clp_status run_iterations(void *sys, uint64_t iterations, clp_error *err) {
    return clp__pso_system_run(sys, (size_t)iterations, err);
}

/* summary.json: the keys every model's starts with ("steps": the iterations done), then
 * "best" and "particle". JSON has no infinities: a best of -inf is written as the string
 * "-inf" (and +inf, from a run stopped before any finite value, as "inf"). */
static clp_status write_summary(const char *dir, size_t particles, double best, uint32_t particle,
                                uint64_t iterations, bool interrupted, double seconds,
                                clp_error *err) {
    json_t *root = clp__summary_begin("pso", particles, iterations, interrupted, seconds);
    clp__summary_number(root, "best", best);
    json_object_set_new(root, "particle", json_integer(particle));
    return clp__summary_write(dir, "summary.json", root, err);
}

/* The values of a run's result (clp_run_result), as the registry lists them. */
const char *const clp__pso_diagnostics[] = {"best", "particle", NULL};

clp_status clp_pso_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                       const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    clp__pso_case c = {0};
    clp__pso_system *sys = NULL;
    clp__csv *csv = NULL;
    double *history = NULL, *best_position = NULL;
    clp__progress progress;
    CLP_TRY(clp__run_check_flags(config, "pso", err));
    CLP_TRY(load_case(opts, case_path, &c, err));
    c.iterations = clp__run_steps(config, c.iterations);
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
    static const char *const columns[] = {"iteration", "best"};
    if (config->out_dir)
        CLP_TRY(clp__csv_open_in(config->out_dir, "convergence.csv", columns, 2, &csv, err));
    if (config->progress) {
        clp__progress_init(&progress, config->progress, 0.0, (double)c.iterations,
                           CLP__PROGRESS_PLAIN_INTERVAL);
        progress.steps_only = true;
    }
    size_t rows = 0, n = 0;
    uint32_t particle = 0;
    double outputs = 0;
    clp__pacer pacer;
    clp__pacer_init(&pacer, worker, config->stop_requested);
    bool stopped = false;
    uint64_t done = 0;
    const double start = clp__now();
    for (;;) {
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
            if (done == c.iterations || stopped)
                clp__progress_finish(&progress, done, (double)done, rate);
            else
                clp__progress_update(&progress, done, (double)done, rate);
        }
        if (done == c.iterations || stopped)
            break;
        /* a chunk to the next read, in slices after which a stop request is honoured */
        const uint64_t left = c.iterations - done;
        const uint64_t chunk = left < c.output_every ? left : c.output_every;
        uint64_t ran;
        CLP_TRY(clp__pacer_run(&pacer, run_iterations, sys, chunk, &ran, &stopped, err));
        done += ran;
    }
    /* the iterations and the reads of the history, without the file writes */
    const double seconds = clp__now() - start - outputs;
    if (csv) {
        st = clp__csv_close(csv, err);
        csv = NULL;
        CLP_TRY(st);
    }
    const double best = history[done];
    CLP_REQUIRE(best != INFINITY || stopped, err, CLP_CHECK,
                "no particle found a finite value of the objective in %llu iterations: it was "
                "+inf or NaN at every point evaluated (%zu particles in [%g, %g]^%d)",
                (unsigned long long)c.iterations, p->particles, p->lower, p->upper, p->dim);
    CLP_INFO(CLP_LOG_RUN, "best %.9g at particle %u after %llu iterations in %.3f s", best,
             particle, (unsigned long long)done, seconds);
    if (config->out_dir) {
        CLP_TRY(write_best(config->out_dir, best_position, p->dim, err));
        CLP_TRY(write_summary(config->out_dir, p->particles, best, particle, done, stopped, seconds,
                              err));
    }
    const double values[] = {best, (double)particle};
    clp__run_result_set(config, seconds, (double)p->particles * p->dim * (double)done, done,
                        clp__pso_diagnostics, values, 2);
    /* per component and iteration: pso_move reads position, velocity and own best and writes
       position and velocity, pso_evaluate reads the position again (cl/pso/pso.cl); a best
       that improves is written too, and the guide comes from cache: neither is counted */
    clp__run_result_cost(config, 24.0 * (double)p->particles * p->dim * (double)done, 0.0);
    if (stopped)
        st = CLP_FAIL(err, CLP_INTERRUPTED, "stopped after iteration %llu of %llu%s",
                      (unsigned long long)done, (unsigned long long)c.iterations,
                      config->out_dir ? "; convergence.csv, best.csv and summary.json hold the "
                                        "swarm's best so far, marked as interrupted"
                                      : "");
fail:
    clp__csv_close(csv, NULL);
    clp__pso_system_close(sys);
    free(history);
    free(best_position);
    clp__pso_case_free(&c);
    return st;
}
