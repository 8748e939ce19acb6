/* What the registry needs of the models beyond the public API. */
#ifndef CLPART_MODELS_H
#define CLPART_MODELS_H

#include "internal.h"
#include "run/driver.h"

/* The self-test's assembled source for these options (it has no case; `dev` is not needed). */
clp_status clp__selftest_source(const clp_options *opts, const clp_device_info *dev,
                                const char *case_path, char **out, clp_error *err);

/* What each model's folder gives the registry: the named values of its runs' results (the LJ
 * and repulsive ones follow "step" in their CSV columns), NULL-ended. */
extern const char *const clp__sph_diagnostics[];
/* A rank's part of an SPH case split among devices (clp_model.run_rank). */
clp_status clp__sph_run_rank(clp_worker *worker, clp_comm *comm, const double *weights,
                             const clp_options *opts, const char *case_path,
                             const clp_run_config *config, clp_error *err);
/* The checkpoint file an SPH run writes to its output folder. */
#define CLP__SPH_CHECKPOINT "checkpoint.ckpt"
extern const char *const clp__lj_columns[];
/* A rank's part of an LJ case split among devices (clp_model.run_rank). */
clp_status clp__lj_run_rank(clp_worker *worker, clp_comm *comm, const double *weights,
                            const clp_options *opts, const char *case_path,
                            const clp_run_config *config, clp_error *err);
extern const char *const clp__pso_diagnostics[];
extern const char *const clp__rep_columns[];
extern const char *const clp__search_diagnostics[];

/* Runs `model`'s case through the driver with the registry entry of its name
 * (clp__run_drive). */
clp_status clp__model_drive(const clp__run_model *model, clp_worker *worker, clp__comm *comm,
                            const double *weights, const clp_options *opts, const char *case_path,
                            const clp_run_config *config, clp_error *err);

/* The option modules of the model called `name` (its registry entry's), *count their number. */
const char *const *clp__model_modules(const char *name, size_t *count);

#endif
