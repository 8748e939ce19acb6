/* An SPH rank's part in a multi-device run: its slab of the case, the snapshot gathered on
 * rank 0, and the step, step record and requests every rank must agree on. */
#include "models/sph/sph_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool option_is(const clp_options *opts, const char *name, const char *value) {
    return strcmp(clp_options_enum(opts, name), value) == 0;
}

/* What the decomposition does not handle yet, refused before anything is built. */
static clp_status check_supported(const sph_run *r, clp_error *err) {
    if (option_is(r->opts, "grid.positions", "local"))
        return CLP_FAIL(err, CLP_USAGE,
                        "grid.positions=local is single-device only: a multi-device run keeps "
                        "global positions, which its ranks exchange; use grid.positions=global");
    if (option_is(r->opts, "grid.key", "morton"))
        return CLP_FAIL(err, CLP_USAGE,
                        "grid.key=morton is single-device only: a multi-device run cuts the grid "
                        "into slabs of a linear key; use grid.key=linear");
    if (r->c.gauges.interval > 0)
        return CLP_FAIL(err, CLP_USAGE,
                        "the case's gauges are sampled on one device only: run it on one device, "
                        "or without its \"gauges\"");
    return CLP_OK;
}

/* The layer along `axis` of the global grid that position x is in. */
static int layer_of(const clp_grid_geometry *g, int axis, const double *x) {
    double rel = x[axis] - g->origin[axis];
    if (g->periodic[axis])
        rel -= g->size[axis] * floor(rel / g->size[axis]);
    const int l = (int)floor(rel / g->cell_size[axis]);
    return l < 0 ? 0 : l >= g->cells[axis] ? g->cells[axis] - 1 : l;
}

/* The axes auto may cut along: those without gravity, where the fluid settles and a slab
 * below would fill while the one above empties; all of them in a case without gravity. */
static unsigned level_axes(const sph_run *r) {
    unsigned axes = 0;
    for (int a = 0; a < r->c.dim; a++)
        if (r->c.gravity[a] == 0)
            axes |= 1u << a;
    return axes ? axes : (1u << r->c.dim) - 1;
}

/* The rank's own copy of the options, with the slab axis the slowest of the cell key. */
static clp_status rank_options(sph_run *r, int axis, clp_error *err) {
    clp_status st = CLP_OK;
    char assignment[64];
    snprintf(assignment, sizeof assignment, "grid.axis_order=%s", clp_slabs_axis_order(axis));
    CLP_TRY(clp_options_dup(r->opts, &r->rank_opts, err));
    CLP_TRY(clp_options_apply_assignment(r->rank_opts, assignment, err));
    r->opts = r->rank_opts;
fail:
    return st;
}

clp_status clp__sph_dist_cut(sph_run *r, const double *weights, double **xyz, uint32_t **types,
                             uint32_t **ids, size_t *n_owned, clp_slabs *slabs, clp_error *err) {
    clp_status st = CLP_OK;
    double *counts[3] = {NULL, NULL, NULL}, *local_xyz = NULL;
    uint32_t *local_types = NULL, *local_ids = NULL;
    CLP_TRY(check_supported(r, err));
    const clp_grid_geometry global = r->geo;
    const int ranks = clp__comm_size(r->comm), rank = clp__comm_rank(r->comm);
    /* the particles in each layer along each axis */
    for (int a = 0; a < global.dim; a++) {
        counts[a] = calloc((size_t)global.cells[a], sizeof *counts[a]);
        CLP_REQUIRE_ALLOC(counts[a], err);
    }
    for (size_t i = 0; i < r->particles; i++)
        for (int a = 0; a < global.dim; a++)
            counts[a][layer_of(&global, a, *xyz + 3 * i)] += 1;
    const char *requested = clp_options_enum(r->opts, "dist.axis");
    if (strcmp(requested, "auto") == 0)
        CLP_TRY(clp_slabs_cut_best(&global, (const double *const *)counts, level_axes(r), ranks,
                                   weights, slabs, err));
    else {
        const int a = requested[0] - 'x';
        CLP_REQUIRE(a < global.dim, err, CLP_USAGE,
                    "dist.axis=%s: a %dD case has no %s axis to cut along", requested, global.dim,
                    requested);
        CLP_TRY(clp_slabs_cut(&global, a, counts[a], ranks, weights, slabs, err));
    }
    const int axis = slabs->axis, layers = global.cells[axis];
    const double *layer_count = counts[axis];
    CLP_TRY(rank_options(r, axis, err));
    bool halo[2];
    clp_slabs_local_geometry(slabs, &global, rank, &r->geo, halo);
    /* slots: the slab's particles and halo now, and room for those that come in later */
    const int lo = slabs->first[rank], hi = slabs->first[rank + 1];
    double owned = 0, halo_particles = 0;
    for (int l = lo; l < hi; l++)
        owned += layer_count[l];
    if (halo[0])
        halo_particles += layer_count[(lo - 1 + layers) % layers];
    if (halo[1])
        halo_particles += layer_count[hi % layers];
    const double room = clp_options_float(r->opts, "dist.room");
    r->n = (size_t)ceil((owned + halo_particles) * (1.0 + room)) + 64;
    local_xyz = malloc(3 * r->n * sizeof *local_xyz);
    local_types = malloc(r->n * sizeof *local_types);
    local_ids = malloc(r->n * sizeof *local_ids);
    CLP_REQUIRE(local_xyz && local_types && local_ids, err, CLP_NOMEM, "out of host memory");
    size_t n = 0;
    for (size_t i = 0; i < r->particles; i++) {
        if (clp_slabs_owner(slabs, layer_of(&global, axis, *xyz + 3 * i)) != rank)
            continue;
        memcpy(local_xyz + 3 * n, *xyz + 3 * i, 3 * sizeof(double));
        local_types[n] = (*types)[i];
        local_ids[n++] = (uint32_t)i;
    }
    for (size_t i = n; i < r->n; i++) { /* padding, at the grid's origin */
        memcpy(local_xyz + 3 * i, r->geo.origin, 3 * sizeof(double));
        local_types[i] = CLP_GRID_EXCLUDED;
        local_ids[i] = CLP_DIST_PADDING_ID;
    }
    CLP_INFO(CLP_LOG_RUN,
             "device rank %d: cell layers %d to %d of %d along %c, %zu particles, %zu slots", rank,
             lo, hi - 1, layers, 'x' + axis, n, r->n);
    free(*xyz);
    free(*types);
    *xyz = local_xyz;
    *types = local_types;
    *ids = local_ids;
    *n_owned = n;
    local_xyz = NULL;
    local_types = local_ids = NULL;
fail:
    for (int a = 0; a < 3; a++)
        free(counts[a]);
    free(local_xyz);
    free(local_types);
    free(local_ids);
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
    const size_t n = r->n, first = r->dist.owned_first, owned = clp_dist_rank_owned(&r->dist);
    double *xyz = malloc(3 * n * sizeof *xyz);
    uint32_t *id = malloc(n * sizeof *id), *type = malloc(n * sizeof *type);
    cl_float4 *vel = malloc(n * sizeof *vel);
    float *rho = malloc(n * sizeof *rho);
    snapshot_record *records = malloc(owned * sizeof *records + 1);
    CLP_REQUIRE(xyz && id && type && vel && rho && records, err, CLP_NOMEM,
                "out of host memory for a snapshot of %zu particles", n);
    CLP_TRY(clp_grid_read_particles(r->grid, xyz, id, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_TYPE, type, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_VEL, vel, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_RHO, rho, err));
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
    CLP_TRY(clp__comm_gather(r->comm, mine, clp_dist_rank_owned(&r->dist) * sizeof *mine,
                             (void **)&all, offsets, err));
    if (clp__comm_rank(r->comm) == 0) {
        const size_t n = offsets[clp__comm_size(r->comm)] / sizeof *all;
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
    CLP_TRY(clp__comm_broadcast(r->comm, diagnostics, sizeof diagnostics, err));
    s->kinetic = diagnostics[0];
    s->mass = diagnostics[1];
    s->vmax = diagnostics[2];
    s->front = diagnostics[3];
    /* an excluded particle leaves its rank's slots at the next rebuild: the ranks count them */
    s->excluded = r->excluded;
fail:
    free(mine);
    free(all);
    return st;
}

clp_status clp__sph_dist_agree_step(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    cl_command_queue q = clp_worker_queue(r->w);
    cl_mem record = clp_worker_buffer(r->w, CLP_BUF_SPH_STEP);
    cl_float dt;
    CLP_CL_CHECK(clEnqueueReadBuffer(q, record, CL_TRUE, 0, sizeof dt, &dt, 0, NULL, NULL), err,
                 "reading the time step: clEnqueueReadBuffer");
    double smallest = dt;
    CLP_TRY(clp__comm_allreduce(r->comm, &smallest, 1, CLP_COMM_MIN, err));
    dt = (cl_float)smallest; /* one of the ranks' floats: exact */
    CLP_CL_CHECK(clEnqueueWriteBuffer(q, record, CL_TRUE, 0, sizeof dt, &dt, 0, NULL, NULL), err,
                 "writing the time step: clEnqueueWriteBuffer");
fail:
    return st;
}

clp_status clp__sph_dist_reduce_record(sph_run *r, clp__sph_step_record *rec, clp_error *err) {
    clp_status st = CLP_OK;
    double most[6] = {rec->moved,
                      rec->excluded,
                      (rec->reasons & CLP_SPH_OUT_DOMAIN) != 0,
                      (rec->reasons & CLP_SPH_OUT_SPEED) != 0,
                      (rec->reasons & CLP_SPH_OUT_DENSITY) != 0,
                      rec->excluded ? -(double)rec->first_id : -INFINITY};
    CLP_TRY(clp__comm_allreduce(r->comm, most, 6, CLP_COMM_MAX, err));
    rec->moved = (cl_float)most[0];
    rec->reasons = (most[2] > 0 ? CLP_SPH_OUT_DOMAIN : 0) | (most[3] > 0 ? CLP_SPH_OUT_SPEED : 0) |
                   (most[4] > 0 ? CLP_SPH_OUT_DENSITY : 0);
    rec->first_id = most[1] > 0 ? (cl_uint)-most[5] : rec->first_id;
    if (most[1] > 0) { /* some rank excluded particles: how many in all */
        double excluded = rec->excluded;
        CLP_TRY(clp__comm_allreduce(r->comm, &excluded, 1, CLP_COMM_SUM, err));
        rec->excluded = (cl_uint)excluded;
    }
fail:
    return st;
}

clp_status clp__sph_dist_agree_flags(sph_run *r, bool *stop, bool *checkpoint, clp_error *err) {
    clp_status st = CLP_OK;
    double asked[2] = {*stop, *checkpoint};
    CLP_TRY(clp__comm_allreduce(r->comm, asked, 2, CLP_COMM_MAX, err));
    *stop = asked[0] > 0;
    *checkpoint = asked[1] > 0;
fail:
    return st;
}
