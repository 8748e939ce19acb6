/* Lennard-Jones initial states (FCC lattice, uniform random, Maxwell-Boltzmann velocities)
 * and the all-pairs reference in double precision. */
#include "models/lj/lj.h"

#include <math.h>
#include <stdlib.h>

void clp__lj_state_free(clp__lj_state *s) {
    free(s->xyz);
    free(s->vel);
    *s = (clp__lj_state){0};
}

static clp_status allocate(size_t n, double box, clp__lj_state *out, clp_error *err) {
    *out = (clp__lj_state){.n = n, .box = box, .xyz = malloc(3 * n * sizeof(double))};
    if (!out->xyz)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for %zu atoms", n);
    return CLP_OK;
}

clp_status clp__lj_fcc(int cells, double density, clp__lj_state *out, clp_error *err) {
    if (cells < 1 || !(density > 0))
        return CLP_FAIL(err, CLP_CASE,
                        "an FCC lattice needs at least 1 cell and a positive "
                        "density, not %d cells at density %g",
                        cells, density);
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    const size_t n = 4 * (size_t)cells * cells * cells;
    const double box = cbrt((double)n / density), a = box / cells;
    clp_status st = allocate(n, box, out, err);
    if (st != CLP_OK)
        return st;
    size_t at = 0;
    for (int k = 0; k < cells; k++)
        for (int j = 0; j < cells; j++)
            for (int i = 0; i < cells; i++)
                for (int b = 0; b < 4; b++, at++) {
                    /* a quarter-spacing offset keeps every atom off the box faces */
                    out->xyz[3 * at] = (i + basis[b][0] + 0.25) * a;
                    out->xyz[3 * at + 1] = (j + basis[b][1] + 0.25) * a;
                    out->xyz[3 * at + 2] = (k + basis[b][2] + 0.25) * a;
                }
    return CLP_OK;
}

clp_status clp__lj_random(size_t n, double box, uint64_t seed, clp__lj_state *out, clp_error *err) {
    if (n == 0 || !(box > 0))
        return CLP_FAIL(err, CLP_CASE, "a random state needs atoms and a positive box");
    clp_status st = allocate(n, box, out, err);
    if (st != CLP_OK)
        return st;
    for (size_t i = 0; i < 3 * n; i++)
        out->xyz[i] = clp__uniform01(&seed) * box;
    return CLP_OK;
}

clp_status clp__lj_maxwell(clp__lj_state *s, double temperature, uint64_t seed, clp_error *err) {
    if (s->n < 2 || !(temperature >= 0))
        return CLP_FAIL(err, CLP_CASE, "velocities need 2 atoms or more and a temperature >= 0");
    free(s->vel);
    s->vel = malloc(3 * s->n * sizeof(double));
    if (!s->vel)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for %zu velocities", s->n);
    /* Box-Muller: two uniforms give two independent normal deviates */
    for (size_t i = 0; i < 3 * s->n; i += 2) {
        const double r = sqrt(-2.0 * log(1.0 - clp__uniform01(&seed))),
                     t = 2.0 * M_PI * clp__uniform01(&seed);
        s->vel[i] = r * cos(t);
        if (i + 1 < 3 * s->n)
            s->vel[i + 1] = r * sin(t);
    }
    double mean[3] = {0, 0, 0}, twice_kinetic = 0;
    for (size_t i = 0; i < s->n; i++)
        for (int a = 0; a < 3; a++)
            mean[a] += s->vel[3 * i + a] / (double)s->n;
    for (size_t i = 0; i < s->n; i++)
        for (int a = 0; a < 3; a++) {
            s->vel[3 * i + a] -= mean[a];
            twice_kinetic += s->vel[3 * i + a] * s->vel[3 * i + a];
        }
    /* 3n - 3 degrees of freedom once the momentum is zero */
    const double scale =
        twice_kinetic > 0 ? sqrt((3.0 * s->n - 3.0) * temperature / twice_kinetic) : 0.0;
    for (size_t i = 0; i < 3 * s->n; i++)
        s->vel[i] *= scale;
    return CLP_OK;
}

/* 4 (x^-6 - x^-3) with x = r^2 + softening^2, and the force factor f / r. */
static double pair_energy(double x) {
    const double inv3 = 1.0 / (x * x * x);
    return 4.0 * (inv3 * inv3 - inv3);
}

void clp__lj_reference(const clp__lj_state *s, const clp__lj_params *p, double *force,
                       double *energy, double *virial) {
    const double rc2 = p->rc * p->rc, eps2 = p->softening * p->softening;
    const double shift = pair_energy(rc2 + eps2);
    if (force)
        for (size_t i = 0; i < 3 * s->n; i++)
            force[i] = 0;
    if (energy)
        for (size_t i = 0; i < s->n; i++)
            energy[i] = 0;
    double w = 0;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++) {
            double d[3], r2 = 0;
            for (int a = 0; a < 3; a++) {
                d[a] = s->xyz[3 * i + a] - s->xyz[3 * j + a];
                if (!p->open_box)
                    d[a] -= s->box * nearbyint(d[a] / s->box); /* minimum image */
                r2 += d[a] * d[a];
            }
            if (r2 >= rc2)
                continue;
            const double x = r2 + eps2, inv3 = 1.0 / (x * x * x);
            /* -dU/dr / r = 24 (2 x^-7 - x^-4) */
            const double f = 24.0 * (2.0 * inv3 * inv3 - inv3) / x;
            if (force)
                for (int a = 0; a < 3; a++) {
                    force[3 * i + a] += f * d[a];
                    force[3 * j + a] -= f * d[a];
                }
            if (energy) {
                const double u = 0.5 * (pair_energy(x) - shift);
                energy[i] += u;
                energy[j] += u;
            }
            w += f * r2;
        }
    if (virial)
        *virial = w;
}
