/* Hyper-dimensional repulsive particles (Masek and Vorechovsky 2018): N
 * points in the unit hypercube of D dimensions, periodic (equations 4 and 5), each pair
 * repelling through the potential L^-q. With Delta = x_i - x_j taken to the nearest image,
 *   a_i = -dE/dx_i = q sum_j Delta / L^(q+2)      (equation 6, with the factor q kept),
 * the point's energy is half of each of its pairs' L^-q, and its radial stress the sum of
 * the magnitudes q L^-(q+1) of the forces on it. Semi-implicit Euler with damping (7, 8).
 * Layouts: repulsive.pos/vel/acc float[i * D + v], point-major; energy, stress float[i];
 * measure float2[i] (nearest distance, sum of 1 / L^2). */

#ifndef CLP_REP_IMPL
#define CLP_REP_IMPL 0
#define CLP_REP_IMPL_TILED 0
#define CLP_REP_IMPL_GLOBAL 1
#endif
/* Host constants; these defaults only let the file compile alone. */
#ifndef CLP_REP_POINTS
#define CLP_REP_POINTS 64 /* N */
#define CLP_REP_DIM 2     /* D */
#define CLP_REP_Q 3       /* the potential's exponent */
#define CLP_REP_DT 0.001f /* the time step */
#define CLP_REP_TILE 64   /* points of a tile, and work-items of a tiled group */
#define CLP_REP_PRIVATE_DIM 16 /* the most dimensions a tiled target keeps in registers */
#define CLP_REP_GROUPS 4  /* groups of the kinetic-energy reduction */
#endif
#ifndef CLP_REP_DAMPING_TERMS
#define CLP_REP_DAMPING_TERMS 0 /* terms c_k v^p_k, as CLP_REP_C<k> and CLP_REP_P<k> */
#endif
#define REP_N CLP_REP_POINTS
#define REP_D CLP_REP_DIM
#define REP_REDUCE_GROUP 256

/* The component of x_i - x_j to the nearest periodic image, in [-0.5, 0.5]. */
float periodic_delta(float xi, float xj) {
    const float d = xi - xj;
    return d - rint(d);
}

/* L^-q from L^2, by repeated products (pown is a slow library call on PoCL). */
float inverse_power_q(float l2) {
    const float inv2 = 1.0f / l2;
    float result = (CLP_REP_Q & 1) ? rsqrt(l2) : 1.0f;
    for (int k = 0; k < CLP_REP_Q / 2; k++)
        result *= inv2;
    return result;
}

/* The pair (i, j) with the points' coordinates at xi and xj: its contributions to a_i (added
 * to acc[0 .. D-1] through add_component), to i's energy and to its stress. */
#define PAIR_TERMS(xi, xj, l2, lq)                                                               \
    float l2 = 0.0f;                                                                              \
    for (int v = 0; v < REP_D; v++) {                                                             \
        const float d = periodic_delta((xi)[v], (xj)[v]);                                         \
        l2 += d * d;                                                                              \
    }                                                                                             \
    const float lq = inverse_power_q(l2)

#if CLP_REP_IMPL == CLP_REP_IMPL_TILED

/* Section 6.1: tiles of source points stream through a group's local memory, each work-item
 * taking one target. Its coordinates and sums stay in registers up to CLP_REP_PRIVATE_DIM
 * dimensions (unrolled, as a plain tiled kernel keeps them); beyond, in local memory as the
 * seed has them, since registers would spill. */
__kernel __attribute__((reqd_work_group_size(CLP_REP_TILE, 1, 1))) void
rep_forces(__global const float *restrict rep_pos, __global float *restrict rep_acc,
           __global float *restrict rep_energy, __global float *restrict rep_stress) {
    __local float sources[CLP_REP_TILE * REP_D];
    const uint lid = get_local_id(0), i = get_global_id(0);
#if REP_D <= CLP_REP_PRIVATE_DIM
    float own[REP_D], acc[REP_D];
    for (int v = 0; v < REP_D; v++) {
        own[v] = i < REP_N ? rep_pos[i * REP_D + v] : 0.0f;
        acc[v] = 0.0f;
    }
#else
    __local float targets[CLP_REP_TILE * REP_D], sums[CLP_REP_TILE * REP_D];
    const uint first = get_group_id(0) * CLP_REP_TILE;
    for (uint k = lid; k < CLP_REP_TILE * REP_D; k += CLP_REP_TILE) {
        const uint at = first * REP_D + k;
        targets[k] = at < REP_N * REP_D ? rep_pos[at] : 0.0f;
        sums[k] = 0.0f;
    }
    __local const float *own = targets + lid * REP_D;
    __local float *acc = sums + lid * REP_D;
#endif
    float energy = 0.0f, stress = 0.0f;
    for (uint tile = 0; tile < REP_N; tile += CLP_REP_TILE) {
        barrier(CLK_LOCAL_MEM_FENCE); /* the last tile is used up; targets are loaded */
        for (uint k = lid; k < CLP_REP_TILE * REP_D; k += CLP_REP_TILE) {
            const uint at = tile * REP_D + k;
            sources[k] = at < REP_N * REP_D ? rep_pos[at] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint count = min((uint)CLP_REP_TILE, REP_N - tile);
        for (uint s = 0; i < REP_N && s < count; s++) {
            if (tile + s == i)
                continue;
            __local const float *other = sources + s * REP_D;
            PAIR_TERMS(own, other, l2, lq);
            const float factor = CLP_REP_Q * lq / l2;
            for (int v = 0; v < REP_D; v++)
                acc[v] += factor * periodic_delta(own[v], other[v]);
            energy += 0.5f * lq;
            stress += CLP_REP_Q * lq * rsqrt(l2);
        }
    }
    if (i >= REP_N)
        return;
    for (int v = 0; v < REP_D; v++)
        rep_acc[i * REP_D + v] = acc[v];
    rep_energy[i] = energy;
    rep_stress[i] = stress;
}

#else

/* OpenCL 1.2 has no float atomics: an add by compare-and-swap on the bits. The first guess
 * is 0, what the sums start from; every access is atomic, so none races. */
void atomic_add_float(volatile __global float *target, float value) {
    volatile __global uint *bits = (volatile __global uint *)target;
    uint expected = 0u, seen;
    while ((seen = atomic_cmpxchg(bits, expected, as_uint(as_float(expected) + value))) !=
           expected)
        expected = seen;
}

/* The sums start from zero before each evaluation. */
__kernel void rep_clear(__global float *restrict rep_acc, __global float *restrict rep_energy,
                        __global float *restrict rep_stress) {
    const uint k = get_global_id(0);
    if (k < REP_N * REP_D)
        rep_acc[k] = 0.0f;
    if (k < REP_N) {
        rep_energy[k] = 0.0f;
        rep_stress[k] = 0.0f;
    }
}

/* The pair (i, j)'s terms added to i's sums. */
void pair_to_sums(__global const float *rep_pos, uint i, uint j, __global float *rep_acc,
                  __global float *rep_energy, __global float *rep_stress) {
    __global const float *own = rep_pos + i * REP_D, *other = rep_pos + j * REP_D;
    PAIR_TERMS(own, other, l2, lq);
    const float factor = CLP_REP_Q * lq / l2;
    for (int v = 0; v < REP_D; v++)
        atomic_add_float(rep_acc + i * REP_D + v, factor * periodic_delta(own[v], other[v]));
    atomic_add_float(rep_energy + i, 0.5f * lq);
    atomic_add_float(rep_stress + i, CLP_REP_Q * lq * rsqrt(l2));
}

/* Section 6.2: one work-item per ordered pair (i, j), each adding its terms to i's sums in
 * global memory. Work-item k takes i = k mod N and the source rows j = k / N + r R, where R
 * = CLP_REP_PAIR_ROWS rows are launched at once (R N < 2^31, so k fits a uint; R = N up to
 * 46340 points, one pair each). Neighbouring work-items take neighbouring targets: with i and
 * j the other way round a whole warp would retry its compare-and-swap on one address (H200:
 * 2.9e6 interactions per second at N = 5000). */
__kernel void rep_forces(__global const float *restrict rep_pos, __global float *restrict rep_acc,
                         __global float *restrict rep_energy,
                         __global float *restrict rep_stress) {
    const uint k = get_global_id(0), first = k / REP_N, i = k - first * REP_N;
    if (first >= CLP_REP_PAIR_ROWS)
        return;
    for (uint j = first; j < REP_N; j += CLP_REP_PAIR_ROWS)
        if (i != j)
            pair_to_sums(rep_pos, i, j, rep_acc, rep_energy, rep_stress);
}

#endif

/* |v|^(p-1) v: the power p of a velocity component with its sign, so that every damping term
 * opposes the motion. */
float signed_power(float v, int p) {
    float result = v;
    for (int k = 1; k < p; k++)
        result *= fabs(v);
    return result;
}

/* The damping force on a velocity component: the sum of the case's c_k |v|^(p_k - 1) v. */
float damping(float v) {
    float force = 0.0f;
#if CLP_REP_DAMPING_TERMS > 0
    force += CLP_REP_C0 * signed_power(v, CLP_REP_P0);
#endif
#if CLP_REP_DAMPING_TERMS > 1
    force += CLP_REP_C1 * signed_power(v, CLP_REP_P1);
#endif
#if CLP_REP_DAMPING_TERMS > 2
    force += CLP_REP_C2 * signed_power(v, CLP_REP_P2);
#endif
#if CLP_REP_DAMPING_TERMS > 3
    force += CLP_REP_C3 * signed_power(v, CLP_REP_P3);
#endif
    (void)v;
    return force;
}

/* Semi-implicit Euler (equations 7 and 8) with the damping force, then back into the unit
 * hypercube, one work-item per component. */
__kernel void rep_step(__global float *restrict rep_pos, __global float *restrict rep_vel,
                       __global const float *restrict rep_acc) {
    const uint k = get_global_id(0);
    if (k >= REP_N * REP_D)
        return;
    float v = rep_vel[k];
    v += CLP_REP_DT * (rep_acc[k] - damping(v));
    const float x = rep_pos[k] + CLP_REP_DT * v;
    rep_vel[k] = v;
    rep_pos[k] = x - floor(x);
}

/* The kinetic energy, sum of v^2 / 2 over all components, in CLP_REP_GROUPS partial sums. */
__kernel __attribute__((reqd_work_group_size(REP_REDUCE_GROUP, 1, 1))) void
rep_kinetic(__global const float *restrict rep_vel, __global float *restrict rep_partial) {
    __local float sums[REP_REDUCE_GROUP];
    const uint lid = get_local_id(0);
    float sum = 0.0f;
    for (uint k = get_global_id(0); k < REP_N * REP_D; k += get_global_size(0))
        sum += 0.5f * rep_vel[k] * rep_vel[k];
    sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = REP_REDUCE_GROUP / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            sums[lid] += sums[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        rep_partial[get_group_id(0)] = sums[0];
}

/* For the design's criteria: each point's periodic distance to its nearest neighbour, and its
 * sum of 1 / L^2 (the periodic Audze-Eglajs criterion is half the sum over points). */
__kernel void rep_measure(__global const float *restrict rep_pos,
                          __global float *restrict rep_measure) {
    const uint i = get_global_id(0);
    if (i >= REP_N)
        return;
    float nearest2 = INFINITY, ae = 0.0f;
    for (uint j = 0; j < REP_N; j++) {
        if (j == i)
            continue;
        float l2 = 0.0f;
        for (int v = 0; v < REP_D; v++) {
            const float d = periodic_delta(rep_pos[i * REP_D + v], rep_pos[j * REP_D + v]);
            l2 += d * d;
        }
        nearest2 = fmin(nearest2, l2);
        ae += 1.0f / l2;
    }
    rep_measure[2 * i] = sqrt(nearest2);
    rep_measure[2 * i + 1] = ae;
}
