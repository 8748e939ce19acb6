/* Checkpoints of an SPH run (sph_checkpoint.c). */
#ifndef CLPART_SPH_CHECKPOINT_H
#define CLPART_SPH_CHECKPOINT_H

#include "models/sph.h"

/* The identity record of a run: geometry and physics, every option, device, particles. New. */
clp_status clp__sph_identity(const clp_sph_case *c, const clp__sph_physics_values *p,
                             const clp_options *opts, const clp_device_info *dev, size_t particles,
                             char **out, clp_error *err);
clp_status clp__sph_checkpoint_write(clp_worker *w, const char *path, const char *identity,
                                     uint64_t step, double time, double dt, clp_error *err);
/* Restores the state buffers; *step is the step the checkpoint was taken at. */
clp_status clp__sph_checkpoint_restore(clp_worker *w, const char *path, const char *identity,
                                       uint64_t *step, clp_error *err);

#endif
