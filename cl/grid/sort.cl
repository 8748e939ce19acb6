/* The sort by cell key (Bilotta et al. 2018, 4.3; Godbole 2014, 5):
 * keys (recentring local offsets, wrapping periodic positions), the counting sort's count,
 * scatter and per-cell ordering that makes it stable, the cell ranges after a radix sort,
 * and the gathers that move every re-sorted buffer into the sort's scratch.
 * Layouts: perm[s] = the previous index of the particle now at slot s; cell_start[k] and
 * cell_end[k] bound the particles of key k; status[0] counts particles outside a walled
 * domain, status[1] the smallest ID among them. */

#ifndef CLP_GRID_SORT
#define CLP_GRID_SORT          0 /* 0 counting sort, 1 radix sort */
#define CLP_GRID_SORT_COUNTING 0
#define CLP_GRID_SORT_RADIX    1
#endif

/* The cell of a global position; a position that rounds onto the upper edge of the domain
 * belongs to the last cell. */
int position_axis(float p, float origin, float cell, float size, int n) {
    int c = (int)floor((p - origin) / cell);
    return c >= n && p < origin + size ? n - 1 : c;
}

int4 position_cell(float4 p) {
    return (int4)(position_axis(p.x, CLP_GRID_ORIGIN_X, CLP_GRID_CELL_X, CLP_GRID_SIZE_X,
                                CLP_GRID_CELLS_X),
                  position_axis(p.y, CLP_GRID_ORIGIN_Y, CLP_GRID_CELL_Y, CLP_GRID_SIZE_Y,
                                CLP_GRID_CELLS_Y),
                  position_axis(p.z, CLP_GRID_ORIGIN_Z, CLP_GRID_CELL_Z, CLP_GRID_SIZE_Z,
                                CLP_GRID_CELLS_Z),
                  0);
}

/* The cell of a global position, which wraps on periodic axes first (in *p) into
 * [origin, origin + size); one already there is left as it is, so that a position wraps to
 * one float however often it is wrapped and every kernel finds it in the same cell. A wrap
 * that rounds onto the upper edge (or a step past either edge) gives the origin. */
int4 global_cell(float4 *p) {
    const float4 origin = CLP_GRID_ORIGIN, size = CLP_GRID_SIZE, end = origin + size, q = *p;
    float4 wrapped = q - size * floor((q - origin) / size);
    wrapped = select(wrapped, origin, (wrapped < origin) | (wrapped >= end));
    wrapped = select(q, wrapped, (q < origin) | (q >= end));
    /* a separate select: Oclgrind 21.10 drops one whose condition ANDs these with this */
    *p = select(q, wrapped, CLP_GRID_PERIODIC != 0);
    int4 c = wrap_cell(position_cell(*p));
    c.w = 0;
    if (CLP_CORE_DIM == 2)
        c.z = 0;
    return c;
}

/* Where the next sort files a particle at pos p with key `key`: its cell in *c, *p re-expressed
 * for it (local offsets from the new cell, global positions wrapped), and whether that cell
 * lies in the grid. A model that takes particles out of a walled domain asks this, so that it
 * and the sort never disagree on a particle at the domain's edge. */
bool sorted_cell(float4 *p, uint key, int4 *c) {
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_LOCAL
    int4 shift = convert_int4(floor((*p + 0.5f * CLP_GRID_CELL) / CLP_GRID_CELL));
    shift.w = 0;
    if (CLP_CORE_DIM == 2)
        shift.z = 0;
    *p -= convert_float4(shift) * CLP_GRID_CELL;
    *c = wrap_cell(key_cell(key) + shift);
    return key != CLP_GRID_OUTSIDE && cell_inside(*c);
#else
    *c = global_cell(p);
    return cell_inside(*c);
#endif
}

/* Whether the next sort finds a particle at (p, key) inside the grid. */
bool stays_in_grid(float4 p, uint key) {
    int4 c;
    return sorted_cell(&p, key, &c);
}

/* Cell keys for every particle. Global positions wrap on periodic axes; local offsets that
 * left their cell move to the cell they are in now. A particle outside a walled axis gets
 * the key CLP_GRID_OUTSIDE and is counted; an excluded one gets it too, uncounted. */
__kernel void grid_keys(__global float4 *restrict pos, __global uint *restrict key,
                        __global const uint *restrict type, __global const uint *restrict id,
#if CLP_GRID_SORT == CLP_GRID_SORT_COUNTING
                        __global uint *restrict cell_count,
#endif
                        __global uint *restrict status) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    float4 p = pos[i];
    int4 c;
    const bool inside = sorted_cell(&p, key[i], &c);
    pos[i] = p;
    const bool excluded = type[i] == CLP_GRID_EXCLUDED;
    uint k = inside && !excluded ? cell_key(c) : CLP_GRID_OUTSIDE;
    key[i] = k;
    if (!inside && !excluded) {
        atomic_inc(&status[0]);
        atomic_min(&status[1], id[i]);
    }
#if CLP_GRID_SORT == CLP_GRID_SORT_COUNTING
    /* the outside key is last: its count is in no cell's start, and a split rank's padding
       (a fifth of its slots) would queue on this one counter */
    if (k != CLP_GRID_OUTSIDE)
        atomic_inc(&cell_count[k]);
#endif
}

/* The largest distance a particle moved since the last rebuild, as the bits of a float
 * (non-negative floats order as their bits, and a NaN's come above them all) in status[4].
 * Between rebuilds a particle keeps its cell, so with local positions both offsets are from
 * the same cell centre. A work-group takes its largest first: one atomic a group, not a
 * particle, as a launch a step would otherwise queue every work-item on one address. */
__kernel __attribute__((reqd_work_group_size(CLP_GRID_SCAN_GROUP, 1, 1))) void
grid_displacement(__global const float4 *restrict pos, __global uint *restrict status,
                  __global const float4 *restrict pos_rebuilt) {
    __local uint largest[CLP_GRID_SCAN_GROUP];
    const uint i = get_global_id(0), lid = get_local_id(0);
    largest[lid] = i < CLP_GRID_PARTICLES ? as_uint(length((pos[i] - pos_rebuilt[i]).xyz)) : 0u;
    for (uint span = CLP_GRID_SCAN_GROUP / 2; span > 0; span /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < span)
            largest[lid] = max(largest[lid], largest[lid + span]);
    }
    if (lid == 0)
        atomic_max(&status[4], largest[0]);
}

/* flag[i] = whether particle i has the outside key: their exclusive scan ranks the outside
 * particles in index order. */
__kernel void grid_outside_flags(__global const uint *restrict key, __global uint *restrict flag) {
    const uint i = get_global_id(0);
    if (i < CLP_GRID_PARTICLES)
        flag[i] = key[i] == CLP_GRID_OUTSIDE;
}

/* Counting sort: each particle takes a slot in its cell; cell_end starts as a copy of
 * cell_start and ends as the cell's end. The order inside a cell depends on the atomics
 * until grid_order_cells. The outside key, last, can hold a large share of the particles
 * (a split run's spare slots, every excluded particle): they go straight to their slots in
 * index order by their rank among them, as ordering them afterwards would take one
 * work-item a time quadratic in their number. */
__kernel void grid_scatter(__global const uint *restrict key,
                           __global const uint *restrict cell_start,
                           __global uint *restrict cell_end, __global uint *restrict perm,
                           __global const uint *restrict outside_rank) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const uint k = key[i];
    if (k != CLP_GRID_OUTSIDE) {
        perm[atomic_inc(&cell_end[k])] = i;
        return;
    }
    perm[cell_start[k] + outside_rank[i]] = i;
    if (outside_rank[i] == 0)
        cell_end[k] = CLP_GRID_PARTICLES;
}

/* Makes the counting sort stable: each cell's slots in ascending previous index (insertion
 * sort, cells hold few particles). One work-item per key; the outside key is in order. */
__kernel void grid_order_cells(__global const uint *restrict cell_start,
                               __global const uint *restrict cell_end,
                               __global uint *restrict perm) {
    const uint k = get_global_id(0);
    if (k >= CLP_GRID_OUTSIDE)
        return;
    const uint start = cell_start[k], end = cell_end[k];
    for (uint s = start + 1; s < end; s++) {
        uint moving = perm[s], t = s;
        for (; t > start && perm[t - 1] > moving; t--)
            perm[t] = perm[t - 1];
        perm[t] = moving;
    }
}

/* perm[s] = s: the values a radix sort carries along with the keys. */
__kernel void grid_iota(__global uint *restrict perm, uint n) {
    const uint i = get_global_id(0);
    if (i < n)
        perm[i] = i;
}

/* Cell ranges from sorted keys (after a radix sort; start and end were cleared to 0). */
__kernel void grid_cell_ranges(__global const uint *restrict key,
                               __global uint *restrict cell_start,
                               __global uint *restrict cell_end) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const uint k = key[i];
    if (i == 0 || key[i - 1] != k)
        cell_start[k] = i;
    if (i + 1 == CLP_GRID_PARTICLES || key[i + 1] != k)
        cell_end[k] = i + 1;
}

/* dst[s] = src[perm[s]] for s < n, for buffers of 4- and 16-byte elements. */
__kernel void grid_gather_uint(__global const uint *restrict src, __global uint *restrict dst,
                               __global const uint *restrict perm, const uint n) {
    const uint s = get_global_id(0);
    if (s < n)
        dst[s] = src[perm[s]];
}

__kernel void grid_gather_uint4(__global const uint4 *restrict src, __global uint4 *restrict dst,
                                __global const uint *restrict perm, const uint n) {
    const uint s = get_global_id(0);
    if (s < n)
        dst[s] = src[perm[s]];
}

/* data[i] = value: a kernel rather than clEnqueueFillBuffer, whose writes Oclgrind's
 * uninitialised-value check does not see. */
__kernel void grid_fill(__global uint *restrict data, uint value, uint n) {
    const uint i = get_global_id(0);
    if (i < n)
        data[i] = value;
}
