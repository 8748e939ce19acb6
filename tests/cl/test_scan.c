/* The grid's device scan and radix sort against host references: exclusive scans over one to
 * three levels, in place, of zeros and of nothing; stable sorts of keys with many duplicates and
 * of keys using 24 bits. "--small" keeps every size at 1500 elements or fewer for Oclgrind. */
#include "common.h"
#include "grid/grid_private.h"

#include <stdint.h>

static const uint32_t SENTINEL = 0xdeadbeefu;
enum { TAIL = 4 }; /* sentinel elements past n that must stay as they are */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: the same numbers on every host. */
static uint32_t next_random(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static void build_program(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const char *modules[] = {"core"};
    const char *files[] = {"grid/scan.cl", "grid/radix.cl"};
    /* No CLP_GRID_SCAN_GROUP constant: the cl/ file's default must equal the host's, or the
     * launches fail against reqd_work_group_size. */
    clp_program_spec spec = {
        .model = "test", .modules = modules, .n_modules = 1, .cl_files = files, .n_files = 2};
    clp_options *opts = test_options(t, NULL);
    char *source, *flags;
    CLP_ASSERT_OK(clp_source_assemble(opts, clp_data_dir(), &spec, &source, &err), &err);
    CLP_ASSERT_OK(clp_build_flags(t->device, opts, &flags, &err), &err);
    CLP_ASSERT_OK(clp_worker_build(t->worker, source, flags, NULL, NULL, &err), &err);
    free(flags);
    free(source);
    clp_options_destroy(opts);
}

/* A device buffer of n + TAIL uints: `data` (or zeros when NULL), then sentinels. */
static cl_mem upload(test_env *t, const uint32_t *data, size_t n) {
    uint32_t *host = malloc((n + TAIL) * sizeof *host);
    CLP_ASSERT(host != NULL);
    for (size_t i = 0; i < n + TAIL; i++)
        host[i] = i >= n ? SENTINEL : data ? data[i] : 0;
    cl_int rc;
    cl_mem mem =
        clCreateBuffer(clp_worker_context(t->worker), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                       (n + TAIL) * sizeof *host, host, &rc);
    CLP_ASSERT_EQ(rc, CL_SUCCESS);
    free(host);
    return mem;
}

/* The n + TAIL uints of `mem` (new); the TAIL past n must still be sentinels. */
static uint32_t *download(test_env *t, cl_mem mem, size_t n) {
    uint32_t *host = malloc((n + TAIL) * sizeof *host);
    CLP_ASSERT(host != NULL);
    CLP_ASSERT_EQ(clEnqueueReadBuffer(clp_worker_queue(t->worker), mem, CL_TRUE, 0,
                                      (n + TAIL) * sizeof *host, host, 0, NULL, NULL),
                  CL_SUCCESS);
    for (size_t i = n; i < n + TAIL; i++)
        CLP_ASSERT_EQ(host[i], SENTINEL);
    return host;
}

/* Checks that out[i] == in[0] + ... + in[i-1], summed here in 64 bits. */
static void check_exclusive(const uint32_t *in, const uint32_t *out, size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (out[i] != sum)
            CLP_TEST_FAIL("n = %zu: out[%zu] = %u, expected %llu", n, i, out[i],
                          (unsigned long long)sum);
        sum += in[i];
    }
    CLP_ASSERT(sum <= UINT32_MAX); /* the test's values never overflow the device's uints */
}

/* Values in [0, limit): 3,000,000 of them below 1000 sum to less than 2^32. */
static uint32_t *random_values(size_t n, uint32_t limit) {
    uint32_t *v = malloc((n ? n : 1) * sizeof *v);
    CLP_ASSERT(v != NULL);
    for (size_t i = 0; i < n; i++)
        v[i] = next_random() % limit;
    return v;
}

static void scan_and_check(test_env *t, clp__scan *scan, const uint32_t *values, size_t n,
                           bool in_place) {
    clp_error err = CLP_ERROR_INIT;
    cl_mem in = upload(t, values, n);
    cl_mem out = in_place ? in : upload(t, NULL, n);
    CLP_ASSERT_OK(clp__scan_exclusive(scan, in, out, n, &err), &err);
    uint32_t *result = download(t, out, n);
    check_exclusive(values, result, n);
    if (!in_place) { /* the input is left as it was */
        uint32_t *input = download(t, in, n);
        CLP_ASSERT(n == 0 || memcmp(input, values, n * sizeof *values) == 0);
        free(input);
        clReleaseMemObject(out);
    }
    free(result);
    clReleaseMemObject(in);
}

/* One level per 512-fold reduction of the element count, down to one block total; scratch
 * over the device's largest allocation is refused, naming the buffer and its bytes. */
static void test_scratch_sizes(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const size_t capacities[] = {0, 1, 512, 513, 262144, 262147, 3000000};
    const size_t levels[] = {0, 1, 1, 2, 2, 3, 3};
    for (size_t i = 0; i < sizeof capacities / sizeof *capacities; i++) {
        clp__scan scan;
        CLP_ASSERT_OK(clp__scan_create(t->worker, capacities[i], &scan, &err), &err);
        CLP_ASSERT_EQ(scan.n_levels, levels[i]);
        clp__scan_destroy(&scan);
    }

    /* Past 2^32 - 512 elements the scan refuses first (the kernels index with uint). */
    const size_t too_many = (size_t)(t->device->max_mem_alloc_size / 4 + 1);
    clp__radix radix;
    if (too_many <= UINT32_MAX / 2) {
        CLP_ASSERT_STATUS(clp__radix_create(t->worker, too_many, &radix, &err), CLP_DEVICE_MEMORY,
                          &err);
        char expected[96];
        snprintf(expected, sizeof expected, "buffer \"radix flags\" (%zu bytes)", too_many * 4);
        CLP_ASSERT_CONTAINS(err.message, expected);
    }
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__radix_create(t->worker, (size_t)UINT32_MAX, &radix, &err), CLP_USAGE,
                      &err);
    CLP_ASSERT_CONTAINS(err.message, "scan of 4294967295 elements");
}

/* Up to three levels: 262147 and 3,000,000 elements have 513 and 5860 block totals. */
static void test_scan(test_env *t, clp__scan *scan, bool small) {
    clp_error err = CLP_ERROR_INIT;
    const size_t sizes[] = {1, 2, 511, 512, 513, 1000, 1500, 262144 + 3, 3000000};
    const size_t n_sizes = small ? 7 : sizeof sizes / sizeof *sizes;
    const size_t capacity = scan->capacity;
    CLP_ASSERT_EQ(capacity, sizes[n_sizes - 1]);
    for (size_t i = 0; i < n_sizes; i++) {
        uint32_t *values = random_values(sizes[i], 1000);
        scan_and_check(t, scan, values, sizes[i], false);
        scan_and_check(t, scan, values, sizes[i], true);
        free(values);
    }

    /* All zeros, and the largest values that cannot overflow at this size. */
    uint32_t *values = calloc(capacity, sizeof *values);
    CLP_ASSERT(values != NULL);
    scan_and_check(t, scan, values, capacity, false);
    for (size_t i = 0; i < capacity; i++)
        values[i] = UINT32_MAX / (uint32_t)capacity;
    scan_and_check(t, scan, values, capacity, true);
    free(values);

    /* n = 0 writes nothing; more than the capacity is a usage error. */
    scan_and_check(t, scan, NULL, 0, false);
    cl_mem mem = upload(t, NULL, capacity + 1);
    CLP_ASSERT_STATUS(clp__scan_exclusive(scan, mem, mem, capacity + 1, &err), CLP_USAGE, &err);
    char expected[96];
    snprintf(expected, sizeof expected, "scan of %zu elements", capacity + 1);
    CLP_ASSERT_CONTAINS(err.message, expected);
    clReleaseMemObject(mem);
}

typedef struct pair {
    uint32_t key, index;
} pair;

static int compare_pairs(const void *a, const void *b) {
    const pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorts n random keys below `limit` with values 0..n-1 on `bits` bits and compares both with
 * a host stable sort by (low bits of the key, original index). */
static void sort_and_check(test_env *t, clp__radix *radix, size_t n, uint32_t limit,
                           unsigned bits) {
    clp_error err = CLP_ERROR_INIT;
    uint32_t *keys = random_values(n, limit);
    uint32_t *values = malloc((n ? n : 1) * sizeof *values);
    pair *expected = malloc((n ? n : 1) * sizeof *expected);
    CLP_ASSERT(values != NULL && expected != NULL);
    const uint32_t mask = bits >= 32 ? UINT32_MAX : (1u << bits) - 1;
    for (size_t i = 0; i < n; i++) {
        values[i] = (uint32_t)i;
        expected[i] = (pair){keys[i] & mask, (uint32_t)i};
    }
    qsort(expected, n, sizeof *expected, compare_pairs);

    cl_mem dkeys = upload(t, keys, n), dvalues = upload(t, values, n);
    CLP_ASSERT_OK(clp__radix_sort(radix, dkeys, dvalues, n, bits, &err), &err);
    uint32_t *sorted_keys = download(t, dkeys, n), *sorted_values = download(t, dvalues, n);
    for (size_t i = 0; i < n; i++) {
        if (sorted_values[i] != expected[i].index || sorted_keys[i] != keys[expected[i].index])
            CLP_TEST_FAIL("n = %zu, %u bits: slot %zu holds (key %u, value %u), expected "
                          "(key %u, value %u)",
                          n, bits, i, sorted_keys[i], sorted_values[i], keys[expected[i].index],
                          expected[i].index);
    }
    free(sorted_keys);
    free(sorted_values);
    clReleaseMemObject(dkeys);
    clReleaseMemObject(dvalues);
    free(expected);
    free(values);
    free(keys);
}

/* Small sizes keep Oclgrind to about 50 passes over 600 pairs. */
static void test_radix(test_env *t, clp__radix *radix, bool small) {
    clp_error err = CLP_ERROR_INIT;
    const size_t big = radix->capacity;
    const size_t some = small ? big : 100000;
    sort_and_check(t, radix, 1, 1000, 10);
    sort_and_check(t, radix, 1, 1000, 11);                  /* odd pass count: copied back */
    sort_and_check(t, radix, some, small ? 100 : 1000, 10); /* many duplicates */
    sort_and_check(t, radix, some, 1u << 13, 13);
    sort_and_check(t, radix, some, UINT32_MAX, 5); /* only the low bits order */
    sort_and_check(t, radix, big, 1u << 24, 24);
    sort_and_check(t, radix, big, 1000, 0); /* no bits: nothing moves */

    /* Nothing to sort, and more than the capacity. */
    cl_mem mem = upload(t, NULL, big + 1);
    CLP_ASSERT_OK(clp__radix_sort(radix, mem, mem, 0, 10, &err), &err);
    CLP_ASSERT_STATUS(clp__radix_sort(radix, mem, mem, big + 1, 10, &err), CLP_USAGE, &err);
    char expected[96];
    snprintf(expected, sizeof expected, "radix sort of %zu pairs", big + 1);
    CLP_ASSERT_CONTAINS(err.message, expected);
    clReleaseMemObject(mem);
}

int main(int argc, char **argv) {
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    build_program(&t);
    /* The scratch is made before any buffer is released and released last: Oclgrind 21.10's
     * --uninitialized keeps the shadow of a released buffer, so a buffer written only by
     * kernels that takes its slot would read as uninitialised beyond the old buffer's size. */
    clp_error err = CLP_ERROR_INIT;
    clp__scan scan;
    clp__radix radix;
    CLP_ASSERT_OK(clp__scan_create(t.worker, small ? 1500 : 3000000, &scan, &err), &err);
    CLP_ASSERT_OK(clp__radix_create(t.worker, small ? 600 : 1000003, &radix, &err), &err);
    test_scan(&t, &scan, small);
    test_radix(&t, &radix, small);
    clp__radix_destroy(&radix);
    clp__scan_destroy(&scan);
    test_scratch_sizes(&t);
    test_env_close(&t);
    return 0;
}
