/* Slabs of cell layers, one per rank, sized by each rank's share of the particles. */
#include "dist/slabs.h"

#include <string.h>

static const char axis_names[3] = {'x', 'y', 'z'};

clp__grid_axis_order clp__slabs_axis_order(int axis) {
    static const clp__grid_axis_order slowest[3] = {
        CLP_GRID_AXIS_ORDER_YZX, CLP_GRID_AXIS_ORDER_XZY, CLP_GRID_AXIS_ORDER_XYZ};
    return slowest[axis];
}

clp_status clp__slabs_cut(const clp_grid_geometry *global, int axis, const double *layer_weight,
                          int ranks, const double *rank_weight, clp_slabs *out, clp_error *err) {
    return clp__slabs_cut_together(global, axis, layer_weight, NULL, ranks, rank_weight, out, err);
}

clp_status clp__slabs_cut_together(const clp_grid_geometry *global, int axis,
                                   const double *layer_weight, const unsigned char *together,
                                   int ranks, const double *rank_weight, clp_slabs *out,
                                   clp_error *err) {
    const int layers = global->cells[axis];
    if (ranks < 1 || ranks > CLP_DIST_MAX_RANKS)
        return CLP_FAIL(err, CLP_USAGE, "a case splits among 1 to %d devices, not %d",
                        CLP_DIST_MAX_RANKS, ranks);
    if (layers < 2 * ranks && ranks > 1)
        return CLP_FAIL(err, CLP_CASE,
                        "the domain has %d cells of the search radius along %c: a slab needs 2, "
                        "so it splits among at most %d devices, not %d",
                        layers, axis_names[axis], layers / 2, ranks);
    clp_slabs s = {
        .axis = axis, .ranks = ranks, .layers = layers, .periodic = global->periodic[axis]};
    double total = 0, speed = 0;
    for (int l = 0; l < layers; l++)
        total += layer_weight[l];
    for (int r = 0; r < ranks; r++)
        speed += rank_weight ? rank_weight[r] : 1.0;
    /* rank r ends where the running sum first reaches the shares of ranks 0..r, leaving
     * 2 layers for each rank after it and taking at least 2 itself */
    double share = 0, sum = 0;
    int l = 0;
    for (int r = 0; r < ranks - 1; r++) {
        s.first[r] = l;
        share += total * (rank_weight ? rank_weight[r] : 1.0) / speed;
        const int least = l + 2, most = layers - 2 * (ranks - 1 - r);
        while (l < most &&
               (l < least || sum + 0.5 * layer_weight[l] < share || (together && together[l])))
            sum += layer_weight[l++];
        if (together && together[l])
            return CLP_FAIL(err, CLP_CASE,
                            "no cut of the %d cell layers along %c into %d slabs keeps each "
                            "particle on one device with the points it reads beyond its halo "
                            "(mDBC's ghost nodes): cut along another axis (dist.axis) or split "
                            "among fewer devices",
                            layers, axis_names[axis], ranks);
    }
    s.first[ranks - 1] = l;
    s.first[ranks] = layers;
    *out = s;
    return CLP_OK;
}

double clp__slabs_halo(const clp_slabs *s, const double *layer_weight) {
    double halo = 0;
    for (int r = 0; r < s->ranks; r++) {
        if (clp__slabs_neighbor(s, r, 1) < 0)
            continue;
        const int boundary = s->first[r + 1] % s->layers; /* the wrap's is layer 0 */
        halo += layer_weight[(boundary - 1 + s->layers) % s->layers] + layer_weight[boundary];
    }
    return halo;
}

clp_status clp__slabs_cut_best(const clp_grid_geometry *global, const double *const layer_weight[3],
                               const double *const layer_count[3],
                               const unsigned char *const together[3], unsigned axes, int ranks,
                               const double *rank_weight, clp_slabs *out, clp_error *err) {
    clp_status first_refusal = CLP_OK;
    double best = 0;
    int best_axis = -1;
    for (int a = 0; a < global->dim; a++) {
        if (!(axes & (1u << a)))
            continue;
        clp_slabs s;
        clp_error why = CLP_ERROR_INIT;
        const clp_status st =
            clp__slabs_cut_together(global, a, layer_weight[a], together ? together[a] : NULL,
                                    ranks, rank_weight, &s, &why);
        if (st != CLP_OK) {
            if (first_refusal == CLP_OK) {
                first_refusal = st;
                *err = why;
            }
            continue;
        }
        const double halo = clp__slabs_halo(&s, layer_count ? layer_count[a] : layer_weight[a]);
        if (best_axis < 0 || halo < best ||
            (halo == best && global->cells[a] > global->cells[best_axis])) {
            best = halo;
            best_axis = a;
            *out = s;
        }
    }
    if (best_axis < 0 && first_refusal == CLP_OK)
        return CLP_FAIL(err, CLP_USAGE, "no axis to cut the slabs along");
    return best_axis >= 0 ? CLP_OK : first_refusal;
}

int clp__slabs_neighbor(const clp_slabs *s, int rank, int side) {
    const int next = side ? rank + 1 : rank - 1;
    if (s->ranks == 1)
        return -1;
    if (next >= 0 && next < s->ranks)
        return next;
    return s->periodic ? (next + s->ranks) % s->ranks : -1;
}

int clp__slabs_owner(const clp_slabs *s, int layer) {
    layer = ((layer % s->layers) + s->layers) % s->layers;
    int r = 0;
    while (r + 1 < s->ranks && layer >= s->first[r + 1])
        r++;
    return r;
}

void clp__slabs_local_geometry(const clp_slabs *s, const clp_grid_geometry *global, int rank,
                               clp_grid_geometry *local, bool halo[2]) {
    const int a = s->axis;
    for (int side = 0; side < 2; side++)
        halo[side] = clp__slabs_neighbor(s, rank, side) >= 0;
    *local = *global;
    const int below = halo[0] ? 1 : 0;
    local->cells[a] = s->first[rank + 1] - s->first[rank] + below + (halo[1] ? 1 : 0);
    local->origin[a] = global->origin[a] + (s->first[rank] - below) * global->cell_size[a];
    local->size[a] = local->cells[a] * global->cell_size[a];
    local->periodic[a] = s->ranks == 1 && global->periodic[a];
    local->key_count = (uint32_t)local->cells[0] * local->cells[1] * local->cells[2];
}
