/* Unit tests of the Lennard-Jones initial states and the double-precision reference, against
 * geometry and analysis: FCC spacing and coordination, uniform and Maxwell-Boltzmann
 * statistics, zero momentum and exact temperature, the pair force at known distances,
 * Newton's third law, and forces as the finite-difference gradient of the energy. */
#include "test.h"

#include "models/lj/lj.h"

static double min_image(double d, double box) {
    return d - box * nearbyint(d / box);
}

static double distance(const clp__lj_state *s, size_t i, size_t j) {
    double r2 = 0;
    for (int a = 0; a < 3; a++) {
        const double d = min_image(s->xyz[3 * i + a] - s->xyz[3 * j + a], s->box);
        r2 += d * d;
    }
    return sqrt(r2);
}

static double total_energy(const clp__lj_state *s, const clp__lj_params *p) {
    double *e = malloc(s->n * sizeof *e), sum = 0;
    clp__lj_reference(s, p, NULL, e, NULL);
    for (size_t i = 0; i < s->n; i++)
        sum += e[i];
    free(e);
    return sum;
}

/* 108 atoms: the box holds n / density, every atom has 12 nearest neighbours at a / sqrt 2. */
static void test_fcc(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__lj_state s;
    CLP_ASSERT_OK(clp__lj_fcc(3, 0.8442, &s, &err), &err);
    CLP_ASSERT_EQ(s.n, 108);
    CLP_ASSERT_NEAR(s.box * s.box * s.box * 0.8442, 108.0, 1e-9);
    const double nearest = s.box / 3 / sqrt(2.0);
    for (size_t i = 0; i < s.n; i++) {
        int neighbours = 0;
        for (int a = 0; a < 3; a++)
            CLP_ASSERT(s.xyz[3 * i + a] >= 0 && s.xyz[3 * i + a] < s.box);
        for (size_t j = 0; j < s.n; j++) {
            if (j == i)
                continue;
            const double r = distance(&s, i, j);
            CLP_ASSERT(r > nearest * (1 - 1e-9));
            neighbours += r < nearest * (1 + 1e-9);
        }
        CLP_ASSERT_EQ(neighbours, 12);
    }
    clp__lj_state_free(&s);
    CLP_ASSERT(clp__lj_fcc(0, 1.0, &s, &err) == CLP_CASE);
}

/* Reproducible for a seed, inside the box, and with the mean of a uniform distribution. */
static void test_random(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__lj_state a, b, c;
    const size_t n = 20000;
    CLP_ASSERT_OK(clp__lj_random(n, 10.0, 42, &a, &err), &err);
    CLP_ASSERT_OK(clp__lj_random(n, 10.0, 42, &b, &err), &err);
    CLP_ASSERT_OK(clp__lj_random(n, 10.0, 43, &c, &err), &err);
    CLP_ASSERT(memcmp(a.xyz, b.xyz, 3 * n * sizeof(double)) == 0);
    CLP_ASSERT(memcmp(a.xyz, c.xyz, 3 * n * sizeof(double)) != 0);
    double mean = 0;
    for (size_t i = 0; i < 3 * n; i++) {
        CLP_ASSERT(a.xyz[i] >= 0 && a.xyz[i] < 10.0);
        mean += a.xyz[i] / (3.0 * n);
    }
    /* 5 standard deviations of the mean of 3n uniforms on [0, 10) */
    CLP_ASSERT_NEAR(mean, 5.0, 5 * 10.0 / sqrt(12.0 * 3 * n));
    clp__lj_state_free(&a);
    clp__lj_state_free(&b);
    clp__lj_state_free(&c);
}

/* No net momentum, kinetic energy (3n - 3) T / 2, and |v_x| < sqrt(T) for erf(1/sqrt 2) of
 * the atoms, as for a normal distribution of variance T. */
static void test_maxwell(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__lj_state s;
    const double t = 1.44;
    CLP_ASSERT_OK(clp__lj_fcc(10, 0.8442, &s, &err), &err);
    CLP_ASSERT_OK(clp__lj_maxwell(&s, t, 7, &err), &err);
    double p[3] = {0, 0, 0}, kinetic = 0;
    size_t inside = 0;
    for (size_t i = 0; i < s.n; i++) {
        for (int a = 0; a < 3; a++) {
            p[a] += s.vel[3 * i + a];
            kinetic += 0.5 * s.vel[3 * i + a] * s.vel[3 * i + a];
        }
        inside += fabs(s.vel[3 * i]) < sqrt(t);
    }
    for (int a = 0; a < 3; a++)
        CLP_ASSERT_NEAR(p[a], 0.0, 1e-10);
    CLP_ASSERT_NEAR(kinetic, (3.0 * s.n - 3.0) / 2 * t, 1e-9 * kinetic);
    const double expected = erf(1 / sqrt(2.0)), n = (double)s.n;
    CLP_ASSERT_NEAR(inside / n, expected, 5 * sqrt(expected * (1 - expected) / n));
    clp__lj_state_free(&s);
}

/* Two atoms, the second one through the periodic boundary from the first. */
static void pair(double r, clp__lj_state *s, double xyz[6]) {
    const double box = 10.0;
    xyz[0] = 0.3, xyz[1] = 5, xyz[2] = 5;
    xyz[3] = 0.3 - r + box, xyz[4] = 5, xyz[5] = 5;
    *s = (clp__lj_state){.n = 2, .box = box, .xyz = xyz};
}

/* At r = 2^(1/6) the force vanishes and the pair energy is -1 less the shift; at r = 1 it is
 * 24 pushing apart, through the boundary, with virial r f = 24. */
static void test_pair(void) {
    const clp__lj_params p = {2.5, 0, false};
    const double shift = 4 * (pow(2.5, -12) - pow(2.5, -6));
    double xyz[6], f[6], e[2], w;
    clp__lj_state s;
    pair(pow(2.0, 1.0 / 6), &s, xyz);
    clp__lj_reference(&s, &p, f, e, &w);
    CLP_ASSERT_NEAR(f[0], 0.0, 1e-12);
    CLP_ASSERT_NEAR(e[0] + e[1], -1.0 - shift, 1e-12);
    pair(1.0, &s, xyz);
    clp__lj_reference(&s, &p, f, e, &w);
    CLP_ASSERT_NEAR(f[0], 24.0, 1e-12); /* atom 0 is pushed to +x, away from atom 1 */
    CLP_ASSERT_NEAR(f[3], -24.0, 1e-12);
    CLP_ASSERT_NEAR(f[1], 0.0, 1e-12);
    CLP_ASSERT_NEAR(w, 24.0, 1e-12);
    pair(2.6, &s, xyz); /* beyond the cutoff */
    clp__lj_reference(&s, &p, f, e, &w);
    CLP_ASSERT(f[0] == 0 && e[0] == 0 && w == 0);
}

/* Forces are minus the gradient of the total energy (central differences), and sum to zero,
 * on a jittered lattice and on a softened random set. */
static void test_gradient(void) {
    clp_error err = CLP_ERROR_INIT;
    const clp__lj_params lattice = {2.5, 0, false}, soft = {2.5, 0.7, false};
    clp__lj_state s;
    for (int set = 0; set < 2; set++) {
        const clp__lj_params *p = set ? &soft : &lattice;
        if (set) {
            CLP_ASSERT_OK(clp__lj_random(100, 5.5, 3, &s, &err), &err);
        } else {
            CLP_ASSERT_OK(clp__lj_fcc(3, 0.8442, &s, &err), &err);
            clp__lj_state jitter;
            CLP_ASSERT_OK(clp__lj_random(s.n, 0.1, 9, &jitter, &err), &err);
            for (size_t i = 0; i < 3 * s.n; i++)
                s.xyz[i] += jitter.xyz[i] - 0.05;
            clp__lj_state_free(&jitter);
        }
        double *f = malloc(3 * s.n * sizeof *f), sum[3] = {0, 0, 0}, largest = 0;
        clp__lj_reference(&s, p, f, NULL, NULL);
        for (size_t i = 0; i < s.n; i++)
            for (int a = 0; a < 3; a++) {
                sum[a] += f[3 * i + a];
                largest = fmax(largest, fabs(f[3 * i + a]));
            }
        for (int a = 0; a < 3; a++)
            CLP_ASSERT_NEAR(sum[a], 0.0, 1e-12 * largest * s.n);
        const double h = 1e-6;
        for (size_t k = 0; k < 3 * s.n; k += 37) {
            const double x = s.xyz[k];
            s.xyz[k] = x + h;
            const double up = total_energy(&s, p);
            s.xyz[k] = x - h;
            const double down = total_energy(&s, p);
            s.xyz[k] = x;
            CLP_ASSERT_NEAR(-(up - down) / (2 * h), f[k], 1e-5 * fmax(1.0, fabs(f[k])));
        }
        free(f);
        clp__lj_state_free(&s);
    }
}

int main(void) {
    test_fcc();
    test_random();
    test_maxwell();
    test_pair();
    test_gradient();
    puts("lj setup and reference: ok");
    return 0;
}
