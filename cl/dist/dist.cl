/* A rank's side of a multi-device run (seed particle-systems-gpusph-design.txt 4.5): where
 * its halo, edge and inner layers begin in the sorted order, and received particles pinned
 * to the layers the rank that sent them found them in. Needs cl/grid (grid.cl, sort.cl). */

/* Where each query key would go in the sorted keys: bounds[q] becomes the index of the first
 * of the n keys not below it. With the slab axis slowest in the key, a layer's particles
 * start at the lower bound of its first key. */
__kernel void dist_lower_bounds(__global const uint *restrict key, __global uint *restrict bounds,
                                const uint n, const uint queries) {
    const uint q = get_global_id(0);
    if (q >= queries)
        return;
    const uint wanted = bounds[q];
    uint low = 0, high = n;
    while (low < high) {
        const uint mid = low + (high - low) / 2;
        if (key[mid] < wanted)
            low = mid + 1;
        else
            high = mid;
    }
    bounds[q] = low;
}

/* The particles at first .. first + count - 1 came from another rank, which found each in
 * the cell that key[i] now names in this rank's grid. Two devices may round a position on a
 * cell's boundary to different sides of it; so that both keep the same particles in the same
 * cells, and so in the same order, such a position moves by the fewest float steps into that
 * cell. One that is farther off (a bug, not rounding) stays, counted in status[0]. On a
 * periodic axis the cell wraps as grid_keys wrapped it: a position that rounded onto the
 * domain's upper edge is in the first cell. */
__kernel void dist_pin(__global float4 *restrict pos, __global const uint *restrict key,
                       __global uint *restrict status, const uint first, const uint count) {
    const uint i = first + get_global_id(0);
    if (get_global_id(0) >= count)
        return;
    const int4 wanted = key_cell(key[i]);
    float p[3] = {pos[i].x, pos[i].y, pos[i].z};
    bool pinned = true;
    for (int a = 0; a < CLP_CORE_DIM; a++) {
        int steps = 0;
        for (; steps < 64; steps++) {
            const int4 c = wrap_cell(position_cell((float4)(p[0], p[1], p[2], 0.0f)));
            const int have = a == 0 ? c.x : a == 1 ? c.y : c.z;
            const int want = a == 0 ? wanted.x : a == 1 ? wanted.y : wanted.z;
            if (have == want)
                break;
            p[a] = nextafter(p[a], have < want ? INFINITY : -INFINITY);
        }
        pinned = pinned && steps < 64;
    }
    if (pinned)
        pos[i] = (float4)(p[0], p[1], p[2], pos[i].w);
    else
        atomic_inc(&status[0]);
}
