/* Each model's program spec function, for the registry. */
#ifndef CLPART_MODELS_H
#define CLPART_MODELS_H

#include "internal.h"

clp_status clp__selftest_spec(const clp_options *opts, clp_model_storage *storage,
                              clp_program_spec *out, clp_error *err);

#endif
