/* A restart of a split SPH run's rank: on the checkpoint's own decomposition (as many ranks,
 * the same dist options and weights) its piece restored as it was, bit for bit; otherwise the
 * checkpoint's particles cut again among this run's ranks (sph_restart.c). */
#include "models/sph/sph_split.h"

#include <stdlib.h>
#include <string.h>

/* The lines of `identity` that say how the particles are cut (new): the dist options but
 * those of rebalancing, which do not change the cut a checkpoint holds. */
static char *split_lines(const char *identity) {
    static const char *const dist[] = {"option dist.", NULL};
    static const char *const later[] = {"option dist.rebalance", "option dist.probe_steps", NULL};
    char *all = clp__sph_identity_filter(identity, dist, true);
    char *lines = all ? clp__sph_identity_filter(all, later, false) : NULL;
    free(all);
    return lines;
}

/* Whether the run splits as the checkpoint's did: the dist options (the cut's axis, the
 * slots' room) and the weights (measured ones, after a rebalance); the number of ranks is
 * compared by the caller. */
static bool same_split(const clp__checkpoint *cp, const clp__sph_manifest *m, const char *identity,
                       const double *weights) {
    char *stored = split_lines(clp__checkpoint_identity(cp));
    char *wanted = split_lines(identity);
    bool same = stored && wanted && strcmp(stored, wanted) == 0;
    for (int k = 0; same && k < m->ranks; k++)
        same = m->weights[k] == (weights ? weights[k] : 1.0);
    free(stored);
    free(wanted);
    return same;
}

/* Reads the checkpoint on this rank and decides how it restarts. */
static clp_status open_rank(sph_run *r, const char *path, const char *identity,
                            clp__sph_restart *rs, clp_error *err) {
    clp_status st = CLP_OK;
    const clp__sph_split *s = r->split;
    CLP_TRY(clp__checkpoint_read(path, NULL, &rs->cp, err));
    CLP_TRY(clp__sph_restart_check(r, rs, identity, err));
    const int ranks = clp__comm_size(s->comm);
    if (clp__sph_is_manifest(rs->cp) && rs->m.ranks == ranks &&
        same_split(rs->cp, &rs->m, identity, s->cut_weights)) {
        rs->how = CLP__SPH_RESTART_PIECES;
        return clp__sph_piece_read(rs->cp, &rs->m, clp__comm_rank(s->comm), &rs->piece, err);
    }
    CLP_TRY(clp__sph_restart_recut(r, rs, path, ranks, err));
fail:
    return st;
}

clp_status clp__sph_rank_restart_open(sph_run *r, const char *path, const char *identity,
                                      clp__sph_restart *rs, clp_error *err) {
    *rs = (clp__sph_restart){.how = CLP__SPH_RESTART_NONE};
    clp_status st = open_rank(r, path, identity, rs, err);
    /* every rank or none goes on: a rank that failed aborts the others' wait */
    if (st == CLP_OK)
        st = clp__comm_barrier(r->split->comm, err);
    return st;
}

clp_status clp__sph_rank_restart_apply(sph_run *r, const clp__sph_restart *rs, const char *identity,
                                       clp__sph_clock *clock, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_split *s = r->split;
    if (rs->how != CLP__SPH_RESTART_PIECES) {
        CLP_TRY(clp__sph_restart_apply(r, rs, identity, clock, err));
        if (rs->how == CLP__SPH_RESTART_RECUT) /* the ranks count the excluded */
            s->excluded = rs->moved.excluded;
        return CLP_OK;
    }
    CLP_TRY(clp__sph_piece_restore(r, rs->piece, &rs->m, err));
    CLP_TRY(clp__sph_clock_get(rs->cp, clock, err));
    s->excluded = rs->m.excluded;
    CLP_TRY(clp_grid_relist(r->grid, err));
    r->listed = false; /* the restored order is the one to keep, rebuilt as before */
fail:
    return st;
}
