/* The SPH model's pieces for the runner: particles, physics, constants, option modules. */
#ifndef CLPART_SPH_H
#define CLPART_SPH_H

#include "models/sph/sph_case.h"

typedef struct clp__sph_physics_values {
    double h, mass, c0;
    double dt; /* the largest step: cfl h / c0, and the viscous bound 0.125 h^2 / nu */
} clp__sph_physics_values;

/* The step record the device fills each step (CLP__SPH_STEP, SPH_STEP_* in cl/sph/sph.cl). */
typedef struct clp__sph_step_record {
    cl_float dt;      /* the step taken, s */
    cl_float moved;   /* the largest distance a particle moved since the last rebuild */
    cl_uint excluded; /* fluid particles taken out of the computation in this step */
    cl_uint reasons;  /* why: an OR of CLP_SPH_OUT_* */
    cl_uint first_id; /* the smallest ID among them */
} clp__sph_step_record;
enum { CLP_SPH_OUT_DOMAIN = 1, CLP_SPH_OUT_SPEED = 2, CLP_SPH_OUT_DENSITY = 4 };

/* How many particles the case has: the fluid boxes' lattice points, then the tank walls'. */
clp_status clp__sph_count(const clp_sph_case *c, size_t *n, size_t *n_fluid, clp_error *err);
/* Those n particles: fluid (type 0) then walls (type 1). New arrays. */
/* The particle IDs of each wall box's particles: [first[b], end[b]) for box b of c->walls. */
void clp__sph_wall_ids(const clp_sph_case *c, size_t first[], size_t end[]);
/* The particles within `radius` of one inside the lattice the case starts on (itself not
 * counted): the neighbour count a list must hold at the start, before any list is built. */
uint32_t clp__sph_lattice_neighbours(const clp_sph_case *c, double radius);
/* The words a cell takes in a list of bits (cl/grid/list_bits.cl): room for the most points
 * of the start lattice in a cell, and a tenth more for particles crowding together, up to
 * the most a list of bits takes. */
uint32_t clp__sph_cell_words(const clp_sph_case *c, const clp_grid_geometry *geo);
clp_status clp__sph_particles(const clp_sph_case *c, size_t n, double **xyz, uint32_t **types,
                              clp_error *err);
void clp__sph_physics(const clp_sph_case *c, clp__sph_physics_values *p);
/* The least device-memory traffic in bytes of `steps` steps of `particles` with `listed`
 * neighbours per particle and `rebuilds` neighbour-search rebuilds among them (sph_cost.c). */
double clp__sph_run_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                          size_t particles, double listed, uint64_t steps, uint64_t rebuilds);
/* The same by phase (clp_run_phase), for clpart run --timing. */
void clp__sph_phase_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                          size_t particles, double listed, uint64_t steps, uint64_t rebuilds,
                          double out[CLP_PHASE_COUNT]);
/* mDBC: the vector from boundary particle x to its ghost node, its mirror image across the
 * wall into the fluid: through the closest point of the tank's inside for a tank particle,
 * across the nearest face with fluid space behind it for a wall box's. False when x has none. */
bool clp__sph_ghost(const clp_sph_case *c, const double x[3], double to_ghost[3]);
/* Whether point x lies in the fluid's space: in the tank (faces included), outside every wall
 * box (its faces excepted). */
bool clp__sph_in_fluid_space(const clp_sph_case *c, const double *x);
/* The physical CLP_SPH_* constants, computed in double, which may be kernel arguments
 * (core.inline_constants). CLP_SPH_MAX_CONSTANTS bounds them with those sph_run.c adds: the
 * gauges' CLP_SPH_GAUGE_POINTS and the x-pencil layout's. */
enum { CLP_SPH_MAX_CONSTANTS = 30 };
size_t clp__sph_constants(const clp_sph_case *c, const clp_options *opts,
                          const clp__sph_physics_values *p, clp_constant *out);
/* What the CLP_SPH_OUT_* bits of `reasons` say, as a phrase ("left the domain, ..."). */
void clp__sph_outlier_reasons(const clp_sph_case *c, const clp_options *opts,
                              const clp__sph_physics_values *p, unsigned reasons, char *out,
                              size_t size);
/* Between density and what rho[] stores: rho itself, or rho/rho0 - 1 when `centred`. */
double clp__sph_stored_density(const clp_sph_case *c, bool centred, double rho);
double clp__sph_density_from_stored(const clp_sph_case *c, bool centred, double stored);

/* The name of mDBC's ghost nodes, the model's own buffer, float4 a slot: from a boundary
 * particle to its node in xyz, w 1 where it has one (0 for fluid). */
#define CLP__SPH_GHOST "sph.ghost"

/* The model's own buffers of its state, rates and records (sph_buffers.c), named "sph.vel" and
 * so on, in the order every kernel takes those of them it takes, after its bits (the constants
 * the last of those) and before the ghost nodes and the gauges' buffers. */
typedef enum clp__sph_buffer {
    CLP__SPH_VEL,     /* float4 a slot: velocity, m/s (w: sph_pack's copy of the density) */
    CLP__SPH_RHO,     /* float: density, kg/m^3, or rho/rho0 - 1 */
    CLP__SPH_ACC,     /* float4: acceleration, m/s^2, and the divergence of position in w */
    CLP__SPH_DRHO,    /* float: rate of density, without sph.shifting (with it: shift's w) */
    CLP__SPH_LARGEST, /* uint[2]: the bits of the largest |a| and |v| of the fluid */
    CLP__SPH_STEP,    /* uint[5]: the step record (clp__sph_step_record) */
    CLP__SPH_XSPH,    /* float4: XSPH velocity correction, m/s, with sph.xsph */
    /* the predictor-corrector's state at the start of a step: float4, float4, float */
    CLP__SPH_POS_OLD,
    CLP__SPH_VEL_OLD,
    CLP__SPH_RHO_OLD,
    CLP__SPH_SHIFT, /* float4: sph.shifting's concentration gradient, w the rate of density */
    CLP__SPH_BUFFERS
} clp__sph_buffer;
/* An OR of CLP__SPH_BIT(b). */
typedef unsigned clp__sph_buffer_set;
#define CLP__SPH_BIT(b) (1u << (b))
/* Their names, in that order, NULL-ended. */
#define CLP__SPH_VEL_NAME "sph.vel"
#define CLP__SPH_RHO_NAME "sph.rho"
#define CLP__SPH_BUFFER_NAMES                                                                      \
    CLP__SPH_VEL_NAME, CLP__SPH_RHO_NAME, "sph.acc", "sph.drho", "sph.largest", "sph.step",        \
        "sph.xsph", "sph.pos_old", "sph.vel_old", "sph.rho_old", "sph.shift"
extern const char *const clp__sph_buffer_names[CLP__SPH_BUFFERS + 1];
/* Whether the options call for buffer b; its bytes for `slots` slots; all those the options
 * call for, in all and the largest. */
bool clp__sph_buffer_needed(clp__sph_buffer b, const clp_options *opts);
size_t clp__sph_buffer_bytes(clp__sph_buffer b, size_t slots);
clp_memory_need clp__sph_buffers_need(const clp_options *opts, size_t slots);
/* Makes those the options call for on `w`, for `slots` slots, into own[] (NULL for the others,
 * and one of them a previous run left on `w` is freed); the velocities and densities follow the
 * sort of `grid`, and the rates lend it its scratch (acc) and permutation (drho, or shift). */
clp_status clp__sph_buffers_make(clp_worker *w, clp_grid *grid, const clp_options *opts,
                                 size_t slots, clp_buffer *own[CLP__SPH_BUFFERS], clp_error *err);
/* Sets the buffers of `set` that own[] holds, in their order, as step s's arguments after its
 * bits, then `n_after` more from after[] (clp_worker_set_step_buffers). */
clp_status clp__sph_set_buffers(clp_worker *w, const clp_step *s, clp_buffer *const *own,
                                clp__sph_buffer_set set, clp_buffer *const *after, size_t n_after,
                                clp_error *err);

#endif
