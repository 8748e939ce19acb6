/* Lennard-Jones pair forces with a cutoff (Algis et al. 2024,
 * section 4), in reduced units: U = 4 (x^-6 - x^-3) with x = r^2 + softening^2, shifted to 0
 * at the cutoff. Layouts: lj_force[i] float4 (force xyz, w the atom's potential energy, half
 * of each pair's), lj_virial[i] float (half of the sum over its pairs of r . f). */

#ifndef CLP_LJ_STRATEGY
#define CLP_LJ_STRATEGY               0 /* the work layout of the force kernel, options/lj.json */
#define CLP_LJ_STRATEGY_PAR_PART      0
#define CLP_LJ_STRATEGY_PAR_PART_LOOP 1
#define CLP_LJ_STRATEGY_PAR_CELL      2
#define CLP_LJ_STRATEGY_PAR_CELL_SM   3
#define CLP_LJ_STRATEGY_X_PENCIL      4
#define CLP_LJ_STRATEGY_ALL_IN_SM     5
#define CLP_LJ_STRATEGY_SIMD          6
#define CLP_LJ_STRATEGY_AUTO          7
#endif
#if CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_AUTO
#error "lj.strategy=auto is resolved to a strategy by the host before the build"
#endif
/* All but the per-particle strategies walk the cells themselves */
#define CLP_LJ_SEARCHES_CELLS                                                                      \
    (CLP_LJ_STRATEGY >= CLP_LJ_STRATEGY_PAR_CELL && CLP_LJ_STRATEGY != CLP_LJ_STRATEGY_SIMD)
#if CLP_LJ_SEARCHES_CELLS && CLP_NEIGHBORS_MODE != CLP_NEIGHBORS_MODE_JIT
#error                                                                                             \
    "the per-cell and sub-box lj.strategy values search the cells themselves: set neighbors.mode=jit"
#endif
#define CLP_LJ_SUB_BOX                                                                             \
    (CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_X_PENCIL || CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_ALL_IN_SM)
#ifndef CLP_LJ_CELL_GROUP
#define CLP_LJ_CELL_GROUP 64 /* work-items per cell for par_cell */
#endif
#ifndef CLP_LJ_LANES
#define CLP_LJ_LANES 1 /* par_part with a list: work-items per atom (lj.threads_per_atom) */
#endif
#if CLP_LJ_LANES > 1 && (CLP_LJ_STRATEGY != CLP_LJ_STRATEGY_PAR_PART ||                            \
                         CLP_NEIGHBORS_MODE != CLP_NEIGHBORS_MODE_LIST || CLP_NEIGHBORS_SPLIT)
#error "lj.threads_per_atom above 1 shares a plain stored list: lj.strategy=par_part only"
#endif
/* Sub-box strategies: the host sizes these from the device's local memory and the most
 * particles in a cell (src/run/lj_layout.c); these defaults only let the file compile. */
#ifndef CLP_LJ_BOX_X
#define CLP_LJ_BOX_X          2 /* target cells of a work-group's sub-box, per axis */
#define CLP_LJ_BOX_Y          1
#define CLP_LJ_BOX_Z          1
#define CLP_LJ_BOX_GROUP      64 /* work-items per sub-box */
#define CLP_LJ_STAGE_CAPACITY 64 /* particles staged in local memory at once */
#endif
/* Host constants, computed in double; these defaults only let the file compile alone. */
#ifndef CLP_LJ_RC2
#define CLP_LJ_RC2   6.25f    /* cutoff squared */
#define CLP_LJ_EPS2  0.0f     /* softening squared */
#define CLP_LJ_SHIFT -0.0163f /* the pair energy at the cutoff */
#endif

/* Adds the pair with r_ij = x_j - x_i, if within the cutoff, to particle i's sums. */
void lj_pair(float4 r_ij, acc4_t *f, acc_t *energy, acc_t *virial) {
    const float r2 = dot(r_ij, r_ij);
    if (r2 >= CLP_LJ_RC2)
        return;
    const float x = r2 + CLP_LJ_EPS2, inv3 = 1.0f / (x * x * x);
    const float s = 24.0f * (2.0f * inv3 * inv3 - inv3) / x; /* -dU/dr / r */
    acc4_add(f, -s * r_ij);
    acc_add(energy, 2.0f * (inv3 * inv3 - inv3) - 0.5f * CLP_LJ_SHIFT);
    acc_add(virial, 0.5f * s * r2);
}

void lj_store(uint i, acc4_t f, acc_t energy, acc_t virial, __global float4 *lj_force,
              __global float *lj_virial) {
    float4 out = acc4_result(f);
    out.w = acc_result(energy);
    lj_force[i] = out;
    lj_virial[i] = acc_result(virial);
}

/* The interactions of particle i with its neighbours within the cutoff. */
void lj_particle(uint i, CLP_GRID_FN_PARAMS, __global float4 *lj_force, __global float *lj_virial) {
    acc4_t f = acc4_zero();
    acc_t energy = acc_zero(), virial = acc_zero();
    uint j;
    float4 r_ij; /* x_j - x_i */
    CLP_FOR_EACH_NEIGHBOR(i, j, r_ij) {
        lj_pair(r_ij, &f, &energy, &virial);
    }
    lj_store(i, f, energy, virial, lj_force, lj_virial);
}

/* The sub-box strategies' lj_forces is in lj_sub_box.cl, simd's in lj_simd.cl. */
#if CLP_LJ_LANES > 1
/* Par-Part with CLP_LJ_LANES work-items per atom, side by side in a group: each sums every
 * LANES-th entry of the atom's list, and the first adds the lanes' sums from local memory.
 * For systems too small to fill a GPU with a work-item per atom. */
__kernel __attribute__((reqd_work_group_size(CLP_LJ_LANE_GROUP, 1, 1))) void
lj_forces(CLP_GRID_PARAMS, __global float4 *restrict lj_force, __global float *restrict lj_virial) {
    __local float4 lane_force[CLP_LJ_LANE_GROUP]; /* w: the energy */
    __local float lane_virial[CLP_LJ_LANE_GROUP];
    const uint lid = get_local_id(0), lane = lid % CLP_LJ_LANES;
    const uint i = get_global_id(0) / CLP_LJ_LANES;
    acc4_t f = acc4_zero();
    acc_t energy = acc_zero(), virial = acc_zero();
    if (i < CLP_GRID_PARTICLES) {
        uint j;
        float4 r_ij; /* x_j - x_i */
        CLP_FOR_EACH_NEIGHBOR_LANE(i, lane, j, r_ij) {
            lj_pair(r_ij, &f, &energy, &virial);
        }
    }
    float4 part = acc4_result(f);
    part.w = acc_result(energy);
    lane_force[lid] = part;
    lane_virial[lid] = acc_result(virial);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane != 0 || i >= CLP_GRID_PARTICLES)
        return;
    acc4_t f_all = acc4_zero();
    acc_t energy_all = acc_zero(), virial_all = acc_zero();
    for (uint l = 0; l < CLP_LJ_LANES; l++) {
        acc4_add(&f_all, lane_force[lid + l]);
        acc_add(&energy_all, lane_force[lid + l].w);
        acc_add(&virial_all, lane_virial[lid + l]);
    }
    lj_store(i, f_all, energy_all, virial_all, lj_force, lj_virial);
}
#elif !CLP_LJ_SUB_BOX && CLP_LJ_STRATEGY != CLP_LJ_STRATEGY_SIMD
#if CLP_LJ_SEARCHES_CELLS
__kernel
    __attribute__((reqd_work_group_size(CLP_LJ_CELL_GROUP, 1, 1)))
#else
__kernel
#endif
    void
    lj_forces(CLP_GRID_PARAMS, __global float4 *restrict lj_force,
              __global float *restrict lj_virial) {
#if CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_PAR_PART
    const uint i = get_global_id(0);
    if (i < CLP_GRID_PARTICLES)
        lj_particle(i, CLP_GRID_ARGS, lj_force, lj_virial);
#elif CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_PAR_PART_LOOP
    for (uint i = get_global_id(0); i < CLP_GRID_PARTICLES; i += get_global_size(0))
        lj_particle(i, CLP_GRID_ARGS, lj_force, lj_virial);
#elif CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_PAR_CELL
    /* the cell's particles lie together after the sort; the group walks them */
    const uint cell = get_group_id(0);
    for (uint i = cell_start[cell] + get_local_id(0); i < cell_end[cell]; i += CLP_LJ_CELL_GROUP)
        lj_particle(i, CLP_GRID_ARGS, lj_force, lj_virial);
#else
    /* Par-Cell-SM (the paper's Algorithm 3): the group stages each neighbouring cell's
     * positions in local memory, a group's worth at a time, and every target reads them
     * there. Loop bounds are the same for the whole group, so every barrier is reached. */
    __local float4 staged[CLP_LJ_CELL_GROUP];
    const uint cell = get_group_id(0), lid = get_local_id(0), end = cell_end[cell];
    const int4 c = key_cell(cell);
    for (uint base = cell_start[cell]; base < end; base += CLP_LJ_CELL_GROUP) {
        const uint i = base + lid;
        const bool target = i < end;
        const float4 p_i = target ? pos[i] : (float4)(0.0f);
        acc4_t f = acc4_zero();
        acc_t energy = acc_zero(), virial = acc_zero();
        CLP_FOR_EACH_CELL_AROUND(c, dc, source) { /* cells beyond a wall are left out */
            const uint s_end = cell_end[cell_key(source)];
            for (uint chunk = cell_start[cell_key(source)]; chunk < s_end;
                 chunk += CLP_LJ_CELL_GROUP) {
                barrier(CLK_LOCAL_MEM_FENCE); /* the last chunk is used up */
                if (chunk + lid < s_end)
                    staged[lid] = pos[chunk + lid];
                barrier(CLK_LOCAL_MEM_FENCE);
                const uint count = min((uint)CLP_LJ_CELL_GROUP, s_end - chunk);
                for (uint k = 0; target && k < count; k++)
                    if (chunk + k != i)
                        lj_pair(particle_delta(p_i, staged[k], dc), &f, &energy, &virial);
            }
        }
        if (target)
            lj_store(i, f, energy, virial, lj_force, lj_virial);
    }
#endif
}
#endif

/* Velocity Verlet in reduced units (mass 1), split around the force evaluation: the first
 * half kick and the drift, then, with the new forces, the second half kick. */
#ifndef CLP_LJ_DT
#define CLP_LJ_DT 0.005f /* the time step */
#endif

/* v + dt/2 f: a half kick (force.w holds the energy) */
float4 half_kick(float4 v, float4 force) {
    return v + 0.5f * CLP_LJ_DT * (float4)(force.xyz, 0.0f);
}

__kernel void lj_kick_drift(__global float4 *restrict pos, __global float4 *restrict vel,
                            __global const float4 *restrict lj_force) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const float4 v = half_kick(vel[i], lj_force[i]);
    vel[i] = v;
    pos[i] += CLP_LJ_DT * v;
}

/* The second half kick of a step, then the next step's first and its drift: one launch for
 * two, with the same arithmetic, where the host reads no velocity between the steps. */
__kernel void lj_kicks_drift(__global float4 *restrict pos, __global float4 *restrict vel,
                             __global const float4 *restrict lj_force) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const float4 f = lj_force[i], v = half_kick(half_kick(vel[i], f), f);
    vel[i] = v;
    pos[i] += CLP_LJ_DT * v;
}

__kernel void lj_kick(__global float4 *restrict vel, __global const float4 *restrict lj_force) {
    const uint i = get_global_id(0);
    if (i < CLP_GRID_PARTICLES)
        vel[i] = half_kick(vel[i], lj_force[i]);
}
