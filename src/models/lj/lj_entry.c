/* The Lennard-Jones model's registry entry (src/models/registry.c lists it). */
#include "models/lj/lj.h"
#include "models/lj/lj_case.h"
#include "models/models.h"

/* Its programs are sized from the device, for every option. */
static bool always(const clp_options *opts) {
    (void)opts;
    return true;
}

/* The option modules its programs take: options/<module>.json. */
static const char *const lj_modules[] = {"core", "grid", "neighbors", "lj", NULL};
/* particles.pvd when the case sets snapshot_every */
static const char *const lj_outputs[] = {"diagnostics.csv", "particles.pvd", "summary.json", NULL};

/* The stages of one step, as lj_run.c and lj_device.c make them. */
static const clp_model_stage lj_stages[] = {
    CLP__STAGE("lj_kick_drift", "half kick and drift (velocity Verlet)", CLP_PHASE_INTEGRATION),
    CLP__REBUILD,
    CLP__STAGE("lj_forces", "pair forces and virial, by lj.strategy", CLP_PHASE_FORCES),
    CLP__STAGE("lj_kick", "second half kick", CLP_PHASE_INTEGRATION), CLP__STAGES_END};

/* The case's atoms: the size a tuning entry is chosen by. */
static clp_status lj_particles(const clp_options *opts, const char *case_path, size_t *n,
                               clp_error *err) {
    (void)opts;
    clp__lj_case c;
    const clp_status st = clp__lj_case_load(case_path, &c, err);
    *n = st == CLP_OK ? c.n : 0;
    return st;
}

const clp_model clp__lj_entry = {.name = "lj",
                                 .throughput_unit = "atom-steps/s",
                                 .steps_name = "steps",
                                 .simulated_time = true,
                                 .profiled = true,
                                 .modules = lj_modules,
                                 .buffers = CLP_GRID_BUFFERS, /* the neighbour search's */
                                 .owned_buffers = clp__lj_buffers,
                                 .stages = lj_stages,
                                 .diagnostics = clp__lj_columns + 1,
                                 .outputs = lj_outputs,
                                 .run_chooses_option = "lj.strategy",
                                 .run_chooses_value = CLP_LJ_STRATEGY_AUTO_NAME,
                                 .source_needs_device = always,
                                 .source = clp_lj_source,
                                 .particles = lj_particles,
                                 .run = clp_lj_run,
                                 .run_rank = clp__lj_run_rank};
