/* The sub-box strategies of Algis et al. 2024, section 5: a work-group takes a sub-box of
 * CLP_LJ_BOX_X x _Y x _Z target cells and stages the cells around it, the ghost cells
 * included, in local memory. x_pencil (5.2) takes a pencil of cells along x and stages one row
 * of cells along x at a time, nine rows in all; all_in_sm (5.1) stages every row of the frame
 * at once. The frame is the sub-box grown by one cell on every side; its rows, x fastest, are
 * numbered ry + (BOX_Y + 2) rz.
 * Each staged particle keeps its index in w, to leave out the pair of a particle with itself.
 * Staging goes through windows of CLP_LJ_STAGE_CAPACITY particles, so cells fuller than the
 * host's sizing assumed cost time, not answers; targets past the group size take more rounds
 * the same way. Every loop bound is the same for the whole group, so every barrier is
 * reached by every work-item. */
#if CLP_LJ_SUB_BOX

#define ROW_CELLS  (CLP_LJ_BOX_X + 2)
#define FRAME_ROWS ((CLP_LJ_BOX_Y + 2) * (CLP_LJ_BOX_Z + 2))
#if CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_X_PENCIL
#define STAGE_ROWS 1
#else
#define STAGE_ROWS FRAME_ROWS
#endif
#define STAGE_CELLS (ROW_CELLS * STAGE_ROWS)
#define BOX_CELLS   (CLP_LJ_BOX_X * CLP_LJ_BOX_Y * CLP_LJ_BOX_Z)

#define BOX ((int4)(CLP_LJ_BOX_X, CLP_LJ_BOX_Y, CLP_LJ_BOX_Z, 0))

__kernel __attribute__((reqd_work_group_size(CLP_LJ_BOX_GROUP, 1, 1))) void
lj_forces(CLP_GRID_PARAMS, __global float4 *restrict lj_force, __global float *restrict lj_virial) {
    __local float4 staged[CLP_LJ_STAGE_CAPACITY];
    __local uint stage_lo[STAGE_CELLS + 1], stage_from[STAGE_CELLS];
    __local uint target_lo[BOX_CELLS + 1], target_from[BOX_CELLS];
    const uint lid = get_local_id(0);
    const int4 corner = sub_box_corner(get_group_id(0), BOX);

    /* the target cells: the sub-box, at frame positions 1..BOX per axis */
    for (uint c = lid; c < BOX_CELLS; c += CLP_LJ_BOX_GROUP) {
        const uint qx = c / CLP_LJ_BOX_X, qy = qx / CLP_LJ_BOX_Y;
        const int fx = (int)(c - qx * CLP_LJ_BOX_X) + 1, fy = (int)(qx - qy * CLP_LJ_BOX_Y) + 1;
        uint from, count;
        frame_cell(corner, BOX, fx, fy, (int)qy + 1, cell_start, cell_end, &from, &count);
        /* a target cell lies inside the domain or not at all: no wrap */
        const bool cut = corner.x + fx - 1 >= CLP_GRID_CELLS_X ||
                         corner.y + fy - 1 >= CLP_GRID_CELLS_Y ||
                         corner.z + (int)qy >= CLP_GRID_CELLS_Z;
        target_from[c] = from;
        target_lo[c + 1] = cut ? 0 : count;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    offsets_from_counts(target_lo, BOX_CELLS);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint targets = target_lo[BOX_CELLS];

    for (uint round = 0; round < targets; round += CLP_LJ_BOX_GROUP) {
        const uint t = round + lid;
        const bool active = t < targets;
        uint i = 0;
        int fx = 0, fy = 0, fz = 0; /* the target's cell in the frame */
        float4 p_i = (float4)(0.0f);
        if (active) {
            const uint c = cell_of_slot(target_lo, BOX_CELLS, t);
            const uint qx = c / CLP_LJ_BOX_X, qy = qx / CLP_LJ_BOX_Y;
            fx = (int)(c - qx * CLP_LJ_BOX_X) + 1;
            fy = (int)(qx - qy * CLP_LJ_BOX_Y) + 1;
            fz = (int)qy + 1;
            i = target_from[c] + (t - target_lo[c]);
            p_i = pos[i];
        }
        acc4_t f = acc4_zero();
        acc_t energy = acc_zero(), virial = acc_zero();
        for (uint row0 = 0; row0 < FRAME_ROWS; row0 += STAGE_ROWS) {
            barrier(CLK_LOCAL_MEM_FENCE); /* the last rows are used up */
            for (uint c = lid; c < STAGE_CELLS; c += CLP_LJ_BOX_GROUP) {
                const uint q = c / ROW_CELLS, row = row0 + q, ry = row / (CLP_LJ_BOX_Y + 2);
                uint from, count;
                frame_cell(corner, BOX, (int)(c - q * ROW_CELLS),
                           (int)(row - ry * (CLP_LJ_BOX_Y + 2)), (int)ry, cell_start, cell_end,
                           &from, &count);
                stage_from[c] = from;
                stage_lo[c + 1] = count;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            offsets_from_counts(stage_lo, STAGE_CELLS);
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint staged_total = stage_lo[STAGE_CELLS];
            for (uint window = 0; window < staged_total; window += CLP_LJ_STAGE_CAPACITY) {
                const uint window_end = min(staged_total, window + CLP_LJ_STAGE_CAPACITY);
                barrier(CLK_LOCAL_MEM_FENCE); /* the last window is used up */
                for (uint s = window + lid; s < window_end; s += CLP_LJ_BOX_GROUP) {
                    const uint c = cell_of_slot(stage_lo, STAGE_CELLS, s);
                    const uint j = stage_from[c] + (s - stage_lo[c]);
                    float4 p = pos[j];
                    p.w = as_float(j);
                    staged[s - window] = p;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int dz = -1; active && dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++) {
                        const uint row = (uint)(fy + dy + (CLP_LJ_BOX_Y + 2) * (fz + dz));
                        if (row < row0 || row >= row0 + STAGE_ROWS)
                            continue;
                        const uint first = (row - row0) * ROW_CELLS + (uint)fx;
                        for (int dx = -1; dx <= 1; dx++) {
                            const uint c = first + (uint)dx;
                            const uint end = min(stage_lo[c + 1], window_end);
                            const int4 dc = (int4)(dx, dy, dz, 0);
                            for (uint s = max(stage_lo[c], window); s < end; s++) {
                                const float4 p_j = staged[s - window];
                                if (as_uint(p_j.w) != i)
                                    lj_pair(particle_delta(p_i, p_j, dc), &f, &energy, &virial);
                            }
                        }
                    }
            }
        }
        if (active)
            lj_store(i, f, energy, virial, lj_force, lj_virial);
    }
}

#endif
