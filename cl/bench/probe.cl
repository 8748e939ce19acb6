/* Device probes for clpart bench, as BabelStream (Deakin et al., 2016, 2018) and clpeak do
 * them: BabelStream's five streaming kernels (copy c = a, mul b = s c, add c = a + b, triad
 * a = b + s c, dot sum a b), chains of fused multiply-adds in float and double, and an
 * empty kernel for the launch latency. Arrays a, b, c hold CLP_PROBE_N floats each; the
 * streaming kernels take them as CLP_PROBE_N / 4 float4s (one 16-byte access a work-item). */

#ifndef CLP_PROBE_N
#define CLP_PROBE_N 4096 /* floats per array, a multiple of 4 */
#endif
#ifndef CLP_PROBE_SCALAR
#define CLP_PROBE_SCALAR 0.4f /* BabelStream's scalar */
#endif
#ifndef CLP_PROBE_DOT_LOCAL
#define CLP_PROBE_DOT_LOCAL 64 /* work-items of a dot group, a power of two */
#endif
#ifndef CLP_PROBE_FMA_ROUNDS
#define CLP_PROBE_FMA_ROUNDS 256 /* rounds of the FMA chains, 8 chains each */
#endif
/* Lanes of an FMA chain: 4 on a GPU; 16 on a CPU, where PoCL runs a work-group's work-items
 * one after another (an inner loop keeps LLVM from vectorising across them) and only a vector
 * in the source fills an AVX-512 register (docs/benchmarks/cpu.md). */
#ifndef CLP_PROBE_FMA_WIDTH
#define CLP_PROBE_FMA_WIDTH 4
#endif
#ifndef CLP_PROBE_DOT_BLOCKED
#define CLP_PROBE_DOT_BLOCKED 0 /* 1 (a CPU): each dot work-item sums a contiguous block */
#endif
#ifndef CLP_PROBE_FP64
#define CLP_PROBE_FP64 0 /* 1: the device has cl_khr_fp64, and the FP64 chains are built */
#endif

#define CLP_PROBE_N4 (CLP_PROBE_N / 4)

/* The arrays' start: a[i] = (i mod 1000) / 1000, b = 1 - a, c = 0. */
__kernel void probe_init(__global float *restrict a, __global float *restrict b,
                         __global float *restrict c) {
    const size_t i = get_global_id(0);
    if (i >= CLP_PROBE_N)
        return;
    a[i] = (float)(i % 1000) * 0.001f;
    b[i] = 1.0f - a[i];
    c[i] = 0.0f;
}

__kernel void probe_copy(__global const float4 *restrict a, __global float4 *restrict c) {
    const size_t i = get_global_id(0);
    if (i < CLP_PROBE_N4)
        c[i] = a[i];
}

__kernel void probe_mul(__global float4 *restrict b, __global const float4 *restrict c) {
    const size_t i = get_global_id(0);
    if (i < CLP_PROBE_N4)
        b[i] = (float4)(CLP_PROBE_SCALAR) * c[i];
}

__kernel void probe_add(__global const float4 *restrict a, __global const float4 *restrict b,
                        __global float4 *restrict c) {
    const size_t i = get_global_id(0);
    if (i < CLP_PROBE_N4)
        c[i] = a[i] + b[i];
}

/* fma, not b + s c: OpenCL C lets the compiler contract the latter or not, and the test
 * compares the arrays with the host's computation bit for bit. */
__kernel void probe_triad(__global float4 *restrict a, __global const float4 *restrict b,
                          __global const float4 *restrict c) {
    const size_t i = get_global_id(0);
    if (i < CLP_PROBE_N4)
        a[i] = fma((float4)(CLP_PROBE_SCALAR), c[i], b[i]);
}

/* BabelStream's dot: a fixed number of groups, a tree sum in local memory, and each group's
 * sum in c[group]; the host adds the groups'. Each work-item strides over the arrays by the
 * global size, as BabelStream's, on a GPU (neighbouring work-items read neighbouring
 * elements); on a CPU, where a work-item runs its whole loop before the next starts, it sums
 * one contiguous block instead: strided, each cache line would come from memory once for each
 * work-item that reads a part of it (1.3 GB/s against 21 GB/s for copy on PoCL). */
__kernel __attribute__((reqd_work_group_size(CLP_PROBE_DOT_LOCAL, 1, 1))) void
probe_dot(__global const float4 *restrict a, __global const float4 *restrict b,
          __global float *restrict c) {
    __local float sums[CLP_PROBE_DOT_LOCAL];
    const size_t lid = get_local_id(0);
    float4 s = (float4)(0.0f);
#if CLP_PROBE_DOT_BLOCKED
    const size_t block = (CLP_PROBE_N4 + get_global_size(0) - 1) / get_global_size(0);
    const size_t first = get_global_id(0) * block;
    const size_t end = min(first + block, (size_t)CLP_PROBE_N4);
    for (size_t i = first; i < end; i++)
        s += a[i] * b[i];
#else
    for (size_t i = get_global_id(0); i < CLP_PROBE_N4; i += get_global_size(0))
        s += a[i] * b[i];
#endif
    /* the lanes added as a dot with ones: Oclgrind 21.10's check of uninitialised values
       crashes inside itself on reading them one by one (s.x + s.y ...) */
    sums[lid] = dot(s, (float4)(1.0f));
    for (size_t width = CLP_PROBE_DOT_LOCAL / 2; width > 0; width /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < width)
            sums[lid] += sums[lid + width];
    }
    if (lid == 0)
        c[get_group_id(0)] = sums[0];
}

/* Eight independent chains x = x m + k per work-item, each a vector of CLP_PROBE_FMA_WIDTH
 * lanes, CLP_PROBE_FMA_ROUNDS rounds: 2 x 8 x width flops a round (clpeak's independent
 * chains keep the FMA pipes full). The start is the work-item's floats of a, so nothing folds
 * at compile time; the chains' sum is written to c there so that nothing is dead. */
#define CLP_PROBE_PASTE(x, y) x##y
#define CLP_PROBE_CAT(x, y) CLP_PROBE_PASTE(x, y)
#define CLP_PROBE_FMA_CHAINS(T, a, c)                                                              \
    const size_t i = get_global_id(0);                                                             \
    if (i >= CLP_PROBE_N / CLP_PROBE_FMA_WIDTH)                                                    \
        return;                                                                                    \
    const T m = (T)(0.999f), k = (T)(0.001f);                                                      \
    T x0 = CLP_PROBE_CAT(convert_, T)(CLP_PROBE_CAT(vload, CLP_PROBE_FMA_WIDTH)(i, a));            \
    T x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f, x4 = x0 + 4.0f;                              \
    T x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;                                              \
    for (int r = 0; r < CLP_PROBE_FMA_ROUNDS; r++) {                                               \
        x0 = fma(x0, m, k);                                                                        \
        x1 = fma(x1, m, k);                                                                        \
        x2 = fma(x2, m, k);                                                                        \
        x3 = fma(x3, m, k);                                                                        \
        x4 = fma(x4, m, k);                                                                        \
        x5 = fma(x5, m, k);                                                                        \
        x6 = fma(x6, m, k);                                                                        \
        x7 = fma(x7, m, k);                                                                        \
    }                                                                                              \
    CLP_PROBE_CAT(vstore, CLP_PROBE_FMA_WIDTH)                                                     \
    (CLP_PROBE_CAT(convert_float, CLP_PROBE_FMA_WIDTH)(((x0 + x1) + (x2 + x3)) +                   \
                                                       ((x4 + x5) + (x6 + x7))),                   \
     i, c)

__kernel void probe_fma32(__global const float *restrict a, __global float *restrict c) {
    CLP_PROBE_FMA_CHAINS(CLP_PROBE_CAT(float, CLP_PROBE_FMA_WIDTH), a, c);
}

#if CLP_PROBE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* The same chains in double: m and k are the floats 0.999f and 0.001f widened. */
__kernel void probe_fma64(__global const float *restrict a, __global float *restrict c) {
    CLP_PROBE_FMA_CHAINS(CLP_PROBE_CAT(double, CLP_PROBE_FMA_WIDTH), a, c);
}
#endif

/* Nothing: the launch latency is the time of a launch of one work-item. */
__kernel void probe_empty(void) {}
