/* Checkpoints of a split SPH run: a piece per rank and rank 0's manifest, which commits them,
 * then the pieces of older checkpoints removed (the pieces' names and their removal are
 * sph_pieces.c's). */
#include "models/sph/sph_dist_checkpoint.h"
#include "models/sph/sph_pieces.h"
#include "models/sph/sph_split.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PATH_SIZE = 1024 };

/* Where a rank's particles lie in its slots: saved with its piece. */
static const char *const layout_names[] = {"owned_first", "edge_lo_end", "edge_hi_first",
                                           "owned_end", "halo_end"};
enum { LAYOUT_COUNT = sizeof layout_names / sizeof layout_names[0] };

static size_t *layout_field(clp__dist_rank *d, int i) {
    size_t *const fields[LAYOUT_COUNT] = {&d->owned_first, &d->edge_lo_end, &d->edge_hi_first,
                                          &d->owned_end, &d->halo_end};
    return fields[i];
}

/* What a rank tells rank 0 of its piece. */
typedef struct piece_note {
    uint64_t digest, capacity;
} piece_note;

static clp_status write_piece(sph_run *r, const char *path, const char *identity,
                              const clp__sph_clock *clock, piece_note *note, clp_error *err) {
    clp_status st = CLP_OK;
    clp__checkpoint *cp = NULL;
    clp__sph_state held = {{NULL}};
    char name[PATH_SIZE];
    CLP_TRY(clp__checkpoint_create(identity, clock->step, clock->time, clock->dt, &cp, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "rank", r->split->dist.rank, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "ranks", clp__comm_size(r->split->comm), err));
    for (int i = 0; i < LAYOUT_COUNT; i++)
        CLP_TRY(clp__checkpoint_add_scalar(cp, layout_names[i],
                                           (double)*layout_field(&r->split->dist, i), err));
    CLP_TRY(clp__sph_state_add(cp, r->w, &held, err));
    *note = (piece_note){.capacity = r->n};
    CLP_TRY(clp__checkpoint_digest(cp, &note->digest, err));
    clp__sph_piece_path(path, clock->step, r->split->dist.rank, clp__comm_size(r->split->comm),
                        note->digest, name, sizeof name);
    CLP_TRY(clp__checkpoint_write(cp, name, err));
fail:
    clp__checkpoint_destroy(cp);
    clp__sph_state_free(&held);
    return st;
}

static clp_status write_manifest(const char *path, const char *identity,
                                 const clp__sph_clock *clock, const clp__sph_manifest *m,
                                 clp_error *err) {
    clp_status st = CLP_OK;
    clp__checkpoint *cp = NULL;
    const size_t n = (size_t)m->ranks;
    CLP_TRY(clp__checkpoint_create(identity, clock->step, clock->time, clock->dt, &cp, err));
    CLP_TRY(clp__sph_clock_add(cp, clock, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "ranks", m->ranks, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "axis", m->axis, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "excluded", (double)m->excluded, err));
    CLP_TRY(clp__checkpoint_add_array(cp, "slabs", sizeof m->first[0], n + 1, m->first, err));
    CLP_TRY(clp__checkpoint_add_array(cp, "weights", sizeof m->weights[0], n, m->weights, err));
    CLP_TRY(clp__checkpoint_add_array(cp, "pieces", sizeof m->digest[0], n, m->digest, err));
    CLP_TRY(clp__checkpoint_add_array(cp, "capacity", sizeof m->capacity[0], n, m->capacity, err));
    CLP_TRY(clp__checkpoint_write(cp, path, err));
fail:
    clp__checkpoint_destroy(cp);
    return st;
}

/* The paths of the manifest's pieces (new, n of them). */
static char **piece_paths(const char *path, uint64_t step, const clp__sph_manifest *m) {
    char **paths = calloc((size_t)m->ranks, sizeof *paths);
    for (int k = 0; paths && k < m->ranks; k++) {
        paths[k] = malloc(PATH_SIZE);
        if (!paths[k]) {
            for (int j = 0; j < k; j++)
                free(paths[j]);
            free(paths);
            return NULL;
        }
        clp__sph_piece_path(path, step, k, m->ranks, m->digest[k], paths[k], PATH_SIZE);
    }
    return paths;
}

clp_status clp__sph_dist_checkpoint_write(sph_run *r, const char *path, const char *identity,
                                          const double *weights, const clp__sph_clock *clock,
                                          clp_error *err) {
    clp_status st = CLP_OK;
    piece_note mine, *all = NULL;
    size_t offsets[CLP_DIST_MAX_RANKS + 1];
    /* the halo refresh the last step began, ended: the piece holds a whole halo, and a
       restart has none pending (the next forces then run in one range, to the same sums) */
    CLP_TRY(clp__dist_rank_refresh_end(&r->split->dist, err));
    CLP_TRY(write_piece(r, path, identity, clock, &mine, err));
    CLP_TRY(clp__comm_gather(r->split->comm, &mine, sizeof mine, (void **)&all, offsets, err));
    if (r->split->dist.rank == 0) {
        const clp_slabs *s = &r->split->dist.slabs;
        clp__sph_manifest m = {.ranks = s->ranks, .axis = s->axis, .excluded = r->split->excluded};
        for (int k = 0; k <= s->ranks; k++)
            m.first[k] = s->first[k];
        for (int k = 0; k < s->ranks; k++) {
            m.weights[k] = weights ? weights[k] : 1.0;
            m.digest[k] = all[k].digest;
            m.capacity[k] = all[k].capacity;
        }
        CLP_TRY(write_manifest(path, identity, clock, &m, err));
        char **keep = piece_paths(path, clock->step, &m);
        CLP_REQUIRE_ALLOC(keep, err);
        clp__sph_pieces_remove(path, keep, m.ranks);
        for (int k = 0; k < m.ranks; k++)
            free(keep[k]);
        free(keep);
    }
    /* no rank goes on, or reports a checkpoint written, before the manifest is */
    CLP_TRY(clp__comm_barrier(r->split->comm, err));
fail:
    free(all);
    return st;
}

bool clp__sph_is_manifest(const clp__checkpoint *cp) {
    return clp__checkpoint_has_scalar(cp, "ranks") && clp__checkpoint_has_array(cp, "pieces");
}

clp_status clp__sph_manifest_get(const clp__checkpoint *cp, clp__sph_manifest *m, clp_error *err) {
    clp_status st = CLP_OK;
    const char *path = clp__checkpoint_path(cp);
    double ranks, axis, excluded;
    const void *first, *weights, *digest, *capacity;
    CLP_TRY(clp__checkpoint_scalar(cp, "ranks", &ranks, err));
    CLP_TRY(clp__checkpoint_scalar(cp, "axis", &axis, err));
    CLP_TRY(clp__checkpoint_scalar(cp, "excluded", &excluded, err));
    CLP_REQUIRE(ranks >= 1 && ranks <= CLP_DIST_MAX_RANKS && (axis == 0 || axis == 1 || axis == 2),
                err, CLP_IO, "checkpoint %s refused: corrupt: %g ranks, axis %g", path, ranks,
                axis);
    *m =
        (clp__sph_manifest){.ranks = (int)ranks, .axis = (int)axis, .excluded = (uint64_t)excluded};
    const size_t n = (size_t)m->ranks;
    CLP_TRY(clp__checkpoint_array(cp, "slabs", sizeof m->first[0], n + 1, &first, err));
    CLP_TRY(clp__checkpoint_array(cp, "weights", sizeof m->weights[0], n, &weights, err));
    CLP_TRY(clp__checkpoint_array(cp, "pieces", sizeof m->digest[0], n, &digest, err));
    CLP_TRY(clp__checkpoint_array(cp, "capacity", sizeof m->capacity[0], n, &capacity, err));
    memcpy(m->first, first, (n + 1) * sizeof m->first[0]);
    memcpy(m->weights, weights, n * sizeof m->weights[0]);
    memcpy(m->digest, digest, n * sizeof m->digest[0]);
    memcpy(m->capacity, capacity, n * sizeof m->capacity[0]);
fail:
    return st;
}

clp_status clp__sph_piece_read(const clp__checkpoint *cp, const clp__sph_manifest *m, int rank,
                               clp__checkpoint **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__checkpoint *piece = NULL;
    const char *path = clp__checkpoint_path(cp);
    char name[PATH_SIZE];
    clp__sph_piece_path(path, clp__checkpoint_step(cp), rank, m->ranks, m->digest[rank], name,
                        sizeof name);
    if (access(name, R_OK) != 0) { /* say whose piece it is */
        st = CLP_FAIL_AT(err, CLP_IO, name, -1, -1,
                         "checkpoint %s refused: its piece %d of %d, %s, cannot be read: %s", path,
                         rank + 1, m->ranks, name, strerror(errno));
        goto fail;
    }
    CLP_TRY(clp__checkpoint_read(name, clp__checkpoint_identity(cp), &piece, err));
    double rank_in, ranks_in;
    CLP_TRY(clp__checkpoint_scalar(piece, "rank", &rank_in, err));
    CLP_TRY(clp__checkpoint_scalar(piece, "ranks", &ranks_in, err));
    CLP_REQUIRE(clp__checkpoint_checksum(piece) == m->digest[rank] && rank_in == rank &&
                    ranks_in == m->ranks && clp__checkpoint_step(piece) == clp__checkpoint_step(cp),
                err, CLP_IO,
                "checkpoint %s refused: its piece %s is not the one it names (rank %g of %g, "
                "step %" PRIu64 ")",
                path, name, rank_in, ranks_in, clp__checkpoint_step(piece));
    *out = piece;
    piece = NULL;
fail:
    clp__checkpoint_destroy(piece);
    return st;
}

clp_status clp__sph_piece_restore(sph_run *r, const clp__checkpoint *piece,
                                  const clp__sph_manifest *m, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_slabs *s = &r->split->dist.slabs;
    bool same =
        s->ranks == m->ranks && s->axis == m->axis && r->n == m->capacity[r->split->dist.rank];
    for (int k = 0; same && k <= s->ranks; k++)
        same = s->first[k] == m->first[k];
    CLP_REQUIRE(same, err, CLP_CHECKPOINT,
                "checkpoint %s: device rank %d's slab or slots (%zu) differ from the ones it "
                "was written with (%" PRIu64 "), though the devices and weights are the same",
                clp__checkpoint_path(piece), r->split->dist.rank, r->n,
                m->capacity[r->split->dist.rank]);
    CLP_TRY(clp__sph_state_restore(piece, r->w, err));
    size_t layout[LAYOUT_COUNT];
    for (int i = 0; i < LAYOUT_COUNT; i++) {
        double v;
        CLP_TRY(clp__checkpoint_scalar(piece, layout_names[i], &v, err));
        CLP_REQUIRE(v >= 0 && v <= (double)r->n && (i == 0 || v >= (double)layout[i - 1]), err,
                    CLP_IO, "checkpoint %s refused: corrupt: %s %g of %zu slots",
                    clp__checkpoint_path(piece), layout_names[i], v, r->n);
        layout[i] = (size_t)v;
    }
    for (int i = 0; i < LAYOUT_COUNT; i++)
        *layout_field(&r->split->dist, i) = layout[i];
    clp__dist_rank_restored(&r->split->dist);
fail:
    return st;
}
