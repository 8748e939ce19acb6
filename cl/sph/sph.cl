/* Weakly-compressible SPH (Bilotta et al. 2018, 5.1-5.5): smoothing
 * kernels by Horner's method, Tait equation of state, density by continuity with delta-SPH
 * diffusion (Molteni's or Fourtakas') or by summation, stored as rho or as the centred
 * relative density rho/rho0 - 1, symmetric pressure gradient, artificial or laminar viscosity,
 * XSPH, particle shifting, gravity, boundary particles (type 1: they carry density and
 * pressure, never move; dynamic, or with mDBC in cl/sph/mdbc.cl), a time step chosen on the device
 * from the CFL, force and viscous conditions, and a symplectic Euler or predictor-corrector step
 * that takes out of the computation any fluid particle that leaves the domain, the speed limit or
 * the density range (type CLP_GRID_EXCLUDED). Layouts: vel[i] float4 (xyz; w a copy of the
 * stored density for the forces, sph_pack), rho[i] float (stored density), acc[i] float4 (m/s^2 in
 * xyz; in w the divergence of position -sum_j V_j x_ij . grad_i W_ij, about the dimension inside
 * the fluid and lower at its free surface), drho[i] float (stored density per second; without
 * shifting), xsph[i] float4 (m/s, w 0), shift[i] float4 (the concentration gradient
 * sum_j V_j grad_i W_ij, w the stored density per second),
 * largest[2] uint (the bits of the largest |a| and |v| of the fluid at the last evaluation of
 * the forces), step[] the step record (SPH_STEP_* below). SI units throughout. These are the
 * model's own buffers: a kernel takes the grid's and the constants first, then those of them
 * it takes in the order of clp__sph_buffer (src/models/sph/sph.h), those the options leave out
 * fenced by the conditions under which the host leaves them out. */

#ifndef CLP_SPH_KERNEL
#define CLP_SPH_KERNEL          1 /* smoothing kernel: 0 cubic spline, 1 Wendland C2 */
#define CLP_SPH_KERNEL_CUBIC    0
#define CLP_SPH_KERNEL_WENDLAND 1
#endif
#ifndef CLP_SPH_DENSITY
#define CLP_SPH_DENSITY            0 /* 0 continuity equation, 1 summation */
#define CLP_SPH_DENSITY_CONTINUITY 0
#define CLP_SPH_DENSITY_SUMMATION  1
#endif
#ifndef CLP_SPH_DELTA
#define CLP_SPH_DELTA 0x1.99999ap-4f /* delta-SPH coefficient (0.1); 0 turns it off */
#endif
#ifndef CLP_SPH_DIFFUSION
#define CLP_SPH_DIFFUSION           1 /* delta-SPH term: 0 Molteni, 1 Fourtakas (dynamic density only) */
#define CLP_SPH_DIFFUSION_MOLTENI   0
#define CLP_SPH_DIFFUSION_FOURTAKAS 1
#endif
#ifndef CLP_SPH_SHIFTING
#define CLP_SPH_SHIFTING 1    /* 1: particle shifting */
#define CLP_SPH_SHIFT_A  2.0f /* its coefficient A */
#endif
#ifndef CLP_SPH_SURFACE_FLOOR
#define CLP_SPH_SURFACE_FLOOR 1 /* 1: fluid at the free surface keeps at least rho0 */
#endif
#ifndef CLP_SPH_DENSITY_MIN
#define CLP_SPH_DENSITY_MIN 0.7f /* fluid density range over rho0, and speed limit over c0 */
#define CLP_SPH_DENSITY_MAX 1.3f
#define CLP_SPH_SPEED_LIMIT 1.0f
#endif
#ifndef CLP_SPH_BOUNDARY
#define CLP_SPH_BOUNDARY         0 /* boundary particles: 0 dynamic, 1 mDBC (cl/sph/mdbc.cl) */
#define CLP_SPH_BOUNDARY_DYNAMIC 0
#define CLP_SPH_BOUNDARY_MDBC    1
#endif
#ifndef CLP_SPH_VISCOSITY
#define CLP_SPH_VISCOSITY            0 /* 0 artificial (alpha), 1 laminar (nu) */
#define CLP_SPH_VISCOSITY_ARTIFICIAL 0
#define CLP_SPH_VISCOSITY_LAMINAR    1
#endif
#ifndef CLP_SPH_CENTRED_DENSITY
#define CLP_SPH_CENTRED_DENSITY 0 /* 1: rho[] holds rho/rho0 - 1 */
#endif
#ifndef CLP_SPH_XSPH
#define CLP_SPH_XSPH         0 /* 1: particles move with the XSPH velocity */
#define CLP_SPH_XSPH_EPSILON 0.5f
#endif
#ifndef CLP_SPH_STRATEGY
#define CLP_SPH_STRATEGY          0 /* forces: 0 a work-item per particle, 1 x-pencils (sph_pencil.cl) */
#define CLP_SPH_STRATEGY_PAR_PART 0
#define CLP_SPH_STRATEGY_X_PENCIL 1
#endif
#ifndef CLP_SPH_INTEGRATOR
#define CLP_SPH_INTEGRATOR                     0 /* 0 symplectic Euler, 1 predictor-corrector */
#define CLP_SPH_INTEGRATOR_SYMPLECTIC          0
#define CLP_SPH_INTEGRATOR_PREDICTOR_CORRECTOR 1
#endif
/* Host constants, computed in double; these defaults only let the file compile alone. */
#ifndef CLP_SPH_H
#define CLP_SPH_H                  0.01f   /* smoothing length h, m; the kernel reaches 2h */
#define CLP_SPH_RHO0               1000.0f /* reference density, kg/m^3 */
#define CLP_SPH_C0                 20.0f   /* speed of sound, m/s */
#define CLP_SPH_MASS               0.1f    /* particle mass, kg */
#define CLP_SPH_VOLUME             1e-4f   /* MASS / RHO0, m^d */
#define CLP_SPH_ALPHA              0.02f   /* artificial viscosity coefficient */
#define CLP_SPH_NU                 1e-6f   /* kinematic viscosity, m^2/s */
#define CLP_SPH_GX                 0.0f    /* gravity, m/s^2 */
#define CLP_SPH_GY                 -9.81f
#define CLP_SPH_GZ                 0.0f
#define CLP_SPH_DT                 1e-5f /* largest time step, s: cfl h / c0, viscous bound 0.125 h^2/nu */
#define CLP_SPH_CFL                0.1f     /* time step over h / (c0 + |v|max) */
#define CLP_SPH_SIGMA              5570.42f /* kernel normalisation, 1/m^d: W = SIGMA * w(r/h) */
#define CLP_SPH_GRAD_SCALE         5.57e7f  /* SIGMA / h^2: (dW/dr) / r = GRAD_SCALE * f(r/h) */
#define CLP_SPH_TAIT_B             57142.9f /* Tait's B = c0^2 rho0 / 7, Pa */
#define CLP_SPH_ETA2               1e-6f    /* 0.01 h^2: keeps 1/r^2 terms finite */
#define CLP_SPH_SUPPORT2           4e-4f /* (2h)^2: pairs from a list with skin beyond it are skipped */
#define CLP_SPH_DP                 7.7e-3f /* lattice spacing, m */
#define CLP_SPH_SURFACE_DIVERGENCE 1.5f    /* the divergence of position at the free surface */
#endif

/* Helpers take no constants (see cl/common/constants.cl); kernels scale their results. */
#if CLP_SPH_KERNEL == CLP_SPH_KERNEL_WENDLAND

/* W = SIGMA * w(q), q = r/h in [0, 2]: w = (1 - q/2)^4 (2q + 1). */
float kernel_w(float q) {
    float t = 1.0f - 0.5f * q;
    float t2 = t * t;
    return t2 * t2 * (2.0f * q + 1.0f);
}

/* (dW/dr) / r = GRAD_SCALE * f(q), so that grad_i W = (x_i - x_j) GRAD_SCALE f: -5 (1 - q/2)^3 */
float kernel_f(float q) {
    float t = 1.0f - 0.5f * q;
    return -5.0f * t * t * t;
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
    return q > 0.0f ? dwdq / q : -3.0f;
}

#endif

/* (1 + s)^7 - 1 by Horner's method on its binomial expansion: no cancellation near rest, and
 * a few multiplications where pown() is a slow library call on some CPUs (it made the whole
 * 2D dam break 2.6 times slower on PoCL). */
float tait_term(float s) {
    return s * (7.0f + s * (21.0f + s * (35.0f + s * (35.0f + s * (21.0f + s * (7.0f + s))))));
}

/* How rho[] stores density: SPH_RHO(s) is the density, SPH_PRESSURE(s) Tait's pressure
 * B ((rho/rho0)^7 - 1), SPH_REST the stored rest density, SPH_DRHO_SCALE the factor of
 * sum_j v_ij . grad W in the stored density's rate, SPH_STORED_FROM_SUM the stored density
 * of a kernel sum sum_j w_ij. Differences s_j - s_i are the stored form of rho_j - rho_i in
 * either case. */
#if CLP_SPH_CENTRED_DENSITY

#define SPH_RHO(s)               (CLP_SPH_RHO0 * (1.0f + (s)))
#define SPH_PRESSURE(s)          (CLP_SPH_TAIT_B * tait_term(s))
#define SPH_REST                 0.0f
#define SPH_DRHO_SCALE           CLP_SPH_VOLUME
#define SPH_STORED_FROM_SUM(sum) (CLP_SPH_VOLUME * CLP_SPH_SIGMA * (sum)-1.0f)

#else

#define SPH_RHO(s)               (s)
#define SPH_PRESSURE(s)          (CLP_SPH_TAIT_B * tait_term((s) * (1.0f / CLP_SPH_RHO0) - 1.0f))
#define SPH_REST                 CLP_SPH_RHO0
#define SPH_DRHO_SCALE           CLP_SPH_MASS
#define SPH_STORED_FROM_SUM(sum) (CLP_SPH_MASS * CLP_SPH_SIGMA * (sum))

#endif

/* SPH_DENSITY_UNIT: a density difference over the stored density's difference. */
#if CLP_SPH_CENTRED_DENSITY
#define SPH_DENSITY_UNIT CLP_SPH_RHO0
#else
#define SPH_DENSITY_UNIT 1.0f
#endif

/* The step record, uint step[SPH_STEP_WORDS], set by sph_dt and filled in by the
 * integration: the step (bits of a float, s), the largest distance a particle has moved since
 * the last rebuild (bits of a float: non-negative floats order as their bits), the fluid
 * particles excluded in this step, an OR of their reasons, and the smallest ID among them. */
#define SPH_STEP_DT       0
#define SPH_STEP_MOVED    1
#define SPH_STEP_EXCLUDED 2
#define SPH_STEP_REASONS  3
#define SPH_STEP_FIRST_ID 4
#define SPH_STEP_WORDS    5
#define SPH_OUT_DOMAIN    1u
#define SPH_OUT_SPEED     2u
#define SPH_OUT_DENSITY   4u

#if CLP_SPH_DENSITY == CLP_SPH_DENSITY_SUMMATION
/* rho_i = m sum_j W_ij, the particle itself included. Boundary particles keep theirs. */
__kernel void sph_density(CLP_GRID_PARAMS CLP_CONSTANTS_PARAM, __global float *restrict rho) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES || type[i] != 0)
        return;
    uint j;
    float4 r_ij;
    acc_t sum = acc_zero();
    acc_add(&sum, kernel_w(0.0f));
    CLP_FOR_EACH_NEIGHBOR(i, j, r_ij) {
        const float r2 = dot(r_ij, r_ij);
        if (r2 < CLP_SPH_SUPPORT2 && type[j] != CLP_GRID_EXCLUDED)
            acc_add(&sum, kernel_w(sqrt(r2) / CLP_SPH_H));
    }
    rho[i] = SPH_STORED_FROM_SUM(acc_result(sum));
}
#endif

/* rho_j - rho_i in stored units less its hydrostatic part, which Fourtakas' diffusion takes
 * out: rho0 ((1 + rho0 g . r_ij / B)^(1/7) - 1) with B = c0^2 rho0 / 7, by its series to
 * second order (the argument is below 1e-2 within the kernel's support): rho0 x (1/7 - 3/49 x)
 * with x = 7 g . r_ij / c0^2, that is y (1 - 3 y / rho0) with y = rho0 g . r_ij / c0^2, in
 * which the constants fold (a multiplication, two fused multiply-adds and a subtraction). */
float density_difference(float s_i, float s_j, float4 r_ij CLP_CONSTANTS_FN_PARAM) {
#if CLP_SPH_DIFFUSION == CLP_SPH_DIFFUSION_FOURTAKAS
    /* y = rho0 g . r_ij / c0^2 without the products of gravity's zero components: they
       come as -0, which the compiler drops from a sum (it cannot drop 0 * r, nor + 0) */
    const float k = CLP_SPH_RHO0 / SPH_DENSITY_UNIT / (CLP_SPH_C0 * CLP_SPH_C0);
    const float y = (CLP_SPH_GX != 0.0f ? k * CLP_SPH_GX * r_ij.x : -0.0f) +
                    (CLP_SPH_GY != 0.0f ? k * CLP_SPH_GY * r_ij.y : -0.0f) +
                    (CLP_SPH_GZ != 0.0f ? k * CLP_SPH_GZ * r_ij.z : -0.0f);
    /* y (1 - 3 y / rho0) in stored units */
    return (s_j - s_i) - y * (1.0f + y * (-3.0f * SPH_DENSITY_UNIT / CLP_SPH_RHO0));
#else
    (void)r_ij;
    return s_j - s_i;
#endif
}

/* Whether boundary particles have a density rate: not under mDBC, which sets their density
 * from the fluid around their ghost nodes (cl/sph/mdbc.cl) before every force evaluation. */
#if CLP_SPH_BOUNDARY == CLP_SPH_BOUNDARY_MDBC
#define SPH_BOUNDARY_RATES 0
#else
#define SPH_BOUNDARY_RATES 1
#endif

/* A particle's sums over its neighbours, one accumulator each (Oclgrind 21.10's
 * uninitialised-value check crashes on accumulators held in a struct, and on a float4 sum
 * built from parts, such as the divergence in the acceleration's w lane): acceleration; the
 * divergence of position -sum_j V_j x_ij . grad_i W_ij; density rate; the XSPH blend
 * sum_j 2 m / (rho_i + rho_j) (v_j - v_i) W_ij; the shifting concentration
 * sum_j V_j grad_i W_ij. The last two are left alone when their options are off.
 * core.summation compensates the sums whose terms cancel: the rates of velocity and density
 * (pressure against gravity, inflow against outflow) and the XSPH blend. The divergence,
 * whose terms share one sign and which only meets a threshold, and the concentration, which
 * only sets the size of a shift, add plainly (acc_add_plain): their compensation took a
 * tenth of a pair's instructions (5 % of the forces, NVIDIA H200) for a change in the
 * seventh digit of quantities that are themselves approximations to some per cent. */
#define SPH_SUMS acc4_t *a, acc_t *dr, acc_t *divergence, acc4_t *blend, acc4_t *concentration
#define SPH_SUMS_DECLARE(a, dr, divergence, blend, concentration)                                  \
    acc4_t a = acc4_zero(), blend = acc4_zero(), concentration = acc4_zero();                      \
    acc_t dr = acc_zero(), divergence = acc_zero()

/* The particle whose sums are taken: its velocity, stored density, density, pressure, and
 * -m / rho, the factor of the pressure term that is its own. Its type goes beside it:
 * Oclgrind 21.10's uninitialised-value check crashes on a struct with padding. */
typedef struct {
    float4 v;
    float s, rho, p, minus_m_inv_rho;
} sph_self;

void sph_self_from(sph_self *me, float4 v_i, float s_i CLP_CONSTANTS_FN_PARAM) {
    me->v = v_i;
    me->s = s_i;
    me->rho = SPH_RHO(s_i);
    me->p = SPH_PRESSURE(s_i);
    me->minus_m_inv_rho = -CLP_SPH_MASS / me->rho;
}

/* Whether a particle takes sums at all: under mDBC a boundary particle has none. */
bool sph_has_sums(bool fluid) {
    return fluid || SPH_BOUNDARY_RATES;
}

/* Adds neighbour j at r_ij = x_j - x_i (r2 = |r_ij|^2 within the support) to the sums of
 * `me`, from j's velocity, type, stored density s_j, density, pressure and inverse density
 * (the last three computed once per neighbour by the caller, who may reuse them). The loop
 * over neighbours is bound by instruction issue on a GPU, so a pair term takes as few as it
 * can: one division by r^2 + eta^2 serves both terms that need it, the densities come
 * inverted, constants are grouped so that they fold at compile time, the kernel gradient
 * stays the scalar f of grad_i W_ij = -r_ij f, whose dot products are then v_ij . x_ij and
 * r^2. The sums' w lanes are never read, so the compiler drops them (vectors built from
 * parts to zero them crash Oclgrind 21.10's uninitialised-value check). */
void sph_pair(SPH_SUMS, bool fluid_i, const sph_self *me, float4 r_ij, float r2, float4 v_j,
              uint type_j, float s_j, float rho_j, float p_j,
              float inv_rho_j CLP_CONSTANTS_FN_PARAM) {
    /* r as r^2 / r: NVIDIA's driver scales a sqrt's argument for subnormal inputs, not an
       rsqrt's (two instructions a pair); the floor keeps coincident particles at q = 0 */
    const float q = r2 * rsqrt(fmax(r2, FLT_MIN)) * (1.0f / CLP_SPH_H);
    const float volume_j = CLP_SPH_MASS * inv_rho_j, inv_r2_eta2 = 1.0f / (r2 + CLP_SPH_ETA2);
    const float f = CLP_SPH_GRAD_SCALE * kernel_f(q); /* grad_i W_ij = -r_ij f */
    const float r_grad = -r2 * f;                      /* r_ij . grad_i W_ij */
    const float4 v_ij = me->v - v_j;
    const float vx = -dot(v_ij.xyz, r_ij.xyz); /* v_ij . x_ij */
    float d = SPH_DRHO_SCALE * f * vx;         /* m v_ij . grad_i W_ij */
#if CLP_SPH_DENSITY == CLP_SPH_DENSITY_CONTINUITY
    /* delta-SPH: 2 delta h c0 sum V_j (rho_j - rho_i - hydrostatic) (x_ji . grad W) /
     * (r^2 + eta^2), between fluid particles */
    if (fluid_i && type_j == 0)
        d += 2.0f * CLP_SPH_DELTA * CLP_SPH_H * CLP_SPH_C0 * CLP_SPH_MASS * inv_rho_j *
             density_difference(me->s, s_j, r_ij CLP_CONSTANTS_ARG) * r_grad *
             inv_r2_eta2;
#endif
    acc_add(dr, d);
    if (!fluid_i)
        return;
    /* -m (p_i + p_j) / (rho_i rho_j) */
    float s = (me->p + p_j) * (me->minus_m_inv_rho * inv_rho_j);
#if CLP_SPH_VISCOSITY == CLP_SPH_VISCOSITY_ARTIFICIAL
    /* Monaghan's: m alpha c0 mu / rho_ij with mu = h v_ij . x_ij / (r^2 + eta^2) and rho_ij
       the mean density, for approaching pairs */
    if (vx < 0.0f)
        s += 2.0f * CLP_SPH_MASS * CLP_SPH_ALPHA * CLP_SPH_C0 * CLP_SPH_H * vx * inv_r2_eta2 *
             (1.0f / (me->rho + rho_j)); /* a reciprocal: cheaper than a division */
    acc4_add(a, -s * f * r_ij);
#else
    /* Lo and Shao: 4 m nu (x_ij . grad W) / ((rho_i + rho_j)(r^2 + eta^2)) v_ij */
    /* Lo and Shao (2002): 4 m nu (x_ij . grad_i W_ij) v_ij / ((rho_i + rho_j)(r^2 + eta^2)),
       where x_ij . grad_i W_ij = -r_grad <= 0: it damps the pair's relative velocity */
    const float laminar =
        -4.0f * CLP_SPH_MASS * CLP_SPH_NU * r_grad * inv_r2_eta2 * (1.0f / (me->rho + rho_j));
    acc4_add(a, -s * f * r_ij + laminar * v_ij);
#endif
    acc_add_plain(divergence, volume_j * r_grad);
#if CLP_SPH_XSPH
    if (type_j == 0)
        acc4_add(blend,
                 -v_ij * (2.0f * CLP_SPH_MASS * CLP_SPH_SIGMA * kernel_w(q) / (me->rho + rho_j)));
#else
    (void)blend;
#endif
#if CLP_SPH_SHIFTING
    const float vf = -volume_j * f;
    acc4_add_plain(concentration, vf * r_ij);
#else
    (void)concentration;
#endif
}

#if CLP_SPH_XSPH
#define SPH_XSPH_PARAM , __global float4 *restrict xsph
#else
#define SPH_XSPH_PARAM
#endif
#if CLP_SPH_SHIFTING
#define SPH_SHIFT_PARAM(qualifier) , __global qualifier float4 *restrict shift
#else
#define SPH_SHIFT_PARAM(qualifier)
#endif
/* The rate of stored density of particle i: with shifting in the w its sums leave free, so
 * that it needs no buffer of its own. */
#if CLP_SPH_SHIFTING
#define SPH_DRHO_PARAM(qualifier)
#define SPH_DRHO_OF(i) shift[i].w
#else
#define SPH_DRHO_PARAM(qualifier) , __global qualifier float *restrict drho
#define SPH_DRHO_OF(i) drho[i]
#endif

/* Writes particle i's rates from the sums a kernel holds in SPH_SUMS_DECLARE's names. A
 * macro: Oclgrind 21.10's uninitialised-value check crashes when the sums go to a function,
 * as accumulators or as their values. */
#if CLP_SPH_XSPH
#define SPH_STORE_XSPH(i, fluid_i)                                                                 \
    xsph[i] = (fluid_i) ? (float4)(CLP_SPH_XSPH_EPSILON * acc4_result(blend).xyz, 0.0f)        \
                        : (float4)(0.0f)
#else
#define SPH_STORE_XSPH(i, fluid_i) (void)blend
#endif
#if CLP_SPH_SHIFTING
#define SPH_STORE_SHIFT_DRHO(i, fluid_i, dr_i)                                                     \
    do {                                                                                           \
        shift[i] = (fluid_i) ? (float4)(acc4_result(concentration).xyz, 0.0f) : (float4)(0.0f);   \
        shift[i].w = (dr_i);                                                                       \
    } while (0)
#else
#define SPH_STORE_SHIFT_DRHO(i, fluid_i, dr_i)                                                     \
    do {                                                                                           \
        (void)concentration;                                                                       \
        drho[i] = (dr_i);                                                                          \
    } while (0)
#endif
/* an excluded particle has no rate (written out, this select also keeps Oclgrind 21.10's
   uninitialised-value check from crashing on the kernel); largest_i gets a fluid particle's
   |a| and |v| (v_i its velocity) for the choice of the step, which the kernel adds to its
   group's (group_max_add: added here, that check crashes on the kernel too) */
#define SPH_STORE_RATES(i, type_i, v_i, largest_i)                                                 \
    do {                                                                                           \
        const bool stored_fluid = (type_i) == 0;                                                   \
        const float4 gravity = (float4)(CLP_SPH_GX, CLP_SPH_GY, CLP_SPH_GZ, 0.0f);                 \
        const float4 a_i = stored_fluid ? (float4)(acc4_result(a).xyz + gravity.xyz,               \
                                                   acc_result(divergence))                         \
                                        : (float4)(0.0f);                                          \
        acc[i] = a_i;                                                                              \
        largest_i = stored_fluid ? fmax((float2)(0.0f),                                            \
                                        (float2)(length(a_i.xyz), length((v_i).xyz)))              \
                                 : (float2)(0.0f);                                                 \
        SPH_STORE_XSPH(i, stored_fluid);                                                           \
        SPH_STORE_SHIFT_DRHO(i, stored_fluid,                                                      \
                             (type_i) == CLP_GRID_EXCLUDED ? 0.0f : acc_result(dr));               \
    } while (0)

/* Maxima of non-negative floats over a work-group, as their bits (which order as the floats):
 * in `n` words of local memory with local atomics, then added to as many words of device
 * memory with one atomic each. Every work-item of the group calls group_max_begin before and
 * group_max_end after its group_max_add calls. An atomic a work-item on one word of device
 * memory, and the maximum taken in an element a work-item by halves, each took the kernels
 * longer (NVIDIA H200); a device-memory maximum read without an atomic to spare atomics is
 * a data race. */
void group_max_begin(__local uint *group, uint n) {
    if (get_local_id(0) == 0)
        for (uint k = 0; k < n; k++)
            group[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

void group_max_add(__local uint *word, float value) {
    if (value > 0.0f)
        atomic_max(word, as_uint(value));
}

void group_max_end(__local uint *group, __global uint *words, uint n) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        for (uint k = 0; k < n; k++)
            if (group[k])
                atomic_max(&words[k], group[k]);
}

#if CLP_SPH_STRATEGY == CLP_SPH_STRATEGY_PAR_PART
/* Copies what the forces read of a neighbour besides its position and velocity into the w
 * components those leave unused: pos.w the bits of its type, vel.w its stored density. A
 * neighbour then costs three gathers (list entry, position, velocity) instead of five
 * (DualSPHysics and GPUSPH keep the density in vel.w for the same reason). Its pressure and
 * inverse density computed here too, into a third array, saved the forces as much
 * arithmetic as the extra gather cost them (H100, docs/benchmarks/sph.md), so they are not.
 * The integration writes the same copies as it writes the state (advance, step_end); this
 * runs over the slots the forces read when some other kernel or the host wrote pos[], a type
 * or a density last (the start of a run, a rebuild, whose keys' kernel rewrites local
 * positions, mDBC, the density by summation, a multi-device run's halos). Every other
 * kernel ignores both w components (particle_delta and particle_position zero them, speeds
 * take xyz). */
__kernel void sph_pack(__global float4 *restrict pos, __global const uint *restrict type,
                       __global float4 *restrict vel, __global const float *restrict rho) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    pos[i].w = as_float(type[i]);
    vel[i].w = rho[i];
}

/* The rate of change of velocity and density of every particle, its XSPH correction and its
 * shifting sums, a work-item per particle; and the largest |a| and |v| for the step, so that
 * the step needs no pass of its own over the particles. Excluded neighbours, which stay in a
 * list until the next rebuild, are skipped. */
__kernel void sph_forces(CLP_GRID_PARAMS CLP_CONSTANTS_PARAM, __global const float4 *restrict vel,
                         __global const float *restrict rho,
                         __global float4 *restrict acc SPH_DRHO_PARAM(),
                         __global uint *restrict largest SPH_XSPH_PARAM SPH_SHIFT_PARAM()) {
    __local uint group_largest[2]; /* the largest |a| and |v| of the group's fluid */
    group_max_begin(group_largest, 2);
    const uint i = get_global_id(0);
    if (i < CLP_GRID_PARTICLES) {
        const bool fluid_i = type[i] == 0;
        sph_self me;
        sph_self_from(&me, vel[i], rho[i] CLP_CONSTANTS_ARG);
        SPH_SUMS_DECLARE(a, dr, divergence, blend, concentration);
        uint j;
        float4 r_ij, v_j; /* x_j - x_i, and vel[j], loaded with the position */
        CLP_FOR_EACH_NEIGHBOR_WITH(i, j, r_ij, vel, v_j) {
            /* under mDBC a boundary particle has no sums (a break, not an if around the loop:
               that crashes Oclgrind 21.10's uninitialised-value check) */
            if (!sph_has_sums(fluid_i))
                break;
            const float r2 = dot(r_ij.xyz, r_ij.xyz);
            /* The iteration hands out neighbours within the grid's radius, 2h, in float: no
             * test of the support of its own (r^2 < (2h)^2 took a compare a pair; the two
             * bounds differ by an ulp, where the kernel's gradient is below 1e-13 of its
             * largest). Excluded neighbours are skipped, not added as zeros: a
             * restart's list, built from later positions, then gives the same sums bit for
             * bit even where compensation would see the zeros. */
            const uint type_j = as_uint(CLP_NEIGHBOR_POS(j).w); /* sph_pack's copies */
            if (type_j == CLP_GRID_EXCLUDED)
                continue;
            const float s_j = v_j.w, rho_j = SPH_RHO(s_j);
            sph_pair(&a, &dr, &divergence, &blend, &concentration, fluid_i, &me, r_ij, r2, v_j,
                     type_j, s_j, rho_j, SPH_PRESSURE(s_j), 1.0f / rho_j CLP_CONSTANTS_ARG);
        }
        float2 largest_i;
        SPH_STORE_RATES(i, type[i], me.v, largest_i);
        group_max_add(&group_largest[0], largest_i.x);
        group_max_add(&group_largest[1], largest_i.y);
    }
    group_max_end(group_largest, largest, 2);
}
#endif

/* The constants as a kernel's first parameter, for a kernel that takes no bit before them. */
#if CLP_CORE_INLINE_CONSTANTS
#define SPH_CONSTANTS_FIRST
#else
#define SPH_CONSTANTS_FIRST __constant const float *restrict clp_constants,
#endif

/* The step (Monaghan): cfl h / (c0 + |v|max), 0.25 sqrt(h / |a|max), and the largest step
 * (the CFL step at rest and the viscous bound), into a new step record, from the largest |a|
 * and |v| the forces recorded, which it clears for the next evaluation. One work-item. */
__kernel void sph_dt(SPH_CONSTANTS_FIRST __global uint *restrict largest,
                     __global uint *restrict step) {
    if (get_global_id(0) != 0)
        return;
    const float a_max = as_float(largest[0]), v_max = as_float(largest[1]);
    largest[0] = 0;
    largest[1] = 0;
    float dt = fmin(CLP_SPH_DT, CLP_SPH_CFL * CLP_SPH_H / (CLP_SPH_C0 + v_max));
    if (a_max > 0.0f)
        dt = fmin(dt, 0.25f * sqrt(CLP_SPH_H / a_max));
    step[SPH_STEP_DT] = as_uint(dt);
    step[SPH_STEP_MOVED] = 0;
    step[SPH_STEP_EXCLUDED] = 0;
    step[SPH_STEP_REASONS] = 0;
    step[SPH_STEP_FIRST_ID] = 0xffffffffu;
}

/* Summation recomputes density from positions before every force evaluation. */
#if CLP_SPH_DENSITY == CLP_SPH_DENSITY_SUMMATION
#define SPH_ADVANCE_RHO(r0, k, dr) (r0)
#else
#define SPH_ADVANCE_RHO(r0, k, dr) ((r0) + (k) * (dr))
#endif

/* The displacement particle shifting adds in a step of `dt` for velocity v, concentration
 * gradient grad_c and divergence of position div: -A h |v| dt grad C, at most a tenth of the
 * spacing. It is off where the divergence marks the free surface and ramps up to full
 * strength at the interior's value, the dimension. */
float4 shifting(float4 grad_c, float div, float4 v, float dt CLP_CONSTANTS_FN_PARAM) {
    const float ramp =
        clamp((div - CLP_SPH_SURFACE_DIVERGENCE) / (CLP_CORE_DIM - CLP_SPH_SURFACE_DIVERGENCE),
              0.0f, 1.0f);
    float4 d =
        (-CLP_SPH_SHIFT_A * CLP_SPH_H * length(v.xyz) * dt * ramp) * (float4)(grad_c.xyz, 0.0f);
    const float size = length(d), most = 0.1f * CLP_SPH_DP;
    return size > most ? d * (most / size) : d;
}

/* Why a fluid particle at (p, key) must leave the computation: SPH_OUT_* bits, 0 when it
 * stays. Out of the domain is where the next sort finds it out of the grid. */
uint outlier_reasons(float4 p, uint key, float4 v, float stored_rho CLP_CONSTANTS_FN_PARAM) {
    const float ratio = SPH_RHO(stored_rho) / CLP_SPH_RHO0;
    const float limit = CLP_SPH_SPEED_LIMIT * CLP_SPH_C0;
    return (stays_in_grid(p, key) ? 0u : SPH_OUT_DOMAIN) |
           (dot(v.xyz, v.xyz) <= limit * limit ? 0u : SPH_OUT_SPEED) |
           (ratio >= CLP_SPH_DENSITY_MIN && ratio <= CLP_SPH_DENSITY_MAX ? 0u : SPH_OUT_DENSITY);
}

/* After fluid particle i's step by `move`: takes it out of the computation when it is an
 * outlier (its type's copy in pos.w too), and adds the move to its work-group's largest
 * (`moved`, group_max_add; when lists last more than a step), which goes to the step record,
 * whose sum over the steps since the last rebuild bounds every particle's displacement. */
void step_end(uint i, __global float4 *pos, __global const uint *key, __global uint *type,
              __global const uint *id, __global float4 *vel, __global const float *rho,
              __global uint *step, __local uint *moved, float4 move CLP_CONSTANTS_FN_PARAM) {
    const uint why =
        outlier_reasons(pos[i], key[i], vel[i], rho[i] CLP_CONSTANTS_ARG);
    if (why) {
        type[i] = CLP_GRID_EXCLUDED;
        pos[i].w = as_float(CLP_GRID_EXCLUDED);
        vel[i] = (float4)(0.0f);
        atomic_inc(&step[SPH_STEP_EXCLUDED]);
        atomic_or(&step[SPH_STEP_REASONS], why);
        atomic_min(&step[SPH_STEP_FIRST_ID], id[i]);
    }
    if (CLP_NEIGHBORS_EVERY > 1)
        group_max_add(moved, length(move.xyz));
}

#if CLP_SPH_SHIFTING
#define SPH_SHIFT_OF(i, v, dt) shifting(shift[i], acc[i].w, (v), (dt)CLP_CONSTANTS_ARG)
#else
#define SPH_SHIFT_OF(i, v, dt) ((float4)(0.0f))
#endif
#if CLP_SPH_XSPH
#define SPH_XSPH_OF(i) xsph[i]
#else
#define SPH_XSPH_OF(i) ((float4)(0.0f))
#endif
/* The integration kernels' buffers: the grid's and the constants, the state and the forces'
 * largest |a| and |v| (which sph_correct clears), then (predictor-corrector) the state at the
 * start of the step, then what the end of a step checks. */
#define SPH_STATE_PARAMS                                                                           \
    __global float4 *restrict pos, __global const uint *restrict key,                              \
        __global uint *restrict type, __global const uint *restrict id CLP_CONSTANTS_PARAM,        \
        __global float4 *restrict vel, __global float *restrict rho,                               \
        __global const float4 *restrict acc SPH_DRHO_PARAM(const),                                 \
        __global uint *restrict largest, __global uint *restrict step SPH_XSPH_PARAM
#define SPH_END_PARAMS SPH_SHIFT_PARAM(const)

/* A fluid particle's new stored density r, with divergence of position div: at the free
 * surface, where the pressure is zero, not below the rest density when sph.surface_floor is
 * on, so that surface particles neither pull each other into clumps nor drift to the low
 * densities of kernel-deficient splashes. */
#if CLP_SPH_DENSITY == CLP_SPH_DENSITY_CONTINUITY && CLP_SPH_SURFACE_FLOOR
#define SPH_SURFACE_FLOORED(r, div) ((div) < CLP_SPH_SURFACE_DIVERGENCE ? fmax((r), SPH_REST) : (r))
#else
#define SPH_SURFACE_FLOORED(r, div) (r)
#endif

/* Boundary particles keep at least the rest density; density, velocity and position of fluid
 * particle i after k seconds from state (x0, v0, r0) with rates a (divergence of position in
 * w) and dr, moving by `move`. It writes sph_pack's copies with them, the stored density in
 * vel.w and the type in pos.w, so that the forces of the next step need no packing of
 * their own unless another kernel changes a density (the host's sph_run.packed). */
void advance(__global float4 *pos, __global float4 *vel, __global float *rho, uint i, uint t,
             float k, float4 x0, float4 v0, float r0, float4 a, float dr,
             float4 move CLP_CONSTANTS_FN_PARAM) {
    const float r = SPH_ADVANCE_RHO(r0, k, dr);
    if (t == 0) {
        const float stored = SPH_SURFACE_FLOORED(r, a.w);
        rho[i] = stored;
        vel[i] = (float4)(v0.xyz + k * a.xyz, stored);
        pos[i] = (float4)(x0.xyz + move.xyz, as_float(t));
    } else if (t != CLP_GRID_EXCLUDED) {
        const float stored = fmax(r, SPH_REST);
        rho[i] = stored;
        vel[i].w = stored;
    }
}

#if CLP_SPH_INTEGRATOR == CLP_SPH_INTEGRATOR_SYMPLECTIC

/* Symplectic Euler: density and velocity first, then positions with the new velocity. */
__kernel void sph_integrate(SPH_STATE_PARAMS SPH_END_PARAMS) {
    __local uint moved[1]; /* the largest move of the group's fluid (step_end) */
    group_max_begin(moved, 1);
    const uint i = get_global_id(0);
    if (i < CLP_GRID_PARTICLES) {
        const float dt = as_float(step[SPH_STEP_DT]);
        const uint t = type[i];
        const float4 v = vel[i] + dt * acc[i];
        const float4 move = dt * (v + SPH_XSPH_OF(i)) + SPH_SHIFT_OF(i, v, dt);
        advance(pos, vel, rho, i, t, dt, pos[i], vel[i], rho[i], acc[i], SPH_DRHO_OF(i),
                move CLP_CONSTANTS_ARG);
        if (t == 0)
            step_end(i, pos, key, type, id, vel, rho, step, moved, move CLP_CONSTANTS_ARG);
    }
    group_max_end(moved, &step[SPH_STEP_MOVED], 1);
}

#else

#define SPH_OLD_PARAMS                                                                             \
    __global float4 *restrict pos_old, __global float4 *restrict vel_old,                          \
        __global float *restrict rho_old

/* Predictor-corrector (Monaghan 1989), first half: keep the state of time n and move half a
 * step with the rates of time n, positions with the velocity of time n. */
__kernel void sph_predict(SPH_STATE_PARAMS, SPH_OLD_PARAMS SPH_SHIFT_PARAM(const)) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const float half_dt = 0.5f * as_float(step[SPH_STEP_DT]);
    const float4 x0 = pos[i], v0 = vel[i];
    const float r0 = rho[i];
    pos_old[i] = x0;
    vel_old[i] = v0;
    rho_old[i] = r0;
    advance(pos, vel, rho, i, type[i], half_dt, x0, v0, r0, acc[i], SPH_DRHO_OF(i),
            half_dt * (v0 + SPH_XSPH_OF(i)) CLP_CONSTANTS_ARG);
}

/* Second half: with the rates of time n + 1/2, the corrected half-step state is
 * y_half = y_n + dt/2 rate_half, and y_n+1 = 2 y_half - y_n = y_n + dt rate_half; positions
 * move with the corrected half-step velocity, and shifting with the rates of the half step. */
__kernel void sph_correct(SPH_STATE_PARAMS, SPH_OLD_PARAMS SPH_END_PARAMS) {
    __local uint moved[1]; /* the largest move of the group's fluid (step_end) */
    const uint i = get_global_id(0);
    /* the half step's forces recorded their largest |a| and |v| too, which no step uses */
    if (i == get_global_offset(0)) {
        largest[0] = 0;
        largest[1] = 0;
    }
    group_max_begin(moved, 1);
    if (i < CLP_GRID_PARTICLES) {
        const float dt = as_float(step[SPH_STEP_DT]);
        const uint t = type[i];
        const float4 v0 = vel_old[i], a = acc[i], v = v0 + 0.5f * dt * a;
        const float4 move = dt * (v + SPH_XSPH_OF(i)) + SPH_SHIFT_OF(i, v, dt);
        advance(pos, vel, rho, i, t, dt, pos_old[i], v0, rho_old[i], a, SPH_DRHO_OF(i),
                move CLP_CONSTANTS_ARG);
        if (t == 0)
            step_end(i, pos, key, type, id, vel, rho, step, moved, move CLP_CONSTANTS_ARG);
    }
    group_max_end(moved, &step[SPH_STEP_MOVED], 1);
}

#endif
