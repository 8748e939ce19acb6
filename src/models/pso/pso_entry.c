/* The particle swarm model's registry entry (src/models/registry.c lists it). */
#include "models/models.h"
#include "models/pso/pso.h"
#include "models/pso/pso_case.h"

/* The option modules its programs take: options/<module>.json. */
static const char *const pso_modules[] = {"core", "pso", NULL};
static const char *const pso_outputs[] = {"convergence.csv", "best.csv", "summary.json", NULL};

/* The stages of one iteration, as pso_device.c makes them. */
static const clp_model_stage pso_stages[] = {
    CLP__WHEN("pso_ring", "ring neighbourhood bests", CLP_PHASE_FORCES, "pso.topology",
              CLP_PSO_TOPOLOGY_RING_NAME),
    CLP__STAGE("pso_move", "velocity and position update", CLP_PHASE_INTEGRATION),
    CLP__STAGE("pso_evaluate", "objective at the new positions", CLP_PHASE_FORCES),
    CLP__STAGE("pso_reduce_groups", "swarm best: per work-group", CLP_PHASE_FORCES),
    CLP__STAGE("pso_reduce_final", "swarm best", CLP_PHASE_FORCES),
    CLP__STAGES_END};

/* The swarm's particles: the size a tuning entry is chosen by. */
static clp_status pso_particles(const clp_options *opts, const char *case_path, size_t *n,
                                clp_error *err) {
    clp__pso_case c;
    const clp_status st = clp__pso_case_load(case_path, clp__pso_objective_of(opts), &c, err);
    *n = st == CLP_OK ? c.params.particles : 0;
    if (st == CLP_OK)
        clp__pso_case_free(&c);
    return st;
}

const clp_model clp__pso_entry = {.name = "pso",
                                  .throughput_unit = "component-updates/s",
                                  .steps_name = "iterations",
                                  .modules = pso_modules,
                                  .owned_buffers = clp__pso_buffers,
                                  .stages = pso_stages,
                                  .diagnostics = clp__pso_diagnostics,
                                  .outputs = pso_outputs,
                                  .source = clp_pso_source,
                                  .particles = pso_particles,
                                  .run = clp_pso_run};
