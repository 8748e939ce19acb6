/* An SPH rank's part in a multi-device run: its slab of the case, the snapshot gathered on
 * rank 0, the step, step record and requests every rank must agree on, and the timing. */
#include "dist/cut.h"
#include "models/sph/sph_split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The axes dist.axis=auto may cut along: those without gravity, where the fluid settles and a
 * slab below would fill while the one above empties; all of them in a case without gravity. */
static unsigned level_axes(const sph_run *r) {
    unsigned axes = 0;
    for (int a = 0; a < r->c.dim; a++)
        if (r->c.gravity[a] == 0)
            axes |= 1u << a;
    return axes ? axes : (1u << r->c.dim) - 1;
}

/* The particles a restart cuts: those not excluded before its checkpoint, which stay out. Their
 * positions and case IDs (new, *n of them); both NULL when none is excluded. */
static clp_status kept_particles(const sph_run *r, const double *xyz, const uint32_t *types,
                                 double **kept_xyz, uint32_t **kept_ids, size_t *n,
                                 clp_error *err) {
    clp_status st = CLP_OK;
    *n = 0;
    for (size_t i = 0; i < r->particles; i++)
        *n += types[i] != CLP_GRID_EXCLUDED;
    if (*n == r->particles)
        return CLP_OK;
    *kept_xyz = malloc(3 * *n * sizeof **kept_xyz + 1);
    *kept_ids = malloc(*n * sizeof **kept_ids + 1);
    CLP_REQUIRE(*kept_xyz && *kept_ids, err, CLP_NOMEM, "out of host memory");
    for (size_t i = 0, k = 0; i < r->particles; i++) {
        if (types[i] == CLP_GRID_EXCLUDED)
            continue;
        memcpy(*kept_xyz + 3 * k, xyz + 3 * i, 3 * sizeof *xyz);
        (*kept_ids)[k++] = (uint32_t)i;
    }
fail:
    return st;
}

/* Each particle's share of a step's work, for the cut (new): a boundary particle sums only its
 * density's rate, over the half of its support that the wall leaves, so it costs a fraction of
 * a fluid particle (dist.boundary_cost). */
static clp_status particle_costs(const sph_run *r, const uint32_t *types, const uint32_t *kept_ids,
                                 size_t kept, double **cost, clp_error *err) {
    clp_status st = CLP_OK;
    const double boundary = clp__dist_boundary_cost_of(r->opts);
    *cost = malloc(kept * sizeof **cost + 1);
    CLP_REQUIRE_ALLOC(*cost, err);
    for (size_t k = 0; k < kept; k++)
        (*cost)[k] = types[kept_ids ? kept_ids[k] : k] == 0 ? 1.0 : boundary;
fail:
    return st;
}

/* Under mDBC each boundary particle reads the fluid around its ghost node, which may lie
 * farther than its halo reaches (a wall's thickness beyond it): the two stay on one device.
 * *points (new) gets the pairs, NULL for none. */
static clp_status ghost_ties(const sph_run *r, const double *xyz, const uint32_t *types,
                             double **points, size_t *count, clp_error *err) {
    clp_status st = CLP_OK;
    *points = NULL;
    *count = 0;
    if (clp__sph_boundary_of(r->opts) != CLP_SPH_BOUNDARY_MDBC)
        return CLP_OK;
    *points = malloc(6 * r->particles * sizeof **points + 1);
    CLP_REQUIRE_ALLOC(*points, err);
    for (size_t i = 0; i < r->particles; i++) {
        double to_ghost[3], *tie = *points + 6 * *count;
        if (types[i] != 1 || !clp__sph_ghost(&r->c, xyz + 3 * i, to_ghost))
            continue;
        for (int a = 0; a < 3; a++) {
            tie[a] = xyz[3 * i + a];
            tie[3 + a] = xyz[3 * i + a] + to_ghost[a];
        }
        ++*count;
    }
fail:
    return st;
}

/* The ranks that take a slab go on among themselves, on a view of the comm, when the cut
 * left any out; their weights follow them. */
static clp_status keep_ranks(sph_run *r, const bool *kept, clp_error *err) {
    clp_status st = CLP_OK;
    const int ranks = clp__comm_size(r->split->comm);
    int n = 0;
    for (int k = 0; k < ranks; k++)
        if (kept[k])
            r->split->balance.weights[n++] = r->split->balance.weights[k];
    if (n == ranks)
        return CLP_OK;
    CLP_REQUIRE(r->split->n_views < CLP_DIST_MAX_RANKS, err, CLP_USAGE,
                "too many devices left out");
    CLP_TRY(clp__comm_view_create(r->split->comm, kept, &r->split->views[r->split->n_views], err));
    r->split->comm = r->split->views[r->split->n_views++];
fail:
    return st;
}

clp_status clp__sph_dist_cut(sph_run *r, double **xyz, uint32_t **types, uint32_t **ids,
                             clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_split *s = r->split;
    clp__dist_cut cut = {0};
    uint32_t *local_types = NULL, *kept_ids = NULL;
    double *kept_xyz = NULL, *tied = NULL, *cost = NULL;
    size_t kept;
    clp__dist_ties ties = {0};
    CLP_TRY(clp__dist_check_options(r->opts, err)); /* what a split run does not handle */
    CLP_TRY(kept_particles(r, *xyz, *types, &kept_xyz, &kept_ids, &kept, err));
    CLP_TRY(particle_costs(r, *types, kept_ids, kept, &cost, err));
    CLP_TRY(ghost_ties(r, *xyz, *types, &tied, &ties.count, err));
    ties.points = tied;
    CLP_TRY(clp__dist_cut_make(r->split->comm, r->opts, &r->geo, level_axes(r),
                               kept_xyz ? kept_xyz : *xyz, cost, kept, &ties, s->cut_weights,
                               clp__dist_leave_out_of(r->opts), &cut, err));
    if (cut.left_out) {
        r->left_out = true;
        goto fail;
    }
    CLP_TRY(keep_ranks(r, cut.kept, err));
    if (clp__comm_size(r->split->comm) == 1) { /* alone: the case runs as on one device, unsplit */
        CLP_INFO(CLP_LOG_RUN, "device rank 0 runs the case alone");
        s->comm = NULL;
        r->hooks = &clp__sph_alone;
        goto fail;
    }
    for (size_t i = 0; kept_ids && i < cut.owned; i++) /* indices among the kept: case IDs */
        cut.ids[i] = kept_ids[cut.ids[i]];
    CLP_TRY(clp__dist_rank_options(r->opts, cut.slabs.axis, cut.local.periodic[cut.slabs.axis],
                                   &r->split->rank_opts, err));
    r->opts = r->split->rank_opts;
    local_types = malloc(cut.slots * sizeof *local_types);
    CLP_REQUIRE(local_types, err, CLP_NOMEM, "out of host memory");
    for (size_t i = 0; i < cut.slots; i++)
        local_types[i] = i < cut.owned ? (*types)[cut.ids[i]] : CLP_GRID_EXCLUDED;
    r->geo = cut.local;
    r->n = cut.slots;
    r->split->balance.unit_cost = cut.owned ? cut.work / (double)cut.owned : 1.0;
    size_t fluid = 0;
    for (size_t i = 0; i < cut.owned; i++)
        fluid += local_types[i] == 0;
    CLP_DEBUG(CLP_LOG_RUN, "device rank %d: %zu fluid and %zu boundary particles",
              clp__comm_rank(r->split->comm), fluid, cut.owned - fluid);
    s->slabs = cut.slabs;
    free(*xyz);
    free(*types);
    *xyz = cut.xyz;
    *types = local_types;
    *ids = cut.ids;
    s->owned = cut.owned;
    cut.xyz = NULL;
    cut.ids = NULL;
    local_types = NULL;
fail:
    clp__dist_cut_free(&cut);
    free(local_types);
    free(kept_xyz);
    free(kept_ids);
    free(tied);
    free(cost);
    return st;
}

/* One particle of a snapshot, as ranks send it to rank 0. */
typedef struct snapshot_record {
    double xyz[3];
    float vel[3], rho;
    uint32_t id, type;
} snapshot_record;

/* This rank's own particles as snapshot records; *out is new. */
static clp_status own_records(sph_run *r, snapshot_record **out, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = r->n, first = r->split->dist.owned_first,
                 owned = clp__dist_rank_owned(&r->split->dist);
    double *xyz = malloc(3 * n * sizeof *xyz);
    uint32_t *id = malloc(n * sizeof *id), *type = malloc(n * sizeof *type);
    cl_float4 *vel = malloc(n * sizeof *vel);
    float *rho = malloc(n * sizeof *rho);
    snapshot_record *records = malloc(owned * sizeof *records + 1);
    CLP_REQUIRE(xyz && id && type && vel && rho && records, err, CLP_NOMEM,
                "out of host memory for a snapshot of %zu particles", n);
    CLP_TRY(clp_grid_read_particles(r->grid, xyz, id, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_TYPE, type, err));
    CLP_TRY(clp_worker_buffer_read(r->w, r->own[CLP__SPH_VEL], vel, err));
    CLP_TRY(clp_worker_buffer_read(r->w, r->own[CLP__SPH_RHO], rho, err));
    for (size_t i = 0; i < owned; i++) {
        const size_t k = first + i;
        snapshot_record *p = &records[i];
        memcpy(p->xyz, xyz + 3 * k, sizeof p->xyz);
        for (int a = 0; a < 3; a++)
            p->vel[a] = vel[k].s[a];
        p->rho = rho[k];
        p->id = id[k];
        p->type = type[k];
    }
    *out = records;
    records = NULL;
fail:
    free(xyz);
    free(id);
    free(type);
    free(vel);
    free(rho);
    free(records);
    return st;
}

clp_status clp__sph_dist_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s, clp_error *err) {
    clp_status st = CLP_OK;
    snapshot_record *mine = NULL, *all = NULL;
    size_t offsets[CLP_DIST_MAX_RANKS + 1];
    double diagnostics[4] = {0};
    CLP_TRY(own_records(r, &mine, err));
    CLP_TRY(clp__comm_gather(r->split->comm, mine,
                             clp__dist_rank_owned(&r->split->dist) * sizeof *mine, (void **)&all,
                             offsets, err));
    if (clp__comm_rank(r->split->comm) == 0) {
        const size_t n = offsets[clp__comm_size(r->split->comm)] / sizeof *all;
        CLP_TRY(clp__sph_snapshot_alloc(s, n, err));
        for (size_t i = 0; i < n; i++) {
            memcpy(s->xyz + 3 * i, all[i].xyz, sizeof all[i].xyz);
            memcpy(s->vel + 3 * i, all[i].vel, sizeof all[i].vel);
            s->rho[i] = all[i].rho;
            s->id[i] = all[i].id;
            s->type[i] = all[i].type;
        }
        CLP_TRY(clp__sph_snapshot_summarise(s, &r->c, r->centred, &r->phys, step, err));
        const double summary[4] = {s->kinetic, s->mass, s->vmax, s->front};
        memcpy(diagnostics, summary, sizeof summary);
    }
    CLP_TRY(clp__comm_broadcast(r->split->comm, diagnostics, sizeof diagnostics, err));
    s->kinetic = diagnostics[0];
    s->mass = diagnostics[1];
    s->vmax = diagnostics[2];
    s->front = diagnostics[3];
    /* an excluded particle leaves its rank's slots at the next rebuild: the ranks count them */
    s->excluded = r->split->excluded;
fail:
    free(mine);
    free(all);
    return st;
}

clp_status clp__sph_dist_agree_step(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    cl_command_queue q = clp_worker_queue(r->w);
    cl_mem record = clp_buffer_mem(r->own[CLP__SPH_STEP]);
    cl_float dt;
    CLP_CL_CHECK(clEnqueueReadBuffer(q, record, CL_TRUE, 0, sizeof dt, &dt, 0, NULL, NULL), err,
                 "reading the time step: clEnqueueReadBuffer");
    double smallest = dt;
    CLP_TRY(clp__comm_allreduce(r->split->comm, &smallest, 1, CLP_COMM_MIN, err));
    r->split->agreed_dt = (cl_float)smallest; /* one of the ranks' floats: exact */
    /* not waited for: the integration queued after it reads it, and the next step's record
       read waits for both */
    CLP_CL_CHECK(clEnqueueWriteBuffer(q, record, CL_FALSE, 0, sizeof r->split->agreed_dt,
                                      &r->split->agreed_dt, 0, NULL, NULL),
                 err, "writing the time step: clEnqueueWriteBuffer");
fail:
    return st;
}

clp_status clp__sph_dist_reduce_record(sph_run *r, clp__sph_step_record *rec, clp_error *err) {
    clp_status st = CLP_OK;
    double most[8] = {rec->moved,
                      rec->excluded,
                      (rec->reasons & CLP_SPH_OUT_DOMAIN) != 0,
                      (rec->reasons & CLP_SPH_OUT_SPEED) != 0,
                      (rec->reasons & CLP_SPH_OUT_DENSITY) != 0,
                      rec->excluded ? -(double)rec->first_id : -INFINITY,
                      r->split->stop_flag && *r->split->stop_flag,
                      r->split->checkpoint_flag && *r->split->checkpoint_flag};
    CLP_TRY(clp__comm_allreduce(r->split->comm, most, 8, CLP_COMM_MAX, err));
    r->split->agreed_stop = most[6] > 0;
    r->split->agreed_checkpoint = most[7] > 0;
    r->split->flags_agreed = true;
    rec->moved = (cl_float)most[0];
    rec->reasons = (most[2] > 0 ? CLP_SPH_OUT_DOMAIN : 0) | (most[3] > 0 ? CLP_SPH_OUT_SPEED : 0) |
                   (most[4] > 0 ? CLP_SPH_OUT_DENSITY : 0);
    rec->first_id = most[1] > 0 ? (cl_uint)-most[5] : rec->first_id;
    if (most[1] > 0) { /* some rank excluded particles: how many in all */
        double excluded = rec->excluded;
        CLP_TRY(clp__comm_allreduce(r->split->comm, &excluded, 1, CLP_COMM_SUM, err));
        rec->excluded = (cl_uint)excluded;
    }
    r->split->excluded += rec->excluded;
fail:
    return st;
}

clp_status clp__sph_dist_agree_flags(sph_run *r, bool *stop, bool *checkpoint, clp_error *err) {
    clp_status st = CLP_OK;
    double asked[2] = {*stop, *checkpoint};
    CLP_TRY(clp__comm_allreduce(r->split->comm, asked, 2, CLP_COMM_MAX, err));
    *stop = asked[0] > 0;
    *checkpoint = asked[1] > 0;
fail:
    return st;
}

clp_status clp__sph_dist_timing(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    enum { FIELDS = 7 };
    const int ranks = clp__comm_size(r->split->comm);
    clp_run_timing *t = &r->timing;
    double all[FIELDS * CLP_DIST_MAX_RANKS] = {0},
                        *mine = all + FIELDS * clp__comm_rank(r->split->comm);
    mine[0] = (double)clp__dist_rank_owned(&r->split->dist);
    mine[1] = t->keys + t->sort + t->reorder + t->list + t->boundary + t->density + t->forces +
              t->time_step + t->integration;
    mine[2] = t->forces;
    mine[3] = t->list;
    mine[4] = t->exchange;
    mine[5] = r->split->balance.waited;
    mine[6] = r->split->rebuild_seconds;
    CLP_TRY(clp__comm_allreduce(r->split->comm, all, FIELDS * (size_t)ranks, CLP_COMM_SUM, err));
    t->ranks = ranks;
    for (int k = 0; k < ranks; k++) {
        const double *v = all + FIELDS * k;
        t->rank[k] = (clp_rank_timing){(uint64_t)v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    }
fail:
    return st;
}
