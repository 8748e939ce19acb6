/* The gauges of an SPH run (the case's "gauges"): water heights, pressure and velocity at
 * points, and the pressure force on wall boxes, sampled on the device into gauges.csv. */
#ifndef CLPART_SPH_GAUGES_H
#define CLPART_SPH_GAUGES_H

#include "io/io.h"
#include "models/sph/sph.h"

typedef struct clp__sph_gauges clp__sph_gauges;

/* Places the case's pressure points (sph_gauge_place.c): one on a wall's face (within half a
 * spacing of it, or behind it) moves along the nearest face's normal to `offset` from it,
 * where that is fluid, or with `refuse` the case (`path`) is refused with CLP_CASE naming the
 * point and the face. *moved counts the points moved; -v logs each. */
clp_status clp__sph_gauges_place(clp_sph_case *c, double offset, bool refuse, const char *path,
                                 size_t *moved, clp_error *err);
/* The points the gauges sample (out NULL: only counted): each water-height gauge's column,
 * from the floor (the tank's, else the domain's bottom) to the domain's top every half
 * spacing, then the pressure points. */
size_t clp__sph_gauge_points(const clp_sph_case *c, cl_float4 *out);
/* The program's constant CLP_SPH_GAUGE_POINTS: the case's sample points, 0 without gauges. */
clp_constant clp__sph_gauge_constant(const clp_sph_case *c);
/* The gauges' own buffers, by name, NULL-ended: the points, their samples and, with wall boxes,
 * the force on each particle. */
extern const char *const clp__sph_gauge_buffer_names[4];
#define CLP__SPH_GAUGE_BUFFERS "sph.gauge_points", "sph.gauge_samples", "sph.wall_force"
/* The device memory they take beside the model's, for `particles` slots (none without gauges). */
clp_memory_need clp__sph_gauge_need(const clp_sph_case *c, size_t particles);
/* Gauges on `w`, and gauges.csv in `dir` (NULL: none, a split run's rank other than 0): new,
 * or continued after `step` on a restart. A point whose fluid fraction is below `dry`
 * (sph.gauge_dry) writes empty fields. *out is new. */
clp_status clp__sph_gauges_open(const clp_sph_case *c, clp_worker *w, double dry, const char *dir,
                                bool restart, uint64_t step, clp__sph_gauges **out, clp_error *err);
/* A split run's rank in the gauges (sph_split_gauges.c gives it): every rank samples on its slab
 * and keeps what it owns, the points in its layers of the case's grid and the force on its
 * own particles; their sums meet on rank 0, which writes them. Its functions take `rank`, and
 * are asked at each sample, so a re-cut changes what the rank owns. */
typedef struct clp__sph_gauge_share {
    const void *rank;
    /* the halo refreshed: a sample reads this step's state of it */
    clp_status (*settle)(const void *rank, clp_error *err);
    /* whether the rank keeps the sums of the point at `x` */
    bool (*owns)(const void *rank, const cl_float4 *x);
    /* the slots of its own particles among the worker's `slots`; a kernel over them */
    void (*slots)(const void *rank, size_t slots, size_t *first, size_t *end);
    clp_status (*run)(const void *rank, clp_worker *w, const clp_step *s, size_t first, size_t end,
                      clp_error *err);
    /* v[0 .. n-1] summed over the ranks, on every rank */
    clp_status (*sum)(const void *rank, double *v, size_t n, clp_error *err);
} clp__sph_gauge_share;
/* Makes `g` a rank's part of a split run's gauges (NULL: the whole case's, on one device). */
void clp__sph_gauges_share(clp__sph_gauges *g, const clp__sph_gauge_share *share);
/* Samples every gauge now and appends the row of `time` and `step`. `grid` are the buffers
 * the neighbour iteration takes. */
clp_status clp__sph_gauges_sample(clp__sph_gauges *g, clp_buffer_set grid, double time,
                                  uint64_t step, clp_error *err);
/* NULL does nothing. */
void clp__sph_gauges_close(clp__sph_gauges *g);

#endif
