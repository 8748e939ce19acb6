/* A Lennard-Jones rank: the slab of atoms it owns and the halo of its neighbours' edge layers
 * (src/dist/rank.c), the force kernel over its own atoms, and the halo's positions refreshed
 * after each drift while the inner layers' forces run. */
#include "models/lj/lj_dist.h"

#include "dist/cut.h"
#include "dist/rank.h"

#include <stdlib.h>
#include <string.h>

/* What an atom takes to another rank: the position (with its key), ID and type (padding is a
 * type), and after them the velocity, which the grid carries (clp__lj_own_create). The force is
 * computed again after every rebuild. */
#define LJ_TRAVELS (CLP_BUF_POS | CLP_BUF_TYPE | CLP_BUF_ID)

struct clp__lj_rank {
    clp_worker *worker;
    clp__comm *comm;
    clp_options *opts; /* the rank's: the slab axis slowest in the cell key */
    clp_grid *grid;
    clp_grid_geometry geo; /* the slab and its halo layers */
    size_t slots;
    clp__dist_rank dist;
    bool dist_open;
    clp__lj_layout layout;
    uint64_t step, rebuilds;
    clp__lj_sample sample; /* slots of read-back */
    uint32_t *ids;
    clp_buffer *own[CLP__LJ_OWN];
};

clp_status clp__lj_rank_check(const clp_options *opts, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__dist_check_options(opts, err));
    CLP_REQUIRE(clp__lj_strategy_of(opts) != CLP_LJ_STRATEGY_AUTO, err, CLP_USAGE,
                "lj.strategy=auto times the strategies on one device: a split run names one "
                "(-s lj.strategy=par_part, the default, or another)");
fail:
    return st;
}

/* Launches the force kernel and ends the halo refresh begun, if any. par_part runs over the
 * owned atoms only: first the inner layers, which read no halo, while the positions move
 * (Bilotta et al. 2018, 4.5.2), then the edges. The others run over the whole slab, halo layers and
 * free slots included (par_part_loop's loop runs to the last slot, and the per-cell and sub-box
 * groups are cells), after the refresh; their results there go unused and are zeroed at the
 * next rebuild. */
static clp_status compute_forces(clp__lj_rank *r, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_step forces = {"lj_forces", clp_grid_iteration_buffers(r->opts), r->layout.global,
                             r->layout.local};
    size_t first, count;
    CLP_TRY(clp_worker_set_step_buffers(r->worker, &forces, r->own + CLP__LJ_FORCES_FIRST,
                                        CLP__LJ_FORCES_ARGS, err));
    if (r->layout.strategy != CLP_LJ_STRATEGY_PAR_PART) {
        CLP_TRY(clp__dist_rank_refresh_end(&r->dist, err));
        CLP_TRY(clp_worker_run_step(r->worker, &forces, NULL, err));
        return CLP_OK;
    }
    clp__dist_rank_inner(&r->dist, &first, &count);
    CLP_TRY(clp_worker_run_step_range(r->worker, &forces, first, count, NULL, err));
    CLP_TRY(clp__dist_rank_refresh_end(&r->dist, err));
    for (int side = 0; side < 2; side++) {
        clp__dist_rank_edge(&r->dist, side, &first, &count);
        CLP_TRY(clp_worker_run_step_range(r->worker, &forces, first, count, NULL, err));
    }
fail:
    return st;
}

/* The rank's program, laid out for its slab, with M_C counted over its own atoms. */
static clp_status build(clp__lj_rank *r, clp_cache *cache, const clp__dist_cut *cut,
                        const clp__lj_params *p, double dt, clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    clp__lj_strategy strategy;
    strategy = clp__lj_strategy_of(r->opts); /* checked: not auto */
    const long long capacity = clp__lj_cell_capacity_of(r->opts);
    const clp__lj_state own = {.n = cut->owned, .xyz = cut->xyz};
    const unsigned max_per_cell =
        capacity > 0 ? (unsigned)capacity : clp__lj_max_per_cell(&cut->local, &own);
    unsigned lanes; /* 1: a rank's ranges of atoms are launched a work-item each */
    CLP_TRY(clp__lj_lanes(r->opts, clp_worker_device(r->worker), cut->slots, strategy, true, &lanes,
                          err));
    CLP_TRY(clp__lj_layout_make(clp_worker_device(r->worker), &cut->local, cut->slots, max_per_cell,
                                strategy, lanes, &r->layout, err));
    CLP_TRY(
        clp__lj_source(r->opts, &cut->local, cut->slots, p, dt, &r->layout, true, &source, err));
    CLP_TRY(clp_worker_build_for(r->worker, source, r->opts, cache, NULL, err));
    CLP_TRY(clp__lj_check_kernel(r->worker, &r->layout, err));
fail:
    free(source);
    return st;
}

/* The owned atoms' types (0) and velocities (float4, w = 0), padding after. */
static clp_status upload_state(clp__lj_rank *r, const clp__lj_state *s, const clp__dist_cut *cut,
                               clp_error *err) {
    clp_status st = CLP_OK;
    uint32_t *types = malloc(cut->slots * sizeof *types);
    cl_float4 *v = calloc(cut->slots, sizeof *v);
    CLP_REQUIRE(types && v, err, CLP_NOMEM, "out of host memory for %zu atoms", cut->slots);
    for (size_t i = 0; i < cut->slots; i++) {
        types[i] = i < cut->owned ? 0 : CLP_GRID_EXCLUDED;
        for (int a = 0; s->vel && i < cut->owned && a < 3; a++)
            v[i].s[a] = (cl_float)s->vel[3 * cut->ids[i] + a];
    }
    CLP_TRY(clp_grid_set_particles(r->grid, cut->xyz, types, err));
    CLP_TRY(clp_worker_write(r->worker, CLP_BUF_ID, cut->ids, err));
    CLP_TRY(clp__lj_own_create(r->worker, r->grid, cut->slots, r->own, err));
    CLP_TRY(clp_worker_buffer_write(r->worker, r->own[CLP__LJ_VEL], v, err));
fail:
    free(types);
    free(v);
    return st;
}

/* A rebuild, then the forces and virials zeroed over the halo's slots (those below the owned
 * atoms, and from their end to the halo's): no rank computes them, so zero rather than stale.
 * The velocities travel with the atoms instead. */
static clp_status rebuild(clp__lj_rank *r, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__dist_rank_rebuild(&r->dist, err));
    for (int i = CLP__LJ_FORCE; i < CLP__LJ_OWN; i++)
        CLP_TRY(clp__dist_rank_zero_halo(&r->dist, r->own[i], err));
fail:
    return st;
}

clp_status clp__lj_rank_open(clp_worker *w, clp__comm *comm, const clp_options *opts,
                             clp_cache *cache, const clp__lj_state *s, const clp__lj_params *p,
                             double dt, const double *weights, clp__lj_rank **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__dist_cut cut = {0};
    clp__lj_rank *r = calloc(1, sizeof *r);
    CLP_REQUIRE(r, err, CLP_NOMEM, "out of host memory");
    r->worker = w;
    r->comm = comm;
    CLP_TRY(clp__lj_rank_check(opts, err));
    clp_grid_geometry global;
    CLP_TRY(clp__lj_geometry(opts, s, p, &global, err));
    /* a liquid has no preferred direction: any axis may be cut */
    CLP_TRY(clp__dist_cut_make(comm, opts, &global, 7, s->xyz, NULL, s->n, NULL, weights, false,
                               &cut, err));
    CLP_TRY(clp__dist_rank_options(opts, cut.slabs.axis, cut.local.periodic[cut.slabs.axis],
                                   &r->opts, err));
    r->geo = cut.local;
    r->slots = cut.slots;
    CLP_TRY(clp__lj_fit_device(w, comm, r->opts, &r->geo, r->slots, clp__lj_density(s), err));
    CLP_TRY(build(r, cache, &cut, p, dt, err));
    CLP_TRY(clp_grid_create(w, r->opts, &r->geo, r->slots, &r->grid, err));
    CLP_TRY(upload_state(r, s, &cut, err));
    r->sample = (clp__lj_sample){.force = malloc(3 * r->slots * sizeof(double)),
                                 .energy = malloc(r->slots * sizeof(double)),
                                 .velocity = malloc(3 * r->slots * sizeof(double))};
    r->ids = malloc(r->slots * sizeof *r->ids);
    CLP_REQUIRE(r->sample.force && r->sample.energy && r->sample.velocity && r->ids, err, CLP_NOMEM,
                "out of host memory for the diagnostics of %zu atoms", r->slots);
    CLP_TRY(
        clp__dist_rank_init(&r->dist, comm, w, r->grid, &cut.slabs, &r->geo, LJ_TRAVELS, 0, err));
    r->dist_open = true;
    r->dist.halo_lists =
        r->layout.strategy != CLP_LJ_STRATEGY_PAR_PART; /* they run over every slot */
    clp__dist_rank_uploaded(&r->dist, cut.owned);
    CLP_TRY(rebuild(r, err));
    CLP_TRY(compute_forces(r, err));
    *out = r;
    r = NULL;
fail:
    clp__dist_cut_free(&cut);
    clp__lj_rank_close(r);
    return st;
}

void clp__lj_rank_close(clp__lj_rank *r) {
    if (!r)
        return;
    if (r->dist_open)
        clp__dist_rank_destroy(&r->dist);
    for (int i = 0; i < CLP__LJ_OWN; i++)
        clp_worker_buffer_free(r->worker, r->own[i]);
    clp_grid_destroy(r->grid);
    clp_options_destroy(r->opts);
    free(r->sample.force);
    free(r->sample.energy);
    free(r->sample.velocity);
    free(r->ids);
    free(r);
}

/* Runs a kick of one work-item per atom over the owned atoms. */
static clp_status run_owned(clp__lj_rank *r, const clp_step *s, clp_error *err) {
    const clp_status st = clp_worker_set_step_buffers(r->worker, s, r->own + CLP__LJ_KICK_FIRST,
                                                      CLP__LJ_KICK_ARGS, err);
    return st != CLP_OK ? st
                        : clp_worker_run_step_range(r->worker, s, r->dist.owned_first,
                                                    clp__dist_rank_owned(&r->dist), NULL, err);
}

clp_status clp__lj_rank_run(clp__lj_rank *r, uint64_t steps, clp_error *err) {
    clp_status st = CLP_OK;
    /* each with the velocities and forces after these */
    const clp_step kick_drift = {"lj_kick_drift", CLP_BUF_POS, 0, 0};
    const clp_step kick = {"lj_kick", 0, 0, 0};
    for (uint64_t k = 0; k < steps; k++) {
        CLP_TRY(run_owned(r, &kick_drift, err));
        r->step++;
        double moved = 0; /* the largest move on any rank: every rank rebuilds, or none */
        if (clp_grid_checks_moves(r->grid)) {
            CLP_TRY(clp_grid_moved(r->grid, &moved, err));
            CLP_TRY(clp__comm_allreduce(r->comm, &moved, 1, CLP_COMM_MAX, err));
        }
        if (clp_grid_step_done(r->grid, moved)) {
            CLP_TRY(rebuild(r, err)); /* the halo comes with it */
            r->rebuilds++;
        } else { /* ended by the forces */
            CLP_TRY(clp__dist_rank_refresh_begin(&r->dist, CLP_BUF_POS, err));
        }
        CLP_TRY(compute_forces(r, err));
        CLP_TRY(run_owned(r, &kick, err));
    }
fail:
    return st;
}

/* The owned slots' forces (w: energy), velocities, virials and IDs. */
static clp_status read_owned(clp__lj_rank *r, cl_float4 *f4, cl_float4 *v4, cl_float *w1,
                             clp_error *err) {
    clp_status st = CLP_OK;
    const size_t first = r->dist.owned_first, n = clp__dist_rank_owned(&r->dist);
    CLP_TRY(clp_worker_buffer_read_range(r->worker, r->own[CLP__LJ_FORCE], first * sizeof *f4,
                                         n * sizeof *f4, f4, err));
    CLP_TRY(clp_worker_buffer_read_range(r->worker, r->own[CLP__LJ_VEL], first * sizeof *v4,
                                         n * sizeof *v4, v4, err));
    CLP_TRY(clp_worker_buffer_read_range(r->worker, r->own[CLP__LJ_VIRIAL], first * sizeof *w1,
                                         n * sizeof *w1, w1, err));
    CLP_TRY(clp__dist_read_range(r->worker, CLP_BUF_ID, first, n, r->slots, r->ids, err));
fail:
    return st;
}

clp_status clp__lj_rank_sums(clp__lj_rank *r, const clp__lj_case *c, uint64_t step,
                             clp__lj_sums *out, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = clp__dist_rank_owned(&r->dist);
    cl_float4 *f4 = malloc(n * sizeof *f4 + 1), *v4 = malloc(n * sizeof *v4 + 1);
    cl_float *w1 = malloc(n * sizeof *w1 + 1);
    CLP_REQUIRE(f4 && v4 && w1, err, CLP_NOMEM, "out of host memory for %zu atoms", n);
    CLP_TRY(read_owned(r, f4, v4, w1, err));
    clp__lj_sample *s = &r->sample;
    s->n = n;
    s->virial = 0;
    for (size_t i = 0; i < n; i++) { /* in the slab's sorted order */
        for (int a = 0; a < 3; a++) {
            s->force[3 * i + a] = f4[i].s[a];
            s->velocity[3 * i + a] = v4[i].s[a];
        }
        s->energy[i] = f4[i].s[3];
        s->virial += w1[i];
    }
    clp__lj_sums sums = {0};
    CLP_TRY(clp__lj_sums_add(s, r->ids, c, step, &sums, err));
    double values[CLP__LJ_SUMS];
    clp__lj_sums_pack(&sums, values);
    CLP_TRY(clp__comm_allreduce(r->comm, values, CLP__LJ_SUMS, CLP_COMM_SUM, err));
    clp__lj_sums_unpack(values, out);
    CLP_REQUIRE(out->atoms == (double)c->n, err, CLP_CHECK,
                "step %llu: the devices hold %.0f atoms between them, not the case's %zu",
                (unsigned long long)step, out->atoms, c->n);
fail:
    free(f4);
    free(v4);
    free(w1);
    return st;
}

/* One atom of a snapshot, as ranks send it to rank 0. */
typedef struct atom_record {
    double xyz[3], vel[3];
    uint32_t id, unused;
} atom_record;

/* This rank's own atoms as records; *out is new. */
static clp_status own_atoms(clp__lj_rank *r, atom_record **out, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t first = r->dist.owned_first, n = clp__dist_rank_owned(&r->dist);
    double *xyz = malloc(3 * r->slots * sizeof *xyz);
    uint32_t *ids = malloc(r->slots * sizeof *ids);
    cl_float4 *v4 = malloc(n * sizeof *v4 + 1);
    atom_record *records = malloc(n * sizeof *records + 1);
    CLP_REQUIRE(xyz && ids && v4 && records, err, CLP_NOMEM,
                "out of host memory for a snapshot of %zu atoms", r->slots);
    CLP_TRY(clp_grid_read_particles(r->grid, xyz, ids, err));
    CLP_TRY(clp_worker_buffer_read_range(r->worker, r->own[CLP__LJ_VEL], first * sizeof *v4,
                                         n * sizeof *v4, v4, err));
    for (size_t i = 0; i < n; i++) {
        atom_record *a = &records[i];
        *a = (atom_record){.id = ids[first + i]};
        for (int k = 0; k < 3; k++) {
            a->xyz[k] = xyz[3 * (first + i) + k];
            a->vel[k] = v4[i].s[k];
        }
    }
    *out = records;
    records = NULL;
fail:
    free(xyz);
    free(ids);
    free(v4);
    free(records);
    return st;
}

clp_status clp__lj_rank_gather(clp__lj_rank *r, size_t n, double *xyz, double *vel,
                               clp_error *err) {
    clp_status st = CLP_OK;
    atom_record *mine = NULL, *all = NULL;
    bool *seen = NULL;
    size_t offsets[CLP_DIST_MAX_RANKS + 1];
    CLP_TRY(own_atoms(r, &mine, err));
    CLP_TRY(clp__comm_gather(r->comm, mine, clp__dist_rank_owned(&r->dist) * sizeof *mine,
                             (void **)&all, offsets, err));
    if (clp__comm_rank(r->comm) != 0)
        goto fail;
    const size_t count = offsets[clp__comm_size(r->comm)] / sizeof *all;
    seen = calloc(n + 1, sizeof *seen);
    CLP_REQUIRE_ALLOC(seen, err);
    CLP_REQUIRE(count == n, err, CLP_CHECK, "the devices hold %zu atoms between them, not %zu",
                count, n);
    for (size_t i = 0; i < count; i++) {
        const uint32_t id = all[i].id;
        CLP_REQUIRE(id < n && !seen[id], err, CLP_CHECK,
                    "atom ID %u is %s in the devices' snapshot of %zu atoms", id,
                    id < n ? "held twice" : "out of range", n);
        seen[id] = true;
        memcpy(xyz + 3 * (size_t)id, all[i].xyz, sizeof all[i].xyz);
        memcpy(vel + 3 * (size_t)id, all[i].vel, sizeof all[i].vel);
    }
fail:
    free(mine);
    free(all);
    free(seen);
    return st;
}

/* As clp__lj_system_bytes: the steps of the owned atoms, the rebuilds of all slots. A rank
 * keeps the half kicks apart (a halo exchange comes between them): lj_kick reads vel and
 * force and writes vel too. */
double clp__lj_rank_bytes(const clp__lj_rank *r, double listed) {
    return (clp__lj_step_bytes(r->opts, listed) + 3 * 16) * (double)clp__dist_rank_owned(&r->dist) *
               (double)r->step +
           clp__lj_rebuild_bytes(r->opts, &r->geo, r->slots, listed) * (double)r->rebuilds;
}
