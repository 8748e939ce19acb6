/* Device probes for clpart bench: the memory bandwidth a kernel reaches (copy and triad,
 * BabelStream-style, in float and float4) and the FP32 rate of chains of fused multiply-adds.
 * Arrays hold CLP_PROBE_N floats; the float4 kernels see them as CLP_PROBE_N / 4 float4s. */

#ifndef CLP_PROBE_N
#define CLP_PROBE_N 4096 /* floats per array, a multiple of 4 */
#endif
#ifndef CLP_PROBE_SCALAR
#define CLP_PROBE_SCALAR 0.4f /* the triad's scalar */
#endif
#ifndef CLP_PROBE_FMA_ROUNDS
#define CLP_PROBE_FMA_ROUNDS 256 /* rounds of the FMA chains, 8 float4 chains each */
#endif

__kernel void probe_copy_float(__global const float *restrict a, __global float *restrict c) {
    const size_t i = get_global_id(0);
    if (i < CLP_PROBE_N)
        c[i] = a[i];
}

__kernel void probe_copy_float4(__global const float4 *restrict a, __global float4 *restrict c) {
    const size_t i = get_global_id(0);
    if (i < CLP_PROBE_N / 4)
        c[i] = a[i];
}

/* c = a + s b */
__kernel void probe_triad_float(__global const float *restrict a, __global const float *restrict b,
                                __global float *restrict c) {
    const size_t i = get_global_id(0);
    if (i < CLP_PROBE_N)
        c[i] = fma(CLP_PROBE_SCALAR, b[i], a[i]);
}

__kernel void probe_triad_float4(__global const float4 *restrict a,
                                 __global const float4 *restrict b, __global float4 *restrict c) {
    const size_t i = get_global_id(0);
    if (i < CLP_PROBE_N / 4)
        c[i] = fma((float4)(CLP_PROBE_SCALAR), b[i], a[i]);
}

/* Eight independent float4 chains x = x * m + k per work-item, CLP_PROBE_FMA_ROUNDS rounds:
 * 2 x 4 x 8 flops a round. The start is the work-item's a[i], so nothing folds at compile
 * time; the sum of the chains is written so that nothing is dead. */
__kernel void probe_fma(__global const float4 *restrict a, __global float4 *restrict c) {
    const size_t i = get_global_id(0);
    if (i >= CLP_PROBE_N / 4)
        return;
    const float4 m = (float4)(0.999f), k = (float4)(0.001f);
    float4 x0 = a[i], x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    float4 x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
    for (int r = 0; r < CLP_PROBE_FMA_ROUNDS; r++) {
        x0 = fma(x0, m, k);
        x1 = fma(x1, m, k);
        x2 = fma(x2, m, k);
        x3 = fma(x3, m, k);
        x4 = fma(x4, m, k);
        x5 = fma(x5, m, k);
        x6 = fma(x6, m, k);
        x7 = fma(x7, m, k);
    }
    c[i] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
}
