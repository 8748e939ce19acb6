/* A Lennard-Jones rank of a multi-device run (Bilotta et al. 2018, 4.5):
 * its slab of the box on its device, velocity Verlet over the atoms it owns with its halo
 * refreshed from the neighbours, and its share of the diagnostics' sums. */
#ifndef CLPART_LJ_DIST_H
#define CLPART_LJ_DIST_H

#include "dist/comm.h"
#include "models/lj/lj.h"
#include "models/lj/lj_case.h"

typedef struct clp__lj_rank clp__lj_rank;

/* CLP_USAGE naming the option, when the options ask for what a split run cannot do; every
 * rank calls it before anything is built. */
clp_status clp__lj_rank_check(const clp_options *opts, clp_error *err);

/* This rank's slab of the state `s` (the whole case's, the same on every rank), cut by
 * `weights` (NULL: equal), on `worker`; the forces are computed on opening. */
clp_status clp__lj_rank_open(clp_worker *worker, clp__comm *comm, const clp_options *opts,
                             clp_cache *cache, const clp__lj_state *s, const clp__lj_params *p,
                             double dt, const double *weights, clp__lj_rank **out, clp_error *err);
void clp__lj_rank_close(clp__lj_rank *r);

/* `steps` velocity-Verlet steps, every rank at once; migration at each rebuild. */
clp_status clp__lj_rank_run(clp__lj_rank *r, uint64_t steps, clp_error *err);

/* The sums over every rank's atoms at `step`, the same bits on all ranks: each rank adds its
 * own atoms, and the ranks' sums are added in rank order. */
clp_status clp__lj_rank_sums(clp__lj_rank *r, const clp__lj_case *c, uint64_t step,
                             clp__lj_sums *out, clp_error *err);

/* Every rank's atoms gathered on rank 0 in the state's order (each atom at its ID): positions
 * as the ranks hold them (not wrapped into the box) and velocities, `n` x 3 each, into `xyz`
 * and `vel` on rank 0 (the other ranks pass NULL). An ID out of range or held twice, or fewer
 * than `n` atoms, is CLP_CHECK. Every rank calls it. */
clp_status clp__lj_rank_gather(clp__lj_rank *r, size_t n, double *xyz, double *vel, clp_error *err);

/* The least device-memory traffic of this rank's steps so far (clp__lj_system_bytes). */
double clp__lj_rank_bytes(const clp__lj_rank *r, double listed);

#endif
