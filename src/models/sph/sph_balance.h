/* Rebalancing a split SPH run (sph_balance.c): each rank times its steps less its waits on
 * the others, and at a rebuild the ranks agree whether to cut the particles again in
 * proportion to their measured speeds; the state they cut is collected as a restart's. */
#ifndef CLPART_SPH_BALANCE_H
#define CLPART_SPH_BALANCE_H

#include "models/sph/sph_split.h"

/* Sets up s->balance from the options (dist.rebalance, dist.probe_steps) and the cut's
 * `weights` (NULL: equal). */
void clp__sph_balance_init(clp__sph_split *s, const clp_options *opts, const double *weights);

/* Around each step of a split run: its wall time, less the time the comm waited, is this
 * rank's busy time; its owned particles are its work. Nothing once a cut left it alone. */
void clp__sph_balance_step_begin(sph_run *r);
void clp__sph_balance_step_end(sph_run *r);

/* Every rank calls it at the same rebuild: after dist.probe_steps timed steps, *recut says
 * whether the slowest rank's busy time exceeds the mean by more than dist.rebalance; if so,
 * r->balance.weights become the measured speeds. */
clp_status clp__sph_balance_check(sph_run *r, bool *recut, clp_error *err);

/* Every rank's owned particles (their state as a checkpoint holds it) into `rs` as a
 * RECUT restart, on every rank; rs is closed with clp__sph_restart_close. */
clp_status clp__sph_balance_collect(sph_run *r, clp__sph_restart *rs, clp_error *err);

/* After the re-cut at `step`: rank 0 logs it, and the timing starts again. */
clp_status clp__sph_balance_done(sph_run *r, uint64_t step, clp_error *err);

/* At a rebuild of a split run, when the ranks agree that their busy times differ by more than
 * dist.rebalance: their particles cut again by the measured speeds; `opts` are the run's. A
 * rank the re-cut leaves out gets r->left_out. */
clp_status clp__sph_rebalance(sph_run *r, const clp_options *opts, const clp__sph_clock *clock,
                              const clp_run_config *config, clp_error *err);

#endif
