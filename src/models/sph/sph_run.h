/* The state of an SPH run, on one device or as one rank of a multi-device run, shared by the
 * time loop (sph_run.c), its step (sph_step.c) and a rank's part in the decomposition
 * (sph_dist.c). */
#ifndef CLPART_SPH_RUN_H
#define CLPART_SPH_RUN_H

#include "dist/rank.h"
#include "models/sph/sph.h"
#include "models/sph/sph_checkpoint.h"
#include "models/sph/sph_output.h"
#include "models/sph/sph_pencil.h"

/* The steps whose busy times a rank keeps, the last ones, for their median. */
enum { CLP__SPH_BALANCE_SAMPLES = 256 };

/* A split run's measured speeds (sph_balance.c). */
typedef struct clp__sph_balance {
    double threshold;     /* dist.rebalance: 0 never */
    uint64_t probe_steps; /* dist.probe_steps */
    uint64_t steps;       /* steps timed since the last cut */
    double work;          /* this rank's owned particles' cost, summed over those steps */
    double unit_cost;     /* the cost of one of its owned particles, on average, at the cut */
    double busy[CLP__SPH_BALANCE_SAMPLES]; /* step s's wall time less the waits on other
                                               ranks, seconds, at s % SAMPLES */
    double step_start, waited_start;
    double waited; /* seconds this rank's steps waited on the others in all, for --timing */
    double weights[CLP_DIST_MAX_RANKS]; /* the last cut's: --weights (1 each) or speeds */
    double speeds[CLP_DIST_MAX_RANKS];  /* work per second measured at the last check */
    double owned[CLP_DIST_MAX_RANKS];   /* each rank's owned particles then */
    double excess;                      /* the slowest busy time over the mean, less 1 */
} clp__sph_balance;

typedef struct sph_run {
    clp_worker *w;
    const clp_options *opts;
    clp_options *fitted_opts; /* sph.fit_device: the caller's with the list-free mode, owned */
    clp_options *rank_opts;   /* a rank's copy of the options, its slab axis slowest in the key */
    clp_sph_case c;
    clp__sph_physics_values phys;
    clp_grid_geometry geo; /* a rank's: its slab and halo layers */
    clp_grid *grid;
    size_t n, n_fluid;     /* slots on this device (a rank's capacity), fluid particles */
    size_t particles;      /* the case's particles, on every device together */
    bool centred;          /* rho[] holds rho/rho0 - 1 */
    bool timed;            /* profiling on: device time per phase goes into `timing` */
    bool listed;           /* the grid was just rebuilt: the first step need not rebuild it again */
    bool packed;           /* pos.w and vel.w hold every slot's type and stored density (sph_pack's
                              copies): the integration keeps them so between rebuilds */
    bool rates_ahead;      /* the next step's rates are queued, ahead of the last step's record */
    bool stop_on_outliers; /* sph.outliers=stop */
    double half_skin;      /* a particle that moved farther since the last rebuild forces one */
    clp_run_timing timing;
    bool pencils;           /* sph.strategy=x_pencil: the forces run a group per pencil */
    clp__sph_pencil pencil; /* and this is their layout */
    /* a multi-device run: this rank's comm, slab and layout; NULL comm on one device */
    clp__comm *comm;
    clp__dist_rank dist;
    uint64_t excluded;        /* particles excluded so far on all ranks */
    clp_grid_geometry global; /* the case's geometry, for a re-cut */
    clp__sph_balance balance;
    bool left_out;          /* a cut gave this rank no slab: its part in the run is over */
    double rebuild_seconds; /* host time in the split rebuilds, waits on the device included */
    /* a split run's stop and checkpoint requests, agreed in the step record's reduction so
       that a step needs no rendezvous of its own for them */
    volatile sig_atomic_t *stop_flag, *checkpoint_flag;
    bool flags_agreed, agreed_stop, agreed_checkpoint;
    cl_float agreed_dt; /* the time step the ranks agreed, until the device has taken it */
    clp__comm *views[CLP_DIST_MAX_RANKS]; /* comms of the ranks kept after each such cut */
    int n_views;
} sph_run;

/* The buffers a particle takes to another rank, and those zeroed over a rank's halo. */
#define CLP__SPH_TRAVELS                                                                           \
    (CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_ID | CLP_BUF_VEL | CLP_BUF_RHO |           \
     CLP_BUF_GHOST)
#define CLP__SPH_HALO_ZEROED (CLP_BUF_ACC | CLP_BUF_DRHO | CLP_BUF_XSPH | CLP_BUF_SHIFT)
/* What a rank's kernels read of the halo after the integrator moves the particles. */
#define CLP__SPH_HALO_STATE (CLP_BUF_POS | CLP_BUF_TYPE | CLP_BUF_VEL | CLP_BUF_RHO)

/* One step from the clock's step and time: rebuild when due or forced, rates, the device's
 * step, then the integrator: symplectic Euler, or a predictor half step, rates again and the
 * corrector. The clock gets the step taken and whether the next one must rebuild first
 * (sph_step.c). next_plain: the time loop will take another step after this one and read
 * nothing of the device before it, whatever this step's size. */
clp_status clp__sph_step(sph_run *r, clp__sph_clock *clock, bool next_plain, clp_error *err);

/* A rank's slab of the case (r->c, r->geo global, r->particles loaded): its options with the
 * slab axis slowest, the cut by work per layer (a fluid particle 1, a boundary particle
 * dist.boundary_cost) and `weights` (NULL: equal), its grid
 * (r->geo) and its slots (r->n). The case's particles *xyz and *types become the rank's, in
 * its first *n_owned slots, with padding after (excluded ones stay out); *ids (new) their IDs
 * in the case. A rank the cut leaves out gets r->left_out; one left alone (the others left
 * out) gets r->comm NULL and runs the whole case as on one device, all else untouched. */
clp_status clp__sph_dist_cut(sph_run *r, const double *weights, double **xyz, uint32_t **types,
                             uint32_t **ids, size_t *n_owned, clp_slabs *slabs, clp_error *err);
/* The snapshot of every rank's particles on rank 0; the others get its diagnostics only. */
clp_status clp__sph_dist_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s, clp_error *err);
/* Every rank's device time, halo refreshes and waits in its steps into r->timing.rank[], on
 * every rank (--timing). */
clp_status clp__sph_dist_timing(sph_run *r, clp_error *err);
/* Every rank takes the smallest of the ranks' steps (the device's step record, rewritten). */
clp_status clp__sph_dist_agree_step(sph_run *r, clp_error *err);
/* The ranks' step records as one: the largest move, the excluded summed, the reasons joined,
 * the smallest ID; and whether any rank has been asked to stop or to checkpoint (r->agreed_*),
 * which the next turn of the time loop takes instead of asking again. */
clp_status clp__sph_dist_reduce_record(sph_run *r, clp__sph_step_record *rec, clp_error *err);
/* Whether any rank was asked to stop or to checkpoint. */
clp_status clp__sph_dist_agree_flags(sph_run *r, bool *stop, bool *checkpoint, clp_error *err);

/* The checkpoint file an SPH run writes to its output folder. */
#define CLP__SPH_CHECKPOINT "checkpoint.ckpt"
/* A rank's part of an SPH case split among devices (clp_model.run_rank). */
clp_status clp__sph_run_rank(clp_worker *worker, clp_comm *comm, const double *weights,
                             const clp_options *opts, const char *case_path,
                             const clp_run_config *config, clp_error *err);
/* What the program is made of: summation modes, the grid, the model, with their constants
 * (the gauges' count of points among the model's). */
typedef struct clp__sph_program_parts {
    clp_constant constants[64];
    const char *files[CLP_GRID_CL_FILES + 10];
    clp_program_spec spec;
} clp__sph_program_parts;

/* Host bytes a particle takes while a run holds it: its position in double, type and ID as
 * the set-up makes them, then a snapshot's position, ID, type, velocity, density and pressure
 * and the float4 velocities it is read from. */
enum { CLP__SPH_HOST_BYTES_PER_PARTICLE = 3 * 8 + 4 + 4 + 3 * 8 + 4 + 4 + 3 * 4 + 4 + 4 + 16 };

struct clp__sph_restart; /* sph_restart.h, which includes this header */

/* sph_setup.c: the case, its physics, particle count and geometry into r; the options with
 * neighbors.format=auto resolved (*out, new); the case's particles on this device or a rank's
 * slab of them (or a checkpoint's, cut again); a snapshot of them (on rank 0, of every
 * rank's); and a split run's re-cut by the measured speeds, when the ranks agree it is due. */
clp_status clp__sph_load(sph_run *r, const char *case_path, clp_error *err);
clp_status clp__sph_resolve_format(const clp_options *opts, clp_options **out, clp_error *err);
clp_status clp__sph_setup(sph_run *r, const double *weights, const struct clp__sph_restart *rs,
                          const clp_run_config *config, clp_error *err);
clp_status clp__sph_take_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s, clp_error *err);
clp_status clp__sph_rebalance(sph_run *r, const clp_options *opts, const clp__sph_clock *clock,
                              const clp_run_config *config, clp_error *err);
/* sph_program.c: the program's parts for r; the x-pencil layout on `dev` when the forces take
 * it; the assembled source under `opts`; the build, with the register cap of NVIDIA devices. */
void clp__sph_program_spec(const sph_run *r, clp__sph_program_parts *p);
clp_status clp__sph_lay_out(sph_run *r, const clp_device_info *dev, clp_error *err);
clp_status clp__sph_assemble(const sph_run *r, const clp_options *opts, char **source,
                             clp_error *err);
clp_status clp__sph_build(sph_run *r, clp_cache *cache, clp_error *err);
/* sph_fit.c: the model's buffers (the gauges' too) with their counts, and the constants passed
 * as a kernel argument; sph.fit_device's fallback where the list does not fit `dev`; the
 * refusal of a case the device cannot hold; the neighbours a particle lists, for the traffic
 * counts. */
clp_buffer_set clp__sph_model_buffers(const sph_run *r, clp_buffer_counts *counts,
                                      cl_float arguments[64]);
clp_status clp__sph_fit_device(sph_run *r, const clp_device_info *dev, clp_error *err);
clp_status clp__sph_check_device_memory(const sph_run *r, clp_error *err);
double clp__sph_listed_neighbours(const sph_run *r);

#endif
