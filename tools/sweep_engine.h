/* What clpart sweep and clpart bench share: the devices they run on, one option set of a case
 * run on one device into a result record, and the results.jsonl file of such records that
 * makes both resumable. */
#ifndef CLPART_SWEEP_ENGINE_H
#define CLPART_SWEEP_ENGINE_H

#include "cli_case.h"
#include "sweep_timing.h"

#include <jansson.h>

enum { SWEEP_MAX_DEVICES = 16 };

/* Whether `selectors` is "all" or "all:NAME" (every device whose implementation, vendor or
 * name matches NAME, as --device takes it: "all:pocl"). */
bool sweep_selects_all(const char *selectors);

/* The devices `selectors` names (a comma-separated list of selectors, all or all:NAME; a
 * device named twice is refused unless `repeats`: ranks of one run may share a device, with a
 * warning), else the one the global flags select; each with its identity as the records hold
 * it (new objects). */
typedef struct sweep_devices {
    clp_device_list *list;
    const clp_device_info *devices[SWEEP_MAX_DEVICES];
    json_t *identities[SWEEP_MAX_DEVICES];
    size_t n;
} sweep_devices;
clp_status sweep_devices_select(sweep_devices *d, const char *selectors, bool repeats,
                                const clp_cli *cli, clp_error *err);
void sweep_devices_free(sweep_devices *d);

/* What a measurement is doing, for a progress line. */
typedef struct sweep_observation {
    const char *phase; /* "building", "warm-up" or "timing" */
    const char *unit;  /* the model's rate unit, NULL before the options are read */
    size_t samples;    /* timed runs so far */
    double rate;       /* the last one's rate */
    double spread;     /* of the samples so far (sweep_spread), < 0 when unknown */
} sweep_observation;

/* How each option set is run: the case, the run's limits, and the timed runs after a one-step
 * warm-up, repeated as `timing` says (sweep_timing.h); an option set whose warm-up runs slower
 * than prune_below (in the model's unit; 0: none), and again in a second one-step warm-up, is
 * recorded as pruned, not timed. `observe` (when not NULL) is told of each phase and sample,
 * with `observer` as its first argument, from the thread that runs the option set. */
typedef struct sweep_plan {
    const char *case_path;
    const clp_schema *schema;
    clp_run_config limits; /* max_steps and max_time; the rest is set per run */
    sweep_timing timing;
    double prune_below;
    void (*observe)(void *observer, const sweep_observation *o);
    void *observer;
} sweep_plan;

/* Whether argv[*i] is one of the flags that say how each option set is run and timed
 * (--steps N, --time T, --repeat R, --spread F, --budget SECONDS): then *taken, its value is
 * read into `plan` and *i moves onto it. */
clp_status sweep_plan_flag(int argc, char **argv, int *i, sweep_plan *plan, bool *taken,
                           clp_error *err);

/* Runs one option set (an object NAME: value text, a preset under "preset") on the session's
 * device into `record`: its status (ok, refused, build failed, run failed, pruned) with the reason,
 * build time and cache hit, the time before the runs, the warm-up's rate, the rate of every
 * timed run ("runs", "samples", "timed_seconds": their wall time), their median ("throughput"),
 * least and largest ("throughput_min", "throughput_max"), the interval of the median
 * ("throughput_low", "throughput_high"; sweep_interval), its relative width ("spread", null
 * when unknown) and whether it met the target ("stable"); the steps, the least bytes and the
 * flops per unit of work, and the last run's diagnostics. CLP_INTERRUPTED (and no status) when
 * a signal stopped it. */
clp_status sweep_run_options(const sweep_plan *plan, const cli_session *s, json_t *options,
                             json_t *record, clp_error *err);

/* The records of a results.jsonl by their key (sweep_results_load), and that file, which new
 * records are appended to. */
typedef struct sweep_store {
    json_t *done;
    const char *path;
} sweep_store;

/* The record of `options` of the plan's case on device `dev` (`identity` as the records hold
 * it): the one `store` holds under the same key, else run now (sweep_run_options), appended to
 * its file and kept, with a line on stderr that names `label`, the options, the status and
 * the rate. `label` (NULL: none) is also the new record's "workload". *out is new. */
clp_status sweep_measure(const sweep_plan *plan, const cli_session *s, const clp_device_info *dev,
                         const json_t *identity, const char *label, json_t *options,
                         sweep_store *store, json_t **out, clp_error *err);

/* The output folder of a command that measures case `case_path`: `out`, else
 * FOLDER/<the case file's stem> ("sweep/lj_liquid"), into dir; its results.jsonl into
 * results. */
clp_status sweep_out_dir(const char *out, const char *folder, const char *case_path, char *dir,
                         size_t dir_size, char *results, size_t results_size, clp_error *err);

/* The key of a result (new text): what changes its measurement, as one line: the case
 * hash, the case parameters, the options, the device, the run's limits and the timing. */
char *sweep_record_key(const json_t *record);
/* The records of `path` by their key (new object): those that this clpart version wrote, or
 * with `any_version` every one (the last of a key wins); a line that is not a whole record (a
 * run killed mid-write) is skipped with a warning. */
clp_status sweep_results_load(const char *path, bool any_version, json_t **out, clp_error *err);
/* Appends one record to `path`, whole and flushed. */
clp_status sweep_results_append(const char *path, json_t *record, clp_error *err);
/* A new record for `options` (and the case parameters `parameters`, NULL when none) of the
 * plan's case, its file hashed to `case_hash`, on device `identity`; it holds what its key
 * is made of ("limits": {"max_steps", "max_time"}, 0 for the case's own; "timing":
 * {"min_repeat", "spread_target", "budget_seconds"}). */
json_t *sweep_record_new(const sweep_plan *plan, const char *case_hash, const json_t *parameters,
                         const json_t *options, const json_t *identity);

/* The case file `source` with `patch` merged into it (objects key by key, any other value
 * replaced), as sorted, indented JSON text (new). */
clp_status sweep_case_patch(const char *source, const json_t *patch, char **text, clp_error *err);
/* Writes `text` to `path`, whole or not at all (a temporary file renamed over it). */
clp_status sweep_write_text(const char *path, const char *text, clp_error *err);
/* The hash of `size` bytes as 16 hex digits. */
void sweep_hash_text(const char *text, size_t size, char hash[17]);

/* Whether `record` is an object with a status and, for a run that went well ("ok"), a finite
 * positive rate ("throughput"). */
bool sweep_record_status_whole(const json_t *record);
/* Now as Unix time, in seconds: when a record's run started ("started"). */
double sweep_unix_time(void);
/* The options of a record as "NAME=VALUE NAME=VALUE", in their order: new, "" for none
 * (NULL only when out of memory). */
char *sweep_options_text(const json_t *options);
/* `text` as one CSV field: quoted, its quotes doubled, its line breaks made spaces. */
void sweep_csv_field(FILE *f, const char *text);
/* Runs gnuplot on `script` in `dir`, and sets *drawn; without gnuplot a note says which
 * chart is missing. */
clp_status sweep_gnuplot(const char *dir, const char *script, const char *chart, bool *drawn,
                         clp_error *err);
/* For a done line: ", DIR/CHART" in `buf` when the chart was drawn, else "". */
const char *sweep_chart_mention(bool drawn, const char *dir, const char *chart, char *buf,
                                size_t size);

#endif
