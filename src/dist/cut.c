/* The options a split run refuses or sets, and the cut of a case's particles into slabs. */
#include "dist/cut.h"

#include "dist/rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool option_is(const clp_options *opts, const char *name, const char *value) {
    return strcmp(clp_options_enum(opts, name), value) == 0;
}

clp_status clp_dist_check_options(const clp_options *opts, clp_error *err) {
    if (option_is(opts, "grid.positions", "local"))
        return CLP_FAIL(err, CLP_USAGE,
                        "grid.positions=local is single-device only: a multi-device run keeps "
                        "global positions, which its ranks exchange; use grid.positions=global");
    if (option_is(opts, "grid.key", "morton"))
        return CLP_FAIL(err, CLP_USAGE,
                        "grid.key=morton is single-device only: a multi-device run cuts the grid "
                        "into slabs of a linear key; use grid.key=linear");
    return CLP_OK;
}

clp_status clp_dist_rank_options(const clp_options *opts, int axis, clp_options **out,
                                 clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *copy = NULL;
    char assignment[64];
    snprintf(assignment, sizeof assignment, "grid.axis_order=%s", clp_slabs_axis_order(axis));
    CLP_TRY(clp_options_dup(opts, &copy, err));
    CLP_TRY(clp_options_apply_assignment(copy, assignment, err));
    *out = copy;
    copy = NULL;
fail:
    clp_options_destroy(copy);
    return st;
}

/* The layer along `axis` of the global grid that position x is in. */
static int layer_of(const clp_grid_geometry *g, int axis, const double *x) {
    double rel = x[axis] - g->origin[axis];
    if (g->periodic[axis])
        rel -= g->size[axis] * floor(rel / g->size[axis]);
    const int l = (int)floor(rel / g->cell_size[axis]);
    return l < 0 ? 0 : l >= g->cells[axis] ? g->cells[axis] - 1 : l;
}

/* The layers along `axis` no slab may begin at: those between the two points of a tie. */
static unsigned char *tied_layers(const clp_grid_geometry *global, int axis,
                                  const clp_dist_ties *ties) {
    unsigned char *together = calloc((size_t)global->cells[axis], 1);
    for (size_t t = 0; together && ties && t < ties->count; t++) {
        const int a = layer_of(global, axis, ties->points + 6 * t),
                  b = layer_of(global, axis, ties->points + 6 * t + 3);
        for (int l = (a < b ? a : b) + 1; l <= (a < b ? b : a); l++)
            together[l] = 1;
    }
    return together;
}

/* The cut along the axis dist.axis names, or the best of `axes` for auto; counts[a] and
 * together[a] (new) get the particles in each layer along each axis counted, and the layers
 * no slab may begin at. */
static clp_status cut_slabs(const clp__comm *comm, const clp_options *opts,
                            const clp_grid_geometry *global, unsigned axes, const double *xyz,
                            size_t n, const clp_dist_ties *ties, const double *weights,
                            double *counts[3], unsigned char *together[3], clp_slabs *out,
                            clp_error *err) {
    clp_status st = CLP_OK;
    const char *requested = clp_options_enum(opts, "dist.axis");
    const bool automatic = strcmp(requested, "auto") == 0;
    const int named = automatic ? -1 : requested[0] - 'x';
    CLP_REQUIRE(named < global->dim, err, CLP_USAGE,
                "dist.axis=%s: a %dD case has no %s axis to cut along", requested, global->dim,
                requested);
    for (int a = 0; a < global->dim; a++) {
        if (automatic ? !(axes & (1u << a)) : a != named)
            continue;
        counts[a] = calloc((size_t)global->cells[a], sizeof *counts[a]);
        together[a] = tied_layers(global, a, ties);
        CLP_REQUIRE(counts[a] && together[a], err, CLP_NOMEM, "out of host memory");
        for (size_t i = 0; i < n; i++)
            counts[a][layer_of(global, a, xyz + 3 * i)] += 1;
    }
    const int ranks = clp__comm_size(comm);
    if (automatic)
        CLP_TRY(clp_slabs_cut_best(global, (const double *const *)counts,
                                   (const unsigned char *const *)together, axes, ranks, weights,
                                   out, err));
    else
        CLP_TRY(clp_slabs_cut_together(global, named, counts[named], together[named], ranks,
                                       weights, out, err));
fail:
    return st;
}

clp_status clp_dist_cut_make(const clp__comm *comm, const clp_options *opts,
                             const clp_grid_geometry *global, unsigned axes, const double *xyz,
                             size_t n, const clp_dist_ties *ties, const double *weights,
                             clp_dist_cut *out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_dist_cut c = {0};
    double *counts[3] = {NULL, NULL, NULL};
    unsigned char *together[3] = {NULL, NULL, NULL};
    const int rank = clp__comm_rank(comm);
    CLP_TRY(cut_slabs(comm, opts, global, axes, xyz, n, ties, weights, counts, together, &c.slabs,
                      err));
    const int axis = c.slabs.axis, layers = global->cells[axis];
    const double *layer_count = counts[axis];
    bool halo[2];
    clp_slabs_local_geometry(&c.slabs, global, rank, &c.local, halo);
    /* slots: the slab's particles and halo now, and room for those that come in later */
    const int lo = c.slabs.first[rank], hi = c.slabs.first[rank + 1];
    double owned = 0, halo_particles = 0;
    for (int l = lo; l < hi; l++)
        owned += layer_count[l];
    if (halo[0])
        halo_particles += layer_count[(lo - 1 + layers) % layers];
    if (halo[1])
        halo_particles += layer_count[hi % layers];
    const double room = clp_options_float(opts, "dist.room");
    c.slots = (size_t)ceil((owned + halo_particles) * (1.0 + room)) + 64;
    c.xyz = malloc(3 * c.slots * sizeof *c.xyz);
    c.ids = malloc(c.slots * sizeof *c.ids);
    CLP_REQUIRE(c.xyz && c.ids, err, CLP_NOMEM, "out of host memory for %zu particles", c.slots);
    for (size_t i = 0; i < n; i++) {
        if (clp_slabs_owner(&c.slabs, layer_of(global, axis, xyz + 3 * i)) != rank)
            continue;
        memcpy(c.xyz + 3 * c.owned, xyz + 3 * i, 3 * sizeof(double));
        c.ids[c.owned++] = (uint32_t)i;
    }
    for (size_t i = c.owned; i < c.slots; i++) { /* padding, at the grid's origin */
        memcpy(c.xyz + 3 * i, c.local.origin, 3 * sizeof(double));
        c.ids[i] = CLP_DIST_PADDING_ID;
    }
    CLP_INFO(CLP_LOG_RUN,
             "device rank %d: cell layers %d to %d of %d along %c, %zu particles, %zu slots", rank,
             lo, hi - 1, layers, 'x' + axis, c.owned, c.slots);
    *out = c;
    c = (clp_dist_cut){0};
fail:
    for (int a = 0; a < 3; a++) {
        free(counts[a]);
        free(together[a]);
    }
    clp_dist_cut_free(&c);
    return st;
}

void clp_dist_cut_free(clp_dist_cut *c) {
    free(c->xyz);
    free(c->ids);
    c->xyz = NULL;
    c->ids = NULL;
}
