/* The SPH model's part of the run driver on one device (sph_run.c), whose steps a split run's
 * rank wraps (sph_split_run.c), as OpenMM's multi-device platform wraps its one-device
 * kernels. */
#ifndef CLPART_SPH_MODEL_H
#define CLPART_SPH_MODEL_H

#include "models/sph/sph_gauges.h"
#include "models/sph/sph_restart.h"
#include "models/sph/sph_run.h"
#include "run/driver.h"

/* A run of the case on this device, alone or as one rank of a split run, with its clock,
 * outputs and the state of its last snapshot. */
typedef struct clp__sph_model {
    sph_run r;
    clp__sph_clock clock;
    clp__sph_restart restart;
    clp__sph_outputs out;
    clp__sph_snapshot snap;
    uint64_t snapped; /* the step of the state in `snap` */
    clp__sph_gauges *gauges;
    char *identity;
    char checkpoint[1024]; /* the checkpoint file of the run's output folder */
} clp__sph_model;

/* The driver's functions of a run on one device (clp__run_model), each on a clp__sph_model.
 * A split rank opens with its hooks and state attached (`split` NULL on one device) and steps
 * through clp__sph_model_step, which takes the step with next_plain as clp__sph_step's and
 * moves the clock. */
clp_status clp__sph_model_open(clp__sph_model *m, clp__run *run, const clp__sph_hooks *hooks,
                               struct clp__sph_split *split, clp_error *err);
clp_status clp__sph_model_start(void *model, clp__run *run, clp_error *err);
clp_status clp__sph_model_advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                                  clp_error *err);
clp_status clp__sph_model_step(clp__sph_model *m, clp__run *run, bool next_plain, uint64_t *ran,
                               clp_error *err);
clp_status clp__sph_model_finish(void *model, clp__run *run, clp_error *err);
void clp__sph_model_close(void *model);

#endif
