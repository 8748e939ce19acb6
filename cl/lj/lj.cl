/* Lennard-Jones pair forces with a cutoff (seed cutoff-interactions-few-particles-per-cell.txt,
 * section 4), in reduced units: U = 4 (x^-6 - x^-3) with x = r^2 + softening^2, shifted to 0
 * at the cutoff. Layouts: lj_force[i] float4 (force xyz, w the atom's potential energy, half
 * of each pair's), lj_virial[i] float (half of the sum over its pairs of r . f). */

#ifndef CLP_LJ_STRATEGY
#define CLP_LJ_STRATEGY 0 /* 0 a work-item per particle, 1 a loop over them, 2 a group per cell */
#define CLP_LJ_STRATEGY_PAR_PART 0
#define CLP_LJ_STRATEGY_PAR_PART_LOOP 1
#define CLP_LJ_STRATEGY_PAR_CELL 2
#endif
#if CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_PAR_CELL && CLP_NEIGHBORS_MODE != CLP_NEIGHBORS_MODE_JIT
#error "lj.strategy=par_cell searches the neighbouring cells itself: set neighbors.mode=jit"
#endif
#ifndef CLP_LJ_CELL_GROUP
#define CLP_LJ_CELL_GROUP 64 /* work-items per cell for par_cell */
#endif
/* Host constants, computed in double; these defaults only let the file compile alone. */
#ifndef CLP_LJ_RC2
#define CLP_LJ_RC2 6.25f    /* cutoff squared */
#define CLP_LJ_EPS2 0.0f    /* softening squared */
#define CLP_LJ_SHIFT -0.0163f /* the pair energy at the cutoff */
#endif

/* The interactions of particle i with its neighbours within the cutoff. */
void lj_particle(uint i, CLP_GRID_FN_PARAMS, __global float4 *lj_force, __global float *lj_virial) {
    acc4_t f = acc4_zero();
    acc_t energy = acc_zero(), virial = acc_zero();
    uint j;
    float4 r_ij; /* x_j - x_i */
    CLP_FOR_EACH_NEIGHBOR(i, j, r_ij) {
        const float r2 = dot(r_ij, r_ij);
        if (r2 >= CLP_LJ_RC2)
            continue;
        const float x = r2 + CLP_LJ_EPS2, inv3 = 1.0f / (x * x * x);
        const float s = 24.0f * (2.0f * inv3 * inv3 - inv3) / x; /* -dU/dr / r */
        acc4_add(&f, -s * r_ij);
        acc_add(&energy, 2.0f * (inv3 * inv3 - inv3) - 0.5f * CLP_LJ_SHIFT);
        acc_add(&virial, 0.5f * s * r2);
    }
    float4 out = acc4_result(f);
    out.w = acc_result(energy);
    lj_force[i] = out;
    lj_virial[i] = acc_result(virial);
}

#if CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_PAR_CELL
__kernel __attribute__((reqd_work_group_size(CLP_LJ_CELL_GROUP, 1, 1)))
#else
__kernel
#endif
void lj_forces(CLP_GRID_PARAMS, __global float4 *restrict lj_force,
                        __global float *restrict lj_virial) {
#if CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_PAR_PART
    const uint i = get_global_id(0);
    if (i < CLP_GRID_PARTICLES)
        lj_particle(i, CLP_GRID_ARGS, lj_force, lj_virial);
#elif CLP_LJ_STRATEGY == CLP_LJ_STRATEGY_PAR_PART_LOOP
    for (uint i = get_global_id(0); i < CLP_GRID_PARTICLES; i += get_global_size(0))
        lj_particle(i, CLP_GRID_ARGS, lj_force, lj_virial);
#else
    /* the cell's particles lie together after the sort; the group walks them */
    const uint cell = get_group_id(0);
    for (uint i = cell_start[cell] + get_local_id(0); i < cell_end[cell]; i += CLP_LJ_CELL_GROUP)
        lj_particle(i, CLP_GRID_ARGS, lj_force, lj_virial);
#endif
}

/* Velocity Verlet in reduced units (mass 1), split around the force evaluation: the first
 * half kick and the drift, then, with the new forces, the second half kick. */
#ifndef CLP_LJ_DT
#define CLP_LJ_DT 0.005f /* the time step */
#endif

__kernel void lj_kick_drift(__global float4 *restrict pos, __global float4 *restrict vel,
                            __global const float4 *restrict lj_force) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const float4 f = (float4)(lj_force[i].xyz, 0.0f);
    const float4 v = vel[i] + 0.5f * CLP_LJ_DT * f;
    vel[i] = v;
    pos[i] += CLP_LJ_DT * v;
}

__kernel void lj_kick(__global float4 *restrict vel, __global const float4 *restrict lj_force) {
    const uint i = get_global_id(0);
    if (i < CLP_GRID_PARTICLES)
        vel[i] += 0.5f * CLP_LJ_DT * (float4)(lj_force[i].xyz, 0.0f);
}
