/* The particle swarm run: the case's swarm on the device, its iterations in chunks of
 * output_every, and the outputs: the best value after every iteration (convergence.csv), the
 * best position (best.csv) and a one-line summary (summary.json). */
#include "io/io.h"
#include "models/pso/pso_case.h"
#include "models/models.h"
#include "run/driver.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The case at `path` under the options' objective. */
static clp_status load_case(const clp_options *opts, const char *path, clp__pso_case *c,
                            clp_error *err) {
    return clp__pso_case_load(path, clp__pso_objective_of(opts), c, err);
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

/* A run of the case: the swarm on the device, the history of its best read so far and
 * convergence.csv. */
typedef struct pso_model {
    clp__pso_case c;
    clp__pso_system *sys;
    clp__csv *csv;
    double *history, *best_position;
    size_t rows;       /* of the history written to convergence.csv */
    uint32_t particle; /* that holds the best */
} pso_model;

static clp_status write_rows(void *model, clp__run *run, clp_error *err);

static clp_status open_run(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    pso_model *m = model;
    CLP_TRY(load_case(run->opts, run->case_path, &m->c, err));
    m->c.iterations = clp__run_limit_steps(run, m->c.iterations, 0.0);
    const clp__pso_params *p = &m->c.params;
    m->history = malloc(((size_t)m->c.iterations + 1) * sizeof *m->history);
    m->best_position = malloc((size_t)p->dim * sizeof *m->best_position);
    CLP_REQUIRE(m->history && m->best_position, err, CLP_NOMEM,
                "out of host memory for the history of %llu iterations",
                (unsigned long long)m->c.iterations);
    CLP_INFO(CLP_LOG_RUN, "%zu particles in %d dimensions, objective %s, %llu iterations",
             p->particles, p->dim, clp__pso_objective_name(clp__pso_objective_of(run->opts)),
             (unsigned long long)m->c.iterations);
    CLP_TRY(clp__pso_system_open(run->worker, run->opts, run->config->cache, p,
                                 (size_t)m->c.iterations, &m->sys, err));
    run->particles = p->particles;
    clp__run_add_output(run, (clp__run_output){.every = m->c.output_every,
                                               .also = CLP__RUN_AT_LAST | CLP__RUN_ON_STOP,
                                               .write = write_rows});
fail:
    return st;
}

static clp_status start(void *model, clp__run *run, clp_error *err) {
    static const char *const columns[] = {"iteration", "best"};
    pso_model *m = model;
    return run->out_dir
               ? clp__csv_open_in(run->out_dir, "convergence.csv", columns, 2, &m->csv, err)
               : CLP_OK;
}

/* The device keeps every iteration's best: the new ones, as rows. */
static clp_status write_rows(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    pso_model *m = model;
    size_t n;
    CLP_TRY(
        clp__pso_system_read(m->sys, m->rows, m->history, &n, m->best_position, &m->particle, err));
    CLP_REQUIRE(n == run->step + 1, err, CLP_CHECK,
                "the device's history holds %zu values after %llu iterations, not %llu", n,
                (unsigned long long)run->step, (unsigned long long)run->step + 1);
    for (; m->csv && m->rows < n; m->rows++) {
        const double row[2] = {(double)m->rows, m->history[m->rows]};
        CLP_TRY(clp__csv_row(m->csv, row, err));
    }
    snprintf(run->note, sizeof run->note, "best %.6g", m->history[n - 1]);
fail:
    return st;
}

static clp_status iterate(void *sys, uint64_t iterations, clp_error *err) {
    return clp__pso_system_run(sys, (size_t)iterations, err);
}

static clp_status advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                          clp_error *err) {
    pso_model *m = model;
    return clp__run_paced(run, iterate, m->sys, steps, ran, err);
}

/* best.csv, summary.json and the result. */
static clp_status finish(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    pso_model *m = model;
    const clp__pso_params *p = &m->c.params;
    const uint64_t done = run->step;
    if (m->csv) {
        st = clp__csv_close(m->csv, err);
        m->csv = NULL;
        CLP_TRY(st);
    }
    const double best = m->history[done];
    CLP_REQUIRE(best != INFINITY || run->stopping, err, CLP_CHECK,
                "no particle found a finite value of the objective in %llu iterations: it was "
                "+inf or NaN at every point evaluated (%zu particles in [%g, %g]^%d)",
                (unsigned long long)m->c.iterations, p->particles, p->lower, p->upper, p->dim);
    CLP_INFO(CLP_LOG_RUN, "best %.9g at particle %u after %llu iterations in %.3f s", best,
             m->particle, (unsigned long long)done, run->seconds);
    if (run->out_dir) {
        CLP_TRY(write_best(run->out_dir, m->best_position, p->dim, err));
        CLP_TRY(write_summary(run->out_dir, p->particles, best, m->particle, done, run->stopping,
                              run->seconds, err));
    }
    const double values[] = {best, (double)m->particle};
    /* per component and iteration: pso_move reads position, velocity and own best and writes
       position and velocity, pso_evaluate reads the position again (cl/pso/pso.cl); a best
       that improves is written too, and the guide comes from cache: neither is counted */
    const double components = (double)p->particles * p->dim * (double)done;
    clp__run_report(run, components, 24.0 * components, 0.0, values, 2);
fail:
    return st;
}

static void close_run(void *model) {
    pso_model *m = model;
    clp__csv_close(m->csv, NULL);
    clp__pso_system_close(m->sys);
    free(m->history);
    free(m->best_position);
    clp__pso_case_free(&m->c);
}

static const clp__run_model pso_model_ops = {
    .name = "pso",
    .size = sizeof(pso_model),
    .open = open_run,
    .start = start,
    .advance = advance,
    .finish = finish,
    .close = close_run,
    .stopped_note = "convergence.csv, best.csv and summary.json hold the swarm's best so far, "
                    "marked as interrupted"};

clp_status clp_pso_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                       const clp_run_config *config, clp_error *err) {
    return clp__model_drive(&pso_model_ops, worker, NULL, NULL, opts, case_path, config, err);
}
