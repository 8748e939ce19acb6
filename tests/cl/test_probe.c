/* The device probes of clpart bench (cl/bench/probe.cl, src/bench/probe.c) on the default
 * device: every figure finite with min <= avg <= max and the best the right end; the arrays
 * after BabelStream's rounds equal, bit for bit, to the host's float computation of the same
 * rounds, the dot's sum to the host's double sum; the FMA chains' sums (float and, where the
 * device has it, double) equal to the host's; the array sizing rule on made-up devices; bad
 * sizes refused. With --small, sizes fit a run under Oclgrind. */
#include "common.h"

#include <math.h>
#include <string.h>

enum { ROUNDS = 256 }; /* CLP_PROBE_FMA_ROUNDS as src/bench/probe.c sets it */
static const float S = 0.4f;

static void check_stat(const char *name, clp_probe_stat s, bool rate) {
    CLP_ASSERT(isfinite(s.min) && isfinite(s.avg) && isfinite(s.max) && s.min >= 0);
    CLP_ASSERT(s.min <= s.avg * (1 + 1e-12) && s.avg <= s.max * (1 + 1e-12));
    CLP_ASSERT(s.best == (rate ? s.max : s.min));
    if (rate)
        CLP_ASSERT(s.min > 0);
    printf("ok %s: min %.4g, avg %.4g, max %.4g, best %.4g\n", name, s.min, s.avg, s.max, s.best);
}

/* The probes' array `name` ("probe.a"), which clp_probe_run leaves on the worker. */
static const clp_buffer *array(test_env *t, const char *name) {
    const clp_buffer *b = clp_worker_buffer_find(t->worker, name);
    CLP_ASSERT(b != NULL);
    return b;
}

static void read_array(test_env *t, const char *name, float *out) {
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp_worker_buffer_read(t->worker, array(t, name), out, &err), &err);
}

static void same_floats(const char *what, const float *got, const float *want, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            printf("not ok %s: element %zu is %.9g, not %.9g\n", what, i, got[i], want[i]);
            exit(1);
        }
    printf("ok %s: what the host computes, bit for bit (%zu floats)\n", what, n);
}

/* The host's FMA chains from a, in float or in double (widened from float), into want. */
static void fma_chains(const float *a, size_t n, bool in_double, float *want) {
    for (size_t i = 0; i < n; i++) {
        double x[8];
        for (int k = 0; k < 8; k++)
            x[k] = in_double ? (double)a[i] + k : (double)(a[i] + (float)k);
        for (int round = 0; round < ROUNDS; round++)
            for (int k = 0; k < 8; k++)
                x[k] = in_double ? fma(x[k], (double)0.999f, (double)0.001f)
                                 : (double)fmaf((float)x[k], 0.999f, 0.001f);
        if (in_double)
            want[i] = (float)(((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7])));
        else {
            float f[8];
            for (int k = 0; k < 8; k++)
                f[k] = (float)x[k];
            want[i] = ((f[0] + f[1]) + (f[2] + f[3])) + ((f[4] + f[5]) + (f[6] + f[7]));
        }
    }
}

/* Runs an FMA kernel over the first `n` / 4 float4s of the arrays (at most 1024: the host's
 * chains are slow) and compares c there with the host's chains. */
static void check_fma(test_env *t, const char *kernel, const float *a, bool in_double, size_t n) {
    clp_error err = CLP_ERROR_INIT;
    n = n < 4096 ? n : 4096;
    float *c = malloc(n * sizeof *c), *want = malloc(n * sizeof *want);
    CLP_ASSERT(c && want);
    /* its arguments a and c, bound by clp_probe_run */
    CLP_ASSERT_OK(clp_launch(t->worker, kernel, n / 4, 0, NULL, &err), &err);
    CLP_ASSERT_OK(
        clp_worker_buffer_read_range(t->worker, array(t, "probe.c"), 0, n * sizeof *c, c, &err),
        &err);
    fma_chains(a, n, in_double, want);
    same_floats(kernel, c, want, n);
    free(c);
    free(want);
}

/* The sizing rule on a made-up device: cache, largest allocation and global memory in MiB. */
static size_t floats_on(unsigned cache, unsigned alloc, unsigned global, size_t asked) {
    clp_device_info dev = {0};
    dev.global_mem_cache_size = (cl_ulong)cache << 20;
    dev.max_mem_alloc_size = (cl_ulong)alloc << 20;
    dev.global_mem_size = (cl_ulong)global << 20;
    return clp_probe_floats(&dev, asked);
}

static void check_sizing(void) {
    const size_t mib = 1 << 18;                            /* floats in a MiB */
    CLP_ASSERT(floats_on(32, 1024, 4096, 0) == 128 * mib); /* 4 x a 32 MiB L3 */
    CLP_ASSERT(floats_on(1, 1024, 4096, 0) == 64 * mib);   /* at least 64 MiB */
    CLP_ASSERT(floats_on(0, 1024, 4096, 0) == 64 * mib);   /* no cache reported */
    CLP_ASSERT(floats_on(32, 100, 4096, 0) == 100 * mib);  /* the largest allocation */
    CLP_ASSERT(floats_on(32, 1024, 600, 0) == 100 * mib);  /* 3 arrays in half of 600 MiB */
    CLP_ASSERT(floats_on(32, 1024, 4096, 1002) == 1000);   /* as asked, a multiple of 4 */
    CLP_ASSERT(floats_on(32, 1, 4096, 1 << 30) == mib);    /* asked, within the allocation */
    printf("ok the arrays: 4 x the cache, at least 64 MiB, within the device's memory\n");
}

int main(int argc, char **argv) {
    check_sizing();
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    const size_t n = small ? 256 : 1 << 20;
    const int iterations = small ? 2 : 4;
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = test_options(&t, NULL);
    clp_probe_result r;
    CLP_ASSERT_OK(clp_probe_run(t.worker, opts, NULL, n, iterations, &r, &err), &err);
    CLP_ASSERT(r.floats == n && r.array_bytes == 4 * n && r.iterations == iterations);
    CLP_ASSERT(r.cache_bytes == t.device->global_mem_cache_size);
    CLP_ASSERT(r.beyond_cache == (r.cache_bytes > 0 && 4 * n >= 4 * r.cache_bytes));
    CLP_ASSERT(r.has_fp64 == t.device->fp64);
    const struct {
        const char *name;
        clp_probe_stat stat;
        bool rate;
    } stats[] = {{"copy", r.copy, true},
                 {"mul", r.mul, true},
                 {"add", r.add, true},
                 {"triad", r.triad, true},
                 {"dot", r.dot, true},
                 {"fp32", r.fp32, true},
                 {"h2d", r.h2d, true},
                 {"d2h", r.d2h, true},
                 {"launch_wall", r.launch_wall, false},
                 {"launch_device", r.launch_device, false}};
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
        check_stat(stats[i].name, stats[i].stat, stats[i].rate);
    if (r.has_fp64)
        check_stat("fp64", r.fp64, true);
    else
        CLP_ASSERT(r.fp64.min == 0 && r.fp64.avg == 0 && r.fp64.max == 0 && r.fp64.best == 0);
    CLP_ASSERT(r.launch_wall.min > 0);

    /* BabelStream's rounds from the start, one untimed and `iterations` timed */
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    float *got = malloc(n * sizeof *got);
    CLP_ASSERT(a && b && c && got);
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 1000) * 0.001f;
        b[i] = 1.0f - a[i];
    }
    for (int k = 0; k <= iterations; k++)
        for (size_t i = 0; i < n; i++) {
            c[i] = a[i];
            b[i] = S * c[i];
            c[i] = a[i] + b[i];
            a[i] = fmaf(S, c[i], b[i]);
        }
    read_array(&t, "probe.a", got);
    same_floats("a after copy, mul, add, triad", got, a, n);
    read_array(&t, "probe.b", got);
    same_floats("b after copy, mul, add, triad", got, b, n);
    double dot = 0;
    for (size_t i = 0; i < n; i++)
        dot += (double)a[i] * (double)b[i];
    if (!(fabs(r.dot_sum - dot) <= 1e-4 * dot)) {
        printf("not ok dot: %.9g, the host's double sum %.9g\n", r.dot_sum, dot);
        return 1;
    }
    printf("ok dot: %.9g, the host's double sum %.9g\n", r.dot_sum, dot);

    check_fma(&t, "probe_fma32", a, false, n);
    if (r.has_fp64)
        check_fma(&t, "probe_fma64", a, true, n);
    else
        printf("ok the device lacks cl_khr_fp64: no FP64 chains\n");

    CLP_ASSERT_STATUS(clp_probe_run(t.worker, opts, NULL, 6, 3, &r, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "multiple of 4 floats, not 6");
    err = (clp_error)CLP_ERROR_INIT;
    CLP_ASSERT_STATUS(clp_probe_run(t.worker, opts, NULL, 64, 1001, &r, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "1 to 1000 iterations");
    printf("ok sizes and iteration counts out of range are refused\n");
    free(a);
    free(b);
    free(c);
    free(got);
    clp_options_destroy(opts);
    test_env_close(&t);
    return 0;
}
