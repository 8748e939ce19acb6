/* The strategies of clpart tune (tools/tune_search.c) on made-up spaces whose rates are known:
 * each measures the first combination first and no combination twice, covers the space when
 * nothing limits it, stops at a budget of measurements or seconds, follows its seed, passes an
 * error on at once; and on a space where the axes act independently (rate = a product of one
 * factor per axis value) the two model strategies need fewer measurements than random order
 * to reach 95 % of the best, median over 20 seeds. No OpenCL device is needed. */
#include "../../tools/tune_search.h"
#include "internal.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { AXES = 4, VALUES = 4, N = 256 }; /* VALUES^AXES */

static int at[N * AXES];
static double rate[N];

typedef struct counter {
    size_t calls[N];
    size_t total;
    size_t fail_at; /* 0: never */
} counter;

static clp_status measure(void *ctx, size_t k, double *r, double *seconds, clp_error *err) {
    counter *c = ctx;
    c->calls[k]++;
    if (++c->total == c->fail_at)
        return CLP_FAIL(err, CLP_INTERRUPTED, "stopped by a signal");
    *r = rate[k];
    *seconds = 2;
    return CLP_OK;
}

/* Axis a's value v multiplies the rate by factor[a][v]; one combination fails (rate 0), and
 * the fourth axis is left out (-1) where the third is at value 0, as a dependent option is. */
static void make_space(tune_grid *g) {
    static const double factor[AXES][VALUES] = {
        {1.0, 1.3, 0.7, 0.9}, {1.0, 0.5, 2.1, 0.8}, {1.0, 1.1, 0.9, 1.6}, {1.0, 0.6, 1.2, 0.95}};
    *g = (tune_grid){.n = N, .n_axes = AXES, .at = at};
    for (size_t a = 0; a < AXES; a++)
        g->n_values[a] = VALUES;
    for (size_t k = 0; k < N; k++) {
        size_t rest = k;
        rate[k] = 1e6;
        for (size_t a = 0; a < AXES; a++) {
            at[k * AXES + a] = (int)(rest % VALUES);
            rest /= VALUES;
        }
        if (at[k * AXES + 2] == 0)
            at[k * AXES + 3] = -1;
        for (size_t a = 0; a < AXES; a++)
            if (at[k * AXES + a] >= 0)
                rate[k] *= factor[a][at[k * AXES + a]];
    }
    rate[77] = 0; /* failed to build */
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median over seeds 1 to 20 of the measurements strategy s needs to reach 95 % of best. */
static double median_reach(const tune_grid *g, tune_strategy s, double best) {
    double reach[20];
    for (uint64_t seed = 1; seed <= 20; seed++) {
        counter c = {0};
        tune_trace t;
        clp_error err = CLP_ERROR_INIT;
        CLP_ASSERT_OK(tune_search(g, s, seed, (tune_budget){0}, measure, &c, &t, &err), &err);
        reach[seed - 1] = (double)tune_trace_reach(&t, best, 0.95);
        CLP_ASSERT(reach[seed - 1] > 0);
        tune_trace_free(&t);
    }
    qsort(reach, 20, sizeof *reach, by_value);
    return 0.5 * (reach[9] + reach[10]);
}

int main(void) {
    tune_grid g;
    make_space(&g);
    double best = 0;
    for (size_t k = 0; k < N; k++)
        best = rate[k] > best ? rate[k] : best;
    clp_error err = CLP_ERROR_INIT;
    double medians[TUNE_STRATEGY_COUNT];
    for (int s = 0; s < TUNE_STRATEGY_COUNT; s++) {
        tune_strategy parsed;
        CLP_ASSERT(tune_strategy_parse(tune_strategy_name((tune_strategy)s), &parsed));
        CLP_ASSERT_EQ(parsed, s);
        /* unlimited: every combination once, the first first, the best found */
        counter c = {0};
        tune_trace t;
        CLP_ASSERT_OK(tune_search(&g, (tune_strategy)s, 7, (tune_budget){0}, measure, &c, &t, &err),
                      &err);
        CLP_ASSERT_EQ(t.n, N);
        CLP_ASSERT_EQ(t.order[0], 0);
        for (size_t k = 0; k < N; k++)
            CLP_ASSERT_EQ(c.calls[k], 1);
        CLP_ASSERT_NEAR(t.rates[tune_trace_best(&t)], best, 0);
        CLP_ASSERT_NEAR(t.seconds, 2.0 * N, 1e-9);
        /* the same seed: the same order */
        counter again = {0};
        tune_trace u;
        CLP_ASSERT_OK(
            tune_search(&g, (tune_strategy)s, 7, (tune_budget){0}, measure, &again, &u, &err),
            &err);
        CLP_ASSERT(!memcmp(t.order, u.order, N * sizeof *t.order));
        tune_trace_free(&u);
        tune_trace_free(&t);
        /* budgets: 10 measurements; 21 s of 2 s measurements is 11 */
        counter b = {0};
        CLP_ASSERT_OK(tune_search(&g, (tune_strategy)s, 3, (tune_budget){.evaluations = 10},
                                  measure, &b, &t, &err),
                      &err);
        CLP_ASSERT_EQ(t.n, 10);
        CLP_ASSERT_EQ(b.total, 10);
        tune_trace_free(&t);
        counter sec = {0};
        CLP_ASSERT_OK(tune_search(&g, (tune_strategy)s, 3, (tune_budget){.seconds = 21}, measure,
                                  &sec, &t, &err),
                      &err);
        CLP_ASSERT_EQ(t.n, 11);
        tune_trace_free(&t);
        /* an error (a signal) ends the search at once, and is what it returns */
        counter stop = {.fail_at = 5};
        CLP_ASSERT_STATUS(
            tune_search(&g, (tune_strategy)s, 3, (tune_budget){0}, measure, &stop, &t, &err),
            CLP_INTERRUPTED, &err);
        CLP_ASSERT_EQ(stop.total, 5);
        CLP_ASSERT_EQ(t.n, 4);
        tune_trace_free(&t);
        medians[s] = median_reach(&g, (tune_strategy)s, best);
    }
    /* seeds change a random order */
    counter c1 = {0}, c2 = {0};
    tune_trace t1, t2;
    CLP_ASSERT_OK(tune_search(&g, TUNE_RANDOM, 1, (tune_budget){0}, measure, &c1, &t1, &err), &err);
    CLP_ASSERT_OK(tune_search(&g, TUNE_RANDOM, 2, (tune_budget){0}, measure, &c2, &t2, &err), &err);
    CLP_ASSERT(memcmp(t1.order, t2.order, N * sizeof *t1.order) != 0);
    tune_trace_free(&t1);
    tune_trace_free(&t2);
    /* exhaustive order reaches it where the index of the first good enough combination says */
    size_t first = 0;
    while (!(rate[first] >= 0.95 * best))
        first++;
    CLP_ASSERT_NEAR(medians[TUNE_EXHAUSTIVE], (double)(first + 1), 0);
    printf("measurements to 95 %% of the best of %d, median over 20 seeds: exhaustive %g, random "
           "%g, anneal %g, tpe %g\n",
           N, medians[TUNE_EXHAUSTIVE], medians[TUNE_RANDOM], medians[TUNE_ANNEAL],
           medians[TUNE_TPE]);
    CLP_ASSERT(medians[TUNE_TPE] < medians[TUNE_RANDOM]);
    CLP_ASSERT(medians[TUNE_ANNEAL] < medians[TUNE_RANDOM]);
    return 0;
}
