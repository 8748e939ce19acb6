/* Case loading and device opening shared by the source, build and selftest subcommands. */
#ifndef CLPART_CLI_CASE_H
#define CLPART_CLI_CASE_H

#include "cli.h"
#include "internal.h"

#include <jansson.h>

typedef struct cli_case {
    clp_schema *schema;
    clp_options *options;
    const char *case_path; /* borrowed from argv; NULL when none was given */
    /* what cli_case_tune took from the tuning database, as run.json's "tuning" holds it:
       {"entry", "match", "options": {NAME: VALUE}}; NULL before, or when it took none */
    json_t *tuning;
} cli_case;

/* Parses "[CASE] [-s NAME=VALUE]... [-p PRESET]..." (argv[0] is the subcommand): defaults,
 * then the case, its presets, then each -s; then checks dependencies. */
clp_status cli_case_load(int argc, char **argv, bool case_required, cli_case *out, clp_error *err);
void cli_case_free(cli_case *c);
/* CLP_USAGE when option `name` belongs to a module that `model` does not take (an SPH option
 * on a PSO case): set, it would change nothing. Unknown names and a NULL model pass. */
clp_status cli_option_applies(const clp_schema *schema, const char *model, const char *name,
                              clp_error *err);
/* The tuning database's values (tuning_db.h) for the performance options the case, its presets
 * and -s leave at their defaults, from the entry closest to device `dev`, the case's model and
 * its particles; -v says which entry and what it took, or why none. Nothing with --no-tuning.
 * A database that cannot be read is a warning, and the defaults stand. */
clp_status cli_case_tune(cli_case *c, const clp_cli *cli, const clp_device_info *dev,
                         clp_error *err);
/* The same for the device the global flags select, listed without a context; without any
 * OpenCL platform the defaults stand (-v says so). */
clp_status cli_case_tune_selected(cli_case *c, const clp_cli *cli, clp_error *err);
/* The assembled source of the case's model, laid out for the device the global flags select
 * where the model's entry says it needs one. *source is new. */
clp_status cli_case_source(const cli_case *c, const clp_cli *cli, char **source, clp_error *err);

/* The selected device's worker and the cache, as the global flags say. */
typedef struct cli_session {
    clp_device_list *list;
    clp_worker *worker;
    clp_cache *cache; /* NULL with --no-cache */
} cli_session;

/* Lists the devices, selects one as --device/CLPART_DEVICE say, opens its worker and the
 * cache. On failure everything opened so far is closed again. */
clp_status cli_session_open(const clp_cli *cli, cli_session *s, clp_error *err);
void cli_session_close(cli_session *s);
/* The exit code for `st`: prints the error once (with the build log of a failed build under
 * -v), or nothing on success. */
int cli_finish(clp_status st, const clp_error *err, const cli_session *s, const clp_cli *cli);

/* The value of a flag that takes a whole number above 0 (`whole`, into *count) or a number
 * above 0 (into *number); CLP_USAGE naming the flag otherwise. */
clp_status cli_positive(const char *flag, const char *text, bool whole, uint64_t *count,
                        double *number, clp_error *err);

/* The bytes of the file at `path` hashed by XXH64 (seed 0), as 16 lowercase hex digits: a
 * changed case is a new result (sweep, bench) and a run.json names the case it ran. */
clp_status cli_file_hash(const char *path, char hash[17], clp_error *err);
/* The file name of `path` without its folder, its last extension and any leading dots
 * ("cases/a.json": "a"; "...json": "case"), a name for an output folder; new, NULL when out
 * of memory. */
char *cli_file_stem(const char *path);

#endif
