/* The timing rule of clpart sweep and bench and the interval of a median (see
 * sweep_timing.h). */
#include "sweep_timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sweep_interval(const double *sorted, size_t n, double *low, double *high) {
    if (n == 0) {
        *low = *high = 0;
        return;
    }
    /* k + 1 is taken while 2 P(B <= k) stays within 5 %, P(B <= j) summed term by term
       (C(n, j) / 2^n, each from the last), and while x(k + 1) <= x(n - k) */
    size_t k = 1;
    double term = pow(0.5, (double)n), below = term;
    for (size_t j = 1; 2 * (j + 1) <= n + 1; j++) {
        term *= (double)(n - j + 1) / (double)j;
        below += term;
        if (2 * below > 0.05)
            break;
        k = j + 1;
    }
    *low = sorted[k - 1];
    *high = sorted[n - k];
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sweep_spread(const double *samples, size_t n) {
    if (n < 2 || n > SWEEP_MAX_SAMPLES)
        return -1;
    double sorted[SWEEP_MAX_SAMPLES];
    memcpy(sorted, samples, n * sizeof *samples);
    qsort(sorted, n, sizeof *sorted, by_value);
    const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    double low, high;
    sweep_interval(sorted, n, &low, &high);
    return median > 0 ? (high - low) / median : -1;
}

sweep_next sweep_timing_next(const sweep_timing *t, const double *samples, size_t n, double spent) {
    if (n >= SWEEP_MAX_SAMPLES)
        return SWEEP_CAP;
    if (n < (size_t)t->min_repeat)
        return SWEEP_MORE;
    const double spread = sweep_spread(samples, n);
    if (spread >= 0 && spread <= t->spread)
        return SWEEP_STABLE;
    if (n == 0 || spent + spent / (double)n > t->budget)
        return SWEEP_BUDGET;
    return SWEEP_MORE;
}
