/* The models clpart knows, by name: each gives the program spec for a set of options. */
#include "models/models.h"

#include <string.h>

typedef struct model_entry {
    const char *name;
    clp_status (*spec)(const clp_options *opts, clp_model_storage *storage, clp_program_spec *out,
                       clp_error *err);
} model_entry;

static const model_entry models[] = {
    {"selftest", clp__selftest_spec},
};

clp_status clp_model_spec(const char *name, const clp_options *opts, clp_model_storage *storage,
                          clp_program_spec *out, clp_error *err) {
    if (!name)
        return CLP_FAIL(err, CLP_CASE,
                        "the case names no model (known: lj, pso, repulsive, selftest, sph)");
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0)
            return models[i].spec(opts, storage, out, err);
    return CLP_FAIL(err, CLP_CASE, "unknown model '%s' (known: lj, pso, repulsive, selftest, sph)",
                    name);
}
