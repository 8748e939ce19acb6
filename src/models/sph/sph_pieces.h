/* The files beside a split SPH run's checkpoint (sph_pieces.c): each rank's piece, named
 * after the manifest, and their removal once stale. */
#ifndef CLPART_SPH_PIECES_H
#define CLPART_SPH_PIECES_H

#include "internal.h"

/* A piece's path: the manifest's, then the step, the rank and the piece's checksum, so that
 * a new piece never replaces one that the committed manifest names. */
void clp__sph_piece_path(const char *manifest, uint64_t step, int rank, int ranks, uint64_t digest,
                         char *out, size_t size);

/* Removes the pieces beside checkpoint `path` except the `n` at `keep` (paths), and the
 * temporary files of writes that a killed process left; a failure to remove one is only
 * logged. Call it only when no write of this checkpoint is under way. */
void clp__sph_pieces_remove(const char *path, char *const *keep, int n);

#endif
