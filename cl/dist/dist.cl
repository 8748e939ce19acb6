/* A rank's side of a multi-device run (Bilotta et al. 2018, 4.5): where
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
 * slot, axis, cell, wanted cell and position in status[1..7] for the message. The cell is the
 * one grid_keys will find: on a periodic axis, that of the wrapped position. */
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
            float4 wrapped = (float4)(p[0], p[1], p[2], 0.0f);
            const int4 c = global_cell(&wrapped);
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

/* What a rebuild does with an owned particle, by the layer its position is in now. */
#define DIST_STAYS     0
#define DIST_LEAVES_LO 1 /* into the lower halo layer: it moves to the rank below */
#define DIST_EDGE_LO   2 /* in the lower edge: copied into the lower rank's halo */
#define DIST_EDGE_HI   3
#define DIST_LEAVES_HI 4

/* The class of each particle at first .. first + count - 1 into kind[slot], by the cell the
 * next sort will find it in (its key's layer; layer_keys keys a layer): below layer `lo` it
 * leaves and in it it is an edge, for the rank below when bit 0 of `sides` is set; above
 * layer `hi` and in it, for the rank above (bit 1). Between rebuilds a particle moves less
 * than a layer, so a rebuild looks only at the two layers by each edge; status[0] counts the
 * classed particles in slots near_lo_end .. near_hi_first - 1, between those, and status[1]
 * the particles the sort will put outside the grid (excluded ones). Each position wraps and
 * each key becomes its cell's as in grid_keys, since the senders' keys travel. */
__kernel void dist_classify(__global float4 *restrict pos, __global uint *restrict key,
                            __global const uint *restrict type, __global uchar *restrict kind,
                            __global uint *restrict status, const uint first, const uint count,
                            const uint layer_keys, const uint lo, const uint hi, const uint sides,
                            const uint near_lo_end, const uint near_hi_first) {
    const uint i = first + get_global_id(0);
    if (get_global_id(0) >= count)
        return;
    float4 p = pos[i];
    const int4 c = global_cell(&p);
    const bool counted = cell_inside(c) && type[i] != CLP_GRID_EXCLUDED;
    const uint k_cell = counted ? cell_key(c) : CLP_GRID_OUTSIDE;
    const uint layer = counted ? k_cell / layer_keys : UINT_MAX;
    pos[i] = p; /* wrapped, and with its key, as the sort would: what the neighbours receive */
    key[i] = k_cell;
    uchar k = DIST_STAYS;
    if (sides & 1u)
        k = layer < lo ? DIST_LEAVES_LO : layer == lo ? DIST_EDGE_LO : k;
    if (sides & 2u)
        k = layer == UINT_MAX ? k : layer > hi ? DIST_LEAVES_HI : layer == hi ? DIST_EDGE_HI : k;
    kind[i] = k;
    if (k != DIST_STAYS && i >= near_lo_end && i < near_hi_first)
        atomic_inc(&status[0]);
    if (!counted)
        atomic_inc(&status[1]);
}

/* The slots slot[first .. first + count - 1] become padding: excluded, with the padding ID. */
__kernel void dist_pad(__global uint *restrict type, __global uint *restrict id,
                       __global const uint *restrict slot, const uint first, const uint count,
                       const uint padding) {
    if (get_global_id(0) >= count)
        return;
    const uint s = slot[first + get_global_id(0)];
    type[s] = CLP_GRID_EXCLUDED;
    id[s] = padding;
}
