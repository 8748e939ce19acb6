/* The self-test model: builds and runs an axpy with an inlined constant, a two-pass device
 * reduction and sums of badly conditioned series in every core.summation mode, each mode its
 * own program variant, and checks them against host long-double references. */
#include "models/models.h"
#include "models/selftest/selftest.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SERIES = 64, GROUP_SIZE = 64, MAX_GROUPS = 32, MODES = CLP_CORE_SUMMATION_COUNT };

static const char *const cl_files[] = {"common/summation.cl", "selftest/selftest.cl"};

static size_t groups_for(size_t n) {
    size_t groups = (n + GROUP_SIZE - 1) / GROUP_SIZE;
    return groups < MAX_GROUPS ? groups : MAX_GROUPS;
}

clp_status clp_selftest_spec(const clp_options *opts, clp_model_storage *storage,
                             clp_program_spec *out, clp_error *err) {
    (void)err;
    size_t n = (size_t)clp__selftest_n_of(opts);
    clp_constant *c = storage->constants;
    c[0] = (clp_constant){"CLP_SELFTEST_SERIES", CLP_CONST_INT, 0, SERIES, false};
    c[1] = (clp_constant){"CLP_SELFTEST_GROUP_SIZE", CLP_CONST_INT, 0, GROUP_SIZE, false};
    c[2] = (clp_constant){"CLP_SELFTEST_GROUPS", CLP_CONST_INT, 0, (long long)groups_for(n), false};
    size_t n_modules;
    const char *const *modules = clp__model_modules("selftest", &n_modules);
    *out = (clp_program_spec){"selftest", modules, n_modules, cl_files, 2, c, 3};
    return CLP_OK;
}

clp_status clp__selftest_source(const clp_options *opts, const clp_device_info *dev,
                                const char *case_path, char **out, clp_error *err) {
    (void)dev, (void)case_path; /* the sizes are options; there is no case */
    clp_model_storage storage;
    clp_program_spec spec;
    const clp_status st = clp_selftest_spec(opts, &storage, &spec, err);
    return st != CLP_OK ? st : clp_source_assemble(opts, clp_data_dir(), &spec, out, err);
}

/* Host data: x, y in [0.5, 1); even series: 1 then terms too small to change 1 in float
 * (naive summation loses them all); odd series: blocks of 1, B, 1, -B (each sums to 2, and
 * Kahan loses the ones because B is larger than the running sum; KBN keeps them). */
typedef struct selftest_data {
    size_t n, terms, groups;
    float alpha;
    float *x, *y, *y_out, *series, *sums, *partial;
} selftest_data;

static uint64_t next_random(uint64_t *state) {
    /* splitmix64: a fixed, portable sequence so every run checks the same numbers */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float uniform(uint64_t *state) {
    return (float)(next_random(state) >> 40) * 0x1p-24f;
}

static void fill_series(float *t, size_t terms, size_t s, uint64_t *rng) {
    if (s % 2 == 0) {
        t[0] = 1.0f;
        for (size_t k = 1; k < terms; k++)
            t[k] = 1e-8f * (1.0f + uniform(rng));
        return;
    }
    float big = 1e10f * (1.0f + 9.0f * uniform(rng));
    for (size_t k = 0; k < terms; k++) {
        static const float block[4] = {1.0f, 1.0f, 1.0f, -1.0f};
        bool whole_block = k / 4 < terms / 4;
        t[k] = !whole_block ? 0.0f : (k % 2 == 0) ? 1.0f : block[k % 4] * big;
    }
}

static clp_status data_create(const clp_options *opts, selftest_data *d, clp_error *err) {
    d->n = (size_t)clp__selftest_n_of(opts);
    d->terms = (size_t)clp__selftest_terms_of(opts);
    d->groups = groups_for(d->n);
    d->alpha = (float)clp__selftest_alpha_of(opts);
    d->x = malloc(d->n * sizeof(float));
    d->y = malloc(d->n * sizeof(float));
    d->y_out = malloc(d->n * sizeof(float));
    d->series = malloc(SERIES * d->terms * sizeof(float));
    d->sums = malloc(SERIES * sizeof(float));
    d->partial = malloc(d->groups * sizeof(float));
    if (!d->x || !d->y || !d->y_out || !d->series || !d->sums || !d->partial)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for the self-test data");
    uint64_t rng = 20261121;
    for (size_t i = 0; i < d->n; i++) {
        d->x[i] = 0.5f + 0.5f * uniform(&rng);
        d->y[i] = 0.5f + 0.5f * uniform(&rng);
    }
    for (size_t s = 0; s < SERIES; s++)
        fill_series(d->series + s * d->terms, d->terms, s, &rng);
    return CLP_OK;
}

static void data_destroy(selftest_data *d) {
    free(d->x);
    free(d->y);
    free(d->y_out);
    free(d->series);
    free(d->sums);
    free(d->partial);
}

/* The self-test's buffers, its own (model_buffers.c), in the order made; the corrections of the
 * partial sums only with compensated summation, which cl/selftest/selftest.cl fences with
 * CLP_SUMMATION_COMPENSATED. */
enum { X, Y, TERMS, SUMS, PARTIAL, CORRECTION, BUFFERS };
static const char *const buffer_names[BUFFERS] = {[X] = "selftest.x",
                                                  [Y] = "selftest.y",
                                                  [TERMS] = "selftest.terms",
                                                  [SUMS] = "selftest.sums",
                                                  [PARTIAL] = "selftest.partial",
                                                  [CORRECTION] = "selftest.partial_correction"};

/* The program variants of the binding table: without and with the corrections. */
enum { PLAIN = 1, COMPENSATED = 2 };
static const clp_kernel_buffers bindings[] = {
    {"selftest_axpy", 0, {X, Y, CLP_ARGS_END}},
    {"selftest_reduce", PLAIN, {X, PARTIAL, CLP_ARGS_END}},
    {"selftest_reduce", COMPENSATED, {X, PARTIAL, CORRECTION, CLP_ARGS_END}},
    {"selftest_reduce_groups", PLAIN, {PARTIAL, CLP_ARGS_END}},
    {"selftest_reduce_groups", COMPENSATED, {PARTIAL, CORRECTION, CLP_ARGS_END}},
    {"selftest_series", 0, {TERMS, SUMS, CLP_ARGS_END}},
};

/* Makes the buffers, uploads the data, binds and runs every kernel, reads the results. */
static clp_status run_kernels(clp_worker *w, bool compensated, selftest_data *d, clp_buffer **buf,
                              clp_error *err) {
    clp_status st = CLP_OK;
    const size_t f = sizeof(float);
    const size_t bytes[BUFFERS] = {[X] = d->n * f,
                                   [Y] = d->n * f,
                                   [TERMS] = SERIES * d->terms * f,
                                   [SUMS] = SERIES * f,
                                   [PARTIAL] = d->groups * f,
                                   [CORRECTION] = d->groups * f};
    CLP_TRY(clp_worker_buffers_create(w, buffer_names, bytes, compensated ? BUFFERS : CORRECTION,
                                      buf, err));
    CLP_TRY(clp_worker_buffer_write(w, buf[X], d->x, err));
    CLP_TRY(clp_worker_buffer_write(w, buf[Y], d->y, err));
    CLP_TRY(clp_worker_buffer_write(w, buf[TERMS], d->series, err));
    CLP_TRY(clp_worker_bind_buffers(w, bindings, sizeof bindings / sizeof bindings[0],
                                    compensated ? COMPENSATED : PLAIN, buf, err));
    CLP_TRY(clp_launch(w, "selftest_axpy", d->n, 0, NULL, err));
    CLP_TRY(clp_launch(w, "selftest_reduce", d->groups * GROUP_SIZE, GROUP_SIZE, NULL, err));
    CLP_TRY(clp_launch(w, "selftest_reduce_groups", GROUP_SIZE, GROUP_SIZE, NULL, err));
    CLP_TRY(clp_launch(w, "selftest_series", SERIES, 0, NULL, err));
    CLP_TRY(clp_worker_buffer_read(w, buf[Y], d->y_out, err));
    CLP_TRY(clp_worker_buffer_read(w, buf[PARTIAL], d->partial, err));
    CLP_TRY(clp_worker_buffer_read(w, buf[SUMS], d->sums, err));
fail:
    return st;
}

/* Builds the variant for `opts` and runs it; its buffers are freed after. */
static clp_status run_variant(clp_worker *w, const clp_options *opts, clp_cache *cache,
                              selftest_data *d, clp_build_report *report, clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    clp_buffer *buf[BUFFERS] = {0};
    CLP_TRY(clp__selftest_source(opts, NULL, NULL, &source, err));
    CLP_TRY(clp_worker_build_for(w, source, opts, cache, report, err));
    const bool compensated = clp__core_summation_of(opts) != CLP_CORE_SUMMATION_NAIVE;
    CLP_TRY(run_kernels(w, compensated, d, buf, err));
fail:
    for (int i = 0; i < BUFFERS; i++)
        clp_worker_buffer_free(w, buf[i]);
    free(source);
    return st;
}

/* Largest error of y = a*x + y relative to |a*x| + |y|: within one float rounding of each
 * operation, whether or not the device fuses the multiply-add. */
static double axpy_error(const selftest_data *d) {
    double worst = 0;
    for (size_t i = 0; i < d->n; i++) {
        long double ax = (long double)d->alpha * d->x[i];
        long double ref = ax + d->y[i];
        double e = (double)(fabsl(d->y_out[i] - ref) / (fabsl(ax) + fabsl((long double)d->y[i])));
        worst = e > worst ? e : worst;
    }
    return worst;
}

static double reduction_error(const selftest_data *d) {
    long double ref = 0;
    for (size_t i = 0; i < d->n; i++)
        ref += d->x[i];
    return (double)(fabsl(d->partial[0] - ref) / ref);
}

/* Largest relative error over the series of one kind (parity 0 or 1). */
static double series_error(const selftest_data *d, size_t parity) {
    double worst = 0;
    for (size_t s = parity; s < SERIES; s += 2) {
        long double ref = 0;
        for (size_t k = 0; k < d->terms; k++)
            ref += d->series[s * d->terms + k];
        double e = (double)(fabsl(d->sums[s] - ref) / fabsl(ref));
        worst = e > worst ? e : worst;
    }
    return worst;
}

static void add_row(clp_selftest_result *rows, size_t max, size_t *n, const char *name,
                    const char *mode, double error, double tolerance, bool expect_loss) {
    if (*n >= max)
        return;
    clp_selftest_result *r = &rows[(*n)++];
    snprintf(r->name, sizeof r->name, "%s%s%s", name, mode ? "/" : "", mode ? mode : "");
    r->error = error;
    r->tolerance = tolerance;
    r->expect_loss = expect_loss;
    r->passed = expect_loss ? error > tolerance : error <= tolerance;
}

/* The bounds: a sum of positive terms along a path of k additions is within k*u of the
 * exact sum (u = FLT_EPSILON/2), and Kahan/KBN within 2u + k*u^2 (Higham, ch. 4). */
static void check_mode(const selftest_data *d, clp__core_summation sum, clp_selftest_result *rows,
                       size_t max, size_t *n, double *axpy_worst) {
    const double u = FLT_EPSILON / 2;
    double e = axpy_error(d);
    *axpy_worst = e > *axpy_worst ? e : *axpy_worst;
    double items = ceil((double)d->n / (double)(d->groups * GROUP_SIZE));
    double path = items + 2 * log2(GROUP_SIZE) + ceil((double)d->groups / GROUP_SIZE) + 1;
    double merge_adds =
        sum == CLP_CORE_SUMMATION_NAIVE ? 1 : 2; /* a compensated merge adds twice */
    add_row(rows, max, n, "reduction", clp__core_summation_name(sum), reduction_error(d),
            merge_adds * path * u, false);
    double compensated = 2 * u + (double)d->terms * u * u;
    add_row(rows, max, n, "series-small-terms", clp__core_summation_name(sum), series_error(d, 0),
            compensated, sum == CLP_CORE_SUMMATION_NAIVE);
    add_row(rows, max, n, "series-large-term", clp__core_summation_name(sum), series_error(d, 1),
            compensated, sum != CLP_CORE_SUMMATION_KBN);
}

clp_status clp_selftest_run(clp_worker *w, const clp_options *opts, clp_cache *cache,
                            clp_selftest_result *rows, size_t max_rows, size_t *n_rows,
                            clp_build_report *reports, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *variant = NULL;
    selftest_data d = {0};
    double axpy_worst = 0;
    *n_rows = 0;
    CLP_TRY(data_create(opts, &d, err));
    for (size_t m = 0; m < MODES; m++) {
        CLP_TRY(clp_options_dup(opts, &variant, err));
        CLP_TRY(clp__core_summation_set(variant, (clp__core_summation)m, err));
        CLP_TRY(run_variant(w, variant, cache, &d, reports ? &reports[m] : NULL, err));
        check_mode(&d, (clp__core_summation)m, rows, max_rows, n_rows, &axpy_worst);
        clp_options_destroy(variant);
        variant = NULL;
    }
    add_row(rows, max_rows, n_rows, "axpy", NULL, axpy_worst, FLT_EPSILON, false);
    for (size_t i = 0; i < *n_rows; i++)
        if (!rows[i].passed)
            st = CLP_FAIL(err, CLP_CHECK,
                          "self-test '%s' failed on device '%s': error %.3g, %s %.3g", rows[i].name,
                          clp_worker_device(w)->name, rows[i].error,
                          rows[i].expect_loss ? "expected above" : "bound", rows[i].tolerance);
fail:
    clp_options_destroy(variant);
    data_destroy(&d);
    return st;
}
