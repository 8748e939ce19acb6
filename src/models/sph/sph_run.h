/* The state of an SPH run on one device, shared by the time loop (sph_run.c), its set-up
 * (sph_setup.c) and its step (sph_step.c), and the hooks through which a split run's rank
 * attaches to it (sph_split.h) at the points where it does more than one device does. */
#ifndef CLPART_SPH_RUN_H
#define CLPART_SPH_RUN_H

#include "models/sph/sph.h"
#include "models/sph/sph_checkpoint.h"
#include "models/sph/sph_output.h"
#include "models/sph/sph_pencil.h"

typedef struct sph_run {
    clp_worker *w;
    const clp_options *opts;
    clp_options *fitted_opts; /* sph.fit_device: the caller's with the list-free mode, owned */
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
    bool pencils;             /* sph.strategy=x_pencil: the forces run a group per pencil */
    clp__sph_pencil pencil;   /* and this is their layout */
    bool writer;              /* one device, or a split run's rank 0: it reports and writes */
    bool left_out;            /* a cut gave this rank no slab: its part in the run is over */
    clp_grid_geometry global; /* the case's geometry, for a re-cut */
    /* where a split run attaches: the one-device model's hooks (clp__sph_alone) or a rank's
       (clp__sph_rank_hooks, sph_split.h), never NULL; `split` is a rank's state, which only
       the split's files read (NULL on one device) */
    const struct clp__sph_hooks *hooks;
    struct clp__sph_split *split;
    clp_buffer *ghost; /* CLP__SPH_GHOST under mDBC, which the grid carries; else NULL */
    clp_buffer *own[CLP__SPH_BUFFERS]; /* the model's own (sph.h), NULL where left out */
} sph_run;

/* What a split run's rank's kernels read of the halo after the integrator moves the particles
 * (the step's halo refreshes): these bits, and the velocities and densities. */
#define CLP__SPH_HALO_STATE (CLP_BUF_POS | CLP_BUF_TYPE)
#define CLP__SPH_HALO_OWN   (CLP__SPH_BIT(CLP__SPH_VEL) | CLP__SPH_BIT(CLP__SPH_RHO))

struct clp__sph_restart; /* sph_restart.h, which includes this header */

/* The points of a run where a split run's rank attaches to the one-device model, as
 * HOOMD-blue's communicator is attached to its integrator rather than branched on: the
 * one-device model's own (clp__sph_alone, sph_alone.c) do the work of one device, a rank's
 * (clp__sph_rank_hooks, sph_split_hooks.c) add the cut, migration and halos, the ranks' agreements
 * and the gathering on rank 0. A rank that a cut leaves alone takes the one-device hooks. */
typedef struct clp__sph_hooks {
    /* The whole case on this device: x-pencils and a list in pieces are open to it (a rank's
     * forces run over ranges of its slots, and its list is one buffer). */
    bool whole_grid;
    const char *const *cl_files; /* the program's files it adds, NULL-terminated */
    /* The device a run is bound to, whose list sph.fit_device fits at the open and which its
     * identity (so its checkpoints) names; NULL: a split run's, which fits after its cut. */
    const clp_device_info *(*bound_device)(const sph_run *r);
    /* The largest of v[0 .. n-1] over the ranks, on every rank (sph.fit_device's agreement),
     * and the rank named in a message (clp__comm_rank_label). */
    clp_status (*most)(sph_run *r, double *v, size_t n, clp_error *err);
    void (*label)(const sph_run *r, char *out, size_t size);
    /* The set-up: the particles made (from `rs` when it cuts a checkpoint again) and placed in
     * this device's slots, the device's memory checked (a rank's: its cut, *ids new with the
     * case IDs of its slots); then, the grid and buffers made, the first rebuild. */
    clp_status (*place)(sph_run *r, const struct clp__sph_restart *rs, double **xyz,
                        uint32_t **types, uint32_t **ids, clp_error *err);
    clp_status (*placed)(sph_run *r, clp_error *err);
    /* The step: a neighbour rebuild (a rank's with migration and halo), its timing into *t; a
     * kernel of a work-item per particle over the particles this device owns (its arguments
     * after its bits set); the forces of `bits` and `own` (the halo refresh the last step began
     * ends meanwhile); a halo refresh of the `fields` bits and the `own` buffers begun and
     * ended; the time step agreed; the step record agreed. */
    clp_status (*rebuild)(sph_run *r, clp_grid_timing *t, clp_error *err);
    clp_status (*run_owned)(sph_run *r, const clp_step *s, double *seconds, clp_error *err);
    clp_status (*forces)(sph_run *r, clp_buffer_set bits, clp__sph_buffer_set own, size_t local,
                         clp_error *err);
    clp_status (*exchange_begin)(sph_run *r, clp_buffer_set fields, clp__sph_buffer_set own,
                                 clp_error *err);
    clp_status (*exchange_end)(sph_run *r, clp_error *err);
    clp_status (*agree_step)(sph_run *r, clp_error *err);
    clp_status (*agree_record)(sph_run *r, clp__sph_step_record *rec, clp_error *err);
    /* The outputs: whether this rank samples the gauges (rank 0 writes them in `out_dir`); a
     * snapshot (a split run's on rank 0); a checkpoint; the timing at the end (--timing). */
    bool (*samples_gauges)(const sph_run *r, const char *out_dir);
    clp_status (*snapshot)(sph_run *r, uint64_t step, clp__sph_snapshot *s, clp_error *err);
    clp_status (*checkpoint)(sph_run *r, const char *path, const char *identity,
                             const clp__sph_clock *clock, clp_error *err);
    clp_status (*timing)(sph_run *r, clp_error *err);
    /* A restart: the checkpoint read and how it continues decided; after the set-up, applied. */
    clp_status (*restart_open)(sph_run *r, const char *path, const char *identity,
                               struct clp__sph_restart *rs, clp_error *err);
    clp_status (*restart_apply)(sph_run *r, const struct clp__sph_restart *rs, const char *identity,
                                clp__sph_clock *clock, clp_error *err);
} clp__sph_hooks;

/* The one-device model's hooks (sph_alone.c). */
extern const clp__sph_hooks clp__sph_alone;

/* One step from the clock's step and time: rebuild when due or forced, rates, the device's
 * step, then the integrator: symplectic Euler, or a predictor half step, rates again and the
 * corrector. The clock gets the step taken and whether the next one must rebuild first
 * (sph_step.c). next_plain: the time loop will take another step after this one and read
 * nothing of the device before it, whatever this step's size. */
clp_status clp__sph_step(sph_run *r, clp__sph_clock *clock, bool next_plain, clp_error *err);
/* sph_step.c: a kernel of the `bits` and, after them, the `own` buffers over `global`
 * work-items, or over slots first .. first + count - 1, its device time added to *phase when
 * timed; sph_pack's copies over such slots. */
#define CLP__SPH_PACK_BUFFERS (CLP_BUF_POS | CLP_BUF_TYPE)
#define CLP__SPH_PACK_OWN     (CLP__SPH_BIT(CLP__SPH_VEL) | CLP__SPH_BIT(CLP__SPH_RHO))
clp_status clp__sph_run_kernel(sph_run *r, const char *kernel, clp_buffer_set bits,
                               clp__sph_buffer_set own, size_t global, size_t local, double *phase,
                               clp_error *err);
clp_status clp__sph_run_range(sph_run *r, const char *kernel, clp_buffer_set bits,
                              clp__sph_buffer_set own, size_t first, size_t count, size_t local,
                              double *phase, clp_error *err);
clp_status clp__sph_pack(sph_run *r, size_t first, size_t count, clp_error *err);

/* The checkpoint file an SPH run writes to its output folder. */
#define CLP__SPH_CHECKPOINT "checkpoint.ckpt"
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

/* sph_setup.c: the case, its physics, particle count and geometry into r; the options with
 * neighbors.format=auto resolved (*out, new); the case's particles (or a checkpoint's, cut
 * again, with `rs`: *xyz and *types new); the set-up of the particles on the device (or of a
 * rank's slab of them, through the hooks); a snapshot of them (through the hooks: on rank 0,
 * of every rank's); the snapshot of this device's particles. */
clp_status clp__sph_load(sph_run *r, const char *case_path, clp_error *err);
clp_status clp__sph_resolve_format(const clp_options *opts, clp_options **out, clp_error *err);
clp_status clp__sph_make_particles(const sph_run *r, const struct clp__sph_restart *rs,
                                   double **xyz, uint32_t **types, clp_error *err);
clp_status clp__sph_setup(sph_run *r, const struct clp__sph_restart *rs,
                          const clp_run_config *config, clp_error *err);
clp_status clp__sph_take_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s, clp_error *err);
clp_status clp__sph_device_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s,
                                    clp_error *err);
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
