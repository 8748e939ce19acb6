/* The device probes of clpart bench (cl/bench/probe.cl), as BabelStream and clpeak measure:
 * arrays sized past the device's cache, BabelStream's five kernels in rounds, FMA chains in
 * float and double, host-device transfers and the launch latency, each over many launches
 * after an untimed one, with the least, mean, largest and best of them. */
#include "internal.h"
#include "worker/worker_private.h"

#include <math.h>
#include <stdlib.h>

enum {
    FMA_ROUNDS = 256,
    FMA_CHAINS = 8,          /* chains a work-item */
    FMA_ITEMS_PER_CU = 16384 /* work-items of an FMA launch per compute unit */
};
/* The smallest arrays the probes size themselves (64 MiB of floats), and the arrays for
 * which they take 100 iterations by default (BabelStream's count), fewer for larger ones. */
static const unsigned long long LEAST_AUTO_BYTES = 64ull << 20, ITERATIONS_100_BYTES = 64ull << 20;

/* The three arrays, the probes' own buffers (model_buffers.c), and each kernel's of them, as
 * cl/bench/probe.cl declares them (probe_fma64 only where the device has doubles). */
enum { A, B, C, ARRAYS };
static const char *const array_names[ARRAYS] = {[A] = "probe.a", [B] = "probe.b", [C] = "probe.c"};
enum { ALWAYS = 1, FP64 = 2 };
static const clp_kernel_buffers bindings[] = {
    {"probe_init", ALWAYS, {A, B, C, CLP_ARGS_END}},
    {"probe_copy", ALWAYS, {A, C, CLP_ARGS_END}},
    {"probe_mul", ALWAYS, {B, C, CLP_ARGS_END}},
    {"probe_add", ALWAYS, {A, B, C, CLP_ARGS_END}},
    {"probe_triad", ALWAYS, {A, B, C, CLP_ARGS_END}},
    {"probe_dot", ALWAYS, {A, B, C, CLP_ARGS_END}},
    {"probe_fma32", ALWAYS, {A, C, CLP_ARGS_END}},
    {"probe_fma64", FP64, {A, C, CLP_ARGS_END}},
};

static const char *const modules[] = {"core"};
static const char *const cl_files[] = {"bench/probe.cl"};

size_t clp_probe_floats(const clp_device_info *dev, size_t floats) {
    /* Each array 4 x the last-level cache, as BabelStream asks, from what the device reports:
       a GPU its L2; PoCL's CPU device the first cache that hwloc finds shared by cores above
       the first one, the L3 where there is one (32 MiB on the 2-core EPYC of the CI), but one
       CCX's L3 on a chip of several (AMD EPYC), and a cluster's L2 where cores share it. */
    if (floats == 0) {
        unsigned long long bytes = 4 * (unsigned long long)dev->global_mem_cache_size;
        bytes = bytes > LEAST_AUTO_BYTES ? bytes : LEAST_AUTO_BYTES;
        floats = (size_t)((bytes + 15) / 16 * 4);
    }
    size_t most = (size_t)(dev->max_mem_alloc_size / sizeof(float));
    const size_t share = (size_t)(dev->global_mem_size / 2 / 3 / sizeof(float));
    most = most < share ? most : share;
    floats = floats < most ? floats : most;
    return floats / 4 * 4;
}

/* The dot's work-group: the largest power of two within the device's limit, at most 256. */
static size_t dot_local(const clp_device_info *dev) {
    size_t local = 256;
    while (local > 1 && local > dev->max_work_group_size)
        local /= 2;
    return local;
}

/* The lanes of an FMA chain (CLP_PROBE_FMA_WIDTH in cl/bench/probe.cl says why). */
static size_t fma_width(const clp_device_info *dev) {
    return dev->type & CL_DEVICE_TYPE_CPU ? 16 : 4;
}

clp_status clp_probe_source(const clp_options *opts, const clp_device_info *dev, size_t floats,
                            char **out, clp_error *err) {
    const clp_constant constants[] = {
        {"CLP_PROBE_N", CLP_CONST_INT, 0, (long long)floats, false},
        {"CLP_PROBE_DOT_LOCAL", CLP_CONST_INT, 0, (long long)dot_local(dev), false},
        {"CLP_PROBE_DOT_BLOCKED", CLP_CONST_INT, 0, dev->type & CL_DEVICE_TYPE_CPU ? 1 : 0, false},
        {"CLP_PROBE_FMA_ROUNDS", CLP_CONST_INT, 0, FMA_ROUNDS, false},
        {"CLP_PROBE_FMA_WIDTH", CLP_CONST_INT, 0, (long long)fma_width(dev), false},
        {"CLP_PROBE_FP64", CLP_CONST_INT, 0, dev->fp64 ? 1 : 0, false},
    };
    const clp_program_spec spec = {"probe", modules, 1, cl_files, 1, constants, 6};
    return clp_source_assemble(opts, clp_data_dir(), &spec, out, err);
}

/* A probe's figure from `n` launch times in seconds: with `work` (bytes or flops a launch) a
 * rate, its best the largest; with work 0 the times, the best the least. */
static clp_probe_stat stat_of(const double *times, size_t n, double work) {
    double least = times[0], most = times[0], sum = 0;
    for (size_t i = 0; i < n; i++) {
        least = times[i] < least ? times[i] : least;
        most = times[i] > most ? times[i] : most;
        sum += times[i];
    }
    const double mean = sum / (double)n;
    if (work == 0)
        return (clp_probe_stat){least, mean, most, least};
    return (clp_probe_stat){work / most, work / mean, work / least, work / least};
}

/* Builds the probes for arrays of `floats` floats, gives the worker the three arrays (in
 * `arrays`), set to their start (probe_init), and binds them to every kernel. */
static clp_status prepare(clp_worker *w, const clp_options *opts, clp_cache *cache, size_t floats,
                          clp_buffer **arrays, clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    CLP_TRY(clp_probe_source(opts, &w->device, floats, &source, err));
    CLP_TRY(clp_worker_build_for(w, source, opts, cache, NULL, err));
    const size_t bytes[ARRAYS] = {floats * sizeof(float), floats * sizeof(float),
                                  floats * sizeof(float)};
    CLP_TRY(clp_worker_buffers_create(w, array_names, bytes, ARRAYS, arrays, err));
    CLP_TRY(clp_worker_bind_buffers(w, bindings, sizeof bindings / sizeof bindings[0],
                                    w->device.fp64 ? ALWAYS | FP64 : ALWAYS, arrays, err));
    CLP_TRY(clp_launch(w, "probe_init", floats, 0, NULL, err));
fail:
    free(source);
    return st;
}

/* The transfers: each round a blocking read of array a into `host`, then a blocking write of
 * it back (a keeps its contents), each timed on the wall clock. A stop request ends them
 * between rounds, as it ends the kernels' rounds at a launch: 64 rounds of 512 MiB arrays
 * outlasted a scheduler's grace on a busy CPU device. */
static clp_status time_transfers(clp_worker *w, clp_buffer *a, void *host, int iterations,
                                 double *reads, double *writes, clp_error *err) {
    clp_status st = CLP_OK;
    for (int k = -1; k < iterations; k++) { /* round -1: first touch of the host memory */
        CLP_REQUIRE(!clp__worker_stop_requested(w), err, CLP_INTERRUPTED,
                    "stopped by a request during the probes' transfers");
        double start = clp__now();
        CLP_TRY(clp_worker_buffer_read(w, a, host, err));
        const double read = clp__now() - start;
        start = clp__now();
        CLP_TRY(clp_worker_buffer_write(w, a, host, err));
        if (k >= 0) {
            reads[k] = read;
            writes[k] = clp__now() - start;
        }
    }
fail:
    return st;
}

/* The sum of the dot's groups, which it left in c[0 .. groups - 1]. */
static clp_status dot_sum(clp_worker *w, const clp_buffer *c, size_t groups, double *sum,
                          clp_error *err) {
    clp_status st = CLP_OK;
    float *sums = malloc(groups * sizeof *sums);
    CLP_REQUIRE_ALLOC(sums, err);
    CLP_TRY(clp_worker_buffer_read_range(w, c, 0, groups * sizeof *sums, sums, err));
    *sum = 0;
    for (size_t g = 0; g < groups; g++)
        *sum += sums[g];
fail:
    free(sums);
    return st;
}

enum { COPY, MUL, ADD, TRIAD, DOT, STREAM_KERNELS };

/* BabelStream's rounds: copy, mul, add, triad and dot in turn, one untimed round first;
 * times[kernel * iterations + k] gets the device time of round k. */
static clp_status time_stream(clp_worker *w, const clp_buffer *c, size_t floats, int iterations,
                              double *times, double *sum, clp_error *err) {
    clp_status st = CLP_OK;
    /* BabelStream's dot groups: four per compute unit, of the largest power-of-two size */
    const size_t local = dot_local(&w->device);
    size_t groups = 4 * (size_t)(w->device.compute_units ? w->device.compute_units : 1);
    groups = groups < floats ? groups : floats; /* their sums go to c */
    const struct {
        const char *kernel;
        size_t global, local;
    } launches[STREAM_KERNELS] = {
        {"probe_copy", floats / 4, 0},        {"probe_mul", floats / 4, 0},
        {"probe_add", floats / 4, 0},         {"probe_triad", floats / 4, 0},
        {"probe_dot", groups * local, local},
    };
    for (int k = -1; k < iterations; k++)
        for (int s = 0; s < STREAM_KERNELS; s++) {
            double t = 0;
            CLP_TRY(
                clp_launch(w, launches[s].kernel, launches[s].global, launches[s].local, &t, err));
            if (k >= 0)
                times[s * iterations + k] = t;
        }
    CLP_TRY(dot_sum(w, c, groups, sum, err));
fail:
    return st;
}

/* The FMA chains of `kernel` over a and c, one untimed launch first: their flop/s. */
static clp_status time_fma(clp_worker *w, const char *kernel, size_t floats, int iterations,
                           double *times, clp_probe_stat *out, clp_error *err) {
    clp_status st = CLP_OK;
    size_t local;
    CLP_TRY(clp_launch_local_size(w, kernel, &local, err));
    /* enough work-items to fill a GPU, few enough that a CPU takes milliseconds; whole
       groups, or every vector of the arrays */
    const size_t width = fma_width(&w->device);
    size_t items =
        FMA_ITEMS_PER_CU * (size_t)(w->device.compute_units ? w->device.compute_units : 1);
    items = items / local * local;
    items = items && items < floats / width ? items : floats / width;
    for (int k = -1; k < iterations; k++) {
        double t = 0;
        CLP_TRY(clp_launch(w, kernel, items, local, &t, err));
        if (k >= 0)
            times[k] = t;
    }
    *out = stat_of(times, (size_t)iterations,
                   (double)items * FMA_ROUNDS * FMA_CHAINS * (double)width * 2);
fail:
    return st;
}

/* The empty kernel of one work-item: `wall` gets each launch's time from the enqueue to the
 * end of a clFinish (profiling off), `device` its time on the device from the events. */
static clp_status time_launches(clp_worker *w, int iterations, double *wall, double *device,
                                clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker_set_profiling(w, false);
    for (int k = -1; k < iterations; k++) {
        const double start = clp__now();
        CLP_TRY(clp_launch(w, "probe_empty", 1, 1, NULL, err));
        CLP_CL_CHECK(clFinish(w->queue), err, "probe_empty: clFinish");
        if (k >= 0)
            wall[k] = clp__now() - start;
    }
    clp_worker_set_profiling(w, true);
    for (int k = 0; k < iterations; k++)
        CLP_TRY(clp_launch(w, "probe_empty", 1, 1, &device[k], err));
fail:
    return st;
}

/* The iterations by default: 100 up to 64 MiB arrays, then as many as move the same bytes,
 * at least 20. */
static int default_iterations(unsigned long long array_bytes) {
    const unsigned long long k = 100 * ITERATIONS_100_BYTES / array_bytes;
    return k > 100 ? 100 : k < 20 ? 20 : (int)k;
}

clp_status clp_probe_run(clp_worker *w, const clp_options *opts, clp_cache *cache, size_t floats,
                         int iterations, clp_probe_result *out, clp_error *err) {
    clp_status st = CLP_OK;
    double *times = NULL;
    void *host = NULL;
    CLP_REQUIRE(floats >= 4 && floats % 4 == 0, err, CLP_USAGE,
                "the probe's arrays need a multiple of 4 floats, not %zu", floats);
    CLP_REQUIRE(iterations >= 0 && iterations <= 1000, err, CLP_USAGE,
                "the probe takes 1 to 1000 iterations (0: by the arrays' size), not %d",
                iterations);
    const unsigned long long bytes = (unsigned long long)floats * sizeof(float);
    const unsigned long long cache_bytes = w->device.global_mem_cache_size;
    if (iterations == 0)
        iterations = default_iterations(bytes);
    *out = (clp_probe_result){.floats = floats,
                              .array_bytes = bytes,
                              .cache_bytes = cache_bytes,
                              .beyond_cache = cache_bytes > 0 && bytes >= 4 * cache_bytes,
                              .iterations = iterations,
                              .has_fp64 = w->device.fp64};
    const size_t n = (size_t)iterations;
    times = malloc(STREAM_KERNELS * n * sizeof *times);
    host = malloc((size_t)bytes);
    CLP_REQUIRE(times && host, err, CLP_NOMEM, "out of host memory for the probe's %llu-byte array",
                bytes);
    clp_buffer *arrays[ARRAYS] = {0};
    CLP_TRY(prepare(w, opts, cache, floats, arrays, err));
    CLP_TRY(time_transfers(w, arrays[A], host, iterations, times, times + n, err));
    out->d2h = stat_of(times, n, (double)bytes);
    out->h2d = stat_of(times + n, n, (double)bytes);
    clp_worker_set_profiling(w, true);
    CLP_TRY(time_stream(w, arrays[C], floats, iterations, times, &out->dot_sum, err));
    const double moved[STREAM_KERNELS] = {2, 2, 3, 3, 2}; /* arrays read or written */
    clp_probe_stat *stream[STREAM_KERNELS] = {&out->copy, &out->mul, &out->add, &out->triad,
                                              &out->dot};
    for (int s = 0; s < STREAM_KERNELS; s++)
        *stream[s] = stat_of(times + s * n, n, moved[s] * (double)bytes);
    CLP_TRY(time_fma(w, "probe_fma32", floats, iterations, times, &out->fp32, err));
    if (out->has_fp64)
        CLP_TRY(time_fma(w, "probe_fma64", floats, iterations, times, &out->fp64, err));
    CLP_TRY(time_launches(w, iterations, times, times + n, err));
    out->launch_wall = stat_of(times, n, 0);
    out->launch_device = stat_of(times + n, n, 0);
    const struct {
        const char *name;
        const clp_probe_stat *stat;
    } rates[] = {{"copy", &out->copy},   {"mul", &out->mul}, {"add", &out->add},
                 {"triad", &out->triad}, {"dot", &out->dot}, {"fp32", &out->fp32},
                 {"h2d", &out->h2d},     {"d2h", &out->d2h}};
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
        CLP_REQUIRE(isfinite(rates[r].stat->best) && rates[r].stat->min > 0, err, CLP_CHECK,
                    "probe %s: the device timed a launch at 0 s", rates[r].name);
fail:
    clp_worker_set_profiling(w, false);
    free(times);
    free(host);
    return st;
}

clp_status clp_probe_speed(clp_worker *w, const clp_options *opts, clp_cache *cache,
                           double *bytes_per_s, clp_error *err) {
    clp_status st = CLP_OK;
    enum { FLOATS = 1 << 24, LAUNCHES = 5 }; /* 64 MiB arrays: past the caches of CPUs and GPUs */
    double times[LAUNCHES];
    clp_buffer *arrays[ARRAYS] = {0};
    CLP_TRY(prepare(w, opts, cache, FLOATS, arrays, err));
    clp_worker_set_profiling(w, true);
    CLP_TRY(clp_launch(w, "probe_copy", FLOATS / 4, 0, NULL, err)); /* first touch, clocks */
    for (int k = 0; k < LAUNCHES; k++)
        CLP_TRY(clp_launch(w, "probe_copy", FLOATS / 4, 0, &times[k], err));
    const double median = clp__median(times, LAUNCHES);
    CLP_REQUIRE(median > 0, err, CLP_CHECK, "probe_copy: the device timed its launches at 0 s");
    *bytes_per_s = 2.0 * FLOATS * sizeof(float) / median;
fail:
    clp_worker_set_profiling(w, false);
    for (int k = 0; k < ARRAYS; k++)
        clp_worker_buffer_free(w, arrays[k]);
    return st;
}
