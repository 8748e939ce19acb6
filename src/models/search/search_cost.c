/* The least device-memory traffic of neighbour-search steps, against which clpart bench states
 * how close a run comes to the device's copy bandwidth: every array element each kernel must
 * read or write once, the neighbours' own data taken from cache (float4 16 bytes, uint 4). */
#include "models/search/search.h"

#include <math.h>
#include <string.h>

double clp__search_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                         const clp__search_params *p, uint64_t steps, uint64_t rebuilds) {
    const double n = (double)p->side * (double)p->side * (double)p->side;
    /* the particles within the search radius of one, at the lattice's density of 1 */
    const double r = geometry->search_radius, listed = 4.0 / 3.0 * M_PI * r * r * r;
    const bool list = clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST;
    /* search_move (cl/search/search.cl): pos read and written, id read */
    const double move = 16 + 16 + 4;
    /* grid_count_neighbors (cl/grid/collect.cl): the particle's pos, key and id, its count
       written, and in list mode its list with the end marker */
    const double pass = 16 + 4 + 4 + 4 + (list ? 4 * (listed + 1) : 0);
    return n * (double)steps * (move + p->passes * pass) +
           (double)rebuilds * clp_grid_update_bytes(opts, geometry, (size_t)n, listed);
}
