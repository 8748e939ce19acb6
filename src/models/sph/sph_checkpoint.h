/* Checkpoints of an SPH run (sph_checkpoint.c). */
#ifndef CLPART_SPH_CHECKPOINT_H
#define CLPART_SPH_CHECKPOINT_H

#include "models/sph/sph.h"

/* The identity record of a run: geometry and physics, every option, device, particles. New. */
clp_status clp__sph_identity(const clp_sph_case *c, const clp__sph_physics_values *p,
                             const clp_options *opts, const clp_device_info *dev, size_t particles,
                             char **out, clp_error *err);
/* Where a run stands besides its buffers. */
typedef struct clp__sph_clock {
    uint64_t step;
    double time, dt;
    double next_output, next_checkpoint, next_gauge; /* simulated times */
    bool rebuild_due; /* a particle moved more than half the skin: rebuild before the next step */
} clp__sph_clock;

clp_status clp__sph_checkpoint_write(clp_worker *w, const char *path, const char *identity,
                                     const clp__sph_clock *clock, clp_error *err);
/* Restores the state buffers and the clock. */
clp_status clp__sph_checkpoint_restore(clp_worker *w, const char *path, const char *identity,
                                       clp__sph_clock *clock, clp_error *err);

#endif
