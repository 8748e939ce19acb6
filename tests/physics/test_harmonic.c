/* physics/harmonic: the harmonic model (src/models/harmonic/), run through its registry entry,
 * against the analytic solution x(t) = x0 cos(wt) + v0/w sin(wt) in double on the host, every
 * particle from its start in particles.csv (the floats the device began with).
 *
 * Velocity Verlet on x'' = -w^2 x with h = w dt gives x_n = x0 cos(n th) + v0/(w c) sin(n th),
 * where cos th = 1 - h^2/2 (th = 2 asin(h/2)) and c = sqrt(1 - h^2/4). Against the analytic
 * solution its error is at most |x0| n (th - h) + |v0/w| (n (th - h) + 1 - c) / c: O(h^2) over
 * a fixed time, so halving dt must divide the largest error by 4. The device's run must match
 * that recurrence to float rounding (8 n eps of the amplitude |x0| + |v0/w|). The energy
 * E = (v^2 + w^2 x^2)/2 differs from the invariant (v^2 + w^2 (1 - h^2/4) x^2)/2 of the scheme by
 * h^2 w^2 x^2 / 8, so |E_n / E_0 - 1| <= (h^2/4) / (1 - h^2/4): per particle (particles.csv) and
 * for their sum at every row of energy.csv, with float rounding (16 n eps) beside it.
 * With --small (under Oclgrind): 8 particles and 100 steps; else 1000 particles, 1000 steps. */
#include "../cl/common.h"
#include "io/io.h"

#include <math.h>

static const double omega = 2.0, eps = 0x1p-24;

/* Runs a case of `n` particles, `steps` steps of `dt`, into `out`; reads both files back. */
static void run(test_env *t, size_t n, long steps, double dt, const char *out,
                clp__csv_table *particles, clp__csv_table *energy) {
    clp_error err = CLP_ERROR_INIT;
    char path[512], setting[2][64];
    snprintf(path, sizeof path, "%s/case.json", t->cache_dir);
    FILE *f = fopen(path, "w");
    CLP_ASSERT(f != NULL);
    fprintf(f, "{\"model\": \"harmonic\", \"particles\": %zu, \"steps\": %ld, ", n, steps);
    fprintf(f, "\"output_every\": %ld, \"seed\": 7}\n", steps / 10);
    CLP_ASSERT(fclose(f) == 0);
    snprintf(setting[0], sizeof setting[0], "harmonic.omega=%.17g", omega);
    snprintf(setting[1], sizeof setting[1], "harmonic.dt=%.17g", dt);
    const char *const settings[] = {setting[0], setting[1], NULL};
    clp_options *opts = test_options(t, settings);
    const clp_model *m;
    CLP_ASSERT_OK(clp_model_find("harmonic", &m, &err), &err);
    const clp_run_config config = {.out_dir = out};
    CLP_ASSERT_OK(m->run(t->worker, opts, path, &config, &err), &err);
    clp_options_destroy(opts);
    char file[600];
    snprintf(file, sizeof file, "%s/particles.csv", out);
    CLP_ASSERT_OK(clp__csv_read(file, particles, &err), &err);
    snprintf(file, sizeof file, "%s/energy.csv", out);
    CLP_ASSERT_OK(clp__csv_read(file, energy, &err), &err);
    CLP_ASSERT_EQ(particles->n_rows, n);
    CLP_ASSERT_EQ(particles->n_columns, 12);
    CLP_ASSERT(clp__csv_table_column(particles, "x0") == 0);
    CLP_ASSERT(clp__csv_table_column(particles, "x_end") == 6);
    CLP_ASSERT_EQ(energy->n_rows, 11); /* steps 0, steps / 10, ..., steps */
}

/* The largest error of the run's positions against the analytic solution, each within its
 * bound; against the recurrence within rounding; each particle's energy within its bound. */
static double check_particles(const clp__csv_table *p, long steps, double dt) {
    const double h = omega * dt, th = 2.0 * asin(h / 2.0), c = sqrt(1.0 - h * h / 4.0);
    const double t_end = (double)steps * dt, drift = (double)steps * (th - h);
    const double energy_bound = h * h / 4.0 / (1.0 - h * h / 4.0) + 16.0 * steps * eps;
    double largest = 0.0;
    for (size_t i = 0; i < p->n_rows; i++) {
        const double *r = p->values + 12 * i;
        double e0 = 0.0, e = 0.0;
        for (int k = 0; k < 3; k++) {
            const double x0 = r[k], v0 = r[3 + k], x = r[6 + k], v = r[9 + k];
            const double exact = x0 * cos(omega * t_end) + v0 / omega * sin(omega * t_end);
            const double verlet = x0 * cos(steps * th) + v0 / (omega * c) * sin(steps * th);
            const double a = fabs(x0) + fabs(v0 / omega);
            const double bound = fabs(x0) * drift + fabs(v0 / omega) * (drift + 1.0 - c) / c;
            CLP_ASSERT_NEAR(x, exact, bound + 8.0 * steps * eps * a);
            CLP_ASSERT_NEAR(x, verlet, 8.0 * steps * eps * a);
            largest = fmax(largest, fabs(x - exact));
            e0 += 0.5 * (v0 * v0 + omega * omega * x0 * x0);
            e += 0.5 * (v * v + omega * omega * x * x);
        }
        CLP_ASSERT_NEAR(e / e0, 1.0, energy_bound);
    }
    return largest;
}

/* energy.csv: a row every steps / 10 at its time, the total within the bound of the first. */
static void check_energy(const clp__csv_table *t, long steps, double dt) {
    const double h = omega * dt;
    const double bound = h * h / 4.0 / (1.0 - h * h / 4.0) + 16.0 * steps * eps;
    const long step = clp__csv_table_column(t, "step"), time = clp__csv_table_column(t, "time");
    const long total = clp__csv_table_column(t, "total");
    const long kinetic = clp__csv_table_column(t, "kinetic");
    const long potential = clp__csv_table_column(t, "potential");
    CLP_ASSERT(step == 0 && time == 1 && kinetic == 2 && potential == 3 && total == 4);
    const double first = t->values[total];
    for (size_t i = 0; i < t->n_rows; i++) {
        const double *r = t->values + t->n_columns * i;
        CLP_ASSERT_EQ(r[step], (long)i * (steps / 10));
        CLP_ASSERT_NEAR(r[time], r[step] * dt, 1e-12 * steps * dt);
        CLP_ASSERT_NEAR(r[kinetic] + r[potential], r[total], 1e-12 * r[total]);
        CLP_ASSERT_NEAR(r[total] / first, 1.0, bound);
    }
}

int main(int argc, char **argv) {
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    const size_t n = small ? 8 : 1000;
    const long steps = small ? 100 : 1000;
    const double dt = (float)0.05, half = (float)0.025; /* the floats the device steps by */
    double errors[2];
    for (int k = 0; k < 2; k++) { /* dt, then dt / 2 over the same time, on the same worker */
        char out[300];
        snprintf(out, sizeof out, "%s/run%d", t.cache_dir, k);
        clp__csv_table particles = {0}, energy = {0};
        run(&t, n, steps << k, k ? half : dt, out, &particles, &energy);
        errors[k] = check_particles(&particles, steps << k, k ? half : dt);
        check_energy(&energy, steps << k, k ? half : dt);
        clp__csv_table_free(&particles);
        clp__csv_table_free(&energy);
    }
    const double order = log2(errors[0] / errors[1]);
    printf("ok %zu oscillators, omega %g: largest position error %.3g at dt %g, %.3g at dt %g "
           "(order %.3f), each within its bound; energies within (h^2/4)/(1 - h^2/4)\n",
           n, omega, errors[0], dt, errors[1], half, order);
    CLP_ASSERT(fabs(order - 2.0) < 0.05);
    test_env_close(&t);
    return 0;
}
