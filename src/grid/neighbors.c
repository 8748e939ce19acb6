/* The neighbour-list phase of a grid update (list mode): one work-item per particle searches
 * the neighbouring cells with the search radius and fills its interleaved list. */
#include "grid/grid_private.h"

clp_status clp__grid_build_list(clp_grid *g, clp_error *err) {
    const clp_step build = {"grid_build_list",
                            CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_CELL_START |
                                CLP_BUF_CELL_END | CLP_BUF_NEIB_LIST | CLP_BUF_GRID_STATUS,
                            g->particles, 0};
    return clp_worker_run_step(g->worker, &build, NULL, err);
}
