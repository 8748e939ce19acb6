/* The models clpart knows, one entry each: the commands find a model here by the name its
 * case gives, and drive it only through its entry. An entry is data that the model's folder
 * defines (`const clp_model clp__<name>_entry` in src/models/<name>/): the model's option
 * modules, buffers, the stages of its step, its diagnostics, outputs and checkpoint, and the
 * functions that assemble its source and run it. A new model adds its line to CLP__MODELS. */
#include "models/models.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Every model, in the order the documentation presents them: X(name) names the entry
 * clp__<name>_entry. One line a model. */
// clang-format off
#define CLP__MODELS(X) \
    X(sph) \
    X(lj) \
    X(pso) \
    X(repulsive) \
    X(search) \
    X(selftest) \
    X(harmonic) \
    /* the end of the list */
// clang-format on

#define DECLARE(name) extern const clp_model clp__##name##_entry;
CLP__MODELS(DECLARE)
#undef DECLARE

#define ADDRESS(name) &clp__##name##_entry,
static const clp_model *const entries[] = {CLP__MODELS(ADDRESS)};
#undef ADDRESS
enum { MODEL_COUNT = sizeof entries / sizeof entries[0] };

/* clp_models' array of entries: copied from them once, as C cannot initialise one object
 * from another that another file defines. */
static clp_model copies[MODEL_COUNT];
static pthread_once_t models_copied = PTHREAD_ONCE_INIT;

static void copy_entries(void) {
    for (size_t i = 0; i < MODEL_COUNT; i++)
        copies[i] = *entries[i];
}

static const clp_model *registry(void) {
    pthread_once(&models_copied, copy_entries);
    return copies;
}

const clp_model *clp_models(size_t *count) {
    *count = MODEL_COUNT;
    return registry();
}

clp_status clp_model_find(const char *name, const clp_model **out, clp_error *err) {
    const clp_model *models = registry();
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
    const clp_model *models = registry();
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
