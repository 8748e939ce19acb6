/* SPH forces by x-pencils (sph.strategy=x_pencil; the LJ strategy of the same name, seed
 * Algis et al. 2024, 5.2): a work-group takes a pencil of
 * CLP_SPH_PENCIL_X cells along x, a work-item per target particle, and stages the rows of
 * cells around it in local memory one at a time, nine rows in 3D, three in 2D. A staged
 * particle carries its position in the frame's coordinates (periodic images and local
 * positions resolved once, at staging), its velocity and type, and its stored density,
 * density, pressure and inverse density, computed once for every target that meets it.
 * A target's candidates in a row are the staged particles of the three cells around its own,
 * one range of slots. Their distances are tested first and the slots within the support
 * written to the target's own column of `hits`; the pair terms then run over the hits only,
 * so a warp pays for each pair term as often as its busiest work-item has neighbours, not
 * once per candidate any of them has. The sums run in the order a cell search visits the
 * neighbours, so they equal neighbors.mode=jit's up to the rounding of the positions.
 * Staging goes through windows of CLP_SPH_PENCIL_CAPACITY particles and targets past the
 * group size take more rounds, so cells fuller than the host's sizing assumed cost time, not
 * answers. Every loop bound is the same for the whole group, so every barrier is reached by
 * every work-item. */
#if CLP_SPH_STRATEGY == CLP_SPH_STRATEGY_X_PENCIL

#define PENCIL    ((int4)(CLP_SPH_PENCIL_X, 1, 1, 0))
#define ROW_CELLS (CLP_SPH_PENCIL_X + 2)
#define GROUP     CLP_SPH_PENCIL_GROUP
#define CAPACITY  CLP_SPH_PENCIL_CAPACITY
#define HITS      CLP_SPH_PENCIL_HITS

/* What turns a pos[] entry of a particle in cell w, reached as frame cell c (c = w but on a
 * periodic axis it wrapped around), into frame coordinates: with global positions the shift
 * to the periodic image, with local ones the offset of the cell's centre from the centre of
 * the pencil's first cell. */
float4 frame_offset(int4 c, int4 w, int4 corner) {
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_LOCAL
    (void)w;
    float4 o = convert_float4(c - corner) * CLP_GRID_CELL;
#else
    (void)corner;
    float4 o = convert_float4((c - w) / CLP_GRID_CELLS) * CLP_GRID_SIZE;
#endif
    o.w = 0.0f;
    return o;
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
sph_forces(CLP_GRID_PARAMS CLP_CONSTANTS_PARAM, __global const float4 *restrict vel,
           __global const float *restrict rho, __global float4 *restrict acc SPH_DRHO_PARAM(),
           __global uint *restrict largest SPH_XSPH_PARAM SPH_SHIFT_PARAM()) {
    __local float4 staged_x[CAPACITY]; /* frame position */
    __local float4 staged_v[CAPACITY]; /* velocity */
    __local uint staged_type[CAPACITY];
    /* stored density, density, pressure, inverse density: scalars, as Oclgrind 21.10 takes a
       float4 built from them for an uninitialised value */
    __local float staged_s[CAPACITY], staged_rho[CAPACITY], staged_p[CAPACITY];
    __local float staged_inv_rho[CAPACITY];
    __local uint stage_lo[ROW_CELLS + 1], stage_from[ROW_CELLS];
    __local float4 stage_offset[ROW_CELLS];
    __local uint target_lo[CLP_SPH_PENCIL_X + 1], target_from[CLP_SPH_PENCIL_X];
    __local ushort hits[HITS * GROUP]; /* hit h of work-item l at h * GROUP + l */
    __local uint group_largest[2]; /* the largest |a| and |v| of the group's fluid */
    group_max_begin(group_largest, 2);
    const uint lid = get_local_id(0);
    const int4 corner = sub_box_corner(get_group_id(0), PENCIL);

    const uint targets =
        pencil_targets(corner, CLP_SPH_PENCIL_X, cell_start, cell_end, target_from, target_lo);

    for (uint round = 0; round < targets; round += GROUP) {
        const uint t = round + lid;
        const bool active = t < targets;
        /* an idle work-item takes slot 0's data, and leaves it alone */
        const uint fx = active ? cell_of_slot(target_lo, CLP_SPH_PENCIL_X, t) + 1 : 1;
        const uint i = active ? target_from[fx - 1] + (t - target_lo[fx - 1]) : 0;
        const uint type_i = active ? type[i] : CLP_GRID_EXCLUDED;
        const int4 own = corner + (int4)((int)fx - 1, 0, 0, 0);
        const float4 x_i = pos[i] + frame_offset(own, own, corner);
        sph_self me;
        sph_self_from(&me, vel[i], rho[i] CLP_CONSTANTS_ARG);
        const bool fluid_i = type_i == 0;
        const bool searching = active && sph_has_sums(fluid_i) && type_i != CLP_GRID_EXCLUDED;
        SPH_SUMS_DECLARE(a, dr, divergence, blend, concentration);
        for (int dz = CLP_CORE_DIM == 3 ? -1 : 0; dz <= (CLP_CORE_DIM == 3 ? 1 : 0); dz++)
            for (int dy = -1; dy <= 1; dy++) {
                barrier(CLK_LOCAL_MEM_FENCE); /* the last row is used up */
                const uint row_total = pencil_row(corner, CLP_SPH_PENCIL_X, dy, dz, cell_start,
                                                  cell_end, stage_from, stage_lo);
                /* the periodic image or cell offset of each of the row's cells */
                for (uint c = lid; c < ROW_CELLS; c += GROUP) {
                    const int4 cell = corner + (int4)((int)c - 1, dy, dz, 0);
                    stage_offset[c] = frame_offset(cell, wrap_cell(cell), corner);
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                const uint self = pencil_own_slot(dy, dz, fx, i, stage_from, stage_lo);
                for (uint window = 0; window < row_total; window += CAPACITY) {
                    const uint window_end = min(row_total, window + CAPACITY);
                    barrier(CLK_LOCAL_MEM_FENCE); /* the last window is used up */
                    for (uint s = window + lid; s < window_end; s += GROUP) {
                        const uint c = cell_of_slot(stage_lo, ROW_CELLS, s);
                        const uint j = stage_from[c] + (s - stage_lo[c]);
                        const uint type_j = type[j];
                        /* an excluded particle is staged out of everyone's reach */
                        const float s_j = rho[j], rho_j = SPH_RHO(s_j);
                        staged_x[s - window] = type_j == CLP_GRID_EXCLUDED
                                                   ? (float4)(1e18f)
                                                   : pos[j] + stage_offset[c];
                        staged_v[s - window] = vel[j];
                        staged_type[s - window] = type_j;
                        staged_s[s - window] = s_j;
                        staged_rho[s - window] = rho_j;
                        staged_p[s - window] = SPH_PRESSURE(s_j);
                        staged_inv_rho[s - window] = 1.0f / rho_j;
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                    const uint end = searching ? min(stage_lo[fx + 2], window_end) : 0;
                    uint s = max(stage_lo[fx - 1], window);
                    while (s < end) {
                        uint found = 0;
                        for (; s < end && found < HITS; s++) {
                            const float4 d = staged_x[s - window] - x_i;
                            const float r2 = dot(d.xyz, d.xyz);
                            if (r2 < CLP_SPH_SUPPORT2 && s != self)
                                hits[found++ * GROUP + lid] = (ushort)(s - window);
                        }
                        for (uint h = 0; h < found; h++) {
                            const uint k = hits[h * GROUP + lid];
                            float4 r_ij = staged_x[k] - x_i;
                            r_ij.w = 0.0f;
                            sph_pair(&a, &dr, &divergence, &blend, &concentration, fluid_i, &me,
                                     r_ij, dot(r_ij, r_ij), staged_v[k], staged_type[k],
                                     staged_s[k], staged_rho[k], staged_p[k],
                                     staged_inv_rho[k] CLP_CONSTANTS_ARG);
                        }
                    }
                }
            }
        if (active) {
            float2 largest_i;
            SPH_STORE_RATES(i, type_i, me.v, largest_i);
            group_max_add(&group_largest[0], largest_i.x);
            group_max_add(&group_largest[1], largest_i.y);
        }
    }
    group_max_end(group_largest, largest, 2);
}

#endif
