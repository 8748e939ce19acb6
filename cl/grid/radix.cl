/* One pass of a stable LSD radix sort on one bit: flag the keys whose bit is 0, then (after an
 * exclusive scan of the flags, cl/grid/scan.cl) move the pairs, zeros first, each side in order.
 * Layouts: keys, values and their destinations: one uint per pair; flags: one uint per pair. */

/* flags[i] = 1 when bit `bit` of keys[i] is 0, else 0. */
__kernel void grid_radix_flags(__global const uint *keys, __global uint *flags, uint n, uint bit) {
    const uint i = get_global_id(0);
    if (i < n)
        flags[i] = ((keys[i] >> bit) & 1u) ^ 1u;
}

/* With `zeros_before` the exclusive scan of the flags: a pair whose bit is 0 goes to
 * zeros_before[i], the others to zeros + (i - zeros_before[i]), where zeros, the count of all
 * zero bits, is the last scan value plus the last flag. */
__kernel void grid_radix_scatter(__global const uint *keys, __global const uint *values,
                                 __global const uint *zeros_before, __global uint *keys_out,
                                 __global uint *values_out, uint n, uint bit) {
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const uint zeros = zeros_before[n - 1] + (((keys[n - 1] >> bit) & 1u) ^ 1u);
    const uint key = keys[i];
    const uint dest = (key >> bit) & 1u ? zeros + i - zeros_before[i] : zeros_before[i];
    keys_out[dest] = key;
    values_out[dest] = values[i];
}
