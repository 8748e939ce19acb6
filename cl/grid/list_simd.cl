/* The neighbour-list build for CPUs (neighbors.build=simd; auto takes it on a CPU): a
 * work-item per particle, as grid_build_list, that tests each neighbouring cell's particles
 * 8 at a time in float8 vectors (cl/grid/simd.cl) and then stores its hits in order. It
 * lists the particles grid_build_list lists, in the same order, but for a candidate at the
 * search radius itself to the last bit, whose squared distance, summed here in another order,
 * may fall on the other side: no model's pair is there, since pairs interact within the
 * influence radius, which is less. Plain lists only. */

/* Stores lane k's candidate if it is a hit, while the list has room. */
#define LIST_HIT8(k)                                                                               \
    if (hit.s##k) {                                                                                \
        if (found < capacity)                                                                      \
            neib_list[CLP_LIST_SLOT(found, i)] = j + k;                                            \
        found++;                                                                                   \
    }

__kernel void
grid_build_list_simd(__global const float4 *restrict pos, __global const uint *restrict key,
                     __global const uint *restrict type, __global const uint *restrict cell_start,
                     __global const uint *restrict cell_end, __global uint *restrict neib_list,
                     __global uint *restrict status, const uint slots) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    (void)type;
    const uint capacity = slots - CLP_GRID_LIST_LANES;
    uint found = 0;
    if (key[i] != CLP_GRID_OUTSIDE) { /* an outside particle searches nothing */
        const float4 p_i = pos[i];
        const int4 c = key_cell(key[i]);
        const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
        CLP_FOR_EACH_CELL_AROUND(c, dc, source) {
            const uint cell = cell_key(source), end = cell_end[cell], last = end - 1;
            for (uint j = cell_start[cell]; j < end; j += 8) {
                CLP_LOAD8(pos, j, last);
                CLP_DELTA8(p_i, c, dc, source);
                const int8 index = (int8)((int)j) + lane;
                const int8 hit = (index < (int8)((int)end)) & (index != (int8)((int)i)) &
                                 (d_x * d_x + d_y * d_y + d_z * d_z <= CLP_SEARCH_RADIUS2);
                if (!any(hit))
                    continue;
                LIST_HIT8(0)
                LIST_HIT8(1)
                LIST_HIT8(2)
                LIST_HIT8(3)
                LIST_HIT8(4)
                LIST_HIT8(5)
                LIST_HIT8(6)
                LIST_HIT8(7)
            }
        }
    }
    list_end(neib_list, i, min(found, capacity));
    atomic_max(&status[2], found);
    if (found > capacity)
        atomic_inc(&status[3]);
}
