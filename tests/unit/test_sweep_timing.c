/* The timing rule of clpart sweep and bench (tools/sweep_timing.c) against hand computations:
 * the interval of the median from order statistics (the coverage sums worked out below), the
 * relative spread, and when the rule asks for another sample. No OpenCL device is needed. */
#include "../../tools/sweep_timing.h"
#include "test.h"

/* The interval of 1, 2, ..., n: [k, n + 1 - k] for the k worked out by hand. */
static void expect_interval(size_t n, size_t k) {
    double sorted[SWEEP_MAX_SAMPLES], low, high;
    for (size_t i = 0; i < n; i++)
        sorted[i] = (double)(i + 1);
    sweep_interval(sorted, n, &low, &high);
    if (low != (double)k || high != (double)(n + 1 - k))
        CLP_TEST_FAIL("interval of %zu samples: [%g, %g], by hand [%zu, %zu]", n, low, high, k,
                      n + 1 - k);
}

static void expect_next(const sweep_timing *t, const double *samples, size_t n, double spent,
                        sweep_next want) {
    const sweep_next got = sweep_timing_next(t, samples, n, spent);
    if (got != want)
        CLP_TEST_FAIL("after %zu samples in %g s: %d, by hand %d", n, spent, (int)got, (int)want);
}

int main(void) {
    /* Below 9 samples even k = 2 misses 95 %: 2 P(B <= 1) = 2 (1 + n) / 2^n is 2 * 9/256 =
       0.070 for n = 8, so the interval is the whole range. */
    expect_interval(1, 1);
    expect_interval(3, 1);
    expect_interval(8, 1);
    /* n = 9: 2 (1 + 9) / 512 = 0.039, k = 2; 2 (1 + 9 + 36) / 512 = 0.18 > 0.05 */
    expect_interval(9, 2);
    /* n = 12: 2 (1 + 12 + 66) / 4096 = 0.039, k = 3; with 220 more, 0.146 */
    expect_interval(12, 3);
    /* n = 17: 2 (1 + 17 + 136 + 680 + 2380) / 2^17 = 0.049, k = 5; with 6188 more, 0.14 */
    expect_interval(17, 5);

    /* spread: (high - low) / median */
    const double three[] = {110, 90, 100};
    CLP_ASSERT_NEAR(sweep_spread(three, 3), 0.2, 1e-15);
    const double two[] = {100, 105};
    CLP_ASSERT_NEAR(sweep_spread(two, 2), 5 / 102.5, 1e-15);
    const double one[] = {100};
    CLP_ASSERT(sweep_spread(one, 1) < 0);
    /* an outlier of nine samples falls outside [x(2), x(8)] */
    const double nine[] = {100, 101, 99, 100, 300, 100, 102, 98, 100};
    CLP_ASSERT_NEAR(sweep_spread(nine, 9), (102.0 - 99.0) / 100.0, 1e-15);

    const sweep_timing t = {.min_repeat = 3, .spread = 0.05, .budget = 10};
    const double close[] = {100, 101, 102, 150};
    expect_next(&t, close, 2, 0.2, SWEEP_MORE);   /* the minimum first, however close */
    expect_next(&t, close, 3, 0.3, SWEEP_STABLE); /* 2 % */
    expect_next(&t, three, 3, 0.3, SWEEP_MORE);   /* 20 %, and the budget allows */
    expect_next(&t, three, 3, 7.5, SWEEP_MORE);   /* 7.5 + 2.5 ends at the budget */
    expect_next(&t, three, 3, 7.6, SWEEP_BUDGET); /* 7.6 + 2.53 would not */
    expect_next(&t, three, 3, 30, SWEEP_BUDGET);  /* the minimum took more than the budget */
    const sweep_timing none = {.min_repeat = 1, .spread = 0.05, .budget = 0};
    expect_next(&none, one, 1, 0.1, SWEEP_BUDGET); /* one sample: spread unknown, no budget */
    const sweep_timing unknown = {.min_repeat = 1, .spread = 0.05, .budget = 1};
    expect_next(&unknown, one, 1, 0.1, SWEEP_MORE); /* one sample: its spread needs a second */
    double many[SWEEP_MAX_SAMPLES];
    for (size_t i = 0; i < SWEEP_MAX_SAMPLES; i++)
        many[i] = i % 2 ? 50 : 150;
    const sweep_timing long_budget = {.min_repeat = 3, .spread = 0.05, .budget = 1e9};
    expect_next(&long_budget, many, SWEEP_MAX_SAMPLES - 1, 1, SWEEP_MORE);
    expect_next(&long_budget, many, SWEEP_MAX_SAMPLES, 1, SWEEP_CAP);
    return 0;
}
