/* The Lennard-Jones model's host side (Algis et al. 2024):
 * initial states and the double-precision all-pairs reference the tests and the device
 * kernels are checked against. Reduced units: sigma = epsilon = mass = k_B = 1. */
#ifndef CLPART_LJ_H
#define CLPART_LJ_H

#include "dist/comm.h"
#include "internal.h"

/* The particles of a cubic periodic box of side `box`: positions in [0, box)^3, n x 3. */
typedef struct clp__lj_state {
    size_t n;
    double box;
    double *xyz, *vel; /* n x 3 each; vel may be NULL */
} clp__lj_state;

void clp__lj_state_free(clp__lj_state *s);

/* An FCC lattice of `cells` unit cells per side (4 cells^3 atoms) at reduced `density`. */
clp_status clp__lj_fcc(int cells, double density, clp__lj_state *out, clp_error *err);
/* `n` atoms uniformly at random in a box of side `box`, from `seed` (reproducible). */
clp_status clp__lj_random(size_t n, double box, uint64_t seed, clp__lj_state *out, clp_error *err);
/* Maxwell-Boltzmann velocities at `temperature` from `seed`: no net momentum, and rescaled so
 * that the kinetic energy is exactly (3n - 3) / 2 * temperature. */
clp_status clp__lj_maxwell(clp__lj_state *s, double temperature, uint64_t seed, clp_error *err);

/* Pair interactions within `rc` under the minimum image (none in an open box), with r^2 +
 * softening^2 in place of r^2 (0: plain LJ). The potential is shifted to 0 at rc, so energy is
 * continuous. */
typedef struct clp__lj_params {
    double rc, softening;
    bool open_box; /* true: walls, no periodic images (Algis et al. 2024's benchmark box) */
} clp__lj_params;

/* Per-atom force (n x 3) and potential energy (n, half of each pair's), and the virial
 * sum over pairs of r . f, all in double, by visiting every pair. Either array may be NULL. */
void clp__lj_reference(const clp__lj_state *s, const clp__lj_params *p, double *force,
                       double *energy, double *virial);

/* The force kernel's strategies are lj.strategy's values before auto, the last
 * (clp__lj_strategy, generated from options/lj.json; cl/lj). Whether a strategy searches the cells
 * itself, and so needs neighbors.mode=jit. */
bool clp__lj_strategy_searches_cells(clp__lj_strategy s);
/* The candidates simd takes at a time, and the end markers its stored list ends in. */
enum { CLP__LJ_SIMD_WIDTH = 8 };

/* How a strategy lays out the force kernel on a device (src/models/lj/lj_layout.c). */
typedef struct clp__lj_layout {
    clp__lj_strategy strategy;
    unsigned max_per_cell; /* M_C, the most particles in a cell, as sized for */
    size_t global, local;  /* the force kernel's work size; local 0: the launcher's choice */
    unsigned lanes;        /* par_part with a stored list: work-items per atom */
    size_t group;          /* work-items per group of the per-cell and sub-box strategies */
    int box[3];            /* sub-box strategies: target cells per axis */
    size_t stage_rows;     /* rows of cells along x staged at once */
    size_t capacity;       /* particles staged in local memory at once */
    size_t local_bytes;    /* the local memory the kernel declares */
} clp__lj_layout;

/* The most atoms in one cell of the grid. */
unsigned clp__lj_max_per_cell(const clp_grid_geometry *geo, const clp__lj_state *s);
/* Work-items per atom (lj.threads_per_atom, 0 resolved for the device and n atoms): more
 * than 1 only for par_part with a stored list on one device, and CLP_CASE where set so
 * elsewhere; CLP_CASE too for simd with a stored list split or with local positions. */
clp_status clp__lj_lanes(const clp_options *opts, const clp_device_info *dev, size_t n,
                         clp__lj_strategy strategy, bool split, unsigned *out, clp_error *err);
/* The layout of `strategy` for this device, grid and M_C, with `lanes` work-items per atom
 * (par_part; 1 otherwise); a strategy the device cannot run for the case (too little local
 * memory, too many particles for a group) is CLP_CASE with the reason and the figures. */
clp_status clp__lj_layout_make(const clp_device_info *dev, const clp_grid_geometry *geo, size_t n,
                               unsigned max_per_cell, clp__lj_strategy strategy, unsigned lanes,
                               clp__lj_layout *out, clp_error *err);

/* Its own buffers (clp_worker_buffer_create): a float4, a float4 and a float an atom: the
 * velocity (w 0), the force (w: the atom's potential energy) and half the sum of r . f over its
 * pairs. Their names, NULL-ended, are the registry entry's owned_buffers. A system or rank makes
 * them as it opens and frees them when it closes: one at a time on a worker. The velocities
 * follow the sort and a split run's migration (clp_grid_carry). */
enum { CLP__LJ_VEL, CLP__LJ_FORCE, CLP__LJ_VIRIAL, CLP__LJ_OWN };
extern const char *const clp__lj_buffers[];
/* Makes them for `slots` atoms into own[CLP__LJ_OWN], and has `grid` carry the velocities. */
clp_status clp__lj_own_create(clp_worker *worker, clp_grid *grid, size_t slots, clp_buffer **own,
                              clp_error *err);
/* Their need on the device for `n` atoms. */
clp_memory_need clp__lj_own_need(size_t n);
/* Which of them a kernel takes after its CLP_BUF_* arguments (cl/lj), from own[first] on: the
 * force kernel the force and virial, the kicks the velocity and force. A step sets them before
 * every run (clp_worker_set_step_buffers). */
enum { CLP__LJ_FORCES_FIRST = CLP__LJ_FORCE, CLP__LJ_FORCES_ARGS = 2 };
enum { CLP__LJ_KICK_FIRST = CLP__LJ_VEL, CLP__LJ_KICK_ARGS = 2 };

/* Atoms per unit volume of the state. */
double clp__lj_density(const clp__lj_state *s);
/* The grid of the state's box for these options (3D; periodic, or walled for an open box). */
clp_status clp__lj_geometry(const clp_options *opts, const clp__lj_state *s,
                            const clp__lj_params *p, clp_grid_geometry *geo, clp_error *err);
/* The inlined constants of the LJ program: the grid's, the cutoff, softening, shift and
 * time step, and the layout's when `l` is not NULL. Writes at most CLP__LJ_MAX_CONSTANTS. */
enum { CLP__LJ_MAX_CONSTANTS = 64 };
size_t clp__lj_constants(const clp_grid_geometry *geo, size_t n, const clp__lj_params *p, double dt,
                         const clp__lj_layout *l, clp_constant *out);
/* The assembled source of the LJ program for these options and layout, with cl/dist for a
 * rank of a split run when `split`. *out is new. */
clp_status clp__lj_source(const clp_options *opts, const clp_grid_geometry *geo, size_t n,
                          const clp__lj_params *p, double dt, const clp__lj_layout *l, bool split,
                          char **out, clp_error *err);
/* CLP_CASE when the built force kernel cannot take the layout's work-group or local memory. */
clp_status clp__lj_check_kernel(clp_worker *w, const clp__lj_layout *l, clp_error *err);
/* The layout of `strategy` on `dev` for this state (M_C from lj.cell_capacity, else the
 * fullest cell), the lanes that read each list set in `geo`, and the program's source for
 * it. *source is new. */
clp_status clp__lj_program(const clp_options *opts, const clp_device_info *dev,
                           clp_grid_geometry *geo, const clp__lj_state *s, const clp__lj_params *p,
                           double dt, clp__lj_strategy strategy, clp__lj_layout *layout,
                           char **source, clp_error *err);
/* lj.fit_device: where the stored list of `n` atoms at `density` (atoms per unit volume)
 * would not fit the worker's device, in all or in its largest buffer, sets neighbors.mode=jit
 * in `opts` and says so; on a rank of `comm` (NULL: none), the ranks agree, and all of them
 * take the cell search where one must (src/models/lj/lj_fit.c). */
clp_status clp__lj_fit_device(clp_worker *w, clp__comm *comm, clp_options *opts,
                              const clp_grid_geometry *geo, size_t n, double density,
                              clp_error *err);
/* Whether `n` atoms in a box of side `box` can run here, from the case's parameters before any
 * atom is made: the host memory a run holds them in, and, on one device (`split` false), the
 * least the device needs for them, without a neighbour list (src/models/lj/lj_fit.c). */
clp_status clp__lj_check_memory(clp_worker *w, bool split, const clp_options *opts, size_t n,
                                double box, const clp__lj_params *p, clp_error *err);
/* lj.strategy=auto: the fastest strategy and neighbour mode for this case on the worker's
 * device, from the cache's record of an earlier probe or from a new one, set in `resolved`
 * (src/models/lj/lj_probe.c). */
clp_status clp__lj_probe(clp_worker *w, const clp_options *opts, clp_cache *cache,
                         const clp__lj_state *s, const clp__lj_params *p, double dt,
                         const clp_grid_geometry *geo, clp_options *resolved, clp_error *err);

/* A system on the device, for the options' strategy, summation and grid (a 3D periodic box),
 * stepped by velocity Verlet with time step `dt`; its forces are computed on opening. Opening
 * makes the options' choices first: lj.strategy=auto (clp__lj_probe), then lj.fit_device
 * (src/models/lj/lj_probe.c). */
typedef struct clp__lj_system clp__lj_system;
clp_status clp__lj_system_open(clp_worker *worker, const clp_options *opts, clp_cache *cache,
                               const clp__lj_state *s, const clp__lj_params *p, double dt,
                               clp__lj_system **out, clp_error *err);
/* The system for options with their choices made, `strategy` the one they name and `geometry`
 * their grid: the opening's last step (src/models/lj/lj_device.c). It takes `resolved` (new),
 * which it destroys on failure too. */
clp_status clp__lj_system_open_resolved(clp_worker *worker, clp_options *resolved, clp_cache *cache,
                                        const clp__lj_state *s, const clp__lj_params *p, double dt,
                                        const clp_grid_geometry *geometry,
                                        clp__lj_strategy strategy, clp__lj_system **out,
                                        clp_error *err);
void clp__lj_system_close(clp__lj_system *sys);
clp_status clp__lj_system_run(clp__lj_system *sys, uint64_t steps, clp_error *err);
/* Profiles the steps from now on, each phase's device time added to `timing` (NULL: not). */
void clp__lj_system_time(clp__lj_system *sys, clp_run_timing *timing);
/* The least device-memory traffic in bytes of the steps run so far, with `listed` neighbours
 * per atom in list mode. */
double clp__lj_system_bytes(const clp__lj_system *sys, double listed);
/* Its parts: the bytes of one atom's step, and of one rebuild of n atoms. */
double clp__lj_step_bytes(const clp_options *opts, double listed);
double clp__lj_rebuild_bytes(const clp_options *opts, const clp_grid_geometry *geo, size_t n,
                             double listed);
/* neighbors.every and neighbors.mode of the system's options (auto resolved). */
int clp__lj_system_every(const clp__lj_system *sys);
const char *clp__lj_system_mode(const clp__lj_system *sys);
/* The layout the system runs with (auto resolved). */
const clp__lj_layout *clp__lj_system_layout(const clp__lj_system *sys);
/* Seconds per force evaluation: `launches` launches queued back to back, then a wait, as
 * Algis et al. 2024's 200 asynchronous calls; the median of `rounds` (at most 64) such. */
clp_status clp__lj_system_time_forces(clp__lj_system *sys, int launches, int rounds, double *median,
                                      clp_error *err);
/* The current positions (n x 3, as the drift left them, not wrapped into the box), in the
 * state's order. */
clp_status clp__lj_system_positions(clp__lj_system *sys, double *xyz, clp_error *err);
/* The current force and velocity (n x 3), energy (n) and virial sum, in the state's order. */
clp_status clp__lj_system_read(clp__lj_system *sys, double *force, double *energy, double *velocity,
                               double *virial, clp_error *err);

/* diagnostics.csv's columns; after "step", the named values of a run's result (its registry
 * entry's diagnostics), NULL-ended. */
extern const char *const clp__lj_columns[];
/* A rank's part of an LJ case split among devices (clp_model.run_rank). */
clp_status clp__lj_run_rank(clp_worker *worker, clp_comm *comm, const double *weights,
                            const clp_options *opts, const char *case_path,
                            const clp_run_config *config, clp_error *err);

#endif
