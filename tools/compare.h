/* The engine of clpart compare, which sweep and bench share: two runs of a case (output
 * folders, or result records of results.jsonl) side by side, every quantity they both hold
 * matched by time (or step) and particle ID, each difference held against the tolerance that
 * tolerances/<model>.json (or an override) gives that quantity. */
#ifndef CLPART_COMPARE_H
#define CLPART_COMPARE_H

#include "cli.h"
#include "io/io.h"

#include <jansson.h>

/* One side of a comparison: what an output folder (or a record) holds. */
typedef struct compare_run {
    char *label;     /* the path as given, or "record N of FILE" */
    char *model;     /* from run.json, summary.json or the record; NULL when unknown */
    json_t *run;     /* run.json, or a record's provenance; NULL when absent */
    json_t *summary; /* summary.json's scalars, or NULL */
    clp__csv_table *tables;
    char **table_names; /* "diagnostics.csv", ... (a record's diagnostics: "record") */
    size_t n_tables;
    clp__pvd_list snapshots; /* particles.pvd, empty when absent */
} compare_run;

/* Opens `path`: an output folder (its run.json, summary.json, every *.csv, particles.pvd), a
 * results.jsonl file holding one record, or FILE:N, its N-th line (from 1). */
clp_status compare_run_open(const char *path, compare_run *out, clp_error *err);
/* A sweep's or bench's record as a run: its final diagnostics one row of "record", keyed by
 * the model's key column (or "steps"), its options and device as provenance. */
clp_status compare_run_from_record(const json_t *record, const char *label, compare_run *out,
                                   clp_error *err);
void compare_run_close(compare_run *r);

/* The tolerance of one quantity: |a - b| <= abs + rel * scale, where scale is max(|a|, |b|),
 * or, for a quantity that is round-off by nature (total momentum), the product of the named
 * quantities raised to `power` (its physical scale). */
typedef struct compare_tolerance {
    double abs, rel;
    const char *scale[4]; /* borrowed from the tolerances document */
    size_t n_scale;
    double power;
    double period; /* a periodic coordinate: differences taken to the nearest image; 0: none */
    bool ignore;   /* not compared: wall times, counters that say nothing of the physics */
} compare_tolerance;

/* A model's tolerances (tolerances/<model>.json) with the user's overrides. */
typedef struct compare_tolerances {
    json_t *doc;
    json_t *overrides; /* "FILE/QUANTITY" or "QUANTITY": {"abs", "rel"} */
} compare_tolerances;
/* Loads the document of `model` from the data folder, or `path` when not NULL. */
clp_status compare_tolerances_load(const char *model, const char *path, compare_tolerances *out,
                                   clp_error *err);
/* Adds the override "QUANTITY=REL[,ABS]" (QUANTITY may be FILE/NAME), as --tol gives it. */
clp_status compare_tolerances_override(compare_tolerances *t, const char *text, clp_error *err);
void compare_tolerances_free(compare_tolerances *t);
/* The tolerance of `quantity` in `file` ("diagnostics.csv", "particles.pvd", "summary.json"). */
compare_tolerance compare_tolerance_of(const compare_tolerances *t, const char *file,
                                       const char *quantity);
/* The key column of `file` ("time", "step", "iteration"; NULL: rows in order) and how close,
 * relatively, two keys must be to be the same. */
const char *compare_key_of(const compare_tolerances *t, const char *file, double *key_rel);

/* Whether the rows of `file` end when a criterion is met (a design at rest): rows that one
 * run has past the other's last are then a note, not a difference. */
bool compare_ends_by_criterion(const compare_tolerances *t, const char *file);

/* The worst difference of one quantity. */
typedef struct compare_item {
    char *file, *quantity;
    double a, b;       /* the values where the difference is largest (rms for a field) */
    double difference; /* |a - b|, or the rms of the particles' differences */
    double allowed;    /* abs + rel * scale there */
    double at;         /* the key there (time or step), NAN for a value without one */
    size_t compared;   /* values compared */
    bool beyond;       /* difference > allowed */
    bool parted;       /* a row key (step, time) one run has and the other lacks: a and b are the
                          first such keys of each (NaN: none) */
} compare_item;

typedef struct compare_result {
    compare_item *items;
    size_t n_items;
    char **notes; /* what could not be compared, and provenance that differs */
    size_t n_notes;
    size_t beyond;   /* items beyond their tolerance */
    bool comparable; /* false when nothing at all could be matched, or the runs are of other
                        cases or models */
} compare_result;

/* Compares b with a under `tolerances`. CLP_OK whatever the verdict; errors are unreadable
 * files and lack of memory. */
clp_status compare_runs(const compare_run *a, const compare_run *b,
                        const compare_tolerances *tolerances, compare_result *out, clp_error *err);
void compare_result_free(compare_result *r);
/* The item that is furthest beyond (or nearest to) its tolerance, by difference / allowed;
 * NULL when nothing was compared. */
const compare_item *compare_worst(const compare_result *r);
/* The verdict of r in a few words, for a table's cell: "no physical change", "kinetic_energy
 * 5.2 times its tolerance, max_velocity 3.1 times", "ends at steps 62, not 61", or "not
 * comparable". New string, NULL when out of memory. */
char *compare_verdict_text(const compare_result *r);
/* Compares two records of a results file (both ok) under `tolerances`; *text is
 * compare_verdict_text's (new), *same whether it is within tolerance. */
clp_status compare_records(const json_t *a, const json_t *b, const compare_tolerances *tolerances,
                           char **text, bool *same, clp_error *err);

/* difference / allowed, the share of its tolerance an item uses (inf when nothing is
 * allowed and it differs). */
double compare_ratio(const compare_item *item);

#endif
