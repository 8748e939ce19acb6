/* A restart of an SPH run on one device: the checkpoint read and checked, then either its
 * buffers restored as they were or its particles (a split run's pieces' too) cut again; a
 * split run's rank decides and restores through its hooks (sph_split_restart.c). */
#include "models/sph/sph_restart.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What a run may change when its particles are cut again: the devices and how to split, and
 * (clp__sph_identity_results) the performance options, as a tuning database sets them for
 * another device. */
static const char *const decomposition[] = {"device ", "option dist.", NULL};

/* The lines of a run's identity that a restart which cuts the particles again must share with
 * the checkpoint's (new; NULL when out of memory). */
static char *recut_lines(const char *identity, const clp_schema *schema) {
    char *own = clp__sph_identity_own(identity);
    char *cut = own ? clp__sph_identity_filter(own, decomposition, false) : NULL;
    char *lines = cut ? clp__sph_identity_results(cut, schema) : NULL;
    free(own);
    free(cut);
    return lines;
}

/* Whether checkpoint `cp` is of this run, its decomposition aside. */
static clp_status same_run(const clp__checkpoint *cp, const char *identity,
                           const clp_schema *schema, clp_error *err) {
    clp_status st = CLP_OK;
    char *stored = recut_lines(clp__checkpoint_identity(cp), schema);
    char *wanted = recut_lines(identity, schema);
    CLP_REQUIRE(stored && wanted, err, CLP_NOMEM, "out of host memory");
    CLP_TRY(clp__checkpoint_compare_identity(clp__checkpoint_path(cp), stored, wanted, err));
fail:
    free(stored);
    free(wanted);
    return st;
}

void clp__sph_moved_free(clp__sph_moved *m) {
    free(m->xyz);
    free(m->type);
    free(m->vel);
    free(m->ghost);
    free(m->rho);
    *m = (clp__sph_moved){0};
}

clp_status clp__sph_moved_alloc(clp__sph_moved *m, size_t n, const double origin[3], cl_float rest,
                                clp_error *err) {
    clp_status st = CLP_OK;
    m->xyz = malloc(3 * n * sizeof *m->xyz + 1);
    m->type = malloc(n * sizeof *m->type + 1);
    m->vel = calloc(n + 1, sizeof *m->vel);
    m->ghost = calloc(n + 1, sizeof *m->ghost);
    m->rho = malloc(n * sizeof *m->rho + 1);
    CLP_REQUIRE(m->xyz && m->type && m->vel && m->ghost && m->rho, err, CLP_NOMEM,
                "out of host memory for the %zu particles of a checkpoint", n);
    for (size_t i = 0; i < n; i++) {
        memcpy(m->xyz + 3 * i, origin, 3 * sizeof *origin);
        m->type[i] = CLP_GRID_EXCLUDED;
        m->rho[i] = rest;
    }
fail:
    return st;
}

bool clp__sph_moved_put(clp__sph_moved *m, size_t n, bool *seen, cl_uint id,
                        const clp__sph_particle_state *p) {
    if (id >= n || seen[id])
        return false;
    seen[id] = true;
    for (int a = 0; a < 3; a++)
        m->xyz[3 * id + a] = p->pos.s[a];
    m->type[id] = p->type;
    m->vel[id] = p->vel;
    m->rho[id] = p->rho;
    m->ghost[id] = p->ghost;
    return true;
}

void clp__sph_moved_count_excluded(clp__sph_moved *m, size_t n) {
    m->excluded = 0;
    for (size_t i = 0; i < n; i++)
        m->excluded += m->type[i] == CLP_GRID_EXCLUDED;
}

/* The particles in slots first .. end - 1 of checkpoint `cp` (of `slots` slots) into `m`, by
 * their IDs, each seen once. */
static clp_status take(clp__sph_moved *m, size_t n, bool *seen, const clp__checkpoint *cp,
                       size_t slots, size_t first, size_t end, clp_error *err) {
    clp_status st = CLP_OK;
    const void *pos, *type, *id, *vel, *rho, *ghost = NULL;
    CLP_TRY(clp__checkpoint_array(cp, "pos", sizeof(cl_float4), slots, &pos, err));
    CLP_TRY(clp__checkpoint_array(cp, "type", sizeof(cl_uint), slots, &type, err));
    CLP_TRY(clp__checkpoint_array(cp, "id", sizeof(cl_uint), slots, &id, err));
    CLP_TRY(clp__checkpoint_array(cp, "vel", sizeof(cl_float4), slots, &vel, err));
    CLP_TRY(clp__checkpoint_array(cp, "rho", sizeof(cl_float), slots, &rho, err));
    if (clp__checkpoint_has_array(cp, "ghost"))
        CLP_TRY(clp__checkpoint_array(cp, "ghost", sizeof(cl_float4), slots, &ghost, err));
    for (size_t k = first; k < end; k++) {
        const cl_uint i = ((const cl_uint *)id)[k];
        const clp__sph_particle_state p = {.pos = ((const cl_float4 *)pos)[k],
                                           .vel = ((const cl_float4 *)vel)[k],
                                           .ghost = ghost ? ((const cl_float4 *)ghost)[k]
                                                          : (cl_float4){{0}},
                                           .type = ((const cl_uint *)type)[k],
                                           .rho = ((const cl_float *)rho)[k]};
        CLP_REQUIRE(clp__sph_moved_put(m, n, seen, i, &p), err, CLP_IO,
                    "checkpoint %s refused: corrupt: slot %zu holds particle %u, %s",
                    clp__checkpoint_path(cp), k, i,
                    i < n ? "which another slot holds too" : "beyond the case's particles");
    }
fail:
    return st;
}

/* The particles a split run's pieces own (not their halo copies), one piece at a time. */
static clp_status take_pieces(clp__sph_restart *rs, size_t n, bool *seen, clp_error *err) {
    clp_status st = CLP_OK;
    clp__checkpoint *piece = NULL;
    for (int k = 0; k < rs->m.ranks; k++) {
        double first, end;
        CLP_TRY(clp__sph_piece_read(rs->cp, &rs->m, k, &piece, err));
        CLP_TRY(clp__checkpoint_scalar(piece, "owned_first", &first, err));
        CLP_TRY(clp__checkpoint_scalar(piece, "owned_end", &end, err));
        const size_t slots = rs->m.capacity[k];
        CLP_REQUIRE(first >= 0 && first <= end && end <= (double)slots, err, CLP_IO,
                    "checkpoint %s refused: corrupt: its slots %g to %g of %zu",
                    clp__checkpoint_path(piece), first, end, slots);
        CLP_TRY(take(&rs->moved, n, seen, piece, slots, (size_t)first, (size_t)end, err));
        clp__checkpoint_destroy(piece);
        piece = NULL;
    }
fail:
    clp__checkpoint_destroy(piece);
    return st;
}

/* Every particle of the checkpoint by ID, and how many were excluded. */
static clp_status gather(sph_run *r, clp__sph_restart *rs, bool split, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = r->particles;
    const cl_float rest = (cl_float)clp__sph_stored_density(&r->c, r->centred, r->c.rho0);
    bool *seen = calloc(n + 1, sizeof *seen);
    CLP_REQUIRE_ALLOC(seen, err);
    CLP_TRY(clp__sph_moved_alloc(&rs->moved, n, r->geo.origin, rest, err));
    if (split)
        CLP_TRY(take_pieces(rs, n, seen, err));
    else /* a one-device checkpoint: every particle in its n slots */
        CLP_TRY(take(&rs->moved, n, seen, rs->cp, n, 0, n, err));
    clp__sph_moved_count_excluded(&rs->moved, n); /* missing ones too */
    CLP_REQUIRE(!split || rs->moved.excluded == rs->m.excluded, err, CLP_IO,
                "checkpoint %s refused: its pieces hold %zu particles in the computation, not "
                "the %zu of the case less the %" PRIu64 " excluded",
                clp__checkpoint_path(rs->cp), (size_t)(n - rs->moved.excluded), n, rs->m.excluded);
fail:
    free(seen);
    return st;
}

clp_status clp__sph_restart_check(const sph_run *r, clp__sph_restart *rs, const char *identity,
                                  clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(same_run(rs->cp, identity, clp_options_schema(r->opts), err));
    if (clp__sph_is_manifest(rs->cp))
        CLP_TRY(clp__sph_manifest_get(rs->cp, &rs->m, err));
fail:
    return st;
}

clp_status clp__sph_restart_recut(sph_run *r, clp__sph_restart *rs, const char *path, int ranks,
                                  clp_error *err) {
    clp_status st = CLP_OK;
    const bool split = clp__sph_is_manifest(rs->cp);
    rs->how = CLP__SPH_RESTART_RECUT;
    CLP_TRY(gather(r, rs, split, err));
    if (r->writer)
        CLP_INFO(CLP_LOG_RUN,
                 "checkpoint %s of %d device%s continues on %d: its %zu particles are cut again "
                 "(the sums' order changes: not bit for bit)",
                 path, split ? rs->m.ranks : 1, split && rs->m.ranks > 1 ? "s" : "", ranks,
                 (size_t)(r->particles - rs->moved.excluded));
fail:
    return st;
}

/* Reads the checkpoint and decides how it restarts on this device. */
static clp_status open_here(sph_run *r, const char *path, const char *identity,
                            clp__sph_restart *rs, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__checkpoint_read(path, NULL, &rs->cp, err));
    const bool split = clp__sph_is_manifest(rs->cp);
    /* a split run that went on alone wrote its checkpoint naming no device: cut again; a
     * one-device checkpoint restores as it was only under the same identity */
    const char *stored = clp__checkpoint_identity(rs->cp);
    const bool one_device = strncmp(stored, "device ", 7) == 0 || strstr(stored, "\ndevice ");
    char *own = !split && one_device ? clp__sph_identity_own(stored) : NULL;
    CLP_REQUIRE(split || !one_device || own, err, CLP_NOMEM, "out of host memory");
    if (own && strcmp(own, identity) == 0) { /* bit for bit: the same device and options */
        free(own);
        rs->how = CLP__SPH_RESTART_SAME;
        return CLP_OK;
    }
    free(own);
    CLP_TRY(clp__sph_restart_check(r, rs, identity, err));
    if (!split && one_device && r->writer)
        CLP_INFO(CLP_LOG_RUN,
                 "checkpoint %s was written on another device or with other performance "
                 "options (-s, or a tuning database's entry for another device)",
                 path);
    CLP_TRY(clp__sph_restart_recut(r, rs, path, 1, err));
fail:
    return st;
}

clp_status clp__sph_restart_open(sph_run *r, const char *path, const char *identity,
                                 clp__sph_restart *rs, clp_error *err) {
    *rs = (clp__sph_restart){.how = CLP__SPH_RESTART_NONE};
    return open_here(r, path, identity, rs, err);
}

void clp__sph_restart_close(clp__sph_restart *rs) {
    clp__checkpoint_destroy(rs->cp);
    clp__checkpoint_destroy(rs->piece);
    clp__sph_moved_free(&rs->moved);
    *rs = (clp__sph_restart){.how = CLP__SPH_RESTART_NONE};
}

clp_status clp__sph_restart_particles(const clp__sph_restart *rs, size_t n, double **xyz,
                                      uint32_t **types, clp_error *err) {
    clp_status st = CLP_OK;
    *xyz = malloc(3 * n * sizeof **xyz + 1);
    *types = malloc(n * sizeof **types + 1);
    CLP_REQUIRE(*xyz && *types, err, CLP_NOMEM, "out of host memory for %zu particles", n);
    memcpy(*xyz, rs->moved.xyz, 3 * n * sizeof **xyz);
    memcpy(*types, rs->moved.type, n * sizeof **types);
fail:
    return st;
}

clp_status clp__sph_restart_state(sph_run *r, const clp__sph_restart *rs, const uint32_t *ids,
                                  clp_error *err) {
    clp_status st = CLP_OK;
    const clp__sph_moved *m = &rs->moved;
    const bool ghosts = r->ghost != NULL;
    cl_float4 *vel = calloc(r->n + 1, sizeof *vel), *ghost = calloc(r->n + 1, sizeof *ghost);
    cl_float *rho = malloc(r->n * sizeof *rho + 1);
    CLP_REQUIRE(vel && ghost && rho, err, CLP_NOMEM, "out of host memory");
    const cl_float rest = (cl_float)clp__sph_stored_density(&r->c, r->centred, r->c.rho0);
    for (size_t k = 0; k < r->n; k++) {
        const size_t i = ids ? ids[k] : k;
        if (i >= r->particles) { /* padding */
            rho[k] = rest;
            continue;
        }
        vel[k] = m->vel[i];
        rho[k] = m->rho[i];
        ghost[k] = m->ghost[i];
    }
    CLP_TRY(clp_worker_buffer_write(r->w, r->own[CLP__SPH_VEL], vel, err));
    CLP_TRY(clp_worker_buffer_write(r->w, r->own[CLP__SPH_RHO], rho, err));
    if (ghosts)
        CLP_TRY(clp_worker_buffer_write(r->w, r->ghost, ghost, err));
fail:
    free(vel);
    free(ghost);
    free(rho);
    return st;
}

clp_status clp__sph_restart_apply(sph_run *r, const clp__sph_restart *rs, const char *identity,
                                  clp__sph_clock *clock, clp_error *err) {
    clp_status st = CLP_OK;
    switch (rs->how) {
    case CLP__SPH_RESTART_NONE:
        return CLP_OK;
    case CLP__SPH_RESTART_SAME:
        CLP_TRY(clp__sph_checkpoint_restore(r->w, rs->cp, identity, clock, err));
        break;
    case CLP__SPH_RESTART_PIECES: /* a split run's rank restores its piece itself */
        return CLP_FAIL(err, CLP_CHECKPOINT,
                        "checkpoint %s: its pieces are restored by the "
                        "devices that wrote them",
                        clp__checkpoint_path(rs->cp));
    case CLP__SPH_RESTART_RECUT: /* the setup placed the particles and rebuilt the grid */
        CLP_TRY(clp__sph_clock_get(rs->cp, clock, err));
        clock->moved = 0;
        return CLP_OK;
    }
    CLP_TRY(clp_grid_relist(r->grid, err));
    r->listed = false; /* the restored order is the one to keep, rebuilt as before */
fail:
    return st;
}
