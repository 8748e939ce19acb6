/* Repulsive particles on the host: starting designs, the double-precision all-pairs
 * reference the device kernels are checked against, and the design criteria. */
#include "models/repulsive/repulsive.h"

#include <math.h>
#include <stdlib.h>

void clp__rep_design_free(clp__rep_design *d) {
    free(d->x);
    *d = (clp__rep_design){0};
}

static clp_status allocate(size_t n, int dim, clp__rep_design *out, clp_error *err) {
    if (n < 2 || dim < 1)
        return CLP_FAIL(err, CLP_CASE, "a design needs at least 2 points and 1 dimension (%zu, %d)",
                        n, dim);
    *out = (clp__rep_design){.n = n, .dim = dim, .x = malloc(n * (size_t)dim * sizeof(double))};
    if (!out->x)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for %zu points in %d dimensions", n,
                        dim);
    return CLP_OK;
}

clp_status clp__rep_random(size_t n, int dim, uint64_t seed, clp__rep_design *out, clp_error *err) {
    clp_status st = allocate(n, dim, out, err);
    for (size_t k = 0; st == CLP_OK && k < n * (size_t)dim; k++)
        out->x[k] = clp__uniform01(&seed);
    return st;
}

clp_status clp__rep_latin(size_t n, int dim, uint64_t seed, clp__rep_design *out, clp_error *err) {
    clp_status st = allocate(n, dim, out, err);
    size_t *strata = st == CLP_OK ? malloc(n * sizeof *strata) : NULL;
    if (st == CLP_OK && !strata) {
        clp__rep_design_free(out);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for %zu strata", n);
    }
    for (int v = 0; st == CLP_OK && v < dim; v++) {
        for (size_t i = 0; i < n; i++)
            strata[i] = i;
        for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
            const size_t j = (size_t)(clp__uniform01(&seed) * (double)(i + 1));
            const size_t swap = strata[i];
            strata[i] = strata[j];
            strata[j] = swap;
        }
        for (size_t i = 0; i < n; i++)
            out->x[i * (size_t)dim + (size_t)v] =
                ((double)strata[i] + clp__uniform01(&seed)) / (double)n;
    }
    free(strata);
    return st;
}

/* |x_i - x_j|^2 to the nearest image, with the components in delta (may be NULL). */
static double periodic_distance2(const clp__rep_design *d, size_t i, size_t j, double *delta) {
    double l2 = 0;
    for (int v = 0; v < d->dim; v++) {
        double c = d->x[i * (size_t)d->dim + (size_t)v] - d->x[j * (size_t)d->dim + (size_t)v];
        c -= nearbyint(c);
        if (delta)
            delta[v] = c;
        l2 += c * c;
    }
    return l2;
}

void clp__rep_criteria(const clp__rep_design *d, double *ae, double *maximin) {
    double sum = 0, nearest2 = INFINITY;
    for (size_t i = 0; i < d->n; i++)
        for (size_t j = i + 1; j < d->n; j++) {
            const double l2 = periodic_distance2(d, i, j, NULL);
            sum += 1 / l2;
            nearest2 = fmin(nearest2, l2);
        }
    *ae = sum;
    *maximin = sqrt(nearest2);
}

void clp__rep_reference(const clp__rep_design *d, int q, double *acc, double *energy,
                        double *stress) {
    double *delta = malloc((size_t)d->dim * sizeof *delta);
    for (size_t i = 0; i < d->n; i++) {
        double e = 0, s = 0;
        for (int v = 0; acc && v < d->dim; v++)
            acc[i * (size_t)d->dim + (size_t)v] = 0;
        for (size_t j = 0; j < d->n; j++) {
            if (j == i)
                continue;
            const double l2 = periodic_distance2(d, i, j, delta), l = sqrt(l2);
            const double lq = pow(l, -q);
            for (int v = 0; acc && v < d->dim; v++)
                acc[i * (size_t)d->dim + (size_t)v] += q * delta[v] * lq / l2;
            e += 0.5 * lq;
            s += q * lq / l;
        }
        if (energy)
            energy[i] = e;
        if (stress)
            stress[i] = s;
    }
    free(delta);
}
