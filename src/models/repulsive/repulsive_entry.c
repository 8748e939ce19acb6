/* The repulsive particles model's registry entry (src/models/registry.c lists it). */
#include "models/models.h"
#include "models/repulsive/repulsive.h"
#include "models/repulsive/repulsive_case.h"

static bool repulsive_source_needs_device(const clp_options *opts) {
    return clp__repulsive_impl_of(opts) == CLP_REP_IMPL_TILED; /* local memory */
}

/* The option modules its programs take: options/<module>.json. */
static const char *const repulsive_modules[] = {"core", "repulsive", NULL};
static const char *const repulsive_outputs[] = {"design.csv", "energy.csv", "summary.json", NULL};

/* The stages of one step, as repulsive_device.c makes them. */
static const clp_model_stage repulsive_stages[] = {
    CLP__STAGE("rep_step", "damped update of positions and velocities", CLP_PHASE_INTEGRATION),
    CLP__WHEN("rep_clear", "zeroed sums (global implementation)", CLP_PHASE_FORCES,
              "repulsive.impl", CLP_REP_IMPL_GLOBAL_NAME),
    CLP__STAGE("rep_forces", "all-pairs forces, energy and stress", CLP_PHASE_FORCES),
    CLP__STAGES_END};

/* The design's points: the size a tuning entry is chosen by. */
static clp_status repulsive_particles(const clp_options *opts, const char *case_path, size_t *n,
                                      clp_error *err) {
    (void)opts;
    clp__rep_case c;
    const clp_status st = clp__rep_case_load(case_path, &c, err);
    *n = st == CLP_OK ? c.points : 0;
    return st;
}

const clp_model clp__repulsive_entry = {.name = "repulsive",
                                        .throughput_unit = "interactions/s",
                                        .steps_name = "steps",
                                        .modules = repulsive_modules,
                                        .owned_buffers = clp__rep_buffers,
                                        .stages = repulsive_stages,
                                        .diagnostics = clp__rep_columns + 1,
                                        .outputs = repulsive_outputs,
                                        .source_needs_device = repulsive_source_needs_device,
                                        .source = clp_repulsive_source,
                                        .particles = repulsive_particles,
                                        .run = clp_repulsive_run};
