/* Self-test kernels: an axpy with an inlined constant, a two-pass reduction, and sums of
 * badly conditioned series, all accumulating through cl/common/summation.cl.
 * Layouts: x, y one float per element; terms: term k of series s at s*TERMS + k;
 * sums: one float per series; partial (and its correction): one float per work-group. */

#ifndef CLP_SELFTEST_N
#define CLP_SELFTEST_N 65536 /* elements in x and y */
#endif
#ifndef CLP_SELFTEST_TERMS
#define CLP_SELFTEST_TERMS 4096 /* terms in each series */
#endif
#ifndef CLP_SELFTEST_ALPHA
#define CLP_SELFTEST_ALPHA 0x1.555556p-2f /* the a of y = a*x + y (1/3) */
#endif
/* Host constants; defaults here only so the file compiles alone. */
#ifndef CLP_SELFTEST_SERIES
#define CLP_SELFTEST_SERIES 64 /* number of series */
#endif
#ifndef CLP_SELFTEST_GROUP_SIZE
#define CLP_SELFTEST_GROUP_SIZE 64 /* work-items per group in the reduction */
#endif
#ifndef CLP_SELFTEST_GROUPS
#define CLP_SELFTEST_GROUPS 32 /* work-groups of the reduction's first pass */
#endif

__kernel void selftest_axpy(__global const float *restrict x, __global float *restrict y) {
    const size_t i = get_global_id(0);
    if (i < CLP_SELFTEST_N)
        y[i] = CLP_SELFTEST_ALPHA * x[i] + y[i];
}

/* Tree reduction of one accumulator per work-item in local memory; item 0 ends with the
 * group's total. Every item of the group must call it. */
acc_t group_reduce(acc_t mine, __local float *sums, __local float *corrections) {
    const size_t lid = get_local_id(0);
    sums[lid] = mine.sum;
    corrections[lid] = mine.correction;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = CLP_SELFTEST_GROUP_SIZE / 2; stride > 0; stride /= 2) {
        if (lid < stride) {
            acc_t a = {sums[lid], corrections[lid]};
            acc_t b = {sums[lid + stride], corrections[lid + stride]};
            acc_merge(&a, b);
            sums[lid] = a.sum;
            corrections[lid] = a.correction;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc_t total = {sums[0], corrections[0]};
    return total;
}

/* First pass: each group sums a strided share of x into partial[group]. */
__kernel __attribute__((reqd_work_group_size(CLP_SELFTEST_GROUP_SIZE, 1, 1))) void
selftest_reduce(__global const float *restrict x, __global float *restrict partial
#if CLP_SUMMATION_COMPENSATED
                ,
                __global float *restrict partial_correction
#endif
) {
    __local float sums[CLP_SELFTEST_GROUP_SIZE];
    __local float corrections[CLP_SELFTEST_GROUP_SIZE];
    acc_t acc = acc_zero();
    for (size_t i = get_global_id(0); i < CLP_SELFTEST_N; i += get_global_size(0))
        acc_add(&acc, x[i]);
    acc_t total = group_reduce(acc, sums, corrections);
    if (get_local_id(0) == 0) {
        partial[get_group_id(0)] = total.sum;
#if CLP_SUMMATION_COMPENSATED
        partial_correction[get_group_id(0)] = total.correction;
#endif
    }
}

/* Second pass, one group: merges the partial accumulators; partial[0] gets the result. */
__kernel __attribute__((reqd_work_group_size(CLP_SELFTEST_GROUP_SIZE, 1, 1))) void
selftest_reduce_groups(__global float *restrict partial
#if CLP_SUMMATION_COMPENSATED
                       ,
                       __global float *restrict partial_correction
#endif
) {
    __local float sums[CLP_SELFTEST_GROUP_SIZE];
    __local float corrections[CLP_SELFTEST_GROUP_SIZE];
    acc_t acc = acc_zero();
    for (size_t g = get_local_id(0); g < CLP_SELFTEST_GROUPS; g += CLP_SELFTEST_GROUP_SIZE) {
#if CLP_SUMMATION_COMPENSATED
        acc_t part = {partial[g], partial_correction[g]};
#else
        acc_t part = {partial[g], 0.0f};
#endif
        acc_merge(&acc, part);
    }
    acc_t total = group_reduce(acc, sums, corrections);
    if (get_local_id(0) == 0)
        partial[0] = acc_result(total);
}

/* One work-item per series, summing its terms in order: a neighbour sum in miniature. */
__kernel void selftest_series(__global const float *restrict terms,
                              __global float *restrict sums) {
    const size_t s = get_global_id(0);
    if (s >= CLP_SELFTEST_SERIES)
        return;
    acc_t acc = acc_zero();
    for (size_t k = 0; k < CLP_SELFTEST_TERMS; k++)
        acc_add(&acc, terms[s * CLP_SELFTEST_TERMS + k]);
    sums[s] = acc_result(acc);
}
