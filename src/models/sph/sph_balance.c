/* Measured speeds and rebalancing of a split SPH run: busy time per rank, the ranks' check at
 * a rebuild, their owned particles collected in memory, and the re-cut. */
#include "models/sph/sph_balance.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void clp__sph_balance_init(clp__sph_split *s, const clp_options *opts, const double *weights) {
    clp__sph_balance *b = &s->balance;
    *b = (clp__sph_balance){.threshold = clp__dist_rebalance_of(opts),
                            .probe_steps = (uint64_t)clp__dist_probe_steps_of(opts),
                            .unit_cost = 1.0};
    const int ranks = clp__comm_size(s->comm);
    for (int k = 0; k < ranks; k++)
        b->weights[k] = weights ? weights[k] : 1.0;
}

void clp__sph_balance_step_begin(sph_run *r) {
    if (!r->split->comm)
        return;
    r->split->balance.step_start = clp__now();
    r->split->balance.waited_start = clp__comm_waited(r->split->comm);
}

void clp__sph_balance_step_end(sph_run *r) {
    if (!r->split->comm)
        return;
    clp__sph_balance *b = &r->split->balance;
    const double waited = clp__comm_waited(r->split->comm) - b->waited_start;
    b->busy[b->steps % CLP__SPH_BALANCE_SAMPLES] = fmax(0.0, clp__now() - b->step_start - waited);
    b->waited += waited;
    b->work += b->unit_cost * (double)clp__dist_rank_owned(&r->split->dist);
    b->steps++;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median busy time of the steps kept: a step that compiled a kernel on first use (PoCL
 * does, for each new range size after a rebuild) says nothing of the device's speed. */
static double median_busy(const clp__sph_balance *b) {
    double sorted[CLP__SPH_BALANCE_SAMPLES];
    const size_t n = b->steps < CLP__SPH_BALANCE_SAMPLES ? b->steps : CLP__SPH_BALANCE_SAMPLES;
    memcpy(sorted, b->busy, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_value);
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

clp_status clp__sph_balance_check(sph_run *r, bool *recut, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_balance *b = &r->split->balance;
    const int ranks = clp__comm_size(r->split->comm), me = clp__comm_rank(r->split->comm);
    *recut = false;
    if (b->threshold <= 0 || b->steps < b->probe_steps)
        return CLP_OK;
    /* each rank's step time, particles a step and owned particles in its slots, the others'
       0: a sum */
    double all[3 * CLP_DIST_MAX_RANKS] = {0};
    all[me] = median_busy(b);
    all[ranks + me] = b->work / (double)b->steps;
    all[2 * ranks + me] = (double)clp__dist_rank_owned(&r->split->dist);
    CLP_TRY(clp__comm_allreduce(r->split->comm, all, 3 * (size_t)ranks, CLP_COMM_SUM, err));
    double slowest = 0, mean = 0, speed_sum = 0;
    int measured = 0;
    for (int k = 0; k < ranks; k++) {
        slowest = fmax(slowest, all[k]);
        mean += all[k] / ranks;
        b->owned[k] = all[2 * ranks + k];
        b->speeds[k] = all[k] > 0 && all[ranks + k] > 0 ? all[ranks + k] / all[k] : 0;
        measured += b->speeds[k] > 0;
        speed_sum += b->speeds[k];
    }
    b->excess = mean > 0 ? slowest / mean - 1 : 0;
    if (me == 0)
        CLP_DEBUG(CLP_LOG_RUN,
                  "balance over %" PRIu64 " steps: the slowest device busy %.3g s a step, %.0f%% "
                  "over the mean",
                  b->steps, slowest, 100 * b->excess);
    /* every rank computed the same from the same sums: they agree without another message */
    *recut = measured > 0 && b->excess > b->threshold;
    if (!*recut) {
        b->steps = 0; /* measure afresh: the next check sees the run as it is then */
        b->work = 0;
        return CLP_OK;
    }
    for (int k = 0; k < ranks; k++) /* a rank without particles has no speed: the mean */
        b->weights[k] = b->speeds[k] > 0 ? b->speeds[k] : speed_sum / measured;
fail:
    return st;
}

/* One owned particle as the ranks send it for a re-cut: what a restart's cut reads of a
 * checkpoint (sph_restart.c). */
typedef struct moved_record {
    clp__sph_particle_state state;
    cl_uint id, unused;
} moved_record;

/* This rank's owned particles as records (new, *count of them). */
static clp_status own_records(sph_run *r, moved_record **out, size_t *count, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t first = r->split->dist.owned_first, n = clp__dist_rank_owned(&r->split->dist);
    const bool ghosts = r->ghost != NULL;
    cl_float4 *pos = malloc(n * sizeof *pos + 1), *vel = malloc(n * sizeof *vel + 1);
    cl_float4 *ghost = calloc(n + 1, sizeof *ghost);
    cl_uint *id = malloc(n * sizeof *id + 1), *type = malloc(n * sizeof *type + 1);
    cl_float *rho = malloc(n * sizeof *rho + 1);
    moved_record *records = malloc(n * sizeof *records + 1);
    CLP_REQUIRE(pos && vel && ghost && id && type && rho && records, err, CLP_NOMEM,
                "out of host memory for the %zu particles of device rank %d", n,
                r->split->dist.rank);
    CLP_TRY(clp__dist_read_range(r->w, CLP_BUF_POS, first, n, r->n, pos, err));
    CLP_TRY(clp_worker_buffer_read_range(r->w, r->own[CLP__SPH_VEL], first * sizeof *vel,
                                         n * sizeof *vel, vel, err));
    CLP_TRY(clp__dist_read_range(r->w, CLP_BUF_ID, first, n, r->n, id, err));
    CLP_TRY(clp__dist_read_range(r->w, CLP_BUF_TYPE, first, n, r->n, type, err));
    CLP_TRY(clp_worker_buffer_read_range(r->w, r->own[CLP__SPH_RHO], first * sizeof *rho,
                                         n * sizeof *rho, rho, err));
    if (ghosts)
        CLP_TRY(clp_worker_buffer_read_range(r->w, r->ghost, first * sizeof *ghost,
                                             n * sizeof *ghost, ghost, err));
    for (size_t k = 0; k < n; k++)
        records[k] = (moved_record){{pos[k], vel[k], ghost[k], type[k], rho[k]}, id[k], 0};
    *out = records;
    *count = n;
    records = NULL;
fail:
    free(pos);
    free(vel);
    free(ghost);
    free(id);
    free(type);
    free(rho);
    free(records);
    return st;
}

/* Every rank's records on every rank: gathered on rank 0, then broadcast (new, *count). */
static clp_status all_records(sph_run *r, moved_record **out, size_t *count, clp_error *err) {
    clp_status st = CLP_OK;
    moved_record *mine = NULL, *all = NULL;
    size_t n_mine = 0, offsets[CLP_DIST_MAX_RANKS + 1];
    CLP_TRY(own_records(r, &mine, &n_mine, err));
    CLP_TRY(
        clp__comm_gather(r->split->comm, mine, n_mine * sizeof *mine, (void **)&all, offsets, err));
    uint64_t bytes = r->split->dist.rank == 0 ? offsets[clp__comm_size(r->split->comm)] : 0;
    CLP_TRY(clp__comm_broadcast(r->split->comm, &bytes, sizeof bytes, err));
    if (r->split->dist.rank != 0) {
        all = malloc(bytes + 1);
        CLP_REQUIRE(all, err, CLP_NOMEM, "out of host memory for %" PRIu64 " bytes of particles",
                    bytes);
    }
    CLP_TRY(clp__comm_broadcast(r->split->comm, all, bytes, err));
    *out = all;
    *count = bytes / sizeof *all;
    all = NULL;
fail:
    free(mine);
    free(all);
    return st;
}

clp_status clp__sph_balance_collect(sph_run *r, clp__sph_restart *rs, clp_error *err) {
    clp_status st = CLP_OK;
    moved_record *all = NULL;
    size_t count = 0;
    const size_t n = r->particles;
    const cl_float rest = (cl_float)clp__sph_stored_density(&r->c, r->centred, r->c.rho0);
    bool *seen = calloc(n + 1, sizeof *seen);
    *rs = (clp__sph_restart){.how = CLP__SPH_RESTART_RECUT};
    CLP_REQUIRE_ALLOC(seen, err);
    /* the halo refresh the last step began, ended: no message stays behind the re-cut */
    CLP_TRY(clp__dist_rank_refresh_end(&r->split->dist, err));
    CLP_TRY(all_records(r, &all, &count, err));
    clp__sph_moved *m = &rs->moved;
    CLP_TRY(clp__sph_moved_alloc(m, n, r->global.origin, rest, err));
    for (size_t k = 0; k < count; k++) {
        const cl_uint i = all[k].id;
        CLP_REQUIRE(clp__sph_moved_put(m, n, seen, i, &all[k].state), err, CLP_CHECK,
                    "rebalancing: particle %u is %s", i,
                    i < n ? "owned by two devices" : "beyond the case's particles");
    }
    clp__sph_moved_count_excluded(m, n); /* those left out at a rebuild too */
    CLP_REQUIRE(m->excluded == r->split->excluded, err, CLP_CHECK,
                "rebalancing: the devices own %zu particles in the computation, not the %zu of "
                "the case less the %" PRIu64 " excluded",
                (size_t)(n - m->excluded), n, r->split->excluded);
fail:
    free(seen);
    free(all);
    return st;
}

/* "a, b, c" of n values with `format`, into `out`. */
static void join(const double *v, int n, const char *format, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < n && used < size; k++) {
        used += (size_t)snprintf(out + used, size - used, k ? ", " : "");
        if (used < size)
            used += (size_t)snprintf(out + used, size - used, format, v[k]);
    }
}

clp_status clp__sph_balance_done(sph_run *r, uint64_t step, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_balance *b = &r->split->balance;
    const int ranks = clp__comm_size(r->split->comm), me = clp__comm_rank(r->split->comm);
    double owned[CLP_DIST_MAX_RANKS] = {0};
    owned[me] = (double)clp__dist_rank_owned(&r->split->dist);
    CLP_TRY(clp__comm_allreduce(r->split->comm, owned, (size_t)ranks, CLP_COMM_SUM, err));
    if (me == 0) {
        char before[256], after[256], speeds[256];
        join(b->owned, ranks, "%.0f", before, sizeof before);
        join(owned, ranks, "%.0f", after, sizeof after);
        join(b->speeds, ranks, "%.3g", speeds, sizeof speeds);
        CLP_INFO(CLP_LOG_RUN,
                 "rebalanced at step %" PRIu64 ": the slowest device was busy %.0f%% more than "
                 "the mean (median step) over %" PRIu64
                 " steps (dist.rebalance=%g); measured speeds %s particle-steps/s (a "
                 "boundary particle counting dist.boundary_cost); particles per device %s -> %s",
                 step, 100 * b->excess, b->steps, b->threshold, speeds, before, after);
    }
    b->steps = 0;
    b->work = 0;
fail:
    return st;
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
