/* lj.strategy=simd: a work-item per particle, as par_part, but taking its candidates 8 at a
 * time in float8 vectors, so that a CPU's compiler runs the pair terms in its SIMD lanes:
 * PoCL runs a float4 kernel's work-items one at a time, each in scalar or 4-wide code
 * (docs/benchmarks/cpu.md). The candidates are 8 slots of the stored list, or 8 consecutive
 * particles of a neighbouring cell (its particles lie together after the sort); lanes past
 * the list's or the cell's end are masked off, as is the particle itself. */
#if CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_SIMD

/* The lanes of v added in order, in the summation mode. */
float lanes_sum(float8 v) {
    acc_t a = acc_zero();
    acc_add(&a, v.s0);
    acc_add(&a, v.s1);
    acc_add(&a, v.s2);
    acc_add(&a, v.s3);
    acc_add(&a, v.s4);
    acc_add(&a, v.s5);
    acc_add(&a, v.s6);
    acc_add(&a, v.s7);
    return acc_result(a);
}

/* The pair terms of lj_pair for eight pairs with x_j - x_i = (d_x, d_y, d_z), added to the
 * kernel's sums where `in` is set (a masked lane's terms may be inf or NaN, and are not
 * added). A macro: Oclgrind 21.10 crashes on accumulators passed to a function. */
#define SIMD_PAIRS(d_x, d_y, d_z, in)                                                              \
    do {                                                                                           \
        const float8 r2 = d_x * d_x + d_y * d_y + d_z * d_z;                                       \
        const int8 near = (in) & (r2 < (float8)(CLP_LJ_RC2));                                      \
        const float8 x = r2 + CLP_LJ_EPS2, inv3 = 1.0f / (x * x * x);                              \
        const float8 s = select((float8)(0.0f), 24.0f * (2.0f * inv3 * inv3 - inv3) / x, near);    \
        acc8_add(&fx, -s *d_x);                                                                    \
        acc8_add(&fy, -s *d_y);                                                                    \
        acc8_add(&fz, -s *d_z);                                                                    \
        acc8_add(&energy,                                                                          \
                 select((float8)(0.0f), 2.0f * (inv3 * inv3 - inv3) - 0.5f * CLP_LJ_SHIFT, near)); \
        acc8_add(&virial, 0.5f * s * r2);                                                          \
    } while (0)

__kernel void lj_forces(CLP_GRID_PARAMS, __global float4 *restrict lj_force,
                        __global float *restrict lj_virial) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    (void)type, (void)key;
    const float4 p_i = pos[i];
    acc8_t fx = acc8_zero(), fy = acc8_zero(), fz = acc8_zero();
    acc8_t energy = acc8_zero(), virial = acc8_zero();
#if CLP_NEIGHBORS_MODE == CLP_NEIGHBORS_MODE_LIST
    /* the list, 8 slots at a time: it ends in 8 end markers (CLP_GRID_LIST_LANES), so a
       block is read whole, and the block with the first marker is the last; an end
       marker's lane loads particle i and is masked off. Global positions (the host says so),
       each pair taken to its nearest image. */
    const float4 size = CLP_GRID_SIZE, inverse = 1.0f / size;
    for (uint k = 0;; k += 8) {
        const uint8 entry = (uint8)(neib_list[CLP_LIST_SLOT(k, i)],
                                    neib_list[CLP_LIST_SLOT(k + 1, i)],
                                    neib_list[CLP_LIST_SLOT(k + 2, i)],
                                    neib_list[CLP_LIST_SLOT(k + 3, i)],
                                    neib_list[CLP_LIST_SLOT(k + 4, i)],
                                    neib_list[CLP_LIST_SLOT(k + 5, i)],
                                    neib_list[CLP_LIST_SLOT(k + 6, i)],
                                    neib_list[CLP_LIST_SLOT(k + 7, i)]);
        const int8 listed = entry != (uint8)(CLP_NEIB_END);
        const uint8 j = select((uint8)(i), entry, listed);
        const float4 p0 = pos[j.s0], p1 = pos[j.s1], p2 = pos[j.s2], p3 = pos[j.s3], p4 = pos[j.s4],
                     p5 = pos[j.s5], p6 = pos[j.s6], p7 = pos[j.s7];
        float8 d_x = CLP_GATHER8(x) - p_i.x, d_y = CLP_GATHER8(y) - p_i.y,
               d_z = CLP_GATHER8(z) - p_i.z;
        if (CLP_GRID_PERIODIC_X)
            d_x -= size.x * rint(d_x * inverse.x);
        if (CLP_GRID_PERIODIC_Y)
            d_y -= size.y * rint(d_y * inverse.y);
        if (CLP_GRID_PERIODIC_Z)
            d_z -= size.z * rint(d_z * inverse.z);
        SIMD_PAIRS(d_x, d_y, d_z, listed);
        if (!all(listed))
            break;
    }
#else
    const int4 c = key_cell(key[i]);
    const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    CLP_FOR_EACH_CELL_AROUND(c, dc, source) { /* cells beyond a wall are left out */
        const uint cell = cell_key(source), end = cell_end[cell], last = end - 1;
        for (uint j = cell_start[cell]; j < end; j += 8) {
            CLP_LOAD8(pos, j, last);
            CLP_DELTA8(p_i, c, dc, source);
            const int8 index = (int8)((int)j) + lane;
            SIMD_PAIRS(d_x, d_y, d_z, (index < (int8)((int)end)) & (index != (int8)((int)i)));
        }
    }
#endif
    /* as lj_store writes them; through an array, since Oclgrind 21.10 takes a float4 built
       from four sums for an uninitialised one */
    const float out[4] = {lanes_sum(acc8_result(fx)), lanes_sum(acc8_result(fy)),
                          lanes_sum(acc8_result(fz)), lanes_sum(acc8_result(energy))};
    lj_force[i] = vload4(0, out);
    lj_virial[i] = lanes_sum(acc8_result(virial));
}

#endif
