/* Gauges: what the fluid holds at given points, and the force of the fluid on boundary
 * particles. Layouts: gauge_points[k] float4 (a global position, w unused), gauge_samples
 * float4 pairs: [2k] (sum V W, sum V W p, 0, 0) and [2k + 1] (sum V W v) over the fluid within
 * the kernel's reach of point k, from which the host takes the Shepard averages and the
 * fluid fraction; wall_force[i] float4, the pressure force of the fluid on boundary particle i
 * (N, or N/m in 2D; 0 for fluid). Those three are the model's own buffers (sph_gauges.c), set
 * after the grid's, the constants and the model's velocities and densities it reads. Needs
 * cl/sph/sph.cl and the cell search of neighbors.cl. */

#ifndef CLP_SPH_GAUGE_POINTS
#define CLP_SPH_GAUGE_POINTS 1 /* points sampled */
#endif

__kernel void
sph_gauge_sample(__global const float4 *restrict pos, __global const uint *restrict key,
                 __global const uint *restrict type, __global const uint *restrict cell_start,
                 __global const uint *restrict cell_end CLP_CONSTANTS_PARAM,
                 __global const float4 *restrict vel, __global const float *restrict rho,
                 __global const float4 *restrict gauge_points,
                 __global float4 *restrict gauge_samples) {
    const uint k = get_global_id(0);
    if (k >= CLP_SPH_GAUGE_POINTS)
        return;
    /* (sum V W, sum V W p) in one float4: as two scalars, Oclgrind 21.10 takes them for
       uninitialised */
    float4 sums = (float4)(0.0f), velocity = (float4)(0.0f);
    cell_search search;
    cell_search_begin_at(&search, (float4)(gauge_points[k].xyz, 0.0f));
    uint j;
    float4 r;
    while (cell_search_next(&search, pos, key, cell_start, cell_end, CLP_SPH_SUPPORT2, &j, &r)) {
        if (type[j] != 0)
            continue;
        const float s_j = rho[j];
        const float vw =
            CLP_SPH_MASS / SPH_RHO(s_j) * CLP_SPH_SIGMA * kernel_w(sqrt(dot(r, r)) / CLP_SPH_H);
        sums += vw * (float4)(1.0f, SPH_PRESSURE(s_j), 0.0f, 0.0f);
        velocity += vw * (float4)(vel[j].xyz, 0.0f);
    }
    gauge_samples[2 * k] = sums;
    gauge_samples[2 * k + 1] = velocity;
}

/* The pressure force of the fluid on boundary particle i, the opposite of the pressure
 * force the particle exerts on its fluid neighbours in sph_forces:
 * m^2 sum_j (p_i + p_j) / (rho_i rho_j) grad_j W_ji. */
__kernel void sph_wall_force(CLP_GRID_PARAMS CLP_CONSTANTS_PARAM,
                             __global const float *restrict rho,
                             __global float4 *restrict wall_force) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const bool wall = type[i] == 1;
    const float s_i = rho[i], rho_i = SPH_RHO(s_i), p_i = SPH_PRESSURE(s_i);
    float4 force = (float4)(0.0f);
    uint j;
    float4 r_ij; /* x_j - x_i */
    CLP_FOR_EACH_NEIGHBOR_OF_TYPE(i, 0, j, r_ij) {
        const float r2 = dot(r_ij, r_ij);
        if (!wall)
            break;
        if (r2 >= CLP_SPH_SUPPORT2)
            continue;
        const float s_j = rho[j];
        const float f = CLP_SPH_GRAD_SCALE * kernel_f(sqrt(r2) / CLP_SPH_H);
        force +=
            (CLP_SPH_MASS * CLP_SPH_MASS * (p_i + SPH_PRESSURE(s_j)) / (rho_i * SPH_RHO(s_j)) * f) *
            r_ij;
    }
    wall_force[i] = force;
}
