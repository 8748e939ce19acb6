/* The device side of a rank (cl/dist/dist.cl): where its layers begin in the sorted order,
 * and received particles pinned to the layers their sender found them in. The worker's
 * program must include cl/grid and cl/dist/dist.cl. */
#ifndef CLPART_DIST_DEVICE_H
#define CLPART_DIST_DEVICE_H

#include "worker/worker_private.h"

enum { CLP_DIST_MAX_QUERIES = 16 };

/* The ID of an unused slot (its type is CLP_GRID_EXCLUDED). */
#define CLP_DIST_PADDING_ID UINT32_MAX

typedef struct clp__dist_device {
    clp_worker *worker;
    cl_mem scratch;  /* CLP_DIST_MAX_QUERIES uints: the queries, then their bounds */
    cl_mem unpinned; /* one uint: particles the pins since the last check could not move */
    size_t pinned;   /* particles those pins took */
} clp__dist_device;

clp_status clp__dist_device_create(clp_worker *w, clp__dist_device *out, clp_error *err);
void clp__dist_device_destroy(clp__dist_device *d);

/* bounds[q]: the index of the first of the worker's n sorted keys (CLP_BUF_KEY) not below
 * queries[q]; a blocking read. */
clp_status clp__dist_lower_bounds(clp__dist_device *d, size_t n, const uint32_t *queries,
                                  uint32_t *bounds, size_t n_queries, clp_error *err);

/* Enqueues the move of the positions of particles first .. first + count - 1 to the nearest
 * float that puts each in the cell its key (CLP_BUF_KEY) names in the worker's grid, as the
 * next sort computes cells (global positions); at most 64 float steps of the larger of the
 * position and `scale`, the size of the sender's coordinates when it moved them across a
 * periodic boundary (else 0). A rebuild pins several ranges, then checks them all with one
 * read. */
clp_status clp__dist_pin(clp__dist_device *d, size_t first, size_t count, float scale,
                         clp_error *err);
/* Fails, naming how many, when a pin since the last check could not move a particle into its
 * cell (a whole cell off is a bug, not rounding); a blocking read. */
clp_status clp__dist_pin_check(clp__dist_device *d, clp_error *err);

/* What a rebuild does with an owned particle (cl/dist/dist.cl's DIST_ classes). */
enum {
    CLP_DIST_STAYS,
    CLP_DIST_LEAVES_LO,
    CLP_DIST_EDGE_LO,
    CLP_DIST_EDGE_HI,
    CLP_DIST_LEAVES_HI,
    CLP_DIST_CLASSES
};

/* Which slots of first .. first + count - 1 leave or are edges, and for which side, into the
 * bytes of `kind` at their slots, by the layer (of `layer_keys` keys each) their positions are
 * in: below `lo` they leave and in it they are an edge, when bit 0 of `sides` is set; above
 * `hi` and in it, when bit 1 is. A blocking read gives in *far those in slots near_lo_end ..
 * near_hi_first - 1, which a rebuild does not look at, and in *outside the particles the sort
 * will put outside the grid (excluded). Their positions wrap on periodic axes and their keys
 * (CLP_BUF_KEY) become their cells' now, as the sort's would. */
clp_status clp__dist_classify(clp__dist_device *d, cl_mem kind, size_t first, size_t count,
                              uint32_t layer_keys, int lo, int hi, unsigned sides,
                              size_t near_lo_end, size_t near_hi_first, size_t *far,
                              size_t *outside, clp_error *err);

/* Enqueues making the slots slots[first .. first + count - 1] (on the device) padding. */
clp_status clp__dist_pad(clp__dist_device *d, cl_mem slots, size_t first, size_t count,
                         clp_error *err);

#endif
