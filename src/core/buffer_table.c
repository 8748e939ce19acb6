/* The traits of every named buffer (seed particle-systems-gpusph-design.txt 6.2.1): one row
 * per CLP_BUF_* bit, in bit order. A model adds its buffers here. */
#include "internal.h"

#define PER_ELEMENT(bit_, name_, kind_)                                                            \
    {                                                                                              \
        .bit = (bit_), .name = (name_), .element_type = "float", .element_size = sizeof(cl_float), \
        .components = 1, .kind = (kind_)                                                           \
    }

static const clp_buffer_traits traits[CLP_BUF_COUNT] = {
    PER_ELEMENT(CLP_BUF_SELFTEST_X, "selftest.x", CLP_PER_PARTICLE),
    PER_ELEMENT(CLP_BUF_SELFTEST_Y, "selftest.y", CLP_PER_PARTICLE),
    PER_ELEMENT(CLP_BUF_SELFTEST_TERMS, "selftest.terms", CLP_PER_CUSTOM),
    PER_ELEMENT(CLP_BUF_SELFTEST_SUMS, "selftest.sums", CLP_PER_CUSTOM),
    PER_ELEMENT(CLP_BUF_SELFTEST_PARTIAL, "selftest.partial", CLP_PER_CUSTOM),
    /* The compensation of each partial sum: only compensated summation has one. */
    {.bit = CLP_BUF_SELFTEST_PARTIAL_CORRECTION,
     .name = "selftest.partial_correction",
     .element_type = "float",
     .element_size = sizeof(cl_float),
     .components = 1,
     .kind = CLP_PER_CUSTOM,
     .needs_option = "core.summation",
     .needs_value = "naive",
     .needs_not = true},
};

int clp__buffer_index(clp_buffer_set bit) {
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        if (traits[i].bit == bit)
            return i;
    return -1;
}

const clp_buffer_traits *clp_buffer_traits_of(clp_buffer_set bit) {
    int i = clp__buffer_index(bit);
    return i < 0 ? NULL : &traits[i];
}
