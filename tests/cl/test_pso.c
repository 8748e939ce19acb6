/* Particle swarm optimisation on the device (cl/pso, src/models/pso/pso_device.c):
 * - the starting positions against Philox4x32-10 computed here on the host, in every layout;
 * - every layout of a 3-dimensional and of a 17-dimensional swarm moves the same particles
 *   to the same positions, bit for bit, and finds the same bests;
 * - the history never rises, and its last value is the objective at the best position,
 *   computed here in double;
 * - the optimum of sphere, Rosenbrock and Rastrigin is reached within stated tolerances;
 * - a user objective finds its own minimum, and a broken one is a build error at its line.
 * With --small, sizes fit a run under Oclgrind. */
#include "common.h"

#include "models/pso/pso.h"
#include "philox.h"

#include <math.h>

static clp__pso_params params(size_t n, int dim, double bound) {
    return (clp__pso_params){.particles = n,
                             .dim = dim,
                             .inertia = 0.7298,
                             .cognitive = 1.49618,
                             .social = 1.49618,
                             .lower = -bound,
                             .upper = bound,
                             .vmax = bound,
                             .seed = 0x123456789abcull};
}

/* The objectives in double, as cl/pso/objectives.cl defines them. */
static double objective(const char *name, const double *x, int dim) {
    double sum = 0, product = 1;
    for (int i = 0; i < dim; i++) {
        if (!strcmp(name, "sphere") || !strcmp(name, "griewank"))
            sum += x[i] * x[i];
        else if (!strcmp(name, "rastrigin"))
            sum += x[i] * x[i] - 10 * cos(2 * M_PI * x[i]) + 10;
        else if (!strcmp(name, "rosenbrock") && i + 1 < dim)
            sum += 100 * pow(x[i + 1] - x[i] * x[i], 2) + pow(1 - x[i], 2);
        product *= cos(x[i] / sqrt(i + 1.0));
    }
    return !strcmp(name, "griewank") ? 1 + sum / 4000 - product : sum;
}

typedef struct run_result {
    double *history, *positions, best[64];
    size_t n_history;
} run_result;

static void run_swarm(test_env *t, const char *const *assignments, const clp__pso_params *p,
                      size_t iterations, run_result *r) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = test_options(t, assignments);
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);
    clp__pso_system *sys;
    CLP_ASSERT_OK(clp__pso_system_open(t->worker, opts, NULL, p, iterations, &sys, &err), &err);
    CLP_ASSERT_OK(clp__pso_system_run(sys, iterations, &err), &err);
    r->history = malloc((iterations + 1) * sizeof(double));
    r->positions = malloc(p->particles * (size_t)p->dim * sizeof(double));
    uint32_t best_particle;
    CLP_ASSERT_OK(
        clp__pso_system_read(sys, 0, r->history, &r->n_history, r->best, &best_particle, &err),
        &err);
    CLP_ASSERT_OK(clp__pso_system_positions(sys, r->positions, &err), &err);
    CLP_ASSERT(r->n_history == iterations + 1 && best_particle < p->particles);
    clp__pso_system_close(sys);
    clp_options_destroy(opts);
}

static void result_free(run_result *r) {
    free(r->history);
    free(r->positions);
}

/* The starting positions are lower + (upper - lower) u, u from the top 24 bits of words 0
 * and 2 of Philox((c / 2, p, 0, 1), seed) for even and odd c. */
static void test_start(test_env *t, const char *layout, int dim) {
    clp_error err = CLP_ERROR_INIT;
    const clp__pso_params p = params(37, dim, 5.0);
    const char *assignments[] = {layout, NULL};
    clp_options *opts = test_options(t, assignments);
    clp__pso_system *sys;
    CLP_ASSERT_OK(clp__pso_system_open(t->worker, opts, NULL, &p, 0, &sys, &err), &err);
    double *x = malloc(p.particles * (size_t)dim * sizeof *x);
    CLP_ASSERT_OK(clp__pso_system_positions(sys, x, &err), &err);
    const uint32_t key[2] = {(uint32_t)p.seed, (uint32_t)(p.seed >> 32)};
    for (size_t i = 0; i < p.particles; i++)
        for (int c = 0; c < dim; c++) {
            uint32_t ctr[4] = {(uint32_t)c / 2, (uint32_t)i, 0, 1};
            philox(ctr, key);
            const double u = (double)(ctr[c % 2 ? 2 : 0] >> 8) * 0x1p-24;
            const float expected = (float)(-5.0f + 10.0f * (float)u);
            CLP_ASSERT(x[i * (size_t)dim + (size_t)c] == expected);
        }
    printf("ok start of %zu particles in %d dimensions, %s: Philox on the host agrees\n",
           p.particles, dim, layout);
    free(x);
    clp__pso_system_close(sys);
    clp_options_destroy(opts);
}

/* Every layout of one swarm: the same positions, history and best, bit for bit. */
static void test_layouts_agree(test_env *t, const char *option, const char *const *values,
                               size_t n_values, int dim, const char *topology, size_t iterations) {
    const clp__pso_params p = params(50, dim, 5.12);
    run_result first = {0};
    for (size_t k = 0; k < n_values; k++) {
        char assignment[64];
        snprintf(assignment, sizeof assignment, "%s=%s", option, values[k]);
        const char *assignments[] = {assignment, "pso.objective=rastrigin", topology, NULL};
        run_result r;
        run_swarm(t, assignments, &p, iterations, &r);
        for (size_t i = 1; i < r.n_history; i++) /* a best is never lost */
            CLP_ASSERT(r.history[i] <= r.history[i - 1]);
        CLP_ASSERT_NEAR(r.history[r.n_history - 1], objective("rastrigin", r.best, dim),
                        1e-5 * (1 + fabs(r.history[r.n_history - 1])));
        if (k == 0) {
            first = r;
            continue;
        }
        CLP_ASSERT(
            memcmp(r.positions, first.positions, p.particles * (size_t)dim * sizeof(double)) == 0);
        CLP_ASSERT(memcmp(r.history, first.history, r.n_history * sizeof(double)) == 0);
        CLP_ASSERT(memcmp(r.best, first.best, (size_t)dim * sizeof(double)) == 0);
        result_free(&r);
    }
    printf("ok %zu layouts (%s) in %d dimensions, %s, %zu iterations: identical positions and "
           "bests; best %.6g\n",
           n_values, option, dim, topology, iterations, first.history[first.n_history - 1]);
    result_free(&first);
}

/* The optimum within `tolerance` of 0 after `iterations`. */
static void test_optimum(test_env *t, const char *name, int dim, size_t n, size_t iterations,
                         double bound, double tolerance, const char *topology) {
    const clp__pso_params p = params(n, dim, bound);
    char objective_option[64];
    snprintf(objective_option, sizeof objective_option, "pso.objective=%s", name);
    const char *assignments[] = {objective_option, topology, NULL};
    run_result r;
    run_swarm(t, assignments, &p, iterations, &r);
    const double best = r.history[r.n_history - 1];
    printf("ok %-10s D=%-2d %s, %zu particles, %zu iterations: best %.3g (bound %.0e), "
           "objective in double at its position %.3g\n",
           name, dim, topology, n, iterations, best, tolerance, objective(name, r.best, dim));
    CLP_ASSERT(best <= tolerance);
    /* float cosines: Rastrigin's 10 cos(2 pi x) rounds to 1e-6 where the device sees 0 */
    CLP_ASSERT(objective(name, r.best, dim) <= tolerance + 1e-6 * dim);
    result_free(&r);
}

/* Whole-struct writes race with the ring neighbours' reads of the best: refused. */
static void test_aos_ring_refused(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const clp__pso_params p = params(16, 3, 5.0);
    const char *assignments[] = {"pso.layout=aos", "pso.topology=ring", NULL};
    clp_options *opts = test_options(t, assignments);
    clp__pso_system *sys;
    CLP_ASSERT(clp__pso_system_open(t->worker, opts, NULL, &p, 1, &sys, &err) == CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, "aos_selective");
    clp_options_destroy(opts);
}

static void test_user(test_env *t, bool small) {
    clp_error err = CLP_ERROR_INIT;
    clp__pso_params p = params(small ? 32 : 64, 2, 5.0);
    p.user_code = "(X(0) - 0.5f) * (X(0) - 0.5f) + fabs(X(1) + 2.0f)";
    p.user_is_expression = true;
    p.user_origin = "cases/user.json";
    p.user_line = 7;
    const char *assignments[] = {"pso.objective=user", NULL};
    run_result r;
    run_swarm(t, assignments, &p, small ? 10 : 300, &r);
    printf("ok user expression: best %.3g at (%.4f, %.4f), its minimum is 0 at (0.5, -2)\n",
           r.history[r.n_history - 1], r.best[0], r.best[1]);
    if (!small) {
        CLP_ASSERT(fabs(r.best[0] - 0.5) < 1e-3 && fabs(r.best[1] + 2.0) < 1e-3);
        CLP_ASSERT(r.history[r.n_history - 1] < 1e-3);
    }
    result_free(&r);
    if (small) /* Oclgrind's API check logs the failed build, which fails the run */
        return;
    /* a function body with a typo: the compiler's message comes back at the case's line */
    p.user_code = "float s = 0.0f;\nfor (int i = 0; i < PSO_DIM; i++)\n    s += X(i) * X(i)\n"
                  "return s;";
    p.user_is_expression = false;
    clp_options *opts = test_options(t, assignments);
    clp__pso_system *sys;
    CLP_ASSERT(clp__pso_system_open(t->worker, opts, NULL, &p, 1, &sys, &err) == CLP_BUILD);
    printf("ok broken user code: %s:%d: %s\n", err.source, err.line, err.message);
    CLP_ASSERT_CONTAINS(err.source, "cases/user.json");
    CLP_ASSERT(err.line >= 7 && err.line <= 10);
    clp_options_destroy(opts);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    static const char *const layouts[] = {"aos", "aos_selective", "soa", "soa_padded"};
    static const char *const wide[] = {"naive",  "transposed", "chunk2",
                                       "chunk4", "chunk8",     "chunk16"};
    test_start(&t, "pso.layout=aos", 3);
    test_start(&t, "pso.wide_layout=chunk4", 5);
    if (!small) {
        test_start(&t, "pso.layout=soa", 3);
        test_start(&t, "pso.wide_layout=naive", 17);
        test_start(&t, "pso.wide_layout=chunk16", 17);
    }
    test_layouts_agree(&t, "pso.layout", layouts, 4, 3, "pso.topology=global", small ? 3 : 40);
    test_layouts_agree(&t, "pso.layout", layouts + 1, 3, 3, "pso.topology=ring", small ? 3 : 40);
    test_aos_ring_refused(&t);
    test_layouts_agree(&t, "pso.wide_layout", wide, 6, small ? 5 : 17, "pso.topology=global",
                       small ? 3 : 40);
    test_layouts_agree(&t, "pso.wide_layout", wide, 6, small ? 5 : 17, "pso.topology=ring",
                       small ? 3 : 40);
    test_user(&t, small);
    if (!small) {
        test_optimum(&t, "sphere", 10, 64, 500, 5.12, 1e-10, "pso.topology=global");
        test_optimum(&t, "sphere", 30, 64, 1500, 5.12, 1e-8, "pso.topology=global");
        test_optimum(&t, "rosenbrock", 2, 64, 1000, 5.0, 1e-6, "pso.topology=global");
        test_optimum(&t, "rosenbrock", 5, 64, 3000, 5.0, 1e-3, "pso.topology=global");
        test_optimum(&t, "rastrigin", 2, 64, 300, 5.12, 1e-4, "pso.topology=global");
        test_optimum(&t, "rastrigin", 5, 128, 1000, 5.12, 1e-4, "pso.topology=ring");
        test_optimum(&t, "griewank", 5, 64, 1000, 600, 0.05, "pso.topology=ring");
    }
    test_env_close(&t);
    return 0;
}
