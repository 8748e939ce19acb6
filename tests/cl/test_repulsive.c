/* Repulsive particles on the device (cl/repulsive, src/models/repulsive/repulsive_device.c):
 * - accelerations, energies and stresses of both implementations against the host's
 *   all-pairs reference in double (src/models/repulsive/repulsive_setup.c, itself checked here
 * against finite differences of the energy);
 * - with damping the total energy (kinetic plus potential) never rises;
 * - 24 points in 2 dimensions end far more uniform than they start, against thresholds
 *   derived from a 24-point lattice on the torus;
 * - the global kernel also when a launch covers only some source rows, as past 46340 points,
 *   so that each work-item takes several pairs (here with a lower launch cap);
 * - a tiled group too large for the device's local memory is refused with the reason.
 * With --small, sizes fit a run under Oclgrind. */
#include "common.h"

#include "models/repulsive/repulsive.h"

#include <math.h>

/* Float against double over sums of up to a few hundred terms: 1e-4 of the largest. */
static const double BOUND = 1e-4;

static clp__rep_params params(int dim) {
    return (clp__rep_params){.q = dim + 1, .dt = 1e-4, .n_damping = 0};
}

/* The reference's accelerations are minus the gradient of its total energy (the sum of the
 * per-point energies), by central differences. */
static void test_reference_is_gradient(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__rep_design d;
    CLP_ASSERT_OK(clp__rep_random(12, 3, 9, &d, &err), &err);
    double acc[36], e[12];
    clp__rep_reference(&d, 4, acc, e, NULL);
    const double h = 1e-6;
    for (size_t k = 0; k < 36; k += 5) {
        double up = 0, down = 0;
        const double keep = d.x[k];
        d.x[k] = keep + h;
        clp__rep_reference(&d, 4, NULL, e, NULL);
        for (int i = 0; i < 12; i++)
            up += e[i];
        d.x[k] = keep - h;
        clp__rep_reference(&d, 4, NULL, e, NULL);
        for (int i = 0; i < 12; i++)
            down += e[i];
        d.x[k] = keep;
        CLP_ASSERT_NEAR(acc[k], -(up - down) / (2 * h), 1e-5 * (1 + fabs(acc[k])));
    }
    printf("ok the reference's accelerations are minus the gradient of its energy\n");
    clp__rep_design_free(&d);
}

/* `impl`'s accelerations, energies and stresses against the reference; `rows`, when not 0, caps
 * a launch of the global kernel at that many source rows. */
static void compare(test_env *t, const char *impl, size_t n, int dim, size_t rows) {
    clp_error err = CLP_ERROR_INIT;
    clp__rep_design d;
    CLP_ASSERT_OK(clp__rep_latin(n, dim, 42, &d, &err), &err);
    clp__rep_params p = params(dim);
    p.launch_cap = rows * n;
    const char *assignments[] = {impl, NULL};
    clp_options *opts = test_options(t, assignments);
    clp__rep_system *sys;
    CLP_ASSERT_OK(clp__rep_system_open(t->worker, opts, NULL, &d, &p, &sys, &err), &err);
    const size_t c = n * (size_t)dim;
    double *acc = malloc(c * sizeof *acc), *ref = malloc(c * sizeof *ref);
    double *e = malloc(n * sizeof *e), *e_ref = malloc(n * sizeof *e_ref);
    double *s = malloc(n * sizeof *s), *s_ref = malloc(n * sizeof *s_ref);
    CLP_ASSERT_OK(clp__rep_system_read(sys, NULL, acc, e, s, &err), &err);
    clp__rep_reference(&d, p.q, ref, e_ref, s_ref);
    double largest = 0, worst = 0, e_largest = 0, e_worst = 0, s_largest = 0, s_worst = 0;
    for (size_t k = 0; k < c; k++) {
        largest = fmax(largest, fabs(ref[k]));
        worst = fmax(worst, fabs(acc[k] - ref[k]));
    }
    for (size_t i = 0; i < n; i++) {
        e_largest = fmax(e_largest, fabs(e_ref[i]));
        e_worst = fmax(e_worst, fabs(e[i] - e_ref[i]));
        s_largest = fmax(s_largest, fabs(s_ref[i]));
        s_worst = fmax(s_worst, fabs(s[i] - s_ref[i]));
    }
    printf("ok %-22s %4zu points, D=%-2d q=%-2d%s: acceleration %.1e, energy %.1e, stress %.1e of "
           "the largest (bound %.0e)\n",
           impl, n, dim, p.q, rows ? ", launches of few rows" : "", worst / largest,
           e_worst / e_largest, s_worst / s_largest, BOUND);
    CLP_ASSERT(largest > 0 && worst <= BOUND * largest);
    CLP_ASSERT(e_worst <= BOUND * e_largest && s_worst <= BOUND * s_largest);
    free(acc);
    free(ref);
    free(e);
    free(e_ref);
    free(s);
    free(s_ref);
    clp__rep_system_close(sys);
    clp_options_destroy(opts);
    clp__rep_design_free(&d);
}

/* Tiled and global give the same accelerations, energies and stresses on the same design. */
static void test_impls_agree(test_env *t, size_t n, int dim) {
    clp_error err = CLP_ERROR_INIT;
    clp__rep_design d;
    CLP_ASSERT_OK(clp__rep_latin(n, dim, 77, &d, &err), &err);
    const clp__rep_params p = params(dim);
    static const char *const impls[] = {"repulsive.impl=tiled", "repulsive.impl=global"};
    const size_t c = n * (size_t)dim;
    double *acc[2], *e[2];
    for (int k = 0; k < 2; k++) {
        const char *assignments[] = {impls[k], NULL};
        clp_options *opts = test_options(t, assignments);
        clp__rep_system *sys;
        acc[k] = malloc(c * sizeof(double));
        e[k] = malloc(n * sizeof(double));
        CLP_ASSERT_OK(clp__rep_system_open(t->worker, opts, NULL, &d, &p, &sys, &err), &err);
        CLP_ASSERT_OK(clp__rep_system_read(sys, NULL, acc[k], e[k], NULL, &err), &err);
        clp__rep_system_close(sys);
        clp_options_destroy(opts);
    }
    double largest = 0, worst = 0;
    for (size_t k = 0; k < c; k++) {
        largest = fmax(largest, fabs(acc[0][k]));
        worst = fmax(worst, fabs(acc[0][k] - acc[1][k]));
    }
    for (size_t i = 0; i < n; i++)
        CLP_ASSERT_NEAR(e[0][i], e[1][i], BOUND * fabs(e[0][i]));
    printf("ok tiled and global agree on %zu points in %d dimensions: %.1e of the largest "
           "acceleration\n",
           n, dim, worst / largest);
    CLP_ASSERT(worst <= BOUND * largest);
    for (int k = 0; k < 2; k++) {
        free(acc[k]);
        free(e[k]);
    }
    clp__rep_design_free(&d);
}

/* Total energy: the kinetic energy plus the sum of the points' energies. */
static double total_energy(clp__rep_system *sys, size_t n) {
    clp_error err = CLP_ERROR_INIT;
    double kinetic, potential = 0, *e = malloc(n * sizeof *e);
    CLP_ASSERT_OK(clp__rep_system_kinetic(sys, &kinetic, &err), &err);
    CLP_ASSERT_OK(clp__rep_system_read(sys, NULL, NULL, e, NULL, &err), &err);
    for (size_t i = 0; i < n; i++)
        potential += e[i];
    free(e);
    return kinetic + potential;
}

/* With damping the total energy never rises (up to float rounding of the sums). The step is
 * a twentieth of the period of the stiffest pair, 2 pi sqrt(L^(q+2) / (q (q+1))) at the
 * closest distance L: explicit steps much longer than that add energy instead. */
static void test_damping(test_env *t, const char *impl, bool small) {
    clp_error err = CLP_ERROR_INIT;
    const size_t n = small ? 16 : 200;
    clp__rep_design d;
    CLP_ASSERT_OK(clp__rep_latin(n, 3, 5, &d, &err), &err);
    clp__rep_params p = params(3);
    double ae, closest;
    clp__rep_criteria(&d, &ae, &closest);
    p.dt = 2 * M_PI * sqrt(pow(closest, p.q + 2) / (p.q * (p.q + 1.0))) / 20;
    p.n_damping = 2;
    p.damping_c[0] = 50;
    p.damping_p[0] = 1;
    p.damping_c[1] = 1;
    p.damping_p[1] = 2;
    const char *assignments[] = {impl, NULL};
    clp_options *opts = test_options(t, assignments);
    clp__rep_system *sys;
    CLP_ASSERT_OK(clp__rep_system_open(t->worker, opts, NULL, &d, &p, &sys, &err), &err);
    double previous = total_energy(sys, n), first = previous;
    const int checks = small ? 3 : 50;
    for (int k = 0; k < checks; k++) {
        uint64_t done;
        CLP_ASSERT_OK(clp__rep_system_run(sys, 10, 0, 0, &done, &err), &err);
        const double now = total_energy(sys, n);
        if (!(now <= previous * (1 + 1e-5)))
            printf("rose: %.9g -> %.9g at check %d\n", previous, now, k);
        CLP_ASSERT(now <= previous * (1 + 1e-5));
        previous = now;
    }
    printf("ok damped %-16s %zu points, dt %.2g: total energy %.6g -> %.6g over %d steps, never "
           "rising\n",
           impl, n, p.dt, first, previous, 10 * checks);
    CLP_ASSERT(previous < first);
    clp__rep_system_close(sys);
    clp_options_destroy(opts);
    clp__rep_design_free(&d);
}

/* The reference for 24 points on the 2D torus: the lattice spanned by (1/4, 0) and (1/8, 1/6),
 * which closes on the torus (6 (1/8, 1/6) = (3/4, 1)); its nearest distance is
 * sqrt(1/64 + 1/36) = 0.2083, 95 % of the hexagonal packing's bound sqrt(2 / (sqrt(3) 24)). */
static void lattice_24(clp__rep_design *d) {
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__rep_random(24, 2, 1, d, &err), &err);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++) {
            const double x = i / 4.0 + j / 8.0;
            d->x[2 * (i * 6 + j)] = x - floor(x);
            d->x[2 * (i * 6 + j) + 1] = j / 6.0;
        }
}

static void test_design_24(test_env *t, const char *impl, bool small, double result[2]) {
    clp_error err = CLP_ERROR_INIT;
    clp__rep_design start, lattice;
    CLP_ASSERT_OK(clp__rep_latin(24, 2, 2024, &start, &err), &err);
    lattice_24(&lattice);
    double ae0, maximin0, ae_lattice, maximin_lattice, ae, maximin, ae_device, maximin_device;
    clp__rep_criteria(&start, &ae0, &maximin0);
    clp__rep_criteria(&lattice, &ae_lattice, &maximin_lattice);
    clp__rep_params p = params(2); /* q = 3; the step as in test_damping */
    p.dt = 2 * M_PI * sqrt(pow(maximin0, p.q + 2) / (p.q * (p.q + 1.0))) / 20;
    p.n_damping = 1;
    p.damping_c[0] = 20;
    p.damping_p[0] = 1;
    const char *assignments[] = {impl, NULL};
    clp_options *opts = test_options(t, assignments);
    clp__rep_system *sys;
    CLP_ASSERT_OK(clp__rep_system_open(t->worker, opts, NULL, &start, &p, &sys, &err), &err);
    uint64_t done;
    CLP_ASSERT_OK(clp__rep_system_run(sys, small ? 20 : 100000, 100, 1e-6, &done, &err), &err);
    clp__rep_design end = start;
    end.x = malloc(48 * sizeof(double));
    CLP_ASSERT_OK(clp__rep_system_read(sys, end.x, NULL, NULL, NULL, &err), &err);
    clp__rep_criteria(&end, &ae, &maximin);
    CLP_ASSERT_OK(clp__rep_system_criteria(sys, &ae_device, &maximin_device, &err), &err);
    printf("ok 24 points in 2D, %s, dt %.2g, %llu steps: maximin %.4f -> %.4f (lattice %.4f), AE "
           "%.1f -> "
           "%.1f (lattice %.1f)\n",
           impl, p.dt, (unsigned long long)done, maximin0, maximin, maximin_lattice, ae0, ae,
           ae_lattice);
    CLP_ASSERT_NEAR(maximin_device, maximin, 1e-5);
    CLP_ASSERT_NEAR(ae_device, ae, 1e-4 * ae);
    if (!small) {
        /* far more uniform: at least 75 % of the lattice's nearest distance and an AE
         * criterion within 10 % of the lattice's; against the Latin hypercube start, a
         * nearest distance 3 times as large and an AE criterion a quarter lower */
        CLP_ASSERT(maximin >= 0.75 * maximin_lattice);
        CLP_ASSERT(ae <= 1.10 * ae_lattice);
        CLP_ASSERT(maximin >= 3 * maximin0 && ae <= 0.75 * ae0);
    }
    result[0] = maximin;
    result[1] = ae;
    free(end.x);
    clp__rep_system_close(sys);
    clp_options_destroy(opts);
    clp__rep_design_free(&start);
    clp__rep_design_free(&lattice);
}

static void test_refusals(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    clp__rep_design d;
    CLP_ASSERT_OK(clp__rep_random(10, 2000, 3, &d, &err), &err);
    const clp__rep_params p = params(2000);
    clp_device_info small = *t->device;
    small.local_mem_size = 3 * 2000 * 4 - 1; /* one point of 2000 dimensions does not fit */
    char *source;
    CLP_ASSERT(clp__rep_source(test_options(t, NULL), &small, d.n, d.dim, &p, &source, &err) ==
               CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, "repulsive.impl=global");
    printf("ok refused: %s\n", err.message);
    clp__rep_design_free(&d);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    static const char *const impls[] = {"repulsive.impl=tiled", "repulsive.impl=global"};
    test_reference_is_gradient();
    double designs[2][2];
    for (int k = 0; k < 2; k++) {
        compare(&t, impls[k], small ? 20 : 300, 2, 0);
        compare(&t, impls[k], small ? 13 : 257, small ? 5 : 7, 0);
        /* beyond 16 dimensions the tiled targets stay in local memory, not registers */
        compare(&t, impls[k], small ? 12 : 100, small ? 17 : 64, 0);
        test_damping(&t, impls[k], small);
        test_design_24(&t, impls[k], small, designs[k]);
    }
    /* The two sum in other orders, so their trajectories part after many steps (on the H200
     * they ended in two different good designs); their forces agree on the same state. */
    printf("ok designs: tiled maximin %.5f, global %.5f\n", designs[0][0], designs[1][0]);
    test_impls_agree(&t, small ? 20 : 500, small ? 3 : 5);
    /* 3 and 7 rows a launch: each work-item takes 7 or 43 pairs, the last pass partial */
    compare(&t, impls[1], small ? 20 : 300, small ? 3 : 2, small ? 3 : 7);
    test_refusals(&t);
    test_env_close(&t);
    return 0;
}
