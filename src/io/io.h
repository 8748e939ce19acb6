/* Run outputs: VTK XML PolyData snapshots with a .pvd index for ParaView, the diagnostics CSV,
 * and the progress line of a run. Internal to the library. */
#ifndef CLPART_IO_H
#define CLPART_IO_H

#include "internal.h"

/* ---- Files that appear whole or not at all (atomic_file.c) */

typedef struct clp__atomic_file clp__atomic_file;

/* A temporary file "<path>.<pid>-<n>.tmp" beside `path` (`path` borrowed until the commit),
 * with the usual 0666 & ~umask permissions. *out is new; a failure to create it is kept for
 * clp__atomic_commit to report, as are the failures of the writes. */
clp_status clp__atomic_open(const char *path, clp__atomic_file **out, clp_error *err);
/* Buffered writes: `n` bytes, and the low `bytes` bytes of `v` least significant first. */
void clp__atomic_write(clp__atomic_file *f, const void *data, size_t n);
void clp__atomic_put_le(clp__atomic_file *f, uint64_t v, int bytes);
/* Whether a step has failed so far (what follows is not written). */
bool clp__atomic_failed(const clp__atomic_file *f);
/* Flushes, syncs and renames the file over its target, or removes it after a failure; frees
 * f either way. A failure is CLP_IO with err->source = the path, the step and strerror, and
 * leaves a previous file at the path intact. */
clp_status clp__atomic_commit(clp__atomic_file *f, clp_error *err);
/* The whole file `path` from `n` bytes at `data`, as above. */
clp_status clp__atomic_write_file(const char *path, const void *data, size_t n, clp_error *err);

/* ---- VTK (vtk.c) */

/* One snapshot's particles, all borrowed for the call. NULL optional fields are left out. */
typedef struct clp__vtp_fields {
    size_t n;               /* particles */
    const double *position; /* n x 3, the Points (Float64) */
    const float *velocity;  /* n x 3, or NULL */
    const float *density;   /* n, or NULL */
    const float *pressure;  /* n, or NULL */
    const uint32_t *type;   /* n, or NULL */
    const uint32_t *id;     /* n, or NULL: the particle's index in the case's initial order */
    double time;            /* simulated time, the field array "TimeValue" */
    const double *period;   /* 3 sides of a periodic box (0: not periodic along that axis), the
                               field array "Period", or NULL */
} clp__vtp_fields;

/* Writes `f` as a VTK XML PolyData file (appended raw little-endian data, UInt64 headers, one
 * vertex cell per particle) atomically: a temporary file in the same folder, fsync, rename over
 * `path`. Any failure is CLP_IO with err->source = path and strerror, and leaves a previous
 * file at `path` intact and no temporary file behind. */
clp_status clp__vtp_write(const char *path, const clp__vtp_fields *f, clp_error *err);

/* Writes the ParaView collection `path` listing `count` snapshots: files[i] at times[i].
 * Names are relative to the folder of `path`; a name that starts with that folder (as the
 * same path prefix) is written without it. Atomic and reported as clp__vtp_write. */
clp_status clp__pvd_write(const char *path, const double *times, const char *const *files,
                          size_t count, clp_error *err);

/* ---- A run's snapshots (vtp_series.c) */

/* particles_NNNNN.vtp in the folder `dir`, numbered in the order taken, at `times`, and the
 * particles.pvd index of them. */
typedef struct clp__vtp_series {
    char *dir;
    double *times;
    char **files; /* full paths */
    size_t count, capacity;
} clp__vtp_series;

/* An empty series in the folder `dir` (copied), which must exist before the first write. */
clp_status clp__vtp_series_open(clp__vtp_series *s, const char *dir, clp_error *err);
/* An empty series for a run that starts afresh in `dir`: the snapshots and index an earlier
 * run left there (particles_<digits>.vtp, particles.pvd, and nothing else) are removed, so
 * that none stays beside the new index as if it were this run's. */
clp_status clp__vtp_series_start(clp__vtp_series *s, const char *dir, clp_error *err);
/* Adds the next file's name at `time` without writing it (a restart's earlier snapshots). */
clp_status clp__vtp_series_remember(clp__vtp_series *s, double time, clp_error *err);
/* Writes particles.pvd listing the series so far. */
clp_status clp__vtp_series_index(const clp__vtp_series *s, clp_error *err);
/* Writes the next snapshot, `f` at f->time, and the index with it. */
clp_status clp__vtp_series_add(clp__vtp_series *s, const clp__vtp_fields *f, clp_error *err);
/* Frees the series (the files stay); a zeroed series does nothing. */
void clp__vtp_series_close(clp__vtp_series *s);

/* A snapshot read back (vtk_read.c): each array of its field, point and point-coordinate
 * data ("TimeValue", "Period", "velocity", ..., "position" for the points), as doubles. */
typedef struct clp__vtp_array {
    char *name;
    int components;
    size_t tuples;
    double *values; /* tuples x components */
} clp__vtp_array;
typedef struct clp__vtp_data {
    char *path;
    size_t n;    /* points */
    double time; /* the TimeValue field, 0 without one */
    clp__vtp_array *arrays;
    size_t n_arrays;
} clp__vtp_data;
/* Reads a snapshot that clp__vtp_write wrote; any other layout, a truncated file or an array
 * whose length is not the point count is CLP_IO naming the file. *out is filled only on
 * success. */
clp_status clp__vtp_read(const char *path, clp__vtp_data *out, clp_error *err);
/* The array `name` of d (borrowed), or NULL. */
const clp__vtp_array *clp__vtp_find(const clp__vtp_data *d, const char *name);
void clp__vtp_data_free(clp__vtp_data *d);

/* A collection read back: its snapshots' times and paths (relative names made relative to
 * the working folder, through the collection's folder). */
typedef struct clp__pvd_list {
    size_t count;
    double *times;
    char **files;
} clp__pvd_list;
clp_status clp__pvd_read(const char *path, clp__pvd_list *out, clp_error *err);
void clp__pvd_list_free(clp__pvd_list *l);

/* ---- Diagnostics CSV (csv.c) */

typedef struct clp__csv clp__csv;

/* Creates (or truncates) `path` and writes the header row of `n_columns` names (copied; quoted
 * when they hold a comma, quote or line break). *out is new, written only on success. */
clp_status clp__csv_open(const char *path, const char *const *columns, size_t n_columns,
                         clp__csv **out, clp_error *err);
/* clp__csv_open for the file `name` in the folder `dir`, which is created with its parents
 * when missing. */
clp_status clp__csv_open_in(const char *dir, const char *name, const char *const *columns,
                            size_t n_columns, clp__csv **out, clp_error *err);
/* Continues the file `name` in `dir` that an earlier run wrote, as a restart from the state
 * at `last` needs: keeps the header and the rows whose value in `column` is at most `last`,
 * drops those after (the file is replaced, never truncated in place) and appends from there.
 * The header must be `columns`, else CLP_IO. *kept gets the kept rows (n_columns values each;
 * new, NULL when none) and *n_kept their count. A missing file is opened new. */
clp_status clp__csv_continue_in(const char *dir, const char *name, const char *const *columns,
                                size_t n_columns, size_t column, double last, double **kept,
                                size_t *n_kept, clp__csv **out, clp_error *err);
/* Writes the whole file `name` in `dir` (created as by clp__csv_open_in): `n_rows` rows of
 * `n_columns` values each, row after row in `rows`, then closes it. */
clp_status clp__csv_write_table(const char *dir, const char *name, const char *const *columns,
                                size_t n_columns, const double *rows, size_t n_rows,
                                clp_error *err);
/* Appends one row of n_columns values (see clp__csv_format_number; a NaN, a missing value
 * such as a dry gauge's, is an empty field, which the readers take back as NaN) and flushes it
 * to the file, so a crash keeps every completed row. */
clp_status clp__csv_row(clp__csv *csv, const double *values, clp_error *err);
/* Closes and frees `csv` (NULL does nothing); reports a failed final close as CLP_IO. */
clp_status clp__csv_close(clp__csv *csv, clp_error *err);

/* A CSV file read back whole (csv_read.c): its header's names and its rows of numbers. */
typedef struct clp__csv_table {
    char *path;
    char **columns;
    size_t n_columns, n_rows;
    double *values; /* n_rows rows of n_columns numbers */
} clp__csv_table;
/* Reads the file at `path`: a header row of names (quoted as clp__csv_open writes them), then
 * rows of as many numbers, in any locale; blank lines are skipped. A row that is not all
 * numbers is CLP_IO naming its line and column. *out is filled only on success. */
clp_status clp__csv_read(const char *path, clp__csv_table *out, clp_error *err);
/* The index of the column `name`, or -1. */
long clp__csv_table_column(const clp__csv_table *t, const char *name);
/* Frees what t holds and zeroes it (a zeroed table does nothing). */
void clp__csv_table_free(clp__csv_table *t);

/* A number as CSV text, whatever the process locale: integral values below 2^53 in magnitude
 * without a decimal point ("12"), others with 17 significant digits ("0.10000000000000001"),
 * "nan", "inf", "-inf". Returns buf. */
char *clp__csv_format_number(double v, char buf[32]);

/* ---- A summary file (summary.c) */

struct json_t;

/* A new summary object with the keys every model's summary.json starts with, in this order:
 * "model", "particles", "steps" (those the state has taken), "interrupted" (a stop request
 * ended the run before its end) and "seconds" (of stepping, outputs left out). */
struct json_t *clp__summary_begin(const char *model, size_t particles, uint64_t steps,
                                  bool interrupted, double seconds);
/* Sets `key` to `v`, a JSON number, or the string "inf", "-inf" or "nan" (JSON has none). */
void clp__summary_number(struct json_t *root, const char *key, double v);
/* clp__summary_number for each of `n` names and values. */
void clp__summary_values(struct json_t *root, const char *const *names, const double *values,
                         size_t n);
/* Writes `root` as JSON (json_dumps `flags`) and a line break to the file `name` in the folder
 * `dir`, atomically (as clp__atomic_write_file), and releases `root` (also on failure). The
 * folder must exist. */
clp_status clp__json_write(const char *dir, const char *name, struct json_t *root, size_t flags,
                           clp_error *err);
/* clp__json_write on one line, keys in insertion order. */
clp_status clp__summary_write(const char *dir, const char *name, struct json_t *root,
                              clp_error *err);

/* ---- Progress line (progress.c) */

#define CLP__PROGRESS_PLAIN_INTERVAL 10.0 /* default seconds between plain lines */

/* What one progress line shows. */
typedef struct clp__progress_state {
    uint64_t step;
    double sim_time;                  /* simulated time reached, s */
    double end_time;                  /* simulated time at the end, s */
    double particle_steps_per_second; /* <= 0 when unknown */
    double seconds_left;              /* wall-clock estimate, < 0 when unknown */
    bool steps_only;  /* no simulated time: sim_time and end_time count steps (PSO iterations) */
    const char *note; /* appended after two spaces ("best 1.2e-05"), or NULL */
} clp__progress_state;

typedef struct clp__progress {
    FILE *stream;          /* borrowed */
    bool tty;              /* redraw one line in place */
    double end_time;       /* simulated time at the end */
    double start_sim_time; /* simulated time at init */
    double start_wall;     /* clp__now() at init */
    double last_print;     /* clp__now() of the last line, < 0 before the first */
    double plain_interval; /* seconds between plain lines */
    bool steps_only;       /* set after init: the run counts steps, not simulated time */
    char note[64];         /* set before an update: shown at the end of the line, "" for none */
} clp__progress;

/* Starts reporting a run from simulated time `start_time` to `end_time` on `stream` (the CLI
 * passes stderr; the library prints nothing by itself). On a terminal one line is redrawn at
 * most every 0.1 s; otherwise a plain line is printed at the first update and then at most
 * every `plain_interval` seconds (<= 0: every update). */
void clp__progress_init(clp__progress *p, FILE *stream, double start_time, double end_time,
                        double plain_interval);
/* Reports `step` and `sim_time` when the interval allows. */
void clp__progress_update(clp__progress *p, uint64_t step, double sim_time,
                          double particle_steps_per_second);
/* Prints the final state in any case, and ends the terminal line with a newline. */
void clp__progress_finish(clp__progress *p, uint64_t step, double sim_time,
                          double particle_steps_per_second);

/* Pure parts, for tests. Wall-clock seconds left when simulated time went from `start` to `now`
 * in `elapsed` seconds and runs to `end`; -1 when there is no rate yet. */
double clp__progress_seconds_left(double start, double now, double end, double elapsed);
/* The text of one line, without \r or \n: a bar and percentage on a terminal, a plain line
 * otherwise. Returns buf (cut to size). */
char *clp__progress_format(char *buf, size_t size, const clp__progress_state *s, bool tty);
/* "12.3s", "3m05s", "1h02m"; "--" for a negative, non-finite or absurdly large value. */
char *clp__format_duration(double seconds, char buf[32]);

#endif
