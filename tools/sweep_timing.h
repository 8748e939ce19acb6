/* How clpart sweep and clpart bench time an option set: samples of its rate repeated until
 * their spread is under a target or a budget of seconds is spent, and the interval that the
 * tables and charts show. Pure functions, no device. */
#ifndef CLPART_SWEEP_TIMING_H
#define CLPART_SWEEP_TIMING_H

#include <stdbool.h>
#include <stddef.h>

enum { SWEEP_MAX_SAMPLES = 64 };

/* The rule: at least min_repeat samples; then another while the spread is above `spread`
 * and the next one, at the mean duration so far, ends within `budget` seconds of timed runs
 * (0: none beyond min_repeat); never more than SWEEP_MAX_SAMPLES. */
typedef struct sweep_timing {
    int min_repeat;
    double spread;
    double budget;
} sweep_timing;

/* The default targets: a relative spread of 5 %, 5 s of timed runs. */
#define SWEEP_DEFAULT_SPREAD 0.05
#define SWEEP_DEFAULT_BUDGET 5.0

/* The interval of the median of n samples, `sorted` ascending: the distribution-free
 * confidence interval from order statistics, [x(k), x(n+1-k)] (1-based) for the largest k
 * whose coverage 1 - 2 P(B <= k-1), B ~ Binomial(n, 1/2), is at least 95 %; with fewer than
 * 6 samples no k reaches 95 % and the interval is the whole range (k = 1). */
void sweep_interval(const double *sorted, size_t n, double *low, double *high);

/* The relative spread of n samples (any order): the width of their interval over their
 * median; a negative number when it is unknown (fewer than 2 samples, or a median of 0). */
double sweep_spread(const double *samples, size_t n);

typedef enum sweep_next {
    SWEEP_MORE,   /* take another sample */
    SWEEP_STABLE, /* the spread is within the target */
    SWEEP_BUDGET, /* the next sample would end past the budget */
    SWEEP_CAP,    /* SWEEP_MAX_SAMPLES taken */
} sweep_next;

/* What to do after n samples that took `spent` seconds in all. */
sweep_next sweep_timing_next(const sweep_timing *t, const double *samples, size_t n, double spent);

#endif
