/* Checkpoint files: everything a run needs to continue bit for bit (step, time, named scalars,
 * named particle arrays), written atomically and refused when damaged or from another run. */
#ifndef CLPART_CHECKPOINT_H
#define CLPART_CHECKPOINT_H

#include "internal.h"

/* The status of a checkpoint that does not fit the run restarting from it: another identity
 * or clpart version, a missing scalar or array, an array of other sizes. */
#define CLP__CHECKPOINT_MISMATCH CLP_CHECKPOINT

/* A checkpoint being built for writing, or one read from a file. */
typedef struct clp__checkpoint clp__checkpoint;

/* A new, empty checkpoint. `identity` (copied) describes the run: case file and hash, option
 * values, device; a restart must pass the same text, compared line by line. */
clp_status clp__checkpoint_create(const char *identity, uint64_t step, double time, double dt,
                                  clp__checkpoint **out, clp_error *err);
void clp__checkpoint_destroy(clp__checkpoint *cp);

/* Adds a scalar, stored bit for bit. Names (copied) are 1 to 255 bytes, unique among scalars;
 * a duplicate or bad name is CLP_USAGE. */
clp_status clp__checkpoint_add_scalar(clp__checkpoint *cp, const char *name, double value,
                                      clp_error *err);
/* Adds `count` elements of `elem_size` bytes (at least 1) from `data`, stored as they are in
 * memory. `data` is borrowed: it must stay valid and unchanged until the checkpoint is written
 * or destroyed. Names follow the rules of scalars, unique among arrays. */
clp_status clp__checkpoint_add_array(clp__checkpoint *cp, const char *name, size_t elem_size,
                                     size_t count, const void *data, clp_error *err);

/* Writes the checkpoint to `path` atomically: a temporary file in the same folder, fsync,
 * rename over `path`. On failure (CLP_IO, naming the file, the step and strerror) a previous
 * file at `path` is left intact and no temporary file remains. */
clp_status clp__checkpoint_write(const clp__checkpoint *cp, const char *path, clp_error *err);

/* The XXH3-64 checksum the file of this checkpoint ends with, computed without writing it. */
clp_status clp__checkpoint_digest(const clp__checkpoint *cp, uint64_t *out, clp_error *err);

/* Reads the checkpoint at `path` (new in *out, written only on success). A file that cannot be
 * read, is not a checkpoint, has another format version, or is truncated or corrupt (checksum)
 * is CLP_IO. A file written by another clpart version, or with an identity other than
 * `expected_identity` (NULL: any; compare it later), is CLP__CHECKPOINT_MISMATCH; the message
 * quotes the first differing line of both. err->source is `path` for all of these. */
clp_status clp__checkpoint_read(const char *path, const char *expected_identity,
                                clp__checkpoint **out, clp_error *err);

uint64_t clp__checkpoint_step(const clp__checkpoint *cp);
double clp__checkpoint_time(const clp__checkpoint *cp);
double clp__checkpoint_dt(const clp__checkpoint *cp);
/* The file it was read from, borrowed. */
const char *clp__checkpoint_path(const clp__checkpoint *cp);
/* The identity it was written with, borrowed. */
const char *clp__checkpoint_identity(const clp__checkpoint *cp);
/* The checksum of the file it was read from (what clp__checkpoint_digest gave its writer). */
uint64_t clp__checkpoint_checksum(const clp__checkpoint *cp);
bool clp__checkpoint_has_scalar(const clp__checkpoint *cp, const char *name);
bool clp__checkpoint_has_array(const clp__checkpoint *cp, const char *name);

/* CLP__CHECKPOINT_MISMATCH unless `identity` (read from checkpoint `path`) is `expected`; the
 * message quotes the first line that differs in both. */
clp_status clp__checkpoint_compare_identity(const char *path, const char *identity,
                                            const char *expected, clp_error *err);

/* The scalar `name`; a missing one is CLP__CHECKPOINT_MISMATCH. */
clp_status clp__checkpoint_scalar(const clp__checkpoint *cp, const char *name, double *out,
                                  clp_error *err);
/* The array `name` as `count` elements of `elem_size` bytes, borrowed until the checkpoint is
 * destroyed (aligned for any type when read from a file). A missing array, or one stored with
 * another element size or count, is CLP__CHECKPOINT_MISMATCH naming both sizes. */
clp_status clp__checkpoint_array(const clp__checkpoint *cp, const char *name, size_t elem_size,
                                 size_t count, const void **data, clp_error *err);

#endif
