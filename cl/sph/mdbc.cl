/* Modified dynamic boundary conditions (mDBC; English et al. 2022, as in DualSPHysics): each
 * boundary particle takes the density of the fluid extrapolated to it from its ghost node,
 * its mirror image across the wall, set on the host from the tank and wall boxes.
 * Layout: ghost[i] float4, from particle i to its ghost node in xyz, w 1 where it has one.
 * Needs cl/sph/sph.cl (kernels and stored density) and the cell search of neighbors.cl. */

#if CLP_SPH_BOUNDARY == CLP_SPH_BOUNDARY_MDBC

/* Below this determinant of the correction matrix (in units where it is about 1 inside the
 * fluid), the fluid around the ghost node is too sparse for the gradient. */
#define MDBC_DETERMINANT_LIMIT 1e-3f

/* Boundary particle i's stored density from the fluid around its ghost node g: the first-order
 * corrected interpolation (Liu and Liu 2006) rho_g + (x_i - x_g) . grad rho_g, from
 *     sum_j V_j W_gj (rho_j - rho_g - x_gj . grad rho_g) = 0,
 *     sum_j V_j grad_g W_gj (rho_j - rho_g - x_gj . grad rho_g) = 0,
 * in lengths over h and densities relative to rest, which keep the matrix near 1 and the
 * float sums exact to the digits that matter; Shepard's zeroth-order value where the matrix
 * is near singular; the rest density where no fluid reaches g. Never below the rest density:
 * a wall does not pull on the fluid.
 * The system [s, a^T; c, G] (rho_g, grad) = (b, d) is solved by eliminating rho_g: the
 * gradient solves (G - c a^T / s) grad = d - c b / s, a 3 x 3 system (its third row the
 * identity's in 2D) solved with cross products. In float4 only: Oclgrind 21.10's
 * uninitialised-value check crashes on private arrays and on float3. */
__kernel void sph_mdbc(__global const float4 *restrict pos, __global const uint *restrict key,
                       __global const uint *restrict type, __global const uint *restrict cell_start,
                       __global const uint *restrict cell_end CLP_CONSTANTS_PARAM,
                       __global float *restrict rho, __global const float4 *restrict ghost) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES || type[i] != 1)
        return;
    const float4 to_ghost = (float4)(ghost[i].xyz, 0.0f);
    float s = 0.0f, b = 0.0f;                      /* sum V W, sum V W rho */
    float4 a = (float4)(0.0f), c = (float4)(0.0f); /* sum V W x, sum V grad W */
    float4 d = (float4)(0.0f);                     /* sum V grad W rho */
    float4 g0 = (float4)(0.0f), g1 = (float4)(0.0f), g2 = (float4)(0.0f); /* rows of G */
    cell_search search;
    cell_search_begin_at(&search, particle_position(pos[i], key[i]) + to_ghost);
    search.done = search.done || ghost[i].w == 0.0f;
    uint j;
    float4 r_gj; /* x_j - x_g */
    while (cell_search_next(&search, pos, key, cell_start, cell_end, CLP_SPH_SUPPORT2, &j, &r_gj)) {
        if (type[j] != 0)
            continue;
        const float q = sqrt(dot(r_gj, r_gj)) / CLP_SPH_H;
        const float s_j = rho[j], volume = CLP_SPH_MASS / SPH_RHO(s_j);
        const float w = volume * CLP_SPH_SIGMA * kernel_w(q);
        /* h grad_g W_gj = -x_gj GRAD_SCALE f h */
        const float4 grad = (-volume * CLP_SPH_GRAD_SCALE * CLP_SPH_H * kernel_f(q)) * r_gj;
        const float4 x = r_gj / CLP_SPH_H;
        const float value = s_j - SPH_REST;
        s += w;
        b += w * value;
        a += w * x;
        c += grad;
        d += grad * value;
        g0 += grad.x * x;
        g1 += grad.y * x;
        g2 += grad.z * x;
    }
    float value = 0.0f;
    if (s > 0.0f) {
        value = b / s;
        const float4 s0 = g0 - c.x / s * a, s1 = g1 - c.y / s * a;
        const float4 s2 = CLP_CORE_DIM == 3 ? g2 - c.z / s * a : (float4)(0.0f, 0.0f, 1.0f, 0.0f);
        const float4 e = d - b / s * c; /* e.z is 0 in 2D */
        const float4 c0 = cross(s1, s2), c1 = cross(s2, s0), c2 = cross(s0, s1);
        const float det = dot(s0, c0);
        if (fabs(s * det) >= MDBC_DETERMINANT_LIMIT) {
            const float4 gradient = (e.x * c0 + e.y * c1 + e.z * c2) / det;
            value = (b - dot(a, gradient)) / s - dot(to_ghost / CLP_SPH_H, gradient);
        }
    }
    rho[i] = SPH_REST + fmax(value, 0.0f);
}

#endif
