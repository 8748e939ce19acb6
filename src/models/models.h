/* What the registry needs of the self-test model beyond the public API. */
#ifndef CLPART_MODELS_H
#define CLPART_MODELS_H

#include "internal.h"

/* The self-test's assembled source for these options (it has no case; `dev` is not needed). */
clp_status clp__selftest_source(const clp_options *opts, const clp_device_info *dev,
                                const char *case_path, char **out, clp_error *err);

/* The option modules of the model called `name` (its registry entry's), *count their number. */
const char *const *clp__model_modules(const char *name, size_t *count);

#endif
