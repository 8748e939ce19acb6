/* The neighbour search model's registry entry (src/models/registry.c lists it). */
#include "models/models.h"
#include "models/search/search.h"

/* The option modules its programs take: options/<module>.json. */
static const char *const search_modules[] = {"core", "grid", "neighbors", NULL};
static const char *const search_outputs[] = {"summary.json", NULL};

/* The stages of one step, as search_device.c makes them. */
static const clp_model_stage search_stages[] = {
    CLP__STAGE("search_move", "every particle moved a little", CLP_PHASE_INTEGRATION), CLP__REBUILD,
    CLP__STAGE("grid_count_neighbors", "passes over every neighbour, as a force kernel makes",
               CLP_PHASE_FORCES),
    CLP__STAGES_END};

/* The lattice's particles: the size a tuning entry is chosen by. */
static clp_status search_particles(const clp_options *opts, const char *case_path, size_t *n,
                                   clp_error *err) {
    (void)opts;
    clp__search_case c;
    const clp_status st = clp__search_case_load(case_path, &c, err);
    *n = st == CLP_OK ? c.params.side * c.params.side * c.params.side : 0;
    return st;
}

const clp_model clp__search_entry = {.name = "search",
                                     .throughput_unit = "particle-updates/s",
                                     .steps_name = "steps",
                                     .modules = search_modules,
                                     .buffers = CLP_GRID_BUFFERS, /* the neighbour search's */
                                     .owned_buffers = clp__search_buffers,
                                     .stages = search_stages,
                                     .profiled = true,
                                     .diagnostics = clp__search_diagnostics,
                                     .outputs = search_outputs,
                                     .source = clp_search_source,
                                     .particles = search_particles,
                                     .run = clp_search_run};
