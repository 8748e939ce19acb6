/* The self-test on a real device, with thresholds derived here rather than taken from the
 * library: in float, 1 + t == 1 for every t < 2^-24, so naive summation of 1 followed by
 * (TERMS-1) terms of at least 1e-8 loses all of them (relative error above 1e-8*(TERMS-1)/2),
 * while Kahan and KBN stay within a few units of 2^-24. Blocks of 1, B, 1, -B with B >= 1e10
 * sum to 2; Kahan loses the ones (its correction cannot hold a term larger than the running
 * sum), KBN keeps them. */
#include "common.h"

static const clp_selftest_result *row(const clp_selftest_result *rows, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    CLP_TEST_FAIL("no self-test row '%s'", name);
}

static void run(test_env *t, const char *const *assignments) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = test_options(t, assignments);
    clp_cache *cache;
    CLP_ASSERT_OK(clp_cache_open(t->cache_dir, &cache, &err), &err);
    clp_selftest_result rows[16];
    size_t n = 0;
    clp_build_report reports[3];
    CLP_ASSERT_OK(clp_selftest_run(t->worker, opts, cache, rows, 16, &n, reports, &err), &err);
    CLP_ASSERT_EQ(n, 10);
    double terms = (double)clp_options_int(opts, "selftest.terms");
    double lost = 1e-8 * (terms - 1) / 2; /* a lower bound of what naive loses, relative */
    CLP_ASSERT(row(rows, n, "series-small-terms/naive")->error > lost);
    CLP_ASSERT(row(rows, n, "series-small-terms/kahan")->error < 4 * 0x1p-24);
    CLP_ASSERT(row(rows, n, "series-small-terms/kbn")->error < 4 * 0x1p-24);
    CLP_ASSERT_NEAR(row(rows, n, "series-large-term/naive")->error, 1.0, 1e-6);
    CLP_ASSERT_NEAR(row(rows, n, "series-large-term/kahan")->error, 1.0, 1e-6);
    CLP_ASSERT(row(rows, n, "series-large-term/kbn")->error < 4 * 0x1p-24);
    CLP_ASSERT(row(rows, n, "reduction/kahan")->error < 1e-5);
    CLP_ASSERT(row(rows, n, "axpy")->error < 0x1p-23);
    for (size_t i = 0; i < n; i++)
        CLP_ASSERT(rows[i].passed);
    /* Three summation modes, three program variants, three different keys. */
    CLP_ASSERT(strcmp(reports[0].key, reports[1].key) != 0);
    CLP_ASSERT(strcmp(reports[1].key, reports[2].key) != 0);
    clp_cache_close(cache);
    clp_options_destroy(opts);
}

int main(void) {
    test_env t = {0};
    test_env_open(&t);
    run(&t, NULL);
    const char *negative_alpha_small[] = {"selftest.alpha=-0.7", "selftest.n=1000",
                                          "selftest.terms=17", NULL};
    run(&t, negative_alpha_small);
    const char *kbn_select[] = {"core.kbn_form=select", NULL};
    run(&t, kbn_select);
    test_env_close(&t);
    return 0;
}
