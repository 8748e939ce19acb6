/* The device probes of clpart bench (cl/bench/probe.cl, src/bench/probe.c) on the default
 * device: every rate positive and finite, and what each kernel writes equal, bit for bit, to
 * the host's float computation of it (copy, triad with fma, the FMA chains); bad sizes are
 * refused. With --small, sizes fit a run under Oclgrind. */
#include "common.h"

#include <math.h>
#include <string.h>

enum { ROUNDS = 256 }; /* CLP_PROBE_FMA_ROUNDS as src/bench/probe.c sets it */

static void expected_inputs(size_t n, float *a, float *b) {
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 1000) * 0.001f;
        b[i] = 1.0f - a[i];
    }
}

/* Runs `kernel` once more and compares buffer c with `want`, bit for bit. */
static void check_kernel(test_env *t, const char *kernel, clp_buffer_set buffers, size_t global,
                         const float *want, size_t n) {
    clp_error err = CLP_ERROR_INIT;
    float *c = malloc(n * sizeof *c);
    CLP_ASSERT(c);
    const clp_step step = {kernel, buffers, global, 0};
    CLP_ASSERT_OK(clp_worker_run_step(t->worker, &step, NULL, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_PROBE_C, c, &err), &err);
    for (size_t i = 0; i < n; i++)
        if (memcmp(&c[i], &want[i], sizeof(float)) != 0) {
            printf("not ok %s: element %zu is %.9g, not %.9g\n", kernel, i, c[i], want[i]);
            exit(1);
        }
    printf("ok %s writes what the host computes, bit for bit (%zu floats)\n", kernel, n);
    free(c);
}

int main(int argc, char **argv) {
    const bool small = argc > 1 && strcmp(argv[1], "--small") == 0;
    const size_t n = small ? 256 : 1 << 20;
    test_env t = {0};
    test_env_open(&t);
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = test_options(&t, NULL);
    clp_probe_result r;
    CLP_ASSERT_OK(clp_probe_run(t.worker, opts, NULL, n, 3, &r, &err), &err);
    const double rates[] = {r.copy_float, r.copy_float4, r.triad_float, r.triad_float4, r.fma};
    for (size_t i = 0; i < 5; i++)
        CLP_ASSERT(isfinite(rates[i]) && rates[i] > 0);
    printf("ok rates: copy %.3g / %.3g B/s, triad %.3g / %.3g B/s (float / float4), FMA %.3g "
           "flop/s\n",
           r.copy_float, r.copy_float4, r.triad_float, r.triad_float4, r.fma);

    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *want = malloc(n * sizeof *want);
    CLP_ASSERT(a && b && want);
    expected_inputs(n, a, b);
    /* the FMA chains ran last: eight chains from a + k, summed in pairs */
    for (size_t q = 0; q < n / 4; q++)
        for (int lane = 0; lane < 4; lane++) {
            float x[8];
            for (int k = 0; k < 8; k++)
                x[k] = a[4 * q + lane] + (float)k;
            for (int round = 0; round < ROUNDS; round++)
                for (int k = 0; k < 8; k++)
                    x[k] = fmaf(x[k], 0.999f, 0.001f);
            want[4 * q + lane] = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
        }
    check_kernel(&t, "probe_fma", CLP_BUF_PROBE_A | CLP_BUF_PROBE_C, n / 4, want, n);
    const clp_buffer_set all = CLP_BUF_PROBE_A | CLP_BUF_PROBE_B | CLP_BUF_PROBE_C;
    for (size_t i = 0; i < n; i++)
        want[i] = fmaf(0.4f, b[i], a[i]);
    check_kernel(&t, "probe_triad_float", all, n, want, n);
    check_kernel(&t, "probe_triad_float4", all, n / 4, want, n);
    check_kernel(&t, "probe_copy_float", CLP_BUF_PROBE_A | CLP_BUF_PROBE_C, n, a, n);
    check_kernel(&t, "probe_copy_float4", CLP_BUF_PROBE_A | CLP_BUF_PROBE_C, n / 4, a, n);

    CLP_ASSERT_STATUS(clp_probe_run(t.worker, opts, NULL, 6, 3, &r, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "multiple of 4 floats, not 6");
    CLP_ASSERT_STATUS(clp_probe_run(t.worker, opts, NULL, 64, 65, &r, &err), CLP_USAGE, &err);
    printf("ok sizes and launch counts out of range are refused\n");
    free(a);
    free(b);
    free(want);
    clp_options_destroy(opts);
    test_env_close(&t);
    return 0;
}
