/* The device probes of clpart bench (cl/bench/probe.cl): the bandwidth of copy and triad in
 * float and float4, and the FP32 rate of FMA chains, each the median device time of several
 * launches (profiling events). */
#include "internal.h"
#include "run/worker_private.h"

#include <stdlib.h>

enum { FMA_ROUNDS = 256, FMA_CHAINS = 8 };

static const char *const modules[] = {"core"};
static const char *const cl_files[] = {"bench/probe.cl"};

clp_status clp_probe_source(const clp_options *opts, size_t floats, char **out, clp_error *err) {
    const clp_constant constants[] = {
        {"CLP_PROBE_N", CLP_CONST_INT, 0, (long long)floats, false},
        {"CLP_PROBE_FMA_ROUNDS", CLP_CONST_INT, 0, FMA_ROUNDS, false},
    };
    const clp_program_spec spec = {"probe", modules, 1, cl_files, 1, constants, 2};
    return clp_source_assemble(opts, clp_data_dir(), &spec, out, err);
}

/* The median device seconds of `launches` launches of `kernel`. */
static clp_status median_time(clp_worker *w, const char *kernel, clp_buffer_set buffers,
                              size_t global, int launches, double *median, clp_error *err) {
    clp_status st = CLP_OK;
    double times[64];
    const clp_step step = {kernel, buffers, global, 0};
    CLP_TRY(clp_worker_run_step(w, &step, NULL, err)); /* warm-up: first-touch, clocks */
    for (int i = 0; i < launches; i++)
        CLP_TRY(clp_worker_run_step(w, &step, &times[i], err));
    *median = clp__median(times, (size_t)launches);
    CLP_REQUIRE(*median > 0, err, CLP_CHECK, "%s: the device timed its launches at 0 s", kernel);
fail:
    return st;
}

/* Builds the probes for arrays of `floats` floats and gives the worker the arrays of
 * `arrays` (CLP_BUF_PROBE_*), A and B filled (B = 1 - A), the others as they come. */
static clp_status prepare(clp_worker *w, const clp_options *opts, clp_cache *cache, size_t floats,
                          clp_buffer_set arrays, clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    float *a = NULL, *b = NULL;
    CLP_TRY(clp_probe_source(opts, floats, &source, err));
    CLP_TRY(clp_worker_build_for(w, source, opts, cache, NULL, err));
    clp_buffer_counts counts = {.particles = 0};
    const clp_buffer_set each[] = {CLP_BUF_PROBE_A, CLP_BUF_PROBE_B, CLP_BUF_PROBE_C};
    for (size_t k = 0; k < 3; k++)
        if (arrays & each[k])
            counts.custom[clp__buffer_index(each[k])] = floats;
    CLP_TRY(clp_worker_alloc(w, arrays, opts, &counts, err));
    a = malloc(floats * sizeof *a);
    b = malloc(floats * sizeof *b);
    CLP_REQUIRE(a && b, err, CLP_NOMEM, "out of host memory for the probe's %zu floats", floats);
    for (size_t i = 0; i < floats; i++) {
        a[i] = (float)(i % 1000) * 0.001f;
        b[i] = 1.0f - a[i];
    }
    CLP_TRY(clp_worker_write(w, CLP_BUF_PROBE_A, a, err));
    if (arrays & CLP_BUF_PROBE_B)
        CLP_TRY(clp_worker_write(w, CLP_BUF_PROBE_B, b, err));
fail:
    free(source);
    free(a);
    free(b);
    return st;
}

clp_status clp_probe_run(clp_worker *w, const clp_options *opts, clp_cache *cache, size_t floats,
                         int launches, clp_probe_result *out, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_REQUIRE(floats >= 4 && floats % 4 == 0, err, CLP_USAGE,
                "the probe's arrays need a multiple of 4 floats, not %zu", floats);
    CLP_REQUIRE(launches >= 1 && launches <= 64, err, CLP_USAGE,
                "the probe takes 1 to 64 launches per kernel, not %d", launches);
    const clp_buffer_set all = CLP_BUF_PROBE_A | CLP_BUF_PROBE_B | CLP_BUF_PROBE_C;
    CLP_TRY(prepare(w, opts, cache, floats, all, err));
    clp_worker_set_profiling(w, true);
    const double bytes = (double)floats * sizeof(float);
    const clp_buffer_set copy = CLP_BUF_PROBE_A | CLP_BUF_PROBE_C;
    double t;
    *out = (clp_probe_result){.floats = floats};
    CLP_TRY(median_time(w, "probe_copy_float", copy, floats, launches, &t, err));
    out->copy_float = 2 * bytes / t;
    CLP_TRY(median_time(w, "probe_copy_float4", copy, floats / 4, launches, &t, err));
    out->copy_float4 = 2 * bytes / t;
    CLP_TRY(median_time(w, "probe_triad_float", all, floats, launches, &t, err));
    out->triad_float = 3 * bytes / t;
    CLP_TRY(median_time(w, "probe_triad_float4", all, floats / 4, launches, &t, err));
    out->triad_float4 = 3 * bytes / t;
    CLP_TRY(median_time(w, "probe_fma", copy, floats / 4, launches, &t, err));
    out->fma = (double)(floats / 4) * FMA_ROUNDS * FMA_CHAINS * 4 * 2 / t;
fail:
    clp_worker_set_profiling(w, false);
    return st;
}

clp_status clp_probe_speed(clp_worker *w, const clp_options *opts, clp_cache *cache,
                           double *bytes_per_s, clp_error *err) {
    clp_status st = CLP_OK;
    enum { FLOATS = 1 << 24, LAUNCHES = 5 }; /* 64 MiB arrays: past the caches of CPUs and GPUs */
    const clp_buffer_set copy = CLP_BUF_PROBE_A | CLP_BUF_PROBE_C;
    CLP_TRY(prepare(w, opts, cache, FLOATS, copy, err));
    clp_worker_set_profiling(w, true);
    double t;
    CLP_TRY(median_time(w, "probe_copy_float4", copy, FLOATS / 4, LAUNCHES, &t, err));
    *bytes_per_s = 2.0 * FLOATS * sizeof(float) / t;
fail:
    clp_worker_set_profiling(w, false);
    clp__worker_release(w, copy);
    return st;
}
