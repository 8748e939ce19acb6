/* run.json: how clpart run made an output folder (clpart version, command line, case and its
 * hash, resolved options, devices, host, limits, start and end, status and rate), written
 * when the run starts and again when it ends. Keys in docs/cli.md, "What a run writes". */
#ifndef CLPART_RUN_RECORD_H
#define CLPART_RUN_RECORD_H

#include "cli_case.h"

#include <jansson.h>

typedef struct run_record {
    json_t *root; /* NULL before run_record_begin and after run_record_end */
    char *dir;    /* the output folder */
    bool started; /* written with status "running" */
} run_record;

/* Everything known before a device is chosen: the command line of `cli`, the working folder,
 * the case (path, hash, name), its model and resolved options, the host, the limits and
 * restart of `config`, and the time now. Writes nothing yet. */
clp_status run_record_begin(run_record *rec, const char *out_dir, const clp_cli *cli,
                            const cli_case *c, const clp_model *model, const clp_run_config *config,
                            clp_error *err);
/* The devices the run goes on ("device" for one on its own; "devices", one per rank in rank
 * order, for a split run), then run.json written with status "running" (the output folder is
 * created when missing). */
clp_status run_record_start(run_record *rec, const clp_device_info *const *devices, size_t n,
                            bool split, clp_error *err);
/* After a started run: its end time, status from `st` ("ok", "interrupted" for
 * CLP_INTERRUPTED, else "failed" with run_err's message), its result when `result` reports
 * steps or seconds, in `unit`; run.json written again. A failed run whose folder holds
 * nothing but run.json (a case the model refused before writing) leaves neither behind, the
 * folder removed when empty. Frees the record (also when it was never started, writing
 * nothing). */
clp_status run_record_end(run_record *rec, clp_status st, const clp_error *run_err,
                          const clp_run_result *result, const char *unit, clp_error *err);

#endif
