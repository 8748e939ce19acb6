/* Weakly-compressible SPH (seed particle-systems-gpusph-design.txt 5.1-5.5): smoothing
 * kernels by Horner's method, Tait equation of state, density by continuity with delta-SPH
 * diffusion or by summation, symmetric pressure gradient, artificial or laminar viscosity,
 * gravity, dynamic boundary particles (type 1: they carry density and pressure, never move),
 * a time step chosen on the device from the CFL, force and viscous conditions, and a
 * symplectic Euler step. Layouts: vel[i] float4 (xyz, w unused), rho[i] float (kg/m^3),
 * acc[i] float4 (m/s^2), drho[i] float (kg/m^3/s), dt_partial[group] float2 (largest |a|,
 * largest |v| of the group's fluid), dt[0] the step (s). SI units throughout. */

#ifndef CLP_SPH_KERNEL
#define CLP_SPH_KERNEL 1 /* smoothing kernel: 0 cubic spline, 1 Wendland C2 */
#define CLP_SPH_KERNEL_CUBIC 0
#define CLP_SPH_KERNEL_WENDLAND 1
#endif
#ifndef CLP_SPH_DENSITY
#define CLP_SPH_DENSITY 0 /* 0 continuity equation, 1 summation */
#define CLP_SPH_DENSITY_CONTINUITY 0
#define CLP_SPH_DENSITY_SUMMATION 1
#endif
#ifndef CLP_SPH_DELTA
#define CLP_SPH_DELTA 0x1.99999ap-4f /* delta-SPH coefficient (0.1); 0 turns it off */
#endif
#ifndef CLP_SPH_VISCOSITY
#define CLP_SPH_VISCOSITY 0 /* 0 artificial (alpha), 1 laminar (nu) */
#define CLP_SPH_VISCOSITY_ARTIFICIAL 0
#define CLP_SPH_VISCOSITY_LAMINAR 1
#endif
/* Host constants; these defaults only let the file compile alone. */
#ifndef CLP_SPH_H
#define CLP_SPH_H 0.01f     /* smoothing length h, m; the kernel reaches 2h */
#define CLP_SPH_RHO0 1000.0f /* reference density, kg/m^3 */
#define CLP_SPH_C0 20.0f     /* speed of sound, m/s */
#define CLP_SPH_MASS 0.1f    /* particle mass, kg */
#define CLP_SPH_ALPHA 0.02f  /* artificial viscosity coefficient */
#define CLP_SPH_NU 1e-6f     /* kinematic viscosity, m^2/s */
#define CLP_SPH_GX 0.0f      /* gravity, m/s^2 */
#define CLP_SPH_GY -9.81f
#define CLP_SPH_GZ 0.0f
#define CLP_SPH_DT 1e-5f     /* largest time step, s: cfl h / c0, viscous bound 0.125 h^2/nu */
#define CLP_SPH_CFL 0.1f     /* time step over h / (c0 + |v|max) */
#define CLP_SPH_DT_GROUP 64  /* work-items of the time-step reduction */
#define CLP_SPH_DT_GROUPS 16 /* its work-groups */
#define CLP_SPH_SIGMA 5570.42f /* kernel normalisation, 1/m^d: W = SIGMA * w(r/h) */
#endif

/* Derived values. */
#define CLP_SPH_TAIT_B (CLP_SPH_C0 * CLP_SPH_C0 * CLP_SPH_RHO0 / 7.0f)
#define CLP_SPH_ETA2 (0.01f * CLP_SPH_H * CLP_SPH_H) /* keeps 1/r^2 terms finite */
#if CLP_SPH_KERNEL == CLP_SPH_KERNEL_WENDLAND

/* W = sigma * (1 - q/2)^4 (2q + 1), q = r/h in [0, 2]. */
float kernel_w(float q) {
    float t = 1.0f - 0.5f * q;
    float t2 = t * t;
    return t2 * t2 * (2.0f * q + 1.0f);
}

/* F = (dW/dr) / r, so that grad_i W = (x_i - x_j) F: -5 sigma / h^2 (1 - q/2)^3. */
float kernel_f(float q) {
    float t = 1.0f - 0.5f * q;
    return -5.0f * t * t * t / (CLP_SPH_H * CLP_SPH_H);
}

#else

/* Cubic spline, support 2h: 1 - 3/2 q^2 + 3/4 q^3 below 1, (2 - q)^3 / 4 above. */
float kernel_w(float q) {
    float t = 2.0f - q;
    return q < 1.0f ? 1.0f + q * q * (-1.5f + 0.75f * q) : 0.25f * t * t * t;
}

float kernel_f(float q) {
    float t = 2.0f - q;
    float dwdq = q < 1.0f ? q * (-3.0f + 2.25f * q) : -0.75f * t * t;
    return q > 0.0f ? dwdq / (q * CLP_SPH_H * CLP_SPH_H) : -3.0f / (CLP_SPH_H * CLP_SPH_H);
}

#endif

float tait_pressure(float rho) {
    return CLP_SPH_TAIT_B * (pown(rho / CLP_SPH_RHO0, 7) - 1.0f);
}

#if CLP_SPH_DENSITY == CLP_SPH_DENSITY_SUMMATION
/* rho_i = m sum_j W_ij, the particle itself included. Boundary particles keep theirs. */
__kernel void sph_density(CLP_GRID_PARAMS, __global float *restrict rho) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES || type[i] != 0)
        return;
    uint j;
    float4 r_ij;
    acc_t sum = acc_zero();
    acc_add(&sum, kernel_w(0.0f));
    CLP_FOR_EACH_NEIGHBOR(i, j, r_ij) {
        acc_add(&sum, kernel_w(length(r_ij) / CLP_SPH_H));
    }
    rho[i] = CLP_SPH_MASS * CLP_SPH_SIGMA * acc_result(sum);
}
#endif

/* The rate of change of velocity and density of every particle. */
__kernel void sph_forces(CLP_GRID_PARAMS, __global const float4 *restrict vel,
                         __global const float *restrict rho, __global float4 *restrict acc,
                         __global float *restrict drho) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const bool fluid_i = type[i] == 0;
    const float4 v_i = vel[i];
    const float rho_i = rho[i], p_i = tait_pressure(rho_i);
    acc4_t a_sum = acc4_zero(); /* one float4 sum, not three: Oclgrind 21.10's uninitialised-
                                   value check crashes on per-component sums */
    acc_t dr = acc_zero();
    uint j;
    float4 r_ij; /* x_j - x_i */
    CLP_FOR_EACH_NEIGHBOR(i, j, r_ij) {
        const float r2 = dot(r_ij, r_ij);
        const float f = CLP_SPH_SIGMA * kernel_f(sqrt(r2) / CLP_SPH_H);
        const float4 grad = -r_ij * f; /* grad_i W_ij */
        const float rho_j = rho[j];
        const float4 v_ij = v_i - vel[j];
        float d = CLP_SPH_MASS * dot(v_ij, grad);
#if CLP_SPH_DENSITY == CLP_SPH_DENSITY_CONTINUITY
        /* delta-SPH: 2 delta h c0 sum V_j (rho_j - rho_i) (x_ij . grad W)/(r^2 + eta^2) */
        if (fluid_i && type[j] == 0)
            d += 2.0f * CLP_SPH_DELTA * CLP_SPH_H * CLP_SPH_C0 * (CLP_SPH_MASS / rho_j) *
                 (rho_j - rho_i) * (-r2 * f) / (r2 + CLP_SPH_ETA2);
#endif
        acc_add(&dr, d);
        if (!fluid_i)
            continue;
        float s = -CLP_SPH_MASS * (p_i + tait_pressure(rho_j)) / (rho_i * rho_j);
        const float vx = -dot(v_ij, r_ij); /* v_ij . x_ij */
#if CLP_SPH_VISCOSITY == CLP_SPH_VISCOSITY_ARTIFICIAL
        if (vx < 0.0f) {
            const float mu = CLP_SPH_H * vx / (r2 + CLP_SPH_ETA2);
            s += CLP_SPH_MASS * CLP_SPH_ALPHA * CLP_SPH_C0 * mu / (0.5f * (rho_i + rho_j));
        }
        const float4 a = s * grad;
#else
        /* Lo and Shao: 4 m nu (x_ij . grad W) / ((rho_i + rho_j)(r^2 + eta^2)) v_ij */
        const float4 a = s * grad + 4.0f * CLP_SPH_MASS * CLP_SPH_NU * (-r2 * f) /
                                        ((rho_i + rho_j) * (r2 + CLP_SPH_ETA2)) * v_ij;
#endif
        acc4_add(&a_sum, a);
    }
    const float4 gravity = (float4)(CLP_SPH_GX, CLP_SPH_GY, CLP_SPH_GZ, 0.0f);
    acc[i] = fluid_i ? acc4_result(a_sum) + gravity : (float4)(0.0f);
    drho[i] = acc_result(dr);
}

/* Component-wise maximum over the work-group; largest[0] holds it afterwards. Every
 * work-item of the group must call it. */
void group_max(float2 mine, __local float2 *largest) {
    const uint lid = get_local_id(0);
    largest[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = CLP_SPH_DT_GROUP / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            largest[lid] = fmax(largest[lid], largest[lid + stride]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Largest |a| and |v| among the fluid particles, per work-group. */
__kernel __attribute__((reqd_work_group_size(CLP_SPH_DT_GROUP, 1, 1))) void
sph_dt_partial(__global const uint *restrict type, __global const float4 *restrict vel,
               __global const float4 *restrict acc, __global float2 *restrict dt_partial) {
    __local float2 largest[CLP_SPH_DT_GROUP];
    const uint lid = get_local_id(0);
    float2 m = (float2)(0.0f);
    for (uint i = get_global_id(0); i < CLP_GRID_PARTICLES; i += get_global_size(0))
        if (type[i] == 0)
            m = fmax(m, (float2)(length(acc[i]), length(vel[i])));
    group_max(m, largest);
    if (lid == 0)
        dt_partial[get_group_id(0)] = largest[0];
}

/* The step (Monaghan): cfl h / (c0 + |v|max), 0.25 sqrt(h / |a|max), and the largest step
 * (the CFL step at rest and the viscous bound). One work-group. */
__kernel __attribute__((reqd_work_group_size(CLP_SPH_DT_GROUP, 1, 1))) void
sph_dt_final(__global const float2 *restrict dt_partial, __global float *restrict dt) {
    __local float2 largest[CLP_SPH_DT_GROUP];
    const uint lid = get_local_id(0);
    float2 m = (float2)(0.0f);
    for (uint g = lid; g < CLP_SPH_DT_GROUPS; g += CLP_SPH_DT_GROUP)
        m = fmax(m, dt_partial[g]);
    group_max(m, largest);
    if (lid == 0) {
        float step = fmin(CLP_SPH_DT, CLP_SPH_CFL * CLP_SPH_H / (CLP_SPH_C0 + largest[0].y));
        if (largest[0].x > 0.0f)
            step = fmin(step, 0.25f * sqrt(CLP_SPH_H / largest[0].x));
        dt[0] = step;
    }
}

/* Symplectic Euler: density and velocity first, then positions with the new velocity.
 * Boundary particles keep their place and at least the reference density. */
__kernel void sph_integrate(__global float4 *restrict pos, __global const uint *restrict type,
                            __global float4 *restrict vel, __global float *restrict rho,
                            __global const float4 *restrict acc,
                            __global const float *restrict drho,
                            __global const float *restrict dt) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const float step = dt[0];
#if CLP_SPH_DENSITY == CLP_SPH_DENSITY_SUMMATION
    float r = rho[i];
#else
    float r = rho[i] + step * drho[i];
#endif
    if (type[i] != 0) {
        rho[i] = fmax(r, CLP_SPH_RHO0);
        return;
    }
    rho[i] = r;
    float4 v = vel[i] + step * acc[i];
    vel[i] = v;
    pos[i] += step * (float4)(v.xyz, 0.0f);
}
