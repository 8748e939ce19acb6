/* A split run's rank in the gauges (clp__sph_gauge_share): the halo settled before a sample,
 * the points in its layers and its own particles' slots, and the sums over the ranks. */
#include "models/sph/sph_split.h"

#include <math.h>

static clp_status settle_halo(const void *rank, clp_error *err) {
    const sph_run *r = rank; /* the halos must hold this step's state: no overlap for the next
                                forces */
    return clp__dist_rank_refresh_end(&r->split->dist, err);
}

/* A point in one of the rank's layers, where its particles and halo hold every neighbour. */
static bool owns_point(const void *rank, const cl_float4 *x) {
    const sph_run *r = rank;
    const clp__dist_rank *d = &r->split->dist;
    const clp_slabs *s = &d->slabs;
    const int a = s->axis;
    int layer = (int)floor((x->s[a] - r->global.origin[a]) / r->global.cell_size[a]);
    layer = layer < 0 ? 0 : layer >= s->layers ? s->layers - 1 : layer;
    return layer >= s->first[d->rank] && layer < s->first[d->rank + 1];
}

static void own_slots(const void *rank, size_t slots, size_t *first, size_t *end) {
    const sph_run *r = rank;
    (void)slots;
    *first = r->split->dist.owned_first;
    *end = r->split->dist.owned_end;
}

/* A rank's own particles only: it has no neighbour lists for its halo's. */
static clp_status run_own(const void *rank, clp_worker *w, const clp_step *s, size_t first,
                          size_t end, clp_error *err) {
    (void)rank;
    return clp_worker_run_step_range(w, s, first, end - first, NULL, err);
}

static clp_status sum_ranks(const void *rank, double *v, size_t n, clp_error *err) {
    const sph_run *r = rank;
    return clp__comm_allreduce(r->split->comm, v, n, CLP_COMM_SUM, err);
}

clp__sph_gauge_share clp__sph_rank_gauge_share(const sph_run *r) {
    return (clp__sph_gauge_share){r, settle_halo, owns_point, own_slots, run_own, sum_ranks};
}
