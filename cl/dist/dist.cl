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
 * cells, and so in the same order, such a position moves to the nearest float inside that
 * cell. Both sides round at the size of the grid's coordinates (its origin and far end), not
 * of the position, which near 0 has far finer float steps: the move is made in steps of that
 * size, and across a periodic boundary, where the sender's coordinates were as large as
 * `scale` (as the bits of a float; 0 elsewhere), may be up to 64 steps of that. One that is
 * farther off (a bug, not rounding) stays, counted in status[0]; the first counted leaves its
 * slot, axis, cell, wanted cell and position in status[1..7] for the message. On a periodic
 * axis the cell wraps as grid_keys wrapped it: a position that rounded onto the domain's upper
 * edge is in the first cell. */
__kernel void dist_pin(__global float4 *restrict pos, __global const uint *restrict key,
                       __global uint *restrict status, const uint first, const uint count,
                       const uint scale_bits) {
    const uint i = first + get_global_id(0);
    if (get_global_id(0) >= count)
        return;
    const int4 wanted = key_cell(key[i]);
    const float4 origin = CLP_GRID_ORIGIN, cell = CLP_GRID_CELL, end = origin + CLP_GRID_SIZE;
    const float origins[3] = {origin.x, origin.y, origin.z}, cells[3] = {cell.x, cell.y, cell.z};
    const float ends[3] = {end.x, end.y, end.z};
    float p[3] = {pos[i].x, pos[i].y, pos[i].z};
    bool pinned = true;
    int failed_axis = -1, failed_have = 0, failed_want = 0;
    for (int a = 0; a < CLP_CORE_DIM; a++) {
        const float start = p[a];
        const float grid = fmax(fmax(fabs(origins[a]), fabs(ends[a])), fabs(start));
        const float step = nextafter(grid, INFINITY) - grid;
        const float size = fmax(grid, as_float(scale_bits));
        const int want = a == 0 ? wanted.x : a == 1 ? wanted.y : wanted.z;
        int have = 0, found = 0;
        for (int steps = 0; steps < 64; steps++) {
            const int4 c = wrap_cell(position_cell((float4)(p[0], p[1], p[2], 0.0f)));
            have = a == 0 ? c.x : a == 1 ? c.y : c.z;
            found = steps == 0 ? have : found;
            if (have == want)
                break;
            if (steps == 0) /* to the wanted cell's edge, then a float step at a time */
                p[a] = origins[a] + (float)(have < want ? want : want + 1) * cells[a];
            else
                p[a] += have < want ? step : -step;
        }
        const bool here =
            have == want && fabs(p[a] - start) <= 64.0f * (nextafter(size, INFINITY) - size);
        if (!here && pinned) {
            failed_axis = a;
            failed_have = found;
            failed_want = want;
        }
        pinned = pinned && here;
    }
    if (pinned) {
        pos[i] = (float4)(p[0], p[1], p[2], pos[i].w);
    } else if (atomic_inc(&status[0]) == 0) { /* the first one off, for the message */
        const float4 x = pos[i];
        status[1] = i;
        status[2] = (uint)failed_axis;
        status[3] = (uint)failed_have;
        status[4] = (uint)failed_want;
        status[5] = as_uint(x.x);
        status[6] = as_uint(x.y);
        status[7] = as_uint(x.z);
    }
}
