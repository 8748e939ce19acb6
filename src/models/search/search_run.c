/* The neighbour-search run: the case's lattice on the device, its steps (displacement, update,
 * neighbour passes), the host's check of the sorted state at the end, and a one-line summary
 * (summary.json). */
#include "io/io.h"
#include "models/search/search.h"
#include "models/models.h"
#include "run/driver.h"

#include <jansson.h>
#include <stdlib.h>

clp_status clp_search_source(const clp_options *opts, const clp_device_info *dev,
                             const char *case_path, char **out, clp_error *err) {
    (void)dev; /* the program depends on the options and the case only */
    clp__search_case c;
    clp_status st = clp__search_case_load(case_path, &c, err);
    if (st == CLP_OK)
        st = clp__search_source(opts, &c.params, out, err);
    return st;
}

/* summary.json: the keys every model's starts with, then "mean_neighbours",
 * "min_neighbours", "max_neighbours" and "violations". */
static clp_status write_summary(const char *dir, size_t particles, uint64_t steps, bool interrupted,
                                const clp__search_check *c, double seconds, clp_error *err) {
    json_t *root = clp__summary_begin("search", particles, steps, interrupted, seconds);
    clp__summary_number(root, "mean_neighbours", c->mean_neighbours);
    json_object_set_new(root, "min_neighbours", json_integer(c->min_neighbours));
    json_object_set_new(root, "max_neighbours", json_integer(c->max_neighbours));
    json_object_set_new(root, "violations", json_integer((json_int_t)c->violations));
    return clp__summary_write(dir, "summary.json", root, err);
}

/* The values of a run's result (clp_run_result), as the registry lists them. */
const char *const clp__search_diagnostics[] = {"mean_neighbours", "min_neighbours",
                                               "max_neighbours", "violations", NULL};

/* A run of the case: the system on the device and its phases' device time. */
typedef struct search_model {
    clp__search_case c;
    clp_grid_geometry geo;
    clp__search_system *sys;
    clp_run_timing timing;
} search_model;

static clp_status open_run(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    search_model *m = model;
    CLP_TRY(clp__search_case_load(run->case_path, &m->c, err));
    CLP_TRY(clp__search_geometry(run->opts, &m->c.params, &m->geo, err));
    const uint64_t steps = clp__run_limit_steps(run, m->c.steps, 0.0);
    const size_t n = m->c.params.side * m->c.params.side * m->c.params.side;
    CLP_INFO(CLP_LOG_RUN,
             "%zu particles in a periodic cube of side %zu, radius %g (%d^3 cells), moves of up "
             "to %g, %u neighbour passes a step, %llu steps",
             n, m->c.params.side, m->c.params.radius, m->geo.cells[0], m->c.params.move,
             m->c.params.passes, (unsigned long long)steps);
    clp_worker_set_profiling(run->worker, run->config->timing != NULL);
    CLP_TRY(clp__search_system_open(run->worker, run->opts, run->config->cache, &m->c.params,
                                    &m->sys, err));
    run->particles = n;
    m->timing.particles = n;
fail:
    return st;
}

static clp_status step(void *model, uint64_t steps, clp_error *err) {
    search_model *m = model;
    clp_status st = CLP_OK;
    for (uint64_t i = 0; i < steps && st == CLP_OK; i++)
        st = clp__search_system_step(m->sys, &m->timing, err);
    return st;
}

/* Every step waits for the device: the grid update reads its status back. */
static clp_status advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                          clp_error *err) {
    return clp__run_paced(run, step, model, steps, ran, err);
}

/* The host's check of the sorted state, summary.json and the result. */
static clp_status finish(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    search_model *m = model;
    const size_t n = run->particles;
    const uint64_t done = run->step;
    m->timing.wall = run->seconds;
    clp__search_check check;
    CLP_TRY(clp__search_system_check(m->sys, &check, err));
    CLP_INFO(CLP_LOG_RUN, "%llu steps in %.3f s: %.2f neighbours on average (%u to %u)",
             (unsigned long long)done, run->seconds, check.mean_neighbours, check.min_neighbours,
             check.max_neighbours);
    if (run->out_dir) {
        char why[256], dir[1024];
        snprintf(dir, sizeof dir, "%s", run->out_dir);
        CLP_REQUIRE(clp__make_dirs(dir, why, sizeof why), err, CLP_IO, "cannot make %s: %s",
                    run->out_dir, why);
        CLP_TRY(write_summary(run->out_dir, n, done, run->stopping, &check, run->seconds, err));
    }
    if (run->config->timing)
        *run->config->timing = m->timing;
    const double values[] = {check.mean_neighbours, check.min_neighbours, check.max_neighbours,
                             (double)check.violations};
    clp__run_report(run, (double)n * (double)done,
                    clp__search_bytes(run->opts, &m->geo, &m->c.params, done, m->timing.rebuilds),
                    0.0, values, 4);
    CLP_REQUIRE(check.violations == 0, err, CLP_CHECK,
                "after %llu steps the sorted state has %llu violations: keys out of order, "
                "particles missing or repeated, or cell ranges that disagree with the keys",
                (unsigned long long)done, (unsigned long long)check.violations);
fail:
    return st;
}

static void close_run(void *model) {
    search_model *m = model;
    clp__search_system_close(m->sys);
}

static const clp__run_model search_model_ops = {
    .name = "search",
    .size = sizeof(search_model),
    .open = open_run,
    .advance = advance,
    .finish = finish,
    .close = close_run,
    .stopped_note = "summary.json holds the steps done, marked as interrupted"};

clp_status clp_search_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                          const clp_run_config *config, clp_error *err) {
    return clp__model_drive(&search_model_ops, worker, NULL, NULL, opts, case_path, config, err);
}
