/* A split run's rank's hooks (clp__sph_hooks, sph_run.h): its particles cut and fitted to its
 * device, its layout and first rebuild, every rank's sampling of the gauges, its checkpoint's
 * piece and manifest; the step's are sph_split_step.c's, the restart's sph_split_restart.c's,
 * the agreements, snapshot and timing sph_dist.c's. */
#include "models/sph/sph_split.h"

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
                                CLP__SPH_TRAVELS, 0, err));
    clp__dist_rank_uploaded(&s->dist, s->owned);
    CLP_TRY(clp__sph_rank_resort(r, err));
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
