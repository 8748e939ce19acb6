/* One case's cell grid cut into slabs of cell layers along one axis, a slab per rank (a
 * device of a multi-device run). The axis is the slowest of the linear cell key, so a layer
 * is one contiguous range of keys, and the particles of a slab's first and last layers (the
 * edges its neighbours need) are contiguous after each sort. A rank's own grid is its slab
 * with one halo layer on each side that has a neighbour: the cells are at least as wide as
 * the search radius, so one layer holds every particle the slab's particles can reach. */
#ifndef CLPART_DIST_SLABS_H
#define CLPART_DIST_SLABS_H

#include "internal.h"

enum { CLP_DIST_MAX_RANKS = CLP_MAX_RANKS };

typedef struct clp_slabs {
    int axis;   /* 0 x, 1 y, 2 z */
    int ranks;  /* slabs */
    int layers; /* cells along the axis, globally */
    bool periodic;
    int first[CLP_DIST_MAX_RANKS + 1]; /* rank r owns layers first[r] .. first[r+1] - 1 */
} clp_slabs;

/* The grid.axis_order value that makes `axis` the slowest, the other two in xyz order. */
clp__grid_axis_order clp__slabs_axis_order(int axis);

/* Cuts the layers into `ranks` slabs of at least 2 layers whose shares of `layer_weight`
 * (the particles in each layer, say) follow `rank_weight` (each rank's speed; NULL: equal).
 * A slab boundary falls where the running sum of the layers crosses each rank's share. */
clp_status clp__slabs_cut(const clp_grid_geometry *global, int axis, const double *layer_weight,
                          int ranks, const double *rank_weight, clp_slabs *out, clp_error *err);

/* The same, where no slab begins at a layer l with together[l] set (NULL: none): layers l - 1
 * and l hold a particle and a point it reads from beyond its halo, as an mDBC boundary
 * particle and its ghost node. A boundary due there moves up to the first layer allowed. */
clp_status clp__slabs_cut_together(const clp_grid_geometry *global, int axis,
                                   const double *layer_weight, const unsigned char *together,
                                   int ranks, const double *rank_weight, clp_slabs *out,
                                   clp_error *err);

/* The particles a cut puts in the ranks' halos: those of the layers on both sides of each
 * boundary between two slabs, which the ranks copy to each other every step. */
double clp__slabs_halo(const clp_slabs *s, const double *layer_weight);

/* The cut along the axis whose halo is smallest, of the axes in the bit mask `axes` (bit a
 * for axis a) with room for `ranks` slabs (of equals, the one with the most cells):
 * layer_weight[a] holds the work of the layers along axis a, which the slabs share out,
 * layer_count[a] their particles, whose halo is measured (NULL: the work), together[a] (NULL,
 * or an entry NULL: none) where no slab may begin (clp__slabs_cut_together). A smaller halo is
 * less to copy each step. */
clp_status clp__slabs_cut_best(const clp_grid_geometry *global, const double *const layer_weight[3],
                               const double *const layer_count[3],
                               const unsigned char *const together[3], unsigned axes, int ranks,
                               const double *rank_weight, clp_slabs *out, clp_error *err);

/* The rank below (side 0) or above (side 1) rank r, wrapping on a periodic axis; -1 for none. */
int clp__slabs_neighbor(const clp_slabs *s, int rank, int side);

/* The rank that owns global layer l (wrapped on a periodic axis). */
int clp__slabs_owner(const clp_slabs *s, int layer);

/* Rank r's grid: the global one cut to its slab plus a halo layer on each side that has a
 * neighbour. The slab axis is walled there: a periodic neighbour's particles come with their
 * positions shifted by the domain's length. halo[side] says whether that side has one. */
void clp__slabs_local_geometry(const clp_slabs *s, const clp_grid_geometry *global, int rank,
                               clp_grid_geometry *local, bool halo[2]);

#endif
