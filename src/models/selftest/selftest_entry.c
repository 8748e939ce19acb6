/* The self-test's registry entry (src/models/registry.c lists it): `clpart selftest` runs it,
 * not `clpart run`. */
#include "models/models.h"
#include "models/selftest/selftest.h"

/* The option modules its programs take: options/<module>.json. */
static const char *const selftest_modules[] = {"core", "selftest", NULL};
static const char *const no_outputs[] = {NULL};

const clp_model clp__selftest_entry = {.name = "selftest",
                                       .modules = selftest_modules,
                                       .diagnostics = no_outputs,
                                       .outputs = no_outputs,
                                       .source = clp__selftest_source,
                                       .runner = "clpart selftest"};
