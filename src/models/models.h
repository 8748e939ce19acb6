/* What the models' folders and the registry share beyond the public API: the macros of a
 * registry entry's stages, the driver's entry point and the option modules by model name. Each
 * model's entry, `const clp_model clp__<name>_entry`, lives in its own folder
 * (src/models/<name>/) and is named once, in the list of src/models/registry.c. */
#ifndef CLPART_MODELS_H
#define CLPART_MODELS_H

#include "internal.h"
#include "run/driver.h"

/* The stages of one step in a registry entry (clp_model_stage), as the model's run makes them:
 * always, only when an option has a value, or unless it has it; CLP__STAGES_END ends them. */
#define CLP__STAGE(kernel_, what_, phase_)                                                         \
    { .kernel = (kernel_), .what = (what_), .phase = (phase_) }
#define CLP__WHEN(kernel_, what_, phase_, option_, value_)                                         \
    {                                                                                              \
        .kernel = (kernel_), .what = (what_), .phase = (phase_), .needs_option = (option_),        \
        .needs_value = (value_)                                                                    \
    }
#define CLP__UNLESS(kernel_, what_, phase_, option_, value_)                                       \
    {                                                                                              \
        .kernel = (kernel_), .what = (what_), .phase = (phase_), .needs_option = (option_),        \
        .needs_value = (value_), .needs_not = true                                                 \
    }
/* The neighbour search's rebuild, as the models that use the grid run it. */
#define CLP__REBUILD                                                                               \
    CLP__STAGE(NULL, "neighbour search rebuild when due: keys, sort, reorder", CLP_PHASE_SORT),    \
        CLP__WHEN("grid_build_list", "neighbour list", CLP_PHASE_LIST, "neighbors.mode",           \
                  CLP_NEIGHBORS_MODE_LIST_NAME)
#define CLP__STAGES_END                                                                            \
    { .kernel = NULL, .what = NULL }

/* Runs `model`'s case through the driver with the registry entry of its name
 * (clp__run_drive). */
clp_status clp__model_drive(const clp__run_model *model, clp_worker *worker, clp__comm *comm,
                            const double *weights, const clp_options *opts, const char *case_path,
                            const clp_run_config *config, clp_error *err);

/* The option modules of the model called `name` (its registry entry's), *count their number. */
const char *const *clp__model_modules(const char *name, size_t *count);

#endif
