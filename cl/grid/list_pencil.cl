/* The neighbour-list build by x-pencils (neighbors.mode=list, plain lists): a work-group takes
 * a pencil of `pencil` cells along x, a work-item per target particle, and stages the rows of
 * cells around it in local memory one at a time, nine in 3D and three in 2D, as the SPH
 * x-pencil forces do (cl/sph/sph_pencil.cl). A target's candidates in a row are the staged
 * particles of the three cells around its own, tested with the same vector and radius as the
 * cell search, in the same order, so the list is the one grid_build_list writes.
 * The per-particle build is slow for its stores, not its search: each work-item writes slot k
 * of its own list when it finds its k-th neighbour, so the stores of a warp land in as many
 * rows of the interleaved list as it has work-items. Here a work-item first collects up to
 * LIST_HITS neighbours in local memory; then each block of 32 work-items walks the slots its
 * members' new entries span, and at each slot k every member with an entry there stores it,
 * so a store instruction writes consecutive particles of one row.
 * Targets past the group size take more rounds, rows fuller than LIST_CAPACITY more windows,
 * and work-items with more than LIST_HITS neighbours in a row more flushes; every loop bound
 * is the same for the whole group, so every barrier is reached by every work-item. */

#ifndef CLP_GRID_LIST_GROUP
#define CLP_GRID_LIST_GROUP 128 /* work-items of a group */
#endif
#define LIST_GROUP       CLP_GRID_LIST_GROUP
#define LIST_CAPACITY    512        /* particles staged at once */
#define LIST_HITS        16         /* neighbours a work-item collects between flushes */
#define LIST_PENCIL_MOST LIST_GROUP /* cells of a pencil at most: one particle each */
#define LIST_BLOCK       32         /* work-items that walk their slots together */
#define LIST_BLOCKS      (LIST_GROUP / LIST_BLOCK)

__kernel __attribute__((reqd_work_group_size(LIST_GROUP, 1, 1))) void
grid_build_list_pencil(__global const float4 *restrict pos, __global const uint *restrict key,
                       __global const uint *restrict type, __global const uint *restrict cell_start,
                       __global const uint *restrict cell_end, __global uint *restrict neib_list,
                       __global uint *restrict status, const uint slots, const uint first,
                       const uint end, const uint pencil) {
    __local float4 staged[LIST_CAPACITY];
    __local uint stage_lo[LIST_PENCIL_MOST + 3], stage_from[LIST_PENCIL_MOST + 2];
    __local uint target_lo[LIST_PENCIL_MOST + 1], target_from[LIST_PENCIL_MOST];
    __local uint hits[LIST_HITS * LIST_GROUP]; /* hit h of work-item l at h * LIST_GROUP + l */
    __local uint slot_low[LIST_BLOCKS], slot_high[LIST_BLOCKS], more;
    (void)type;
    const uint lid = get_local_id(0), block = lid / LIST_BLOCK,
               capacity = slots - CLP_GRID_LIST_LANES;
    /* A particle outside every cell (a split rank's free slots, one that left the domain) is
       in no pencil: its list is its end markers alone, or a kernel that walks every slot
       (lj.strategy=par_part_loop) reads what the slot held before, or past its list. */
    for (uint i = first + get_global_id(0); i < end; i += get_global_size(0))
        if (key[i] == CLP_GRID_OUTSIDE)
            list_end(neib_list, i, 0);
    const int4 corner = sub_box_corner(get_group_id(0), (int4)((int)pencil, 1, 1, 0));
    const uint row_cells = pencil + 2;

    const uint targets =
        pencil_targets(corner, pencil, cell_start, cell_end, target_from, target_lo);

    for (uint round = 0; round < targets; round += LIST_GROUP) {
        const uint t = round + lid;
        /* an idle work-item takes slot 0's position, and searches nothing */
        const uint fx = t < targets ? cell_of_slot(target_lo, pencil, t) + 1 : 1;
        const uint i = t < targets ? target_from[fx - 1] + (t - target_lo[fx - 1]) : 0;
        const bool active = t < targets && i >= first && i < end;
        const float4 pos_i = pos[i];
        uint listed = 0; /* neighbours found so far */
        for (int dz = CLP_CORE_DIM == 3 ? -1 : 0; dz <= (CLP_CORE_DIM == 3 ? 1 : 0); dz++)
            for (int dy = -1; dy <= 1; dy++) {
                barrier(CLK_LOCAL_MEM_FENCE); /* the last row is used up */
                const uint row_total =
                    pencil_row(corner, pencil, dy, dz, cell_start, cell_end, stage_from, stage_lo);
                const uint self = pencil_own_slot(dy, dz, fx, i, stage_from, stage_lo);
                for (uint window = 0; window < row_total; window += LIST_CAPACITY) {
                    const uint window_end = min(row_total, window + LIST_CAPACITY);
                    barrier(CLK_LOCAL_MEM_FENCE); /* the last window is used up */
                    for (uint s = window + lid; s < window_end; s += LIST_GROUP) {
                        const uint c = cell_of_slot(stage_lo, row_cells, s);
                        staged[s - window] = pos[stage_from[c] + (s - stage_lo[c])];
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                    uint s = max(stage_lo[fx - 1], window);
                    const uint s_end = active ? min(stage_lo[fx + 2], window_end) : 0;
                    for (;;) {
                        uint found = 0;
                        for (; s < s_end && found < LIST_HITS; s++) {
                            const int dx = s < stage_lo[fx] ? -1 : s < stage_lo[fx + 1] ? 0 : 1;
                            const float4 d =
                                particle_delta(pos_i, staged[s - window], (int4)(dx, dy, dz, 0));
                            if (s != self && dot(d, d) <= CLP_SEARCH_RADIUS2) {
                                const uint c = (uint)((int)fx + dx);
                                hits[found++ * LIST_GROUP + lid] =
                                    stage_from[c] + (s - stage_lo[c]);
                            }
                        }
                        /* the slots this block's new entries span */
                        if (lid % LIST_BLOCK == 0) {
                            slot_low[block] = UINT_MAX;
                            slot_high[block] = 0;
                        }
                        if (lid == 0)
                            more = 0;
                        barrier(CLK_LOCAL_MEM_FENCE);
                        if (found > 0) {
                            atomic_min(&slot_low[block], listed);
                            atomic_max(&slot_high[block], min(listed + found, capacity));
                        }
                        if (s < s_end)
                            atomic_or(&more, 1u);
                        barrier(CLK_LOCAL_MEM_FENCE);
                        for (uint k = slot_low[block]; k < slot_high[block]; k++)
                            if (k >= listed && k - listed < found)
                                neib_list[CLP_LIST_SLOT(k, i)] =
                                    hits[(k - listed) * LIST_GROUP + lid];
                        listed += found;
                        const bool again = more != 0;
                        barrier(CLK_LOCAL_MEM_FENCE); /* `more` and the hits are used up */
                        if (!again)
                            break;
                    }
                }
            }
        if (active) {
            list_end(neib_list, i, min(listed, capacity));
            atomic_max(&status[2], listed);
            if (listed > capacity)
                atomic_inc(&status[3]);
        }
    }
}
