/* The options a split run refuses or sets, and the cut of a case's particles into slabs. */
#include "dist/cut.h"

#include "dist/rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

clp_status clp__dist_check_options(const clp_options *opts, clp_error *err) {
    if (clp__grid_positions_of(opts) == CLP_GRID_POSITIONS_LOCAL)
        return CLP_FAIL(err, CLP_USAGE,
                        "grid.positions=local is single-device only: a multi-device run keeps "
                        "global positions, which its ranks exchange; use grid.positions=global");
    if (clp__grid_key_of(opts) == CLP_GRID_KEY_MORTON)
        return CLP_FAIL(err, CLP_USAGE,
                        "grid.key=morton is single-device only: a multi-device run cuts the grid "
                        "into slabs of a linear key; use grid.key=linear");
    return CLP_OK;
}

clp_status clp__dist_rank_options(const clp_options *opts, int axis, bool periodic,
                                  clp_options **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *copy = NULL;
    CLP_TRY(clp_options_dup(opts, &copy, err));
    CLP_TRY(clp__grid_axis_order_set(copy, clp__slabs_axis_order(axis), err));
    CLP_TRY(clp__grid_periodic_set(copy, axis, periodic, err));
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
                                  const clp__dist_ties *ties) {
    unsigned char *together = calloc((size_t)global->cells[axis], 1);
    for (size_t t = 0; together && ties && t < ties->count; t++) {
        const int a = layer_of(global, axis, ties->points + 6 * t),
                  b = layer_of(global, axis, ties->points + 6 * t + 3);
        for (int l = (a < b ? a : b) + 1; l <= (a < b ? b : a); l++)
            together[l] = 1;
    }
    return together;
}

/* A case's particles summed per layer along each axis the cut may take: counts[a], work[a]
 * (the counts when there is no cost) and together[a], the layers no slab may begin at. */
typedef struct layer_sums {
    int axis; /* the axis dist.axis names, or -1 for auto: the best of `axes` */
    unsigned axes;
    double *counts[3], *work[3];
    unsigned char *together[3];
} layer_sums;

static void layer_sums_free(layer_sums *l) {
    for (int a = 0; a < 3; a++) {
        if (l->work[a] != l->counts[a])
            free(l->work[a]);
        free(l->counts[a]);
        free(l->together[a]);
    }
}

static clp_status sum_layers(const clp_options *opts, const clp_grid_geometry *global,
                             unsigned axes, const double *xyz, const double *cost, size_t n,
                             const clp__dist_ties *ties, layer_sums *l, clp_error *err) {
    clp_status st = CLP_OK;
    const clp__dist_axis axis = clp__dist_axis_of(opts);
    const char *requested = clp__dist_axis_name(axis); /* an axis's letter, unless automatic */
    const bool automatic = axis == CLP_DIST_AXIS_AUTO;
    *l = (layer_sums){.axis = automatic ? -1 : requested[0] - 'x', .axes = axes};
    CLP_REQUIRE(l->axis < global->dim, err, CLP_USAGE,
                "dist.axis=%s: a %dD case has no %s axis to cut along", requested, global->dim,
                requested);
    for (int a = 0; a < global->dim; a++) {
        if (automatic ? !(axes & (1u << a)) : a != l->axis)
            continue;
        l->counts[a] = calloc((size_t)global->cells[a], sizeof *l->counts[a]);
        l->work[a] = cost ? calloc((size_t)global->cells[a], sizeof *l->work[a]) : l->counts[a];
        l->together[a] = tied_layers(global, a, ties);
        CLP_REQUIRE(l->counts[a] && l->work[a] && l->together[a], err, CLP_NOMEM,
                    "out of host memory");
        for (size_t i = 0; i < n; i++) {
            const int layer = layer_of(global, a, xyz + 3 * i);
            l->counts[a][layer] += 1;
            if (cost)
                l->work[a][layer] += cost[i];
        }
    }
fail:
    return st;
}

/* The cut among the ranks with kept[r] set, by their weights (NULL: equal), and its step: the
 * longest time a kept rank takes over its slab's work at its weight, times 1 + split_cost when
 * the case is split (its halo exchange and the waits on it). */
static clp_status cut_kept(const clp_grid_geometry *global, const layer_sums *l, int ranks,
                           const double *weights, const bool *kept, double split_cost,
                           clp_slabs *out, double *step, clp_error *err) {
    double kept_weights[CLP_DIST_MAX_RANKS];
    int n = 0;
    for (int r = 0; r < ranks; r++)
        if (kept[r])
            kept_weights[n++] = weights ? weights[r] : 1.0;
    clp_status st = l->axis < 0
                        ? clp__slabs_cut_best(global, (const double *const *)l->work,
                                              (const double *const *)l->counts,
                                              (const unsigned char *const *)l->together, l->axes, n,
                                              kept_weights, out, err)
                        : clp__slabs_cut_together(global, l->axis, l->work[l->axis],
                                                  l->together[l->axis], n, kept_weights, out, err);
    *step = 0;
    for (int k = 0; st == CLP_OK && k < n; k++) {
        double work = 0;
        for (int layer = out->first[k]; layer < out->first[k + 1]; layer++)
            work += l->work[out->axis][layer];
        *step = fmax(*step, work / kept_weights[k]);
    }
    if (n > 1)
        *step *= 1 + split_cost;
    return st;
}

/* Which ranks the cut keeps (kept[], all to begin with): while the case would go no slower
 * without the slowest rank but rank 0, which writes the outputs, it is left out: because even
 * its thinnest slab holds the others back, or because what it takes off the others is less
 * than the split costs (split_cost; a slab without work counts nothing for the exchanges and
 * waits it would still cost). Equal ranks are all kept. */
static clp_status choose_ranks(const clp_grid_geometry *global, const layer_sums *l, int ranks,
                               const double *weights, bool may_leave_out, double split_cost,
                               bool *kept, clp_slabs *out, clp_error *err) {
    clp_status st = CLP_OK;
    double step, fastest = 0;
    for (int r = 0; r < ranks; r++) {
        kept[r] = true;
        fastest = fmax(fastest, weights ? weights[r] : 1.0);
    }
    CLP_TRY(cut_kept(global, l, ranks, weights, kept, split_cost, out, &step, err));
    for (;;) {
        int slowest = -1;
        for (int r = 1; may_leave_out && weights && r < ranks; r++)
            if (kept[r] && weights[r] < fastest && (slowest < 0 || weights[r] < weights[slowest]))
                slowest = r;
        if (slowest < 0)
            break;
        clp_slabs fewer;
        double fewer_step;
        clp_error why = CLP_ERROR_INIT;
        kept[slowest] = false;
        if (cut_kept(global, l, ranks, weights, kept, split_cost, &fewer, &fewer_step, &why) !=
                CLP_OK ||
            fewer_step > step) {
            kept[slowest] = true;
            break;
        }
        *out = fewer;
        step = fewer_step;
    }
fail:
    return st;
}

clp_status clp__dist_cut_make(const clp__comm *comm, const clp_options *opts,
                              const clp_grid_geometry *global, unsigned axes, const double *xyz,
                              const double *cost, size_t n, const clp__dist_ties *ties,
                              const double *weights, bool may_leave_out, clp__dist_cut *out,
                              clp_error *err) {
    clp_status st = CLP_OK;
    clp__dist_cut c = {0};
    layer_sums sums = {0};
    const int ranks = clp__comm_size(comm), me = clp__comm_rank(comm);
    CLP_TRY(sum_layers(opts, global, axes, xyz, cost, n, ties, &sums, err));
    CLP_TRY(choose_ranks(global, &sums, ranks, weights, may_leave_out,
                         clp__dist_split_cost_of(opts), c.kept, &c.slabs, err));
    if (!c.kept[me]) {
        c.left_out = true;
        CLP_WARN(CLP_LOG_RUN,
                 "device rank %d is left out: at its speed (weight %g) the case goes faster "
                 "without it, because even its thinnest slab (2 cell layers) would hold the "
                 "other devices back or because it would take less off them than the split "
                 "costs (dist.split_cost)",
                 me, weights[me]);
        *out = c;
        c = (clp__dist_cut){0};
        goto fail;
    }
    int rank = 0; /* among the kept */
    for (int r = 0; r < me; r++)
        rank += c.kept[r];
    const int axis = c.slabs.axis, layers = global->cells[axis];
    const double *layer_count = sums.counts[axis], *layer_work = sums.work[axis];
    bool halo[2];
    clp__slabs_local_geometry(&c.slabs, global, rank, &c.local, halo);
    /* slots: the slab's particles and halo now, and room for those that come in later */
    const int lo = c.slabs.first[rank], hi = c.slabs.first[rank + 1];
    double owned = 0, halo_particles = 0, all_work = 0;
    for (int l = lo; l < hi; l++) {
        owned += layer_count[l];
        c.work += layer_work[l];
    }
    for (int l = 0; l < layers; l++)
        all_work += layer_work[l];
    if (halo[0])
        halo_particles += layer_count[(lo - 1 + layers) % layers];
    if (halo[1])
        halo_particles += layer_count[hi % layers];
    const double room = clp__dist_room_of(opts);
    c.slots = (size_t)ceil((owned + halo_particles) * (1.0 + room)) + 64;
    c.xyz = malloc(3 * c.slots * sizeof *c.xyz);
    c.ids = malloc(c.slots * sizeof *c.ids);
    CLP_REQUIRE(c.xyz && c.ids, err, CLP_NOMEM, "out of host memory for %zu particles", c.slots);
    for (size_t i = 0; i < n; i++) {
        if (clp__slabs_owner(&c.slabs, layer_of(global, axis, xyz + 3 * i)) != rank)
            continue;
        memcpy(c.xyz + 3 * c.owned, xyz + 3 * i, 3 * sizeof(double));
        c.ids[c.owned++] = (uint32_t)i;
    }
    for (size_t i = c.owned; i < c.slots; i++) { /* padding, at the grid's origin */
        memcpy(c.xyz + 3 * i, c.local.origin, 3 * sizeof(double));
        c.ids[i] = CLP_DIST_PADDING_ID;
    }
    CLP_INFO(CLP_LOG_RUN,
             "device rank %d: cell layers %d to %d of %d along %c, %zu particles (%.1f%% of the "
             "work), %zu slots",
             rank, lo, hi - 1, layers, 'x' + axis, c.owned,
             all_work > 0 ? 100 * c.work / all_work : 0.0, c.slots);
    *out = c;
    c = (clp__dist_cut){0};
fail:
    layer_sums_free(&sums);
    clp__dist_cut_free(&c);
    return st;
}

void clp__dist_cut_free(clp__dist_cut *c) {
    free(c->xyz);
    free(c->ids);
    c->xyz = NULL;
    c->ids = NULL;
}
