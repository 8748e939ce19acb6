/* The least device-memory traffic of a neighbour-search rebuild, against which clpart bench
 * and bench-grid state how close a rebuild comes to the copy bandwidth. */
#include "internal.h"

#include <math.h>
#include <string.h>

void clp_grid_update_phase_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                                 size_t particles, double neighbours, double *sort_bytes,
                                 double *list_bytes) {
    const bool list = clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST;
    const bool radix = clp__grid_sort_of(opts) == CLP_GRID_SORT_RADIX;
    const double cells = (double)geometry->key_count + 1, bits = ceil(log2(cells));
    /* every buffer element each phase must read or write once (cl/grid/ says the same next to
       each kernel); neighbour candidates are assumed to come from cache */
    const double keys = 16 + 16 + 4 + 4 + (radix ? 0 : 4);      /* pos r/w, key, id, count */
    const double sort = radix ? bits * (4 + 4 + 4 + 4 + 8 + 8)  /* flags, scan, scatter */
                              : 8 + 8 + 4 + 4 + 4 + 8;          /* ranks, scatter, order */
    const double sort_cells = radix ? 0 : 4 * 4;                /* scan, copy, order */
    const double reorder = 4 + 2 * (16 + 4 + 4 + 4);            /* perm, then src and dst */
    const double listed = list ? 16 + 4 * (neighbours + 1) : 0; /* own pos, list, marker */
    *sort_bytes = (double)particles * (keys + sort + reorder) + cells * sort_cells;
    *list_bytes = (double)particles * listed;
}

double clp_grid_update_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                             size_t particles, double neighbours) {
    double sort, list;
    clp_grid_update_phase_bytes(opts, geometry, particles, neighbours, &sort, &list);
    return sort + list;
}
