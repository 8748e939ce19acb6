/* The traits of every named buffer (Bilotta et al. 2018, 6.2.1): one row per CLP_BUF_* bit, in
 * bit order: the grid's and the constants. Every model owns its buffers by name instead
 * (model_buffers.c, docs/adding-a-model.md). */
#include "internal.h"

#define ROW(bit_, name_, type_, size_, components_, kind_)                                         \
    {                                                                                              \
        .bit = (bit_), .name = (name_), .element_type = (type_), .element_size = (size_),          \
        .components = (components_), .kind = (kind_)                                               \
    }
/* A per-particle buffer that follows the sort (gathered through the sort's scratch). */
#define SORTED(bit_, name_, type_, size_, components_)                                             \
    {                                                                                              \
        .bit = (bit_), .name = (name_), .element_type = (type_), .element_size = (size_),          \
        .components = (components_), .kind = CLP_PER_PARTICLE, .resorted = true                    \
    }
#define NEEDS(option_, value_) .needs_option = (option_), .needs_value = (value_)
/* A row allocated only when option `option_` has `value_`. */
#define ROW_IF(bit_, name_, type_, size_, components_, kind_, option_, value_)                     \
    {                                                                                              \
        .bit = (bit_), .name = (name_), .element_type = (type_), .element_size = (size_),          \
        .components = (components_), .kind = (kind_), NEEDS(option_, value_)                       \
    }
static const clp_buffer_traits traits[CLP_BUF_COUNT] = {
    SORTED(CLP_BUF_POS, "pos", "float", sizeof(cl_float), 4),
    SORTED(CLP_BUF_KEY, "key", "uint", sizeof(cl_uint), 1),
    SORTED(CLP_BUF_TYPE, "type", "uint", sizeof(cl_uint), 1),
    ROW(CLP_BUF_CELL_START, "cell_start", "uint", sizeof(cl_uint), 1, CLP_PER_CELL),
    ROW(CLP_BUF_CELL_END, "cell_end", "uint", sizeof(cl_uint), 1, CLP_PER_CELL),
    ROW_IF(CLP_BUF_NEIB_LIST, "neib_list", "uint", sizeof(cl_uint), 1, CLP_PER_CUSTOM,
           "neighbors.mode", CLP_NEIGHBORS_MODE_LIST_NAME),
    SORTED(CLP_BUF_ID, "id", "uint", sizeof(cl_uint), 1),
    ROW(CLP_BUF_PERM, "perm", "uint", sizeof(cl_uint), 1, CLP_PER_PARTICLE),
    ROW_IF(CLP_BUF_CELL_COUNT, "cell_count", "uint", sizeof(cl_uint), 1, CLP_PER_CELL, "grid.sort",
           CLP_GRID_SORT_COUNTING_NAME),
    ROW(CLP_BUF_GRID_STATUS, "grid_status", "uint", sizeof(cl_uint), 8, CLP_SINGLE),
    ROW_IF(CLP_BUF_CONSTANTS, "constants", "float", sizeof(cl_float), 1, CLP_PER_CUSTOM,
           "core.inline_constants", "false"),
    /* For the check that no particle moved more than half the skin between rebuilds. */
    {.bit = CLP_BUF_POS_REBUILT,
     .name = "pos_rebuilt",
     .element_type = "float",
     .element_size = sizeof(cl_float),
     .components = 4,
     .kind = CLP_PER_PARTICLE,
     .needs_option = "neighbors.every",
     .needs_value = "1",
     .needs_not = true},
    ROW(CLP_BUF_SORT_SCRATCH, "sort_scratch", "uint", sizeof(cl_uint), 4, CLP_PER_PARTICLE),
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
