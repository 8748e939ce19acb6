/* A split SPH run's rank: its state, which the one-device model holds as r->split without
 * reading it, and the hooks through which it attaches to the one-device model (sph_run.h).
 * The rank's cut, snapshot and agreements are sph_dist.c's, its step's exchanges
 * sph_split_step.c's, its restart sph_split_restart.c's, its checkpoints
 * sph_dist_checkpoint.c's, its balance sph_balance.c's and its part of the driver's loop
 * sph_split_run.c's. */
#ifndef CLPART_SPH_SPLIT_H
#define CLPART_SPH_SPLIT_H

#include "dist/rank.h"
#include "models/sph/sph_model.h"

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

typedef struct clp__sph_split {
    clp__comm *comm; /* this rank's ranks; NULL once a cut left it alone */
    clp__dist_rank dist;
    const double *cut_weights; /* the next cut's: --weights (NULL: equal), or the speeds */
    clp_options *rank_opts;    /* the rank's copy of the options, its slab axis slowest */
    clp_slabs slabs;           /* the cut's, from the placing to the first rebuild */
    size_t owned;              /* the particles the cut gave this rank, in its first slots */
    uint64_t excluded;         /* particles excluded so far on all ranks */
    clp__sph_balance balance;
    double rebuild_seconds; /* host time in the split rebuilds, waits on the device included */
    /* the stop and checkpoint requests, agreed in the step record's reduction so that a step
       needs no rendezvous of its own for them */
    volatile sig_atomic_t *stop_flag, *checkpoint_flag;
    bool flags_agreed, agreed_stop, agreed_checkpoint;
    cl_float agreed_dt; /* the time step the ranks agreed, until the device has taken it */
    clp__comm *views[CLP_DIST_MAX_RANKS]; /* comms of the ranks kept after each such cut */
    int n_views;
    clp__sph_gauge_share gauges; /* the rank's part in the gauges */
} clp__sph_split;

/* The bits a particle takes to another rank (and after them the buffers the grid carries:
 * SPH's velocities and densities, then the ghost nodes), and SPH's own buffers zeroed over a
 * rank's halo after each rebuild (clp__sph_rank_resort). */
#define CLP__SPH_TRAVELS (CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_ID)
#define CLP__SPH_HALO_ZEROED                                                                       \
    (CLP__SPH_BIT(CLP__SPH_ACC) | CLP__SPH_BIT(CLP__SPH_DRHO) | CLP__SPH_BIT(CLP__SPH_XSPH) |      \
     CLP__SPH_BIT(CLP__SPH_SHIFT))

/* A rank's hooks (sph_split_hooks.c). */
extern const clp__sph_hooks clp__sph_rank_hooks;
/* The rank's part in the gauges, of `r` (sph_split_gauges.c). */
clp__sph_gauge_share clp__sph_rank_gauge_share(const sph_run *r);

/* sph_dist.c. A rank's slab of the case (r->c, r->geo global, r->particles loaded): its
 * options with the slab axis slowest, the cut by work per layer (a fluid particle 1, a
 * boundary particle dist.boundary_cost) and s->cut_weights (NULL: equal), its grid (r->geo)
 * and its slots (r->n). The case's particles *xyz and *types become the rank's, in its first
 * s->owned slots, with padding after (excluded ones stay out); *ids (new) their IDs in the
 * case. A rank the cut leaves out gets r->left_out; one left alone (the others left out) gets
 * s->comm NULL and the one-device hooks, and runs the whole case as on one device, all else
 * untouched. */
clp_status clp__sph_dist_cut(sph_run *r, double **xyz, uint32_t **types, uint32_t **ids,
                             clp_error *err);
/* The snapshot of every rank's particles on rank 0; the others get its diagnostics only. */
clp_status clp__sph_dist_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s, clp_error *err);
/* Every rank's device time, halo refreshes and waits in its steps into r->timing.rank[], on
 * every rank (--timing). */
clp_status clp__sph_dist_timing(sph_run *r, clp_error *err);
/* Every rank takes the smallest of the ranks' steps (the device's step record, rewritten). */
clp_status clp__sph_dist_agree_step(sph_run *r, clp_error *err);
/* The ranks' step records as one: the largest move, the excluded summed (and counted in
 * s->excluded), the reasons joined, the smallest ID; and whether any rank has been asked to
 * stop or to checkpoint (s->agreed_*), which the next turn of the time loop takes instead of
 * asking again. */
clp_status clp__sph_dist_reduce_record(sph_run *r, clp__sph_step_record *rec, clp_error *err);
/* Whether any rank was asked to stop or to checkpoint. */
clp_status clp__sph_dist_agree_flags(sph_run *r, bool *stop, bool *checkpoint, clp_error *err);

/* sph_split_step.c: a rank's rebuild (clp__dist_rank_rebuild), then SPH's own
 * CLP__SPH_HALO_ZEROED set to 0 over its halos; the step's hooks of a rank. */
clp_status clp__sph_rank_resort(sph_run *r, clp_error *err);
clp_status clp__sph_rank_rebuild(sph_run *r, clp_grid_timing *t, clp_error *err);
clp_status clp__sph_rank_run_owned(sph_run *r, const clp_step *s, double *seconds, clp_error *err);
clp_status clp__sph_rank_forces(sph_run *r, clp_buffer_set bits, clp__sph_buffer_set own,
                                size_t local, clp_error *err);
clp_status clp__sph_rank_exchange_begin(sph_run *r, clp_buffer_set fields, clp__sph_buffer_set own,
                                        clp_error *err);
clp_status clp__sph_rank_exchange_end(sph_run *r, clp_error *err);

/* sph_split_restart.c: a rank's restart, on the checkpoint's own slabs (its piece restored)
 * or cut again; every rank calls it at once. */
clp_status clp__sph_rank_restart_open(sph_run *r, const char *path, const char *identity,
                                      struct clp__sph_restart *rs, clp_error *err);
clp_status clp__sph_rank_restart_apply(sph_run *r, const struct clp__sph_restart *rs,
                                       const char *identity, clp__sph_clock *clock, clp_error *err);

/* sph_split_run.c: a rank's part of an SPH case split among devices (clp_model.run_rank). */
clp_status clp__sph_run_rank(clp_worker *worker, clp_comm *comm, const double *weights,
                             const clp_options *opts, const char *case_path,
                             const clp_run_config *config, clp_error *err);

#endif
