/* The models clpart knows, one entry each: the commands find a model here by the name its
 * case gives, and drive it only through its entry. */
#include "models/models.h"

#include <stdio.h>
#include <string.h>

static bool repulsive_source_needs_device(const clp_options *opts) {
    return strcmp(clp_options_enum(opts, "repulsive.impl"), "tiled") == 0; /* local memory */
}

static bool always(const clp_options *opts) {
    (void)opts;
    return true;
}

/* The option modules each model's programs take: options/<module>.json. */
static const char *const sph_modules[] = {"core", "grid", "neighbors", "sph", NULL};
static const char *const lj_modules[] = {"core", "grid", "neighbors", "lj", NULL};
static const char *const pso_modules[] = {"core", "pso", NULL};
static const char *const repulsive_modules[] = {"core", "repulsive", NULL};
static const char *const search_modules[] = {"core", "grid", "neighbors", NULL};
static const char *const selftest_modules[] = {"core", "selftest", NULL};

static const char *const sph_outputs[] = {"diagnostics.csv", "particles.pvd", NULL};
static const char *const lj_outputs[] = {"diagnostics.csv", NULL};
static const char *const pso_outputs[] = {"convergence.csv", "best.csv", "summary.json", NULL};
static const char *const repulsive_outputs[] = {"design.csv", "energy.csv", "summary.json", NULL};
static const char *const search_outputs[] = {"summary.json", NULL};
static const char *const no_outputs[] = {NULL};

/* In the order the documentation presents them. */
static const clp_model models[] = {
    {"sph", "particle-steps/s", sph_modules, sph_outputs, NULL, clp_sph_source, clp_sph_run, NULL},
    {"lj", "atom-steps/s", lj_modules, lj_outputs, always, clp_lj_source, clp_lj_run, NULL},
    {"pso", "component-updates/s", pso_modules, pso_outputs, NULL, clp_pso_source, clp_pso_run,
     NULL},
    {"repulsive", "interactions/s", repulsive_modules, repulsive_outputs,
     repulsive_source_needs_device, clp_repulsive_source, clp_repulsive_run, NULL},
    {"search", "particle-updates/s", search_modules, search_outputs, NULL, clp_search_source,
     clp_search_run, NULL},
    {"selftest", NULL, selftest_modules, no_outputs, NULL, clp__selftest_source, NULL,
     "clpart selftest"},
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
