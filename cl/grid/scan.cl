/* Exclusive prefix sums of uints, a block of GRID_SCAN_BLOCK = 2 * CLP_GRID_SCAN_GROUP elements
 * per work-group: group g scans elements [g*BLOCK, (g+1)*BLOCK) in local memory. Layouts: in,
 * out, data: one uint per element; block_sums, block_offsets: one uint per block. */

#ifndef CLP_GRID_SCAN_GROUP
#define CLP_GRID_SCAN_GROUP 256 /* work-items per scan work-group (host constant, power of 2) */
#endif

#define GRID_SCAN_BLOCK (2 * CLP_GRID_SCAN_GROUP)

/* Inclusive scan of the GRID_SCAN_BLOCK values of `s`, in place: the up-sweep/down-sweep of
 * Algorithm 6 in Algis et al. 2024, section 6. The up-sweep leaves
 * at index i the sum of the 2^k values ending there, 2^k the largest power of 2 dividing i + 1;
 * the down-sweep then adds to each such partial sum the total of all values before its span.
 * Each work-item updates at most one element per level, so each inner loop of the algorithm is
 * one guarded statement: 2h - 3 barriers for the h = log2(GRID_SCAN_BLOCK) + 1 levels of the
 * tree. The caller has filled `s` and passed a barrier; every value is final on return. */
void grid_scan_local(__local uint *s) {
    const uint lid = get_local_id(0);
    for (uint step = 2; step <= GRID_SCAN_BLOCK; step *= 2) {
        const uint i = lid * step + step - 1;
        if (i < GRID_SCAN_BLOCK)
            s[i] += s[i - step / 2];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint step = GRID_SCAN_BLOCK / 2; step > 1; step /= 2) {
        const uint i = lid * step + step + step / 2 - 1;
        if (i < GRID_SCAN_BLOCK)
            s[i] += s[i - step / 2];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* out[i] = the sum of the elements of i's block before i; block_sums[g] = block g's total.
 * Each work-item owns elements lid and lid + CLP_GRID_SCAN_GROUP of its block (coalesced);
 * elements at or past n count as 0 and are not written. in == out is allowed. */
__kernel __attribute__((reqd_work_group_size(CLP_GRID_SCAN_GROUP, 1, 1))) void
grid_scan_blocks(__global const uint *in, __global uint *out, __global uint *block_sums, uint n) {
    __local uint s[GRID_SCAN_BLOCK];
    const uint lid = get_local_id(0);
    const uint base = get_group_id(0) * GRID_SCAN_BLOCK;
    const uint a = base + lid, b = a + CLP_GRID_SCAN_GROUP;
    const uint va = a < n ? in[a] : 0u;
    const uint vb = b < n ? in[b] : 0u;
    s[lid] = va;
    s[lid + CLP_GRID_SCAN_GROUP] = vb;
    barrier(CLK_LOCAL_MEM_FENCE);
    grid_scan_local(s);
    if (a < n)
        out[a] = s[lid] - va;
    if (b < n)
        out[b] = s[lid + CLP_GRID_SCAN_GROUP] - vb;
    if (lid == 0)
        block_sums[get_group_id(0)] = s[GRID_SCAN_BLOCK - 1];
}

/* data[i] += block_offsets[block of i], for i < n; the same geometry as grid_scan_blocks. */
__kernel __attribute__((reqd_work_group_size(CLP_GRID_SCAN_GROUP, 1, 1))) void
grid_scan_add(__global uint *data, __global const uint *block_offsets, uint n) {
    const uint offset = block_offsets[get_group_id(0)];
    const uint a = get_group_id(0) * GRID_SCAN_BLOCK + get_local_id(0);
    const uint b = a + CLP_GRID_SCAN_GROUP;
    if (a < n)
        data[a] += offset;
    if (b < n)
        data[b] += offset;
}
