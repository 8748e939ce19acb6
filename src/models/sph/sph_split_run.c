/* A split SPH run's rank: the one-device model's run (sph_run.c) with the rank's hooks and
 * state attached, and around its steps what only a rank does: the re-cut that rebalances the
 * ranks, the timing of its busy time, its part in the gauges, and the ranks' agreement on the
 * requests. */
#include "models/models.h"
#include "models/sph/sph_balance.h"

#include <math.h>
#include <stdlib.h>

/* A rank's model: the one-device model's state first, as its functions take it. */
typedef struct rank_model {
    sph_model m;
    clp__sph_split split;
} rank_model;

static const clp_device_info *bound_device(const sph_run *r) {
    (void)r; /* each rank fits its slab after the cut */
    return NULL;
}

static clp_status most(sph_run *r, double *v, size_t n, clp_error *err) {
    return clp__comm_allreduce(r->split->comm, v, n, CLP_COMM_MAX, err);
}

static void label(const sph_run *r, char *out, size_t size) {
    clp__comm_rank_label(r->split->comm, out, size);
}

/* The particles made and cut: the rank's slab, fitted to its device, which must hold it. */
static clp_status place(sph_run *r, const clp__sph_restart *rs, double **xyz, uint32_t **types,
                        uint32_t **ids, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__sph_make_particles(r, rs, xyz, types, err));
    CLP_TRY(clp__sph_dist_cut(r, xyz, types, ids, err));
    if (r->left_out)
        return CLP_OK; /* the other ranks go on without this one */
    CLP_REQUIRE(r->geo.list_pieces <= 1, err, CLP_CASE,
                "neighbors.pieces splits the list of a run on one device: a split run "
                "keeps each rank's list in one buffer");
    CLP_TRY(clp__sph_fit_device(r, clp_worker_device(r->w), err)); /* the rank's slab */
    CLP_TRY(clp__sph_check_device_memory(r, err));
fail:
    return st;
}

/* The rank's layout over the grid, its particles uploaded, and its first rebuild. */
static clp_status placed(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_split *s = r->split;
    CLP_TRY(clp__dist_rank_init(&s->dist, s->comm, r->w, r->grid, &s->slabs, &r->geo,
                                CLP__SPH_TRAVELS, CLP__SPH_HALO_ZEROED, err));
    clp__dist_rank_uploaded(&s->dist, s->owned);
    CLP_TRY(clp__dist_rank_rebuild(&s->dist, err));
fail:
    return st;
}

static bool samples_gauges(const sph_run *r, const char *out_dir) {
    (void)r, (void)out_dir; /* every rank samples, rank 0 writes the sums */
    return true;
}

static clp_status checkpoint(sph_run *r, const char *path, const char *identity,
                             const clp__sph_clock *clock, clp_error *err) {
    return clp__sph_dist_checkpoint_write(r, path, identity, r->split->balance.weights, clock, err);
}

static const char *const rank_files[] = {"dist/dist.cl", NULL};

const clp__sph_hooks clp__sph_rank_hooks = {.whole_grid = false,
                                            .cl_files = rank_files,
                                            .bound_device = bound_device,
                                            .most = most,
                                            .label = label,
                                            .place = place,
                                            .placed = placed,
                                            .rebuild = clp__sph_rank_rebuild,
                                            .run_owned = clp__sph_rank_run_owned,
                                            .forces = clp__sph_rank_forces,
                                            .exchange_begin = clp__sph_rank_exchange_begin,
                                            .exchange_end = clp__sph_rank_exchange_end,
                                            .agree_step = clp__sph_dist_agree_step,
                                            .agree_record = clp__sph_dist_reduce_record,
                                            .samples_gauges = samples_gauges,
                                            .snapshot = clp__sph_dist_snapshot,
                                            .checkpoint = checkpoint,
                                            .timing = clp__sph_dist_timing,
                                            .restart_open = clp__sph_rank_restart_open,
                                            .restart_apply = clp__sph_rank_restart_apply};

/* The rank's part in the gauges (clp__sph_gauge_share), of its sph_run. */
static clp_status gauges_settle(const void *rank, clp_error *err) {
    const sph_run *r = rank; /* the halos must hold this step's state: no overlap for the next
                                forces */
    return clp__dist_rank_refresh_end(&r->split->dist, err);
}

/* A point in one of the rank's layers, where its particles and halo hold every neighbour. */
static bool gauges_owns(const void *rank, const cl_float4 *x) {
    const sph_run *r = rank;
    const clp__dist_rank *d = &r->split->dist;
    const clp_slabs *s = &d->slabs;
    const int a = s->axis;
    int layer = (int)floor((x->s[a] - r->global.origin[a]) / r->global.cell_size[a]);
    layer = layer < 0 ? 0 : layer >= s->layers ? s->layers - 1 : layer;
    return layer >= s->first[d->rank] && layer < s->first[d->rank + 1];
}

static void gauges_slots(const void *rank, size_t slots, size_t *first, size_t *end) {
    const sph_run *r = rank;
    (void)slots;
    *first = r->split->dist.owned_first;
    *end = r->split->dist.owned_end;
}

/* A rank's own particles only: it has no neighbour lists for its halo's. */
static clp_status gauges_run(const void *rank, clp_worker *w, const clp_step *s, size_t first,
                             size_t end, clp_error *err) {
    (void)rank;
    return clp_worker_run_step_range(w, s, first, end - first, NULL, err);
}

static clp_status gauges_sum(const void *rank, double *v, size_t n, clp_error *err) {
    const sph_run *r = rank;
    return clp__comm_allreduce(r->split->comm, v, n, CLP_COMM_SUM, err);
}

/* A split rank back to the case before its cut: no grid, slab, slots or rank options. */
static void tear_down(sph_run *r, const clp_options *opts) {
    clp__sph_split *s = r->split;
    clp__dist_rank_destroy(&s->dist);
    s->dist = (clp__dist_rank){0};
    clp_grid_destroy(r->grid);
    r->grid = NULL;
    clp_options_destroy(s->rank_opts);
    s->rank_opts = NULL;
    r->opts = opts;
    r->geo = r->global;
    r->n = r->particles;
}

/* At a rebuild, when the ranks agree the re-cut is due: their particles collected as a
 * restart's and cut again by the measured speeds, through the set-up a restart on other
 * weights takes (the program for the new slab is a cache hit after the first time). The
 * set-up's rebuild stands for the step's. */
clp_status clp__sph_rebalance(sph_run *r, const clp_options *opts, const clp__sph_clock *clock,
                              const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_restart rs = {.how = CLP__SPH_RESTART_NONE};
    bool recut;
    if ((!clp_grid_rebuilds_at(r->grid, clock->step) && !clock->rebuild_due) || r->listed)
        return CLP_OK;
    CLP_TRY(clp__sph_balance_check(r, &recut, err));
    if (!recut)
        return CLP_OK;
    CLP_TRY(clp__sph_balance_collect(r, &rs, err));
    tear_down(r, opts);
    r->split->cut_weights = r->split->balance.weights;
    CLP_TRY(clp__sph_setup(r, &rs, config, err));
    if (!r->left_out && r->split->comm)
        CLP_TRY(clp__sph_balance_done(r, clock->step, err));
fail:
    clp__sph_restart_close(&rs);
    return st;
}

/* The rank's state attached to the one-device model's open. */
static clp_status rank_open(void *model, clp__run *run, clp_error *err) {
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    *s = (clp__sph_split){
        .comm = run->comm,
        .cut_weights = run->weights,
        .stop_flag = run->config->stop_requested,
        .checkpoint_flag = run->config->checkpoint_requested,
        .gauges = {&rm->m.r, gauges_settle, gauges_owns, gauges_slots, gauges_run, gauges_sum}};
    clp__sph_balance_init(s, run->opts, run->weights);
    return clp__sph_model_open(&rm->m, run, &clp__sph_rank_hooks, s, err);
}

/* The files and gauges; rank 0's files say which snapshots the run continued has taken. */
static clp_status rank_start(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    CLP_TRY(clp__sph_model_start(model, run, err));
    if (!s->comm) /* alone since the cut */
        return CLP_OK;
    if (rm->m.gauges)
        clp__sph_gauges_share(rm->m.gauges, &s->gauges);
    CLP_TRY(clp__comm_broadcast(s->comm, &rm->m.out.last_step, sizeof rm->m.out.last_step, err));
fail:
    return st;
}

/* One step, after the re-cut that rebalances the ranks when due, its busy time measured; the
 * time loop reads its record before the next (next_plain false). Alone: as on one device. */
static clp_status rank_advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                               clp_error *err) {
    clp_status st = CLP_OK;
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    sph_run *r = &rm->m.r;
    *ran = 0;
    if (s->comm) {
        CLP_TRY(clp__sph_rebalance(r, run->opts, &rm->m.clock, run->config, err));
        if (r->left_out) {
            run->quit = true;
            goto fail;
        }
        if (rm->m.gauges) /* on the ranks a re-cut kept (alone: the whole case's) */
            clp__sph_gauges_share(rm->m.gauges, s->comm ? &s->gauges : NULL);
    }
    if (!s->comm)
        return clp__sph_model_advance(model, run, steps, ran, err);
    clp__sph_balance_step_begin(r);
    CLP_TRY(clp__sph_model_step(&rm->m, run, false, ran, err));
    clp__sph_balance_step_end(r);
fail:
    return st;
}

/* The requests, agreed with the last step's record or else here; a rank left alone by a cut
 * takes its own. */
static clp_status rank_requests(void *model, clp__run *run, bool *stop, bool *checkpoint,
                                clp_error *err) {
    (void)run;
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    if (!s->comm)
        return CLP_OK;
    if (!s->flags_agreed)
        return clp__sph_dist_agree_flags(&rm->m.r, stop, checkpoint, err);
    *stop = s->agreed_stop;
    *checkpoint = s->agreed_checkpoint;
    s->flags_agreed = false;
    return CLP_OK;
}

static void rank_close(void *model) {
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    if (s->comm) /* before the grid whose buffers it moves */
        clp__dist_rank_destroy(&s->dist);
    clp__sph_model_close(&rm->m);
    clp_options_destroy(s->rank_opts);
    while (s->n_views > 0)
        clp__comm_destroy(s->views[--s->n_views]);
}

static const clp__run_model rank_model_ops = {.name = "sph",
                                              .size = sizeof(rank_model),
                                              .open = rank_open,
                                              .start = rank_start,
                                              .advance = rank_advance,
                                              .requests = rank_requests,
                                              .finish = clp__sph_model_finish,
                                              .close = rank_close};

clp_status clp__sph_run_rank(clp_worker *w, clp__comm *comm, const double *weights,
                             const clp_options *opts, const char *case_path,
                             const clp_run_config *config, clp_error *err) {
    clp_options *resolved = NULL;
    clp_status st = clp__sph_resolve_format(opts, &resolved, err);
    if (st == CLP_OK)
        st = clp__model_drive(&rank_model_ops, w, comm, weights, resolved, case_path, config, err);
    clp_options_destroy(resolved);
    return st;
}
