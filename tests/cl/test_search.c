/* The neighbour-search model on the device (src/models/search, cl/search), in several option
 * sets (key, sort, neighbour mode, positions, a skin with rebuilds every 2 steps):
 * - the start is the lattice plus the jitter of the case's SplitMix64 stream, computed here;
 * - one step moves every particle by move (2 u - 1) per axis, u from Philox4x32-10 of (ID,
 *   step) computed here (tests/cl/philox.h), wrapped into the cube;
 * - after a few steps every particle's neighbour count equals a brute-force count here in
 *   double over the positions read back (pairs within 1e-5 of the radius not judged), and the
 *   sorted IDs hold every particle once;
 * - the host's check finds no violation in a correct state, and counts the ones written into
 *   the keys and IDs here;
 * - through the registry: a run's diagnostics, work, steps, timing and summary.json, its
 *   mean count against the brute force here, a stop request, and a re-sorted buffer that an
 *   earlier run left on the worker with fewer particles.
 * With --small, sizes fit a run under Oclgrind. */
#include "common.h"

#include "models/search/search.h"
#include "philox.h"

#include <jansson.h>

static const double band = 1e-5; /* relative: pairs this close to the radius are not judged */

static clp__search_params params(size_t side) {
    return (clp__search_params){.side = side,
                                .radius = 2.3,
                                .jitter = 0.05,
                                .move = 0.05,
                                .seed = 0x2545f4914f6cdd1dull,
                                .passes = 1};
}

/* The periodic distance of two points of the cube of side `side`. */
static double distance(const double *a, const double *b, double side) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        double d = fabs(a[k] - b[k]);
        d = fmin(d, side - d);
        d2 += d * d;
    }
    return sqrt(d2);
}

/* Per particle, the neighbours surely within the radius (lo) and possibly within it (hi). */
static void brute_force(const double *x, size_t n, double side, double radius, uint32_t *lo,
                        uint32_t *hi) {
    for (size_t i = 0; i < n; i++)
        lo[i] = hi[i] = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const double r = distance(x + 3 * i, x + 3 * j, side);
            const bool sure = r < radius * (1 - band), maybe = r <= radius * (1 + band);
            lo[i] += sure, lo[j] += sure;
            hi[i] += maybe, hi[j] += maybe;
        }
}

static clp__search_system *open_system(test_env *t, const clp_options *opts,
                                       const clp__search_params *p) {
    clp_error err = CLP_ERROR_INIT;
    clp_cache *cache;
    CLP_ASSERT_OK(clp_cache_open(t->cache_dir, &cache, &err), &err);
    clp__search_system *sys;
    CLP_ASSERT_OK(clp__search_system_open(t->worker, opts, cache, p, &sys, &err), &err);
    clp_cache_close(cache);
    return sys;
}

/* Options with the periodic cube, then `assignments`. */
static clp_options *cube_options(const test_env *t, const char *const *assignments) {
    clp_error err = CLP_ERROR_INIT;
    static const char *const periodic[] = {"grid.periodic_x=true", "grid.periodic_y=true",
                                           "grid.periodic_z=true", NULL};
    clp_options *opts = test_options(t, periodic);
    for (size_t i = 0; assignments[i]; i++)
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, assignments[i], &err), &err);
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);
    return opts;
}

/* The start, one step against Philox here, then `steps` - 1 more and the neighbour counts
 * against the brute force; returns the brute force's mean count range in *lo_mean, *hi_mean. */
static void check_steps(test_env *t, const char *const *assignments, size_t side, uint64_t steps,
                        const char *label, double *lo_mean, double *hi_mean) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = cube_options(t, assignments);
    const clp__search_params p = params(side);
    const size_t n = side * side * side;
    clp__search_system *sys = open_system(t, opts, &p);
    double *x0 = malloc(3 * n * sizeof *x0), *x1 = malloc(3 * n * sizeof *x1);
    uint32_t *count = malloc(n * sizeof *count), *lo = malloc(n * sizeof *lo),
             *hi = malloc(n * sizeof *hi);
    CLP_ASSERT(x0 && x1 && count && lo && hi);
    /* the start: site + 0.5 + jitter (2 u - 1), u of one SplitMix64 stream, x y z per particle */
    CLP_ASSERT_OK(clp__search_system_read(sys, x0, NULL, &err), &err);
    uint64_t stream = p.seed;
    for (size_t i = 0; i < n; i++) {
        const size_t site[3] = {i % side, i / side % side, i / side / side};
        for (int a = 0; a < 3; a++) {
            const double expected =
                (double)site[a] + 0.5 + p.jitter * (2 * clp__uniform01(&stream) - 1);
            CLP_ASSERT_NEAR(x0[3 * i + (size_t)a], expected, 1e-5 * (double)side);
        }
    }
    /* one step: Philox of (ID, 0, 0, 0) under the seed, top 24 bits of words 0 to 2 */
    clp_run_timing timing = {0};
    CLP_ASSERT_OK(clp__search_system_step(sys, &timing, &err), &err);
    CLP_ASSERT_OK(clp__search_system_read(sys, x1, NULL, &err), &err);
    const uint32_t key[2] = {(uint32_t)p.seed, (uint32_t)(p.seed >> 32)};
    for (size_t i = 0; i < n; i++) {
        uint32_t ctr[4] = {(uint32_t)i, 0, 0, 0};
        philox(ctr, key);
        for (int a = 0; a < 3; a++) {
            const double u = (double)(ctr[a] >> 8) * 0x1p-24;
            double d = x1[3 * i + (size_t)a] - x0[3 * i + (size_t)a] - p.move * (2 * u - 1);
            d -= (double)side * round(d / (double)side); /* through the periodic boundary */
            CLP_ASSERT_NEAR(d, 0.0, 1e-5 * (double)side);
            CLP_ASSERT(x1[3 * i + (size_t)a] >= 0 && x1[3 * i + (size_t)a] < (double)side);
        }
    }
    for (uint64_t s = 1; s < steps; s++)
        CLP_ASSERT_OK(clp__search_system_step(sys, &timing, &err), &err);
    CLP_ASSERT_EQ(timing.steps, steps);
    CLP_ASSERT_EQ(timing.rebuilds, (steps + clp_options_int(opts, "neighbors.every") - 1) /
                                       clp_options_int(opts, "neighbors.every"));
    /* every particle's count against the brute force over the positions read back */
    CLP_ASSERT_OK(clp__search_system_read(sys, x1, count, &err), &err);
    brute_force(x1, n, (double)side, p.radius, lo, hi);
    double lo_sum = 0, hi_sum = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (count[i] < lo[i] || count[i] > hi[i])
            CLP_TEST_FAIL("%s: particle %zu has %u neighbours, the host counts %u to %u", label, i,
                          count[i], lo[i], hi[i]);
        lo_sum += lo[i], hi_sum += hi[i], sum += count[i];
    }
    /* the sorted IDs: every particle once */
    uint32_t *ids = malloc(n * sizeof *ids), *seen = calloc(n, sizeof *seen);
    CLP_ASSERT(ids && seen);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_ID, ids, &err), &err);
    for (size_t i = 0; i < n; i++) {
        CLP_ASSERT(ids[i] < n);
        CLP_ASSERT_EQ(seen[ids[i]]++, 0);
    }
    clp__search_check check;
    CLP_ASSERT_OK(clp__search_system_check(sys, &check, &err), &err);
    CLP_ASSERT_EQ(check.violations, 0);
    CLP_ASSERT_NEAR(check.mean_neighbours, sum / (double)n, 1e-12);
    *lo_mean = lo_sum / (double)n;
    *hi_mean = hi_sum / (double)n;
    printf("ok %s: %zu particles, %llu steps, %.3f neighbours on average as the host counts\n",
           label, n, (unsigned long long)steps, check.mean_neighbours);
    free(ids);
    free(seen);
    free(x0);
    free(x1);
    free(count);
    free(lo);
    free(hi);
    clp__search_system_close(sys);
    clp_options_destroy(opts);
}

/* The host's check counts what is written wrong into a sorted state: two keys swapped out of
 * order (each breaks the order once and puts a slot outside its cell's range) and an ID
 * repeated. */
static void check_violations(test_env *t, size_t side) {
    clp_error err = CLP_ERROR_INIT;
    static const char *const none[] = {NULL};
    clp_options *opts = cube_options(t, none);
    const clp__search_params p = params(side);
    const size_t n = side * side * side;
    clp__search_system *sys = open_system(t, opts, &p);
    CLP_ASSERT_OK(clp__search_system_step(sys, NULL, &err), &err);
    uint32_t *ids = malloc(n * sizeof *ids);
    CLP_ASSERT(ids);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_ID, ids, &err), &err);
    ids[n / 2] = ids[n / 2 + 1];
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_ID, ids, &err), &err);
    clp__search_check check;
    CLP_ASSERT_OK(clp__search_system_check(sys, &check, &err), &err);
    CLP_ASSERT_EQ(check.violations, 1);
    /* the first and the last slot's keys swapped: both leave their cells' ranges, and the
       order breaks after the first slot and before the last */
    uint32_t *keys = ids;
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, keys, &err), &err);
    const uint32_t first = keys[0];
    CLP_ASSERT(first < keys[n - 1]);
    keys[0] = keys[n - 1];
    keys[n - 1] = first;
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_KEY, keys, &err), &err);
    CLP_ASSERT_OK(clp__search_system_check(sys, &check, &err), &err);
    CLP_ASSERT_EQ(check.violations, 1 + 2 + 2);
    printf("ok the host's check counts a repeated ID and two swapped keys\n");
    free(ids);
    clp__search_system_close(sys);
    clp_options_destroy(opts);
}

/* The case file for `side` and `steps`, in the test's cache folder. */
static void write_case(const test_env *t, size_t side, uint64_t steps, char *path, size_t size) {
    const clp__search_params p = params(side);
    snprintf(path, size, "%s/search.json", t->cache_dir);
    FILE *f = fopen(path, "w");
    CLP_ASSERT(f);
    fprintf(f,
            "{\"model\": \"search\", \"options\": {\"grid.periodic_x\": true, "
            "\"grid.periodic_y\": true, \"grid.periodic_z\": true},\n"
            " \"search\": {\"side\": %zu, \"steps\": %llu, \"radius\": %.17g, \"jitter\": %.17g, "
            "\"move\": %.17g, \"seed\": %llu, \"passes\": %u}}\n",
            side, (unsigned long long)steps, p.radius, p.jitter, p.move, (unsigned long long)p.seed,
            p.passes);
    CLP_ASSERT(fclose(f) == 0);
}

/* Through the registry: `max_steps` of a longer case, timed, with summary.json; its mean
 * count within the brute force's range for the same steps [lo_mean, hi_mean]. */
static void check_registry_run(test_env *t, size_t side, uint64_t max_steps, double lo_mean,
                               double hi_mean) {
    clp_error err = CLP_ERROR_INIT;
    char case_path[512], out_dir[512], summary[600];
    write_case(t, side, max_steps + 5, case_path, sizeof case_path);
    snprintf(out_dir, sizeof out_dir, "%s/out", t->cache_dir);
    clp_options *opts;
    CLP_ASSERT_OK(clp_options_create(t->schema, &opts, &err), &err);
    CLP_ASSERT_OK(clp_options_apply_case(opts, case_path, NULL, 0, &err), &err);
    const clp_model *model;
    CLP_ASSERT_OK(clp_model_find(clp_options_model(opts), &model, &err), &err);
    CLP_ASSERT_STR_EQ(model->name, "search");
    clp_cache *cache;
    CLP_ASSERT_OK(clp_cache_open(t->cache_dir, &cache, &err), &err);
    clp_run_result result = {0};
    clp_run_timing timing = {0};
    clp_run_config config = {.out_dir = out_dir,
                             .cache = cache,
                             .max_steps = max_steps,
                             .result = &result,
                             .timing = &timing};
    CLP_ASSERT_OK(model->run(t->worker, opts, case_path, &config, &err), &err);
    const size_t n = side * side * side;
    CLP_ASSERT_EQ(result.steps, max_steps);
    CLP_ASSERT_NEAR(result.work, (double)n * (double)max_steps, 0);
    CLP_ASSERT(result.seconds > 0 && result.bytes > 0 && result.flops == 0);
    CLP_ASSERT_EQ(result.n_values, 4);
    CLP_ASSERT_STR_EQ(result.values[0].name, "mean_neighbours");
    CLP_ASSERT(result.values[0].value >= lo_mean && result.values[0].value <= hi_mean);
    CLP_ASSERT_STR_EQ(result.values[3].name, "violations");
    CLP_ASSERT_EQ(result.values[3].value, 0);
    CLP_ASSERT_EQ(timing.steps, max_steps);
    CLP_ASSERT_EQ(timing.rebuilds, max_steps);
    CLP_ASSERT_EQ(timing.particles, n);
    CLP_ASSERT(timing.keys > 0 && timing.sort > 0 && timing.reorder > 0 && timing.list > 0 &&
               timing.integration > 0 && timing.forces > 0);
    snprintf(summary, sizeof summary, "%s/summary.json", out_dir);
    json_error_t e;
    json_t *s = json_load_file(summary, 0, &e);
    CLP_ASSERT(s);
    CLP_ASSERT_EQ(json_integer_value(json_object_get(s, "particles")), n);
    CLP_ASSERT_EQ(json_integer_value(json_object_get(s, "steps")), max_steps);
    CLP_ASSERT_EQ(json_integer_value(json_object_get(s, "violations")), 0);
    CLP_ASSERT(json_is_false(json_object_get(s, "interrupted")));
    CLP_ASSERT_NEAR(json_real_value(json_object_get(s, "mean_neighbours")), result.values[0].value,
                    0);
    json_decref(s);
    /* a stop asked while setting up: interrupted before the first step, writing nothing
       (the summary is still the run's above) */
    volatile sig_atomic_t stop = 1;
    config = (clp_run_config){.out_dir = out_dir, .cache = cache, .stop_requested = &stop};
    CLP_ASSERT_STATUS(model->run(t->worker, opts, case_path, &config, &err), CLP_INTERRUPTED, &err);
    CLP_ASSERT_CONTAINS(err.message, "before the first step: no output");
    s = json_load_file(summary, 0, &e);
    CLP_ASSERT(s && json_is_false(json_object_get(s, "interrupted")));
    CLP_ASSERT_EQ(json_integer_value(json_object_get(s, "steps")), max_steps);
    json_decref(s);
    printf("ok through the registry: %llu steps of %zu particles, %.3f neighbours on average, "
           "summary.json, a stop request\n",
           (unsigned long long)max_steps, n, result.values[0].value);
    clp_cache_close(cache);
    clp_options_destroy(opts);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows even if the run dies */
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    /* a side of 7 is the least with 3 cells of the radius 2.3 per periodic axis */
    const size_t side = small ? 7 : 10;
    const uint64_t steps = small ? 2 : 4;
    static const char *const sets[][6] = {
        {"grid.key=linear", "grid.sort=counting", "neighbors.mode=list", "grid.positions=global",
         NULL},
        {"grid.key=morton", "grid.sort=radix", "neighbors.mode=jit", "grid.positions=local", NULL},
        {"grid.key=linear", "grid.sort=radix", "neighbors.mode=list", "grid.positions=local", NULL},
        {"grid.key=morton", "grid.sort=counting", "neighbors.mode=jit", "grid.positions=global",
         NULL},
        {"neighbors.skin=0.2", "neighbors.every=2", "neighbors.split=true", NULL},
    };
    double lo_mean = 0, hi_mean = 0;
    for (size_t k = 0; k < (small ? 2 : sizeof sets / sizeof sets[0]); k++) {
        char label[256] = "";
        for (size_t i = 0; sets[k][i]; i++)
            snprintf(label + strlen(label), sizeof label - strlen(label), "%s%s", i ? " " : "",
                     sets[k][i]);
        double lo, hi;
        check_steps(&t, sets[k], side, steps, label, &lo, &hi);
        if (k == 0) {
            lo_mean = lo;
            hi_mean = hi;
        }
    }
    check_violations(&t, side);
    check_registry_run(&t, side, steps, lo_mean, hi_mean); /* the first set: the defaults */
    test_env_close(&t);
    return 0;
}
