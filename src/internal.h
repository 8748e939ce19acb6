/* clpart internals shared by the library's files: error-raising and OpenCL-checking macros,
 * the internal logger, a growable string, small file helpers. Never installed. */
#ifndef CLPART_INTERNAL_H
#define CLPART_INTERNAL_H

#include "clpart.h"
#include "option_enums.h" /* generated from options/ by tools/gen-option-enums */

/* grid.periodic_x, _y or _z by axis 0, 1 or 2 (grid/geometry.c). */
bool clp__grid_periodic_of(const clp_options *opts, int axis);
clp_status clp__grid_periodic_set(clp_options *opts, int axis, bool periodic, clp_error *err);

#include <locale.h>

#include <stdarg.h>
#include <stdio.h>

#if defined(__GNUC__)
#define CLP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLP_PRINTF(f, a)
#endif

/* ---- Raising errors (error.c). Each returns `st` so callers can write `return CLP_FAIL(...)`.
 * The first error wins: a filled err is left as it is. */
clp_status clp__fail(clp_error *err, clp_status st, const char *origin_file, int origin_line,
                     const char *fmt, ...) CLP_PRINTF(5, 6);
clp_status clp__fail_at(clp_error *err, clp_status st, const char *source, int line, int column,
                        const char *origin_file, int origin_line, const char *fmt, ...)
    CLP_PRINTF(8, 9);
/* An OpenCL failure: message "<what>: <call>: CL_NAME"; status CLP_DEVICE_MEMORY for the
 * out-of-memory codes, CLP_CL otherwise. */
clp_status clp__fail_cl(clp_error *err, cl_int code, const char *origin_file, int origin_line,
                        const char *fmt, ...) CLP_PRINTF(5, 6);

#define CLP_FAIL(err, st, ...) clp__fail((err), (st), __FILE__, __LINE__, __VA_ARGS__)
#define CLP_FAIL_AT(err, st, src, line, col, ...)                                                  \
    clp__fail_at((err), (st), (src), (line), (col), __FILE__, __LINE__, __VA_ARGS__)

/* These expect a local `clp_status st` and a `fail:` label that cleans up and returns st. */
#define CLP_CL_CHECK(rc, err, ...)                                                                 \
    do {                                                                                           \
        cl_int rc_ = (rc);                                                                         \
        if (rc_ != CL_SUCCESS) {                                                                   \
            st = clp__fail_cl((err), rc_, __FILE__, __LINE__, __VA_ARGS__);                        \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

#define CLP_REQUIRE(cond, err, status, ...)                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            st = clp__fail((err), (status), __FILE__, __LINE__, __VA_ARGS__);                      \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* CLP_REQUIRE for a file that cannot be read or is not what it should be: CLP_IO, with the
 * file as the error's source. */
#define CLP_REQUIRE_FILE(path, cond, err, ...)                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            st = clp__fail_at((err), CLP_IO, (path), -1, -1, __FILE__, __LINE__, __VA_ARGS__);     \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

#define CLP_REQUIRE_ALLOC(p, err) CLP_REQUIRE((p) != NULL, (err), CLP_NOMEM, "out of host memory")

/* Propagates a failed clp_status (the error is already filled). */
#define CLP_TRY(expr)                                                                              \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (st != CLP_OK)                                                                          \
            goto fail;                                                                             \
    } while (0)

/* Whether option `name` has the value `value` (an enum's name, "true"/"false", an integer);
 * false for no such option. */
bool clp__option_matches(const clp_options *opts, const char *name, const char *value);

/* ---- Logging (log.c) */
bool clp__log_enabled(clp_log_level level, unsigned category);
void clp__log(clp_log_level level, unsigned category, const char *fmt, ...) CLP_PRINTF(3, 4);
#define CLP_LOG(level, category, ...)                                                              \
    do {                                                                                           \
        if (clp__log_enabled((level), (category)))                                                 \
            clp__log((level), (category), __VA_ARGS__);                                            \
    } while (0)
#define CLP_WARN(category, ...)  CLP_LOG(CLP_LOG_WARN, (category), __VA_ARGS__)
#define CLP_INFO(category, ...)  CLP_LOG(CLP_LOG_INFO, (category), __VA_ARGS__)
#define CLP_DEBUG(category, ...) CLP_LOG(CLP_LOG_DEBUG, (category), __VA_ARGS__)

/* ---- Growable string (strbuf.c). On allocation failure `failed` is set and appends stop. */
typedef struct clp_strbuf {
    char *data;
    size_t len;
    size_t cap;
    bool failed;
} clp_strbuf;

void clp__sb_append(clp_strbuf *sb, const char *text);
void clp__sb_append_n(clp_strbuf *sb, const char *text, size_t n);
void clp__sb_appendf(clp_strbuf *sb, const char *fmt, ...) CLP_PRINTF(2, 3);
/* Hands the text over (new, NUL-terminated) or NULL after a failed append; resets sb. */
char *clp__sb_take(clp_strbuf *sb);
void clp__sb_free(clp_strbuf *sb);

/* ---- The C numeric locale (c_locale.c) */
/* This thread reads and writes numbers in the C locale until clp__c_numeric_end(previous),
 * whatever the process locale (a decimal comma never reaches device source or output files).
 * Returns the locale to give back, (locale_t)0 when the C locale could not be made. */
locale_t clp__c_numeric_begin(void);
void clp__c_numeric_end(locale_t previous);

/* ---- Files and small helpers (util.c) */
/* Reads a whole file. *out is new and NUL-terminated; *size excludes the NUL. */
clp_status clp__file_read(const char *path, char **out, size_t *size, clp_error *err);
/* "123", "64K", "512M", "2G" (binary multiples) into bytes; zero, overflow and anything else
 * are false. */
bool clp__parse_size(const char *text, uint64_t *out);
/* Levenshtein distance, for "did you mean" suggestions. */
size_t clp__edit_distance(const char *a, const char *b);
/* mkdir -p of `path` (modified during the call, restored); false with the failing step in
 * `why`. */
bool clp__make_dirs(char *path, char *why, size_t why_size);
/* "dir/name" (just `name` when dir is "" or NULL), new; NULL when out of memory. */
char *clp__path_join(const char *dir, const char *name);
/* A work-group of one work-item per item: `items` rounded up to whole warps of 32 where that
 * stays within `cap`, else `items`. */
size_t clp__warp_group(size_t items, size_t cap);
/* (host_memory.c) CLP_NOMEM naming `what` when `bytes` exceed the physical memory or ulimit -v;
 * called with a case's host need, from its parameters, before allocating any of it. */
clp_status clp__host_memory_check(double bytes, const char *what, clp_error *err);
/* (host_memory.c) The bytes this process may hold: the physical memory, or ulimit -v where that
 * is less; 0 where the system says neither. */
double clp__host_memory_allowed(void);
/* Monotonic wall clock in seconds. */
double clp__now(void);
/* What the compiled kernel `name` allows on the worker's device: the most work-items a group
 * and the local memory a group takes (src/worker/launch.c). */
clp_status clp__kernel_limits(clp_worker *w, const char *name, size_t *work_group,
                              cl_ulong *local_bytes, clp_error *err);
/* Seconds per call of `launch`: `launches` calls queued, then a wait; the median of `rounds`
 * (at most 64) such (src/worker/measure.c). */
typedef clp_status (*clp__launch_fn)(void *context, clp_error *err);
clp_status clp__time_launches(clp_worker *w, clp__launch_fn launch, void *context, int launches,
                              int rounds, double *median, clp_error *err);
/* The device's copy bandwidth in bytes read plus written per second, measured with buffers of
 * `bytes` (src/worker/measure.c). */
clp_status clp__copy_bandwidth(clp_worker *w, size_t bytes, double *bytes_per_second,
                               clp_error *err);
/* SplitMix64 (Steele, Lea and Flood 2014): a counter-based stream, so a seed fixes the same
 * numbers on every platform; and a uniform double in [0, 1) with 53 random bits from it. */
uint64_t clp__splitmix64(uint64_t *counter);
double clp__uniform01(uint64_t *counter);
/* The median of n values (sorts them in place). */
double clp__median(double *values, size_t n);

/* ---- Device queries (device.c): size, allocate, fetch, naming the parameter on failure. */
clp_status clp__device_info_string(cl_device_id dev, cl_device_info param, const char *what,
                                   char **out, clp_error *err);
/* Whether a name selector picks device `d`: a short name of an implementation (pocl, nvidia
 * or cuda, amd or rocm, intel, neo, oclgrind, rusticl, clover) matches that implementation's
 * platform names; any other text matches a part of the platform, vendor or device name. Case
 * is ignored. */
bool clp__device_matches_name(const clp_device_info *d, const char *selector);

/* ---- Source positions (source.c): line `line` of a whole assembled source as the cl/ file
 * and line its last #line directive names, for drivers that ignore #line. */
void clp__source_map_line(const char *source, int line, char file[256], int *mapped);
/* Whether a #line directive of the source names `file`. */
bool clp__source_names_file(const char *source, const char *file);
/* The same source with the integer constant `name` of its prelude set to `value`: for a
 * program built again when a run outgrows one of its constants. */
clp_status clp__source_redefine(const char *source, const char *name, long long value, char **out,
                                clp_error *err);

/* ---- Buffers (buffer_table.c): index of a single CLP_BUF_* bit, or -1 for anything else. */
int clp__buffer_index(clp_buffer_set bit);
/* (buffer.c) Two needs together, such as a grid's and a model's: their totals added, the
 * larger of their largest buffers. */
clp_memory_need clp__memory_need_add(clp_memory_need a, clp_memory_need b);
/* Whether a need fits the device: in all, and its largest buffer in one allocation. */
bool clp__memory_need_fits(const clp_memory_need *need, const clp_device_info *d);

/* ---- Run timing (grid.c): one rebuild's phases added to a run's, and the rebuild counted. */
void clp__run_timing_add_rebuild(clp_run_timing *t, const clp_grid_timing *g);

#endif
