/* The tuning database: for a device, a model and a size, the values of the performance options
 * measured best there. Its files (format in docs/tuning.md): the project's, shipped in
 * <data dir>/tuning/v1/ (its .json files), and the user's, $CLPART_TUNING_DB, else
 * $XDG_DATA_HOME/clpart/tuning/v1.json, else ~/.local/share/clpart/tuning/v1.json. A run
 * takes the closest entry's values for the performance options that its case, presets and -s
 * leave at their defaults, as CLBlast takes its tuned parameters: the same device, else the
 * same vendor and architecture, else the same type of device. */
#ifndef CLPART_TUNING_DB_H
#define CLPART_TUNING_DB_H

#include "clpart.h"

#include <jansson.h>

enum { TUNING_FORMAT = 1 }; /* the files' "clpart_tuning" */

/* How closely an entry's device matches the one a run uses, worst first. */
typedef enum tuning_match {
    TUNING_NO_MATCH,
    TUNING_SAME_TYPE,         /* gpu, cpu or accelerator */
    TUNING_SAME_ARCHITECTURE, /* vendor and architecture */
    TUNING_SAME_DEVICE,       /* platform, vendor and device name */
} tuning_match;

/* What the database knows a device by. The architecture is "sm_90" for an NVIDIA GPU (its
 * compute capability), the CPU that PoCL compiles for ("skylake-avx512") and otherwise the
 * device's name. */
typedef struct tuning_identity {
    char platform[128], vendor[128], name[128], type[16], architecture[128];
} tuning_identity;

void tuning_identity_of(const clp_device_info *dev, tuning_identity *out);
tuning_match tuning_compare(const tuning_identity *entry, const tuning_identity *device);
/* "the same device", "the same vendor and architecture", "the same type of device" */
const char *tuning_match_name(tuning_match m);

typedef struct tuning_entry {
    tuning_identity device;
    char *model;
    double particles; /* the size it was measured at */
    json_t *options;  /* NAME: value text as -s takes it ("simd", "true"), each checked */
    char *where;      /* "FILE, entry K" (K from 1) */
} tuning_entry;

typedef struct tuning_db {
    tuning_entry *entries;
    size_t n;
} tuning_db;

/* The files a run reads, in order: the project's (in name order), then the user's, whose entry
 * wins where both match as closely. *paths (new, each new) gets *n of them; the user's file
 * may not exist. */
clp_status tuning_db_paths(char ***paths, size_t *n, clp_error *err);
/* Reads each file of `paths` in order; a missing one holds no entry. A file that is not a
 * database of this format, and an entry that is not whole or names an option that is not a
 * performance option of `schema` or a value it refuses, are left out with a warning that
 * names them and why; nothing is written. */
clp_status tuning_db_load(const char *const *paths, size_t n, const clp_schema *schema,
                          tuning_db *db, clp_error *err);
void tuning_db_free(tuning_db *db);
/* The entry of `model` for `particles` particles on device `id`: of those that match best,
 * the one measured at the closest size (by the ratio of particle counts; `particles` 0: any
 * size), the last read of those as close. NULL when none matches. */
const tuning_entry *tuning_db_lookup(const tuning_db *db, const tuning_identity *id,
                                     const char *model, double particles, tuning_match *match);

/* The user's file (new; "" when no folder names it). */
char *tuning_db_user_path(void);
/* Writes an entry of `model` measured at `particles` on `device`, with `options` (NAME: value
 * text) and `note`, into the file at `path` (made, with its folders, when missing): in place of
 * any entry there for the same device and model at a size within a factor of sqrt(2), else
 * after the others; the file whole or not at all. A file that is not a database of this format
 * is not overwritten: CLP_IO naming it. *replaced says whether an entry was replaced. */
clp_status tuning_db_save(const char *path, const tuning_identity *device, const char *model,
                          double particles, const json_t *options, const char *note, bool *replaced,
                          clp_error *err);

#endif
