/* Checkpoints of an SPH run (sph_checkpoint.c). */
#ifndef CLPART_SPH_CHECKPOINT_H
#define CLPART_SPH_CHECKPOINT_H

#include "io/checkpoint.h"
#include "models/sph/sph.h"

/* The identity record of a run: geometry and physics, every option of SPH's modules, the
 * device (none when `dev` is NULL: a split run's, which may continue on other devices),
 * particles. New. */
clp_status clp__sph_identity(const clp_sph_case *c, const clp__sph_physics_values *p,
                             const clp_options *opts, const clp_device_info *dev, size_t particles,
                             char **out, clp_error *err);
/* `identity` without the option lines of other modules than SPH's, which checkpoints listed
 * before 2026-12 (every option of the schema, so that a new model changed them): what a run's
 * identity is compared with (new; NULL when out of memory). */
char *clp__sph_identity_own(const char *identity);
/* `identity` without the lines of the options `schema` marks as performance ones: they change
 * the speed and the sums' order, not the results beyond their tolerance, so a restart that
 * cuts the particles again may take other values of them, as a tuning database gives another
 * device (new; NULL when out of memory). */
char *clp__sph_identity_results(const char *identity, const clp_schema *schema);
/* The lines of `identity` that start with one of `prefixes` (NULL-terminated) when `keep`,
 * else the other lines (new; NULL when out of memory). */
char *clp__sph_identity_filter(const char *identity, const char *const *prefixes, bool keep);

/* Where a run stands besides its buffers. */
typedef struct clp__sph_clock {
    uint64_t step;
    double time, dt;
    double next_output, next_checkpoint, next_gauge; /* simulated times */
    /* The sum over the steps since the last rebuild of each step's largest move, which bounds
     * every particle's displacement since then; past half the skin, the next step rebuilds. */
    double moved;
    bool rebuild_due;
} clp__sph_clock;

/* The clock's scalars into a checkpoint being built; the clock from a checkpoint read. */
clp_status clp__sph_clock_add(clp__checkpoint *cp, const clp__sph_clock *clock, clp_error *err);
clp_status clp__sph_clock_get(const clp__checkpoint *cp, clp__sph_clock *clock, clp_error *err);

/* The state buffers read from the device, held until the checkpoint is written. */
typedef struct clp__sph_state {
    void *data[16];
} clp__sph_state;
/* Reads every state buffer the worker has into `held` and adds it to `cp`. */
clp_status clp__sph_state_add(clp__checkpoint *cp, clp_worker *w, clp__sph_state *held,
                              clp_error *err);
void clp__sph_state_free(clp__sph_state *held);
/* Writes every state buffer the worker has from `cp`, which must hold them at its sizes. */
clp_status clp__sph_state_restore(const clp__checkpoint *cp, clp_worker *w, clp_error *err);

/* A one-device checkpoint at `path`, written atomically. */
clp_status clp__sph_checkpoint_write(clp_worker *w, const char *path, const char *identity,
                                     const clp__sph_clock *clock, clp_error *err);
/* Restores the state buffers and the clock from a one-device checkpoint read with no identity,
 * which must be `identity`. */
clp_status clp__sph_checkpoint_restore(clp_worker *w, const clp__checkpoint *cp,
                                       const char *identity, clp__sph_clock *clock, clp_error *err);

#endif
