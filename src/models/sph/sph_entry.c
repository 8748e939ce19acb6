/* The SPH model's registry entry (src/models/registry.c lists it). */
#include "models/models.h"
#include "models/sph/sph_output.h"
#include "models/sph/sph_split.h"

/* SPH's x-pencil force kernel is sized from the device's local memory, and under
 * sph.fit_device a list that the device's memory cannot hold makes the run take it. */
static bool sph_device_laid_out(const clp_options *opts) {
    return clp__sph_strategy_of(opts) == CLP_SPH_STRATEGY_X_PENCIL ||
           (clp__sph_fit_device_of(opts) &&
            clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST);
}

/* The option modules its programs take: options/<module>.json. */
static const char *const sph_modules[] = {"core", "grid", "neighbors", "sph", "dist", NULL};
static const char *const sph_outputs[] = {"diagnostics.csv", "particles.pvd", "summary.json", NULL};

/* The stages of one step, as sph_run.c and sph_step.c make them. */
static const clp_model_stage sph_stages[] = {
    CLP__REBUILD,
    CLP__WHEN("sph_mdbc", "boundary particles' density (mDBC)", CLP_PHASE_BOUNDARY, "sph.boundary",
              CLP_SPH_BOUNDARY_MDBC_NAME),
    CLP__WHEN("sph_density", "fluid density as a kernel sum", CLP_PHASE_DENSITY, "sph.density",
              CLP_SPH_DENSITY_SUMMATION_NAME),
    CLP__STAGE("sph_forces", "accelerations and density rates", CLP_PHASE_FORCES),
    CLP__STAGE("sph_dt", "time step from the forces' largest |a| and |v|", CLP_PHASE_TIME_STEP),
    CLP__UNLESS("sph_integrate", "symplectic update", CLP_PHASE_INTEGRATION, "sph.integrator",
                CLP_SPH_INTEGRATOR_PREDICTOR_CORRECTOR_NAME),
    CLP__WHEN("sph_predict", "predictor half step, then the rates again", CLP_PHASE_INTEGRATION,
              "sph.integrator", CLP_SPH_INTEGRATOR_PREDICTOR_CORRECTOR_NAME),
    CLP__WHEN("sph_correct", "corrector", CLP_PHASE_INTEGRATION, "sph.integrator",
              CLP_SPH_INTEGRATOR_PREDICTOR_CORRECTOR_NAME),
    CLP__STAGES_END};

/* The buffers of its runs: its own and those of the neighbour search. */
#define SPH_BUFFERS (CLP_GRID_BUFFERS | CLP_BUF_CONSTANTS)

/* The buffers its runs make by name: its state, rates and records, the gauges' and mDBC's
 * ghost nodes. */
static const char *const sph_own_buffers[] = {CLP__SPH_BUFFER_NAMES, CLP__SPH_GAUGE_BUFFERS,
                                              CLP__SPH_GHOST, NULL};

/* The case's particles (fluid, tank and walls): the size a tuning entry is chosen by. */
static clp_status sph_particles(const clp_options *opts, const char *case_path, size_t *n,
                                clp_error *err) {
    clp_sph_case c;
    size_t fluid;
    const clp_status st = clp__sph_case_load(case_path, (int)clp__core_dim_of(opts), &c, err);
    return st != CLP_OK ? st : clp__sph_count(&c, n, &fluid, err);
}

const clp_model clp__sph_entry = {.name = "sph",
                                  .throughput_unit = "particle-steps/s",
                                  .steps_name = "steps",
                                  .simulated_time = true,
                                  .modules = sph_modules,
                                  .buffers = SPH_BUFFERS,
                                  .owned_buffers = sph_own_buffers,
                                  .stages = sph_stages,
                                  .profiled = true,
                                  .diagnostics = clp__sph_diagnostics,
                                  .outputs = sph_outputs,
                                  .checkpoint = CLP__SPH_CHECKPOINT,
                                  .source_needs_device = sph_device_laid_out,
                                  .source = clp_sph_source,
                                  .particles = sph_particles,
                                  .run = clp_sph_run,
                                  .run_rank = clp__sph_run_rank};
