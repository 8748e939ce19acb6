/* The models clpart knows, one entry each: the commands find a model here by the name its
 * case gives, and drive it only through its entry. An entry is data: the model's option
 * modules, buffers, the stages of its step, its diagnostics, outputs and checkpoint, and the
 * functions that assemble its source and run it. */
#include "models/models.h"

#include <stdio.h>
#include <string.h>

static bool repulsive_source_needs_device(const clp_options *opts) {
    return clp__repulsive_impl_of(opts) == CLP_REP_IMPL_TILED; /* local memory */
}

static bool always(const clp_options *opts) {
    (void)opts;
    return true;
}

/* SPH's x-pencil force kernel is sized from the device's local memory, and under
 * sph.fit_device a list that the device's memory cannot hold makes the run take it. */
static bool sph_device_laid_out(const clp_options *opts) {
    return clp__sph_strategy_of(opts) == CLP_SPH_STRATEGY_X_PENCIL ||
           (clp_options_bool(opts, "sph.fit_device") &&
            clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST);
}

/* The option modules each model's programs take: options/<module>.json. */
static const char *const sph_modules[] = {"core", "grid", "neighbors", "sph", "dist", NULL};
static const char *const lj_modules[] = {"core", "grid", "neighbors", "lj", NULL};
static const char *const pso_modules[] = {"core", "pso", NULL};
static const char *const repulsive_modules[] = {"core", "repulsive", NULL};
static const char *const search_modules[] = {"core", "grid", "neighbors", NULL};
static const char *const selftest_modules[] = {"core", "selftest", NULL};

static const char *const sph_outputs[] = {"diagnostics.csv", "particles.pvd", "summary.json", NULL};
/* particles.pvd when the case sets snapshot_every */
static const char *const lj_outputs[] = {"diagnostics.csv", "particles.pvd", "summary.json", NULL};
static const char *const pso_outputs[] = {"convergence.csv", "best.csv", "summary.json", NULL};
static const char *const repulsive_outputs[] = {"design.csv", "energy.csv", "summary.json", NULL};
static const char *const search_outputs[] = {"summary.json", NULL};
static const char *const no_outputs[] = {NULL};

/* The stages of one step, as each model's run makes them (src/models/<model>/): always, only
 * when an option has a value, or unless it has it. */
#define STAGE(kernel_, what_, phase_)                                                              \
    { .kernel = (kernel_), .what = (what_), .phase = (phase_) }
#define WHEN(kernel_, what_, phase_, option_, value_)                                              \
    {                                                                                              \
        .kernel = (kernel_), .what = (what_), .phase = (phase_), .needs_option = (option_),        \
        .needs_value = (value_)                                                                    \
    }
#define UNLESS(kernel_, what_, phase_, option_, value_)                                            \
    {                                                                                              \
        .kernel = (kernel_), .what = (what_), .phase = (phase_), .needs_option = (option_),        \
        .needs_value = (value_), .needs_not = true                                                 \
    }
#define REBUILD                                                                                    \
    STAGE(NULL, "neighbour search rebuild when due: keys, sort, reorder", CLP_PHASE_SORT),         \
        WHEN("grid_build_list", "neighbour list", CLP_PHASE_LIST, "neighbors.mode",                \
             CLP_NEIGHBORS_MODE_LIST_NAME)
#define END                                                                                        \
    { .kernel = NULL, .what = NULL }
static const clp_model_stage sph_stages[] = {
    REBUILD,
    WHEN("sph_mdbc", "boundary particles' density (mDBC)", CLP_PHASE_BOUNDARY, "sph.boundary",
         CLP_SPH_BOUNDARY_MDBC_NAME),
    WHEN("sph_density", "fluid density as a kernel sum", CLP_PHASE_DENSITY, "sph.density",
         CLP_SPH_DENSITY_SUMMATION_NAME),
    STAGE("sph_forces", "accelerations and density rates", CLP_PHASE_FORCES),
    STAGE("sph_dt", "time step from the forces' largest |a| and |v|", CLP_PHASE_TIME_STEP),
    UNLESS("sph_integrate", "symplectic update", CLP_PHASE_INTEGRATION, "sph.integrator",
           CLP_SPH_INTEGRATOR_PREDICTOR_CORRECTOR_NAME),
    WHEN("sph_predict", "predictor half step, then the rates again", CLP_PHASE_INTEGRATION,
         "sph.integrator", CLP_SPH_INTEGRATOR_PREDICTOR_CORRECTOR_NAME),
    WHEN("sph_correct", "corrector", CLP_PHASE_INTEGRATION, "sph.integrator",
         CLP_SPH_INTEGRATOR_PREDICTOR_CORRECTOR_NAME),
    END};
static const clp_model_stage lj_stages[] = {
    STAGE("lj_kick_drift", "half kick and drift (velocity Verlet)", CLP_PHASE_INTEGRATION), REBUILD,
    STAGE("lj_forces", "pair forces and virial, by lj.strategy", CLP_PHASE_FORCES),
    STAGE("lj_kick", "second half kick", CLP_PHASE_INTEGRATION), END};
static const clp_model_stage pso_stages[] = {
    WHEN("pso_ring", "ring neighbourhood bests", CLP_PHASE_FORCES, "pso.topology",
         CLP_PSO_TOPOLOGY_RING_NAME),
    STAGE("pso_move", "velocity and position update", CLP_PHASE_INTEGRATION),
    STAGE("pso_evaluate", "objective at the new positions", CLP_PHASE_FORCES),
    STAGE("pso_reduce_groups", "swarm best: per work-group", CLP_PHASE_FORCES),
    STAGE("pso_reduce_final", "swarm best", CLP_PHASE_FORCES),
    END};
static const clp_model_stage repulsive_stages[] = {
    STAGE("rep_step", "damped update of positions and velocities", CLP_PHASE_INTEGRATION),
    WHEN("rep_clear", "zeroed sums (global implementation)", CLP_PHASE_FORCES, "repulsive.impl",
         CLP_REP_IMPL_GLOBAL_NAME),
    STAGE("rep_forces", "all-pairs forces, energy and stress", CLP_PHASE_FORCES), END};
static const clp_model_stage search_stages[] = {
    STAGE("search_move", "every particle moved a little", CLP_PHASE_INTEGRATION), REBUILD,
    STAGE("grid_count_neighbors", "passes over every neighbour, as a force kernel makes",
          CLP_PHASE_FORCES),
    END};
#undef STAGE
#undef WHEN
#undef UNLESS
#undef REBUILD
#undef END

/* The buffers of each model's runs: its own and those of the neighbour search. */
#define SPH_BUFFERS                                                                                \
    (CLP_GRID_BUFFERS | CLP_BUF_VEL | CLP_BUF_RHO | CLP_BUF_ACC | CLP_BUF_DRHO |                   \
     CLP_BUF_SPH_LARGEST | CLP_BUF_SPH_STEP | CLP_BUF_XSPH | CLP_BUF_POS_OLD | CLP_BUF_VEL_OLD |   \
     CLP_BUF_RHO_OLD | CLP_BUF_CONSTANTS | CLP_BUF_SHIFT | CLP_BUF_GHOST | CLP_BUF_GAUGE_POINTS |  \
     CLP_BUF_GAUGE_SAMPLES | CLP_BUF_WALL_FORCE)
#define LJ_BUFFERS (CLP_GRID_BUFFERS | CLP_BUF_VEL | CLP_BUF_LJ_FORCE | CLP_BUF_LJ_VIRIAL)
#define PSO_BUFFERS                                                                                \
    (CLP_BUF_PSO_POS | CLP_BUF_PSO_VEL | CLP_BUF_PSO_BEST_POS | CLP_BUF_PSO_BEST_VAL |             \
     CLP_BUF_PSO_LOCAL_BEST | CLP_BUF_PSO_GLOBAL | CLP_BUF_PSO_PARTIAL | CLP_BUF_PSO_HISTORY |     \
     CLP_BUF_PSO_STATE)
#define REPULSIVE_BUFFERS                                                                          \
    (CLP_BUF_REP_POS | CLP_BUF_REP_VEL | CLP_BUF_REP_ACC | CLP_BUF_REP_ENERGY |                    \
     CLP_BUF_REP_STRESS | CLP_BUF_REP_PARTIAL | CLP_BUF_REP_MEASURE)

#define SEARCH_BUFFERS (CLP_GRID_BUFFERS | CLP_BUF_COLLECT_COUNT)

/* In the order the documentation presents them. */
static const clp_model models[] = {
    {.name = "sph",
     .throughput_unit = "particle-steps/s",
     .steps_name = "steps",
     .simulated_time = true,
     .modules = sph_modules,
     .buffers = SPH_BUFFERS,
     .stages = sph_stages,
     .profiled = true,
     .diagnostics = clp__sph_diagnostics,
     .outputs = sph_outputs,
     .checkpoint = CLP__SPH_CHECKPOINT,
     .source_needs_device = sph_device_laid_out,
     .source = clp_sph_source,
     .run = clp_sph_run,
     .run_rank = clp__sph_run_rank},
    {.name = "lj",
     .throughput_unit = "atom-steps/s",
     .steps_name = "steps",
     .simulated_time = true,
     .profiled = true,
     .modules = lj_modules,
     .buffers = LJ_BUFFERS,
     .stages = lj_stages,
     .diagnostics = clp__lj_columns + 1,
     .outputs = lj_outputs,
     .run_chooses_option = "lj.strategy",
     .run_chooses_value = CLP_LJ_STRATEGY_AUTO_NAME,
     .source_needs_device = always,
     .source = clp_lj_source,
     .run = clp_lj_run,
     .run_rank = clp__lj_run_rank},
    {.name = "pso",
     .throughput_unit = "component-updates/s",
     .steps_name = "iterations",
     .modules = pso_modules,
     .buffers = PSO_BUFFERS,
     .stages = pso_stages,
     .diagnostics = clp__pso_diagnostics,
     .outputs = pso_outputs,
     .source = clp_pso_source,
     .run = clp_pso_run},
    {.name = "repulsive",
     .throughput_unit = "interactions/s",
     .steps_name = "steps",
     .modules = repulsive_modules,
     .buffers = REPULSIVE_BUFFERS,
     .stages = repulsive_stages,
     .diagnostics = clp__rep_columns + 1,
     .outputs = repulsive_outputs,
     .source_needs_device = repulsive_source_needs_device,
     .source = clp_repulsive_source,
     .run = clp_repulsive_run},
    {.name = "search",
     .throughput_unit = "particle-updates/s",
     .steps_name = "steps",
     .modules = search_modules,
     .buffers = SEARCH_BUFFERS,
     .stages = search_stages,
     .profiled = true,
     .diagnostics = clp__search_diagnostics,
     .outputs = search_outputs,
     .source = clp_search_source,
     .run = clp_search_run},
    {.name = "selftest",
     .modules = selftest_modules,
     .diagnostics = no_outputs,
     .outputs = no_outputs,
     .source = clp__selftest_source,
     .runner = "clpart selftest"},
};
enum { MODEL_COUNT = sizeof models / sizeof models[0] };

const clp_model *clp_models(size_t *count) {
    *count = MODEL_COUNT;
    return models;
}

clp_status clp_model_find(const char *name, const clp_model **out, clp_error *err) {
    for (size_t i = 0; name && i < MODEL_COUNT; i++)
        if (strcmp(models[i].name, name) == 0) {
            *out = &models[i];
            return CLP_OK;
        }
    char known[128] = "";
    for (size_t i = 0; i < MODEL_COUNT; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 models[i].name);
    if (!name)
        return CLP_FAIL(err, CLP_CASE, "the case names no model (known: %s)", known);
    return CLP_FAIL(err, CLP_CASE, "unknown model '%s' (known: %s)", name, known);
}

clp_status clp__model_drive(const clp__run_model *model, clp_worker *worker, clp__comm *comm,
                            const double *weights, const clp_options *opts, const char *case_path,
                            const clp_run_config *config, clp_error *err) {
    const clp_model *entry;
    const clp_status st = clp_model_find(model->name, &entry, err);
    return st != CLP_OK
               ? st
               : clp__run_drive(model, entry, worker, comm, weights, opts, case_path, config, err);
}

const char *const *clp__model_modules(const char *name, size_t *count) {
    for (size_t i = 0; i < MODEL_COUNT; i++)
        if (strcmp(models[i].name, name) == 0) {
            for (*count = 0; models[i].modules[*count];)
                ++*count;
            return models[i].modules;
        }
    *count = 0;
    return NULL;
}

bool clp_model_stage_runs(const clp_model_stage *stage, const clp_options *opts) {
    if (!stage->needs_option)
        return true;
    return clp__option_matches(opts, stage->needs_option, stage->needs_value) != stage->needs_not;
}

bool clp_model_run_chooses(const clp_model *model, const clp_options *opts) {
    return model->run_chooses_option &&
           clp__option_matches(opts, model->run_chooses_option, model->run_chooses_value);
}
