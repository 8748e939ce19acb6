/* The worker on a real device: builds through the cache (a second build is a hit, any change
 * of option, flag or device gives a new key), build errors point at cl/ file:line, corrupt
 * entries are rebuilt, buffers follow the options and out-of-memory names the buffer,
 * launches guard partial work-groups. */
#include "common.h"

static char *selftest_source(const clp_options *opts) {
    clp_error err = CLP_ERROR_INIT;
    clp_model_storage storage;
    clp_program_spec spec;
    char *source;
    CLP_ASSERT_OK(clp_selftest_spec(opts, &storage, &spec, &err), &err);
    CLP_ASSERT_OK(clp_source_assemble(opts, clp_data_dir(), &spec, &source, &err), &err);
    return source;
}

/* Builds the selftest program for `opts` through the cache at `dir`; returns the report. */
static clp_build_report build(test_env *t, const char *dir, const clp_options *opts) {
    clp_error err = CLP_ERROR_INIT;
    clp_cache *cache;
    char *flags;
    clp_build_report report;
    char *source = selftest_source(opts);
    CLP_ASSERT_OK(clp_cache_open(dir, &cache, &err), &err);
    CLP_ASSERT_OK(clp_build_flags(t->device, opts, &flags, &err), &err);
    CLP_ASSERT_OK(clp_worker_build(t->worker, source, flags, cache, &report, &err), &err);
    clp_cache_close(cache);
    free(flags);
    free(source);
    return report;
}

static size_t count_entries(const char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.clpbin' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    CLP_ASSERT(p && fscanf(p, "%zu", &n) == 1);
    pclose(p);
    return n;
}

static void test_cache_hits_and_keys(test_env *t) {
    clp_options *opts = test_options(t, NULL);
    clp_build_report first = build(t, t->cache_dir, opts);
    clp_build_report second = build(t, t->cache_dir, opts);
    CLP_ASSERT(!first.cache_hit);
    CLP_ASSERT(second.cache_hit);
    CLP_ASSERT_STR_EQ(first.key, second.key);
    CLP_ASSERT_EQ(count_entries(t->cache_dir), 1);

    /* An option, a build flag: new keys, each built once then hit. */
    const char *changed_option[] = {"core.summation=kbn", NULL};
    const char *changed_flag[] = {"core.mad=true", NULL};
    const char *const *variants[] = {changed_option, changed_flag};
    for (size_t i = 0; i < 2; i++) {
        clp_options *other = test_options(t, variants[i]);
        clp_build_report a = build(t, t->cache_dir, other);
        clp_build_report b = build(t, t->cache_dir, other);
        CLP_ASSERT(strcmp(a.key, first.key) != 0);
        CLP_ASSERT(!a.cache_hit && b.cache_hit);
        clp_options_destroy(other);
    }
    CLP_ASSERT_EQ(count_entries(t->cache_dir), 3);

    /* Every device identity field is part of the key. */
    char *source = selftest_source(opts);
    char *base = clp_cache_key_record(source, "-cl-std=CL1.2", t->device);
    char base_hash[33];
    clp_cache_key_hash(base, base_hash);
    for (int field = 0; field < 5; field++) {
        clp_device_info other = *t->device;
        char *targets[] = {other.platform_name, other.platform_version, other.name,
                           other.device_version, other.driver_version};
        strcat(targets[field], "x");
        char *record = clp_cache_key_record(source, "-cl-std=CL1.2", &other);
        char hash[33];
        clp_cache_key_hash(record, hash);
        CLP_ASSERT(strcmp(hash, base_hash) != 0);
        free(record);
    }
    free(base);
    free(source);
    clp_options_destroy(opts);
}

/* The line of `needle` in a cl/ file, found by reading the file (not through clpart). */
static int line_of(const char *relative, const char *needle) {
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/%s", clp_data_dir(), relative);
    FILE *f = fopen(path, "r");
    CLP_ASSERT(f != NULL);
    for (int n = 1; fgets(line, sizeof line, f); n++) {
        if (strstr(line, needle)) {
            fclose(f);
            return n;
        }
    }
    fclose(f);
    CLP_TEST_FAIL("'%s' not found in %s", needle, relative);
}

static void test_build_errors(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const char *broken = "#line 1 \"cl/test/broken.cl\"\n"
                         "__kernel void broken(__global float *x) {\n"
                         "    x[0] = undefined_name;\n"
                         "}\n";
    CLP_ASSERT_STATUS(clp_worker_build(t->worker, broken, "-cl-std=CL1.2", NULL, NULL, &err),
                      CLP_BUILD, &err);
    CLP_ASSERT_STR_EQ(err.source, "cl/test/broken.cl");
    CLP_ASSERT_EQ(err.line, 2); /* the line after #line 1 is line 1 */
    CLP_ASSERT(err.column > 0);
    CLP_ASSERT_CONTAINS(err.message, "undefined_name");
    CLP_ASSERT_CONTAINS(clp_worker_build_log(t->worker), "undefined_name");

    /* A forbidden option combination stops the build at its #error, in the real file. */
    const char *fast[] = {"core.fast_math=true", NULL};
    clp_options *opts = test_options(t, fast);
    char *source = selftest_source(opts);
    char *flags;
    clp_error_clear(&err);
    CLP_ASSERT_OK(clp_build_flags(t->device, opts, &flags, &err), &err);
    CLP_ASSERT_CONTAINS(flags, "-cl-fast-relaxed-math");
    CLP_ASSERT_STATUS(clp_worker_build(t->worker, source, flags, NULL, NULL, &err), CLP_BUILD,
                      &err);
    CLP_ASSERT_STR_EQ(err.source, "cl/common/summation.cl");
    CLP_ASSERT_EQ(err.line, line_of("cl/common/summation.cl", "#error \"core.fast_math"));
    CLP_ASSERT_CONTAINS(err.message, "core.fast_math");
    free(flags);
    free(source);
    clp_options_destroy(opts);
}

static void flip_byte_of_entry(const char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.clpbin'", dir);
    FILE *p = popen(cmd, "r");
    char path[512];
    CLP_ASSERT(p && fgets(path, sizeof path, p));
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
    FILE *f = fopen(path, "r+b");
    CLP_ASSERT(f != NULL);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(c ^ 0x5a, f);
    fclose(f);
}

static void test_corrupt_entry_rebuilt(test_env *t) {
    char dir[300];
    snprintf(dir, sizeof dir, "%s/corrupt", t->cache_dir);
    clp_options *opts = test_options(t, NULL);
    CLP_ASSERT(!build(t, dir, opts).cache_hit);
    flip_byte_of_entry(dir);
    CLP_ASSERT(!build(t, dir, opts).cache_hit); /* detected, removed, rebuilt */
    CLP_ASSERT(build(t, dir, opts).cache_hit);
    CLP_ASSERT_EQ(count_entries(dir), 1);
    clp_options_destroy(opts);
}

static void test_unwritable_cache_still_builds(test_env *t) {
    char file[300], dir[320];
    snprintf(file, sizeof file, "%s/plain-file", t->cache_dir);
    FILE *f = fopen(file, "w");
    CLP_ASSERT(f != NULL);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/cache", file); /* cannot be created: its parent is a file */
    clp_options *opts = test_options(t, NULL);
    CLP_ASSERT(!build(t, dir, opts).cache_hit);
    CLP_ASSERT(!build(t, dir, opts).cache_hit);
    clp_options_destroy(opts);
}

static char logged[8192];

static void capture(clp_log_level level, unsigned category, const char *text, void *user) {
    (void)level, (void)category, (void)user;
    strncat(logged, text, sizeof logged - strlen(logged) - 1);
}

/* A build log with warnings is stored with the entry and shown again on a hit (at -v). Where
 * the device's compiler logs no #warning (NVIDIA's), there is no such log to keep. */
static void test_warning_log_kept(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const char *source = "#line 1 \"cl/test/warn.cl\"\n"
                         "#warning clpart-test-warning\n"
                         "__kernel void warn(__global float *x) { x[0] = 1.0f; }\n";
    char dir[300];
    snprintf(dir, sizeof dir, "%s/warn", t->cache_dir);
    clp_cache *cache;
    clp_build_report report;
    CLP_ASSERT_OK(clp_cache_open(dir, &cache, &err), &err);
    CLP_ASSERT_OK(clp_worker_build(t->worker, source, "-cl-std=CL1.2", cache, &report, &err), &err);
    CLP_ASSERT(!report.cache_hit);
    if (!strstr(clp_worker_build_log(t->worker), "clpart-test-warning")) {
        printf("skipped the kept build log: '%s' logs no #warning\n",
               clp_worker_device(t->worker)->name);
        clp_cache_close(cache);
        return;
    }
    clp_log_configure(CLP_LOG_INFO, 0);
    clp_log_set_sink(capture, NULL);
    CLP_ASSERT_OK(clp_worker_build(t->worker, source, "-cl-std=CL1.2", cache, &report, &err), &err);
    clp_log_set_sink(NULL, NULL);
    clp_log_configure(CLP_LOG_WARN, 0);
    CLP_ASSERT(report.cache_hit);
    CLP_ASSERT_CONTAINS(clp_worker_build_log(t->worker), "clpart-test-warning");
    CLP_ASSERT_CONTAINS(logged, "cache hit");
    CLP_ASSERT_CONTAINS(logged, "clpart-test-warning");
    clp_cache_close(cache);
}

/* The CLP_BUF_* set: id always, pos_rebuilt unless neighbors.every is 1 (a needs_not row), the
 * constants, when not inlined, as many as counted. */
static void test_buffers(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const clp_buffer_set all = CLP_BUF_ID | CLP_BUF_POS_REBUILT;
    const char *skin[] = {"neighbors.every=4", NULL};
    const char *passed[] = {"core.inline_constants=false", NULL};
    clp_options *plain = test_options(t, NULL);
    clp_options *skinned = test_options(t, skin);
    clp_options *constants = test_options(t, passed);
    CLP_ASSERT_EQ(clp_buffers_needed(all, plain), CLP_BUF_ID);
    CLP_ASSERT_EQ(clp_buffers_needed(all, skinned), all);

    clp_buffer_counts counts = {.particles = 1000};
    counts.custom[clp__buffer_index(CLP_BUF_CONSTANTS)] = 7;
    CLP_ASSERT_OK(clp_worker_alloc(t->worker, all | CLP_BUF_CONSTANTS, constants, &counts, &err),
                  &err);
    CLP_ASSERT_EQ(clp_worker_buffers(t->worker), CLP_BUF_ID | CLP_BUF_CONSTANTS);
    CLP_ASSERT_EQ(clp_worker_buffer_bytes(t->worker, CLP_BUF_ID), 4000);
    CLP_ASSERT_EQ(clp_worker_buffer_bytes(t->worker, CLP_BUF_CONSTANTS), 28);

    /* More than the device can hold in one allocation: refused, naming the buffer and its
     * bytes; where the largest allocation is the whole memory (rusticl's 2 GiB), refused for
     * the total, with its bytes. */
    clp_buffer_counts huge = {.particles = (size_t)(t->device->max_mem_alloc_size / 4 + 1)};
    CLP_ASSERT_STATUS(clp_worker_alloc(t->worker, CLP_BUF_ID, plain, &huge, &err),
                      CLP_DEVICE_MEMORY, &err);
    char expected[128];
    if (huge.particles * 4 > t->device->global_mem_size)
        snprintf(expected, sizeof expected, "the buffers need %zu bytes", huge.particles * 4);
    else
        snprintf(expected, sizeof expected, "buffer \"id\" (%zu bytes)", huge.particles * 4);
    CLP_ASSERT_CONTAINS(err.message, expected);
    clp_options_destroy(plain);
    clp_options_destroy(skinned);
    clp_options_destroy(constants);
}

/* axpy over 1000 elements, not a multiple of the work-group size: the kernel's guard keeps
 * the rounded-up work-items out of bounds. Its x and y are two buffers of the test's own, which
 * a step of no bits takes as its arguments (clp_worker_set_step_buffers). */
static void test_launch(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const char *small[] = {"selftest.n=1000", "selftest.alpha=2", NULL};
    clp_options *opts = test_options(t, small);
    build(t, t->cache_dir, opts);
    size_t local = 0;
    CLP_ASSERT_OK(clp_launch_local_size(t->worker, "selftest_axpy", &local, &err), &err);
    CLP_ASSERT(local >= 1 && local <= t->device->max_work_group_size);
    const char *const names[] = {"test.x", "test.y"};
    const size_t bytes[] = {1000 * sizeof(float), 1000 * sizeof(float)};
    clp_buffer *xy[2];
    CLP_ASSERT_OK(clp_worker_buffers_create(t->worker, names, bytes, 2, xy, &err), &err);
    float x[1000], y[1000];
    for (int i = 0; i < 1000; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    CLP_ASSERT_OK(clp_worker_buffer_write(t->worker, xy[0], x, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_write(t->worker, xy[1], y, &err), &err);
    clp_worker_set_profiling(t->worker, true);
    double seconds = -1;
    clp_step step = {"selftest_axpy", 0, 1000, 0};
    CLP_ASSERT_OK(clp_worker_set_step_buffers(t->worker, &step, xy, 2, &err), &err);
    CLP_ASSERT_OK(clp_worker_run_step(t->worker, &step, &seconds, &err), &err);
    CLP_ASSERT(seconds >= 0);
    CLP_ASSERT_OK(clp_worker_buffer_read(t->worker, xy[1], y, &err), &err);
    for (int i = 0; i < 1000; i++)
        CLP_ASSERT_EQ(y[i], 2 * i + 1); /* exact in float for these values */

    /* a ranged step: exactly elements first .. first + count - 1, across a whole group and a
     * remainder (and a remainder alone), none outside them */
    const size_t ranges[][2] = {{5, local + 3}, {local + 1, local - 1 ? local - 1 : 1}};
    for (size_t r = 0; r < 2; r++) {
        for (int i = 0; i < 1000; i++)
            y[i] = 1.0f;
        CLP_ASSERT_OK(clp_worker_buffer_write(t->worker, xy[1], y, &err), &err);
        const size_t first = ranges[r][0], count = ranges[r][1];
        CLP_ASSERT_OK(clp_worker_run_step_range(t->worker, &step, first, count, NULL, &err), &err);
        CLP_ASSERT_OK(clp_worker_buffer_read(t->worker, xy[1], y, &err), &err);
        for (size_t i = 0; i < 1000; i++) {
            const bool inside = i >= first && i < first + count;
            if (y[i] != (inside ? 2.0f * (float)i + 1 : 1.0f))
                CLP_TEST_FAIL("range %zu from %zu: element %zu is %g", count, first, i, y[i]);
        }
    }

    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp_launch(t->worker, "no_such_kernel", 10, 0, NULL, &err), CLP_CL, &err);
    CLP_ASSERT_CONTAINS(err.message, "no_such_kernel");
    CLP_ASSERT_CONTAINS(err.message, "CL_INVALID_KERNEL_NAME");
    clp_options_destroy(opts);
}

int main(void) {
    test_env t = {0};
    test_env_open(&t);
    test_cache_hits_and_keys(&t);
    test_build_errors(&t);
    test_corrupt_entry_rebuilt(&t);
    test_unwritable_cache_still_builds(&t);
    test_warning_log_kept(&t);
    test_buffers(&t);
    test_launch(&t);
    test_env_close(&t);
    return 0;
}
