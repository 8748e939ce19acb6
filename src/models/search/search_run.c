/* The neighbour-search run: the case's lattice on the device, its steps (displacement, update,
 * neighbour passes), the host's check of the sorted state at the end, and a one-line summary
 * (summary.json). */
#include "io/io.h"
#include "models/search/search.h"
#include "models/models.h"
#include "run/run_flags.h"

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

clp_status clp_search_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                          const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    clp__search_system *sys = NULL;
    clp__progress progress;
    clp__search_case c;
    clp_grid_geometry geo;
    CLP_TRY(clp__run_check_flags(config, "search", err));
    CLP_TRY(clp__search_case_load(case_path, &c, err));
    CLP_TRY(clp__search_geometry(opts, &c.params, &geo, err));
    const uint64_t steps = clp__run_steps(config, c.steps);
    const size_t n = c.params.side * c.params.side * c.params.side;
    CLP_INFO(CLP_LOG_RUN,
             "%zu particles in a periodic cube of side %zu, radius %g (%d^3 cells), moves of up "
             "to %g, %u neighbour passes a step, %llu steps",
             n, c.params.side, c.params.radius, geo.cells[0], c.params.move, c.params.passes,
             (unsigned long long)steps);
    clp_worker_set_profiling(worker, config->timing != NULL);
    CLP_TRY(clp__search_system_open(worker, opts, config->cache, &c.params, &sys, err));
    if (config->progress) {
        clp__progress_init(&progress, config->progress, 0.0, (double)steps,
                           CLP__PROGRESS_PLAIN_INTERVAL);
        progress.steps_only = true;
    }
    clp_run_timing timing = {.particles = n};
    bool stopped = false;
    uint64_t done = 0;
    const double start = clp__now();
    for (;;) {
        const double seconds = clp__now() - start;
        const double rate = done && seconds > 0 ? (double)n * (double)done / seconds : 0.0;
        stopped = config->stop_requested && *config->stop_requested && done < steps;
        if (config->progress) {
            if (done == steps || stopped)
                clp__progress_finish(&progress, done, (double)done, rate);
            else
                clp__progress_update(&progress, done, (double)done, rate);
        }
        if (done == steps || stopped)
            break;
        CLP_TRY(clp__search_system_step(sys, &timing, err));
        done++;
    }
    /* every step waits for the device: the grid update reads its status back */
    const double seconds = clp__now() - start;
    timing.wall = seconds;
    clp__search_check check;
    CLP_TRY(clp__search_system_check(sys, &check, err));
    CLP_INFO(CLP_LOG_RUN, "%llu steps in %.3f s: %.2f neighbours on average (%u to %u)",
             (unsigned long long)done, seconds, check.mean_neighbours, check.min_neighbours,
             check.max_neighbours);
    if (config->out_dir) {
        char why[256], dir[1024];
        snprintf(dir, sizeof dir, "%s", config->out_dir);
        CLP_REQUIRE(clp__make_dirs(dir, why, sizeof why), err, CLP_IO, "cannot make %s: %s",
                    config->out_dir, why);
        CLP_TRY(write_summary(config->out_dir, n, done, stopped, &check, seconds, err));
    }
    if (config->timing)
        *config->timing = timing;
    const double values[] = {check.mean_neighbours, check.min_neighbours, check.max_neighbours,
                             (double)check.violations};
    clp__run_result_set(config, seconds, (double)n * (double)done, done, clp__search_diagnostics,
                        values, 4);
    clp__run_result_cost(config, clp__search_bytes(opts, &geo, &c.params, done, timing.rebuilds),
                         0.0);
    CLP_REQUIRE(check.violations == 0, err, CLP_CHECK,
                "after %llu steps the sorted state has %llu violations: keys out of order, "
                "particles missing or repeated, or cell ranges that disagree with the keys",
                (unsigned long long)done, (unsigned long long)check.violations);
    if (stopped)
        st = CLP_FAIL(err, CLP_INTERRUPTED, "stopped after step %llu of %llu%s",
                      (unsigned long long)done, (unsigned long long)steps,
                      config->out_dir ? "; summary.json holds the steps done, marked as "
                                        "interrupted"
                                      : "");
fail:
    clp_worker_set_profiling(worker, false);
    clp__search_system_close(sys);
    return st;
}
