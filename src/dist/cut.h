/* The start of a multi-device run, the same for every model: the options a split run cannot
 * take, each rank's copy of the options with the slab axis slowest in the cell key, and the
 * cut of the case's particles into slabs, each rank taking those in its layers. */
#ifndef CLPART_DIST_CUT_H
#define CLPART_DIST_CUT_H

#include "dist/comm.h"
#include "dist/slabs.h"

/* CLP_USAGE naming the grid option a split run cannot take (grid.positions=local,
 * grid.key=morton) and what to use instead. */
clp_status clp__dist_check_options(const clp_options *opts, clp_error *err);

/* A copy of `opts` (new) for a rank's slab: its axis the slowest of the cell key
 * (grid.axis_order), and periodic only as the slab's grid is (`periodic`: a slab of the whole
 * domain), since the neighbours' halos stand for the wrap: a program that wrapped the slab's
 * own grid would move a particle just outside it to the far side (grid.periodic_*). */
clp_status clp__dist_rank_options(const clp_options *opts, int axis, bool periodic,
                                  clp_options **out, clp_error *err);

/* This rank's share of the case. */
typedef struct clp__dist_cut {
    clp_slabs slabs;
    clp_grid_geometry local;       /* its slab and halo layers (clp__slabs_local_geometry) */
    size_t slots;                  /* particles its buffers hold: owned and halo, dist.room more */
    size_t owned;                  /* the case's particles in its slab */
    double work;                   /* their cost summed (their count when the cut had no costs) */
    bool kept[CLP_DIST_MAX_RANKS]; /* the ranks that take a slab; the slabs number them anew */
    bool left_out;                 /* this rank is not among them: the rest of the cut is empty */
    double *xyz;   /* slots x 3: the owned ones first, padding at the local origin */
    uint32_t *ids; /* slots: each owned one's index in the case, then padding IDs */
} clp__dist_cut;

/* What a cut must keep on one rank: `count` pairs of points, 6 coordinates each, a particle
 * and a point it reads the neighbours of (an mDBC ghost node), which its halo may not reach. */
typedef struct clp__dist_ties {
    const double *points;
    size_t count;
} clp__dist_ties;

/* Cuts the `n` particles at `xyz` (the case's, in `global`) into slabs by their work per
 * layer (`cost` per particle; NULL: 1 each) and `weights` (the ranks' speeds; NULL: equal),
 * along the axis dist.axis names or, for auto, the one of the bit mask `axes` whose cut leaves
 * the fewest particles in the halos (clp__slabs_cut_best), with each of the `ties` (NULL: none)
 * on one rank, and gives this rank its share. With `may_leave_out`, a rank slower than the
 * fastest without which the case would go no slower (its thinnest slab holds the others back,
 * or it takes less off them than dist.split_cost) gets none (every rank computes the same
 * choice from the same particles and weights); rank 0 always takes a slab. */
clp_status clp__dist_cut_make(const clp__comm *comm, const clp_options *opts,
                              const clp_grid_geometry *global, unsigned axes, const double *xyz,
                              const double *cost, size_t n, const clp__dist_ties *ties,
                              const double *weights, bool may_leave_out, clp__dist_cut *out,
                              clp_error *err);
void clp__dist_cut_free(clp__dist_cut *c);

#endif
