/* The self-test model's source for its registry entry (selftest.c). */
#ifndef CLPART_SELFTEST_H
#define CLPART_SELFTEST_H

#include "internal.h"

/* The self-test's assembled source for these options (it has no case; `dev` is not needed). */
clp_status clp__selftest_source(const clp_options *opts, const clp_device_info *dev,
                                const char *case_path, char **out, clp_error *err);

#endif
