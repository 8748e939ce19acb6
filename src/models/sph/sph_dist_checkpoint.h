/* Checkpoints of a split SPH run (sph_dist_checkpoint.c): each rank writes a piece, its slots
 * as they lie with its layout, under a name that holds the step and the piece's checksum;
 * rank 0 then writes the manifest at the checkpoint's path, which names the pieces by their
 * checksums and holds the clock and the decomposition. The manifest's rename commits. */
#ifndef CLPART_SPH_DIST_CHECKPOINT_H
#define CLPART_SPH_DIST_CHECKPOINT_H

#include "dist/slabs.h"
#include "models/sph/sph_checkpoint.h"
#include "models/sph/sph_run.h"

/* What a manifest says beyond the clock. */
typedef struct clp__sph_manifest {
    int ranks, axis;
    int32_t first[CLP_DIST_MAX_RANKS + 1]; /* the slabs: rank r owns layers first[r] .. */
    double weights[CLP_DIST_MAX_RANKS];    /* --weights, 1 each without */
    uint64_t digest[CLP_DIST_MAX_RANKS];   /* each piece's checksum, in its name too */
    uint64_t capacity[CLP_DIST_MAX_RANKS]; /* each rank's slots */
    uint64_t excluded;                     /* particles excluded so far, on all ranks */
} clp__sph_manifest;

/* Every rank calls it at once: its piece, then rank 0's manifest at `path`, then the removal
 * of older pieces. `identity` has no device line; `weights` may be NULL. A failure before the
 * manifest's rename leaves the checkpoint at `path` as it was. */
clp_status clp__sph_dist_checkpoint_write(sph_run *r, const char *path, const char *identity,
                                          const double *weights, const clp__sph_clock *clock,
                                          clp_error *err);

/* Whether a checkpoint read is a split run's manifest, and what it says. */
bool clp__sph_is_manifest(const clp__checkpoint *cp);
clp_status clp__sph_manifest_get(const clp__checkpoint *cp, clp__sph_manifest *m, clp_error *err);
/* Rank `rank`'s piece of the manifest `cp` (new in *out), checked against the manifest. */
clp_status clp__sph_piece_read(const clp__checkpoint *cp, const clp__sph_manifest *m, int rank,
                               clp__checkpoint **out, clp_error *err);
/* The layout a piece was written with, into this rank (same slabs and slots, checked). */
clp_status clp__sph_piece_restore(sph_run *r, const clp__checkpoint *piece,
                                  const clp__sph_manifest *m, clp_error *err);

#endif
