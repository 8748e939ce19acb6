/* clpart's toolkit: status and errors, logging, devices, the option schema and values,
 * source assembly, the program binary cache, workers (context, queue, program, kernels and
 * buffers of one device) and the grid with its neighbour search: what a model is built from.
 * The models, their runs, the probes and split runs are in clpart_app.h; clpart.h has both.
 *
 * Threads: a handle that changes (a worker, an option set) is used by one thread at a time. A
 * loaded schema, a device list and its device infos are only read, and a cache handle takes
 * loads and stores from several threads at once (two storing the same key leave one whole
 * entry), so threads may share them. Set the log level and sink before starting threads. */
#ifndef CLPART_TOOLKIT_H
#define CLPART_TOOLKIT_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CLPART_BUILDING) && defined(__GNUC__)
#define CLP_API __attribute__((visibility("default")))
#else
#define CLP_API
#endif

/* ==== Status and errors ================================================================== */

/* (NAME, message) pairs: the one list behind clp_status, clp_status_name and clp_status_str. */
#define CLP_STATUS_MAP(X)                                                                          \
    X(OK, "success")                                                                               \
    X(NOMEM, "out of host memory")                                                                 \
    X(IO, "file error")                                                                            \
    X(JSON, "malformed JSON")                                                                      \
    X(SCHEMA, "invalid option schema")                                                             \
    X(OPTION_UNKNOWN, "unknown option")                                                            \
    X(OPTION_TYPE, "option value has the wrong type")                                              \
    X(OPTION_RANGE, "option value out of range")                                                   \
    X(OPTION_VALUE, "option value not allowed")                                                    \
    X(OPTION_DEPENDS, "option dependency not met")                                                 \
    X(CASE, "invalid case file")                                                                   \
    X(USAGE, "invalid argument")                                                                   \
    X(NO_PLATFORM, "no OpenCL platform")                                                           \
    X(NO_DEVICE, "no matching OpenCL device")                                                      \
    X(CL, "OpenCL call failed")                                                                    \
    X(BUILD, "device program build failed")                                                        \
    X(DEVICE_MEMORY, "out of device memory")                                                       \
    X(CACHE, "binary cache error")                                                                 \
    X(CHECK, "result check failed")                                                                \
    X(DOMAIN, "particle outside the domain")                                                       \
    X(NEIGHBORS, "neighbour list overflow")                                                        \
    X(CHECKPOINT, "checkpoint does not match this run")                                            \
    X(INTERRUPTED, "run stopped on request")                                                       \
    X(COMM, "communication between ranks failed")

typedef enum clp_status {
#define CLP_STATUS_ENUM(name, msg) CLP_##name,
    CLP_STATUS_MAP(CLP_STATUS_ENUM)
#undef CLP_STATUS_ENUM
        CLP_STATUS_COUNT
} clp_status;

/* Caller-allocated error record; zero-initialise it (CLP_ERROR_INIT). The first error wins. */
typedef struct clp_error {
    clp_status status;       /* CLP_OK while nothing failed */
    cl_int cl_code;          /* the OpenCL error code, 0 if none */
    char source[128];        /* case file, schema, cl/ file or command-line argument */
    int line;                /* line in source, -1 when not applicable */
    int column;              /* column in source, -1 when not applicable */
    char message[256];       /* names the object and gives the numbers */
    const char *origin_file; /* where in clpart it was raised */
    int origin_line;
} clp_error;

#define CLP_ERROR_INIT                                                                             \
    { 0 }

CLP_API const char *clp_status_name(clp_status st); /* "CLP_OPTION_RANGE" */
CLP_API const char *clp_status_str(clp_status st);  /* "option value out of range" */
CLP_API const char *clp_cl_error_name(cl_int code); /* "CL_OUT_OF_RESOURCES" */
CLP_API void clp_error_clear(clp_error *err);

/* The version string, with the git revision when built from a git checkout. */
CLP_API const char *clp_version(void);

/* ==== Logging ============================================================================ */

typedef enum clp_log_level {
    CLP_LOG_ERROR,
    CLP_LOG_WARN,
    CLP_LOG_INFO,
    CLP_LOG_DEBUG
} clp_log_level;

enum {
    CLP_LOG_DEVICE = 1u << 0,
    CLP_LOG_OPTIONS = 1u << 1,
    CLP_LOG_BUILD = 1u << 2,
    CLP_LOG_CACHE = 1u << 3,
    CLP_LOG_BUFFER = 1u << 4,
    CLP_LOG_RUN = 1u << 5,
    CLP_LOG_ALL = (1u << 6) - 1
};

typedef void (*clp_log_sink)(clp_log_level level, unsigned category, const char *text, void *user);

/* Messages at or below `level` are passed on; `debug_categories` selects which categories
 * may also log at CLP_LOG_DEBUG. Defaults: CLP_LOG_WARN, none. */
CLP_API void clp_log_configure(clp_log_level level, unsigned debug_categories);
/* NULL restores the default sink: "clpart: <level> [<category>] <text>" on stderr. */
CLP_API void clp_log_set_sink(clp_log_sink sink, void *user);
/* Parses "build,cache" or "all" into category bits. */
CLP_API clp_status clp_log_parse_categories(const char *spec, unsigned *out, clp_error *err);
CLP_API const char *clp_log_category_name(unsigned category);

/* ==== Devices ============================================================================ */

/* One OpenCL device as clpart sees it. Strings are empty when their query failed;
 * query_error then holds the OpenCL code for that field (see clp_device_field). */
typedef struct clp_device_info {
    size_t index; /* position in the global list: platforms in order, devices in order */
    cl_platform_id platform;
    cl_device_id device;
    char platform_name[128];
    char platform_version[128];
    char name[128];
    char vendor[128];
    char device_version[128];
    char driver_version[128];
    char opencl_c_version[128];
    cl_device_type type;
    cl_uint compute_units;
    cl_ulong global_mem_size;
    cl_ulong local_mem_size;
    cl_ulong max_mem_alloc_size;
    cl_ulong global_mem_cache_size; /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: 0 without one */
    size_t max_work_group_size;
    bool fp64;
    bool simulator;         /* an interpreter such as Oclgrind: chosen only by name or index */
    char *extensions;       /* space-separated list, owned by the list */
    cl_int query_error[16]; /* per clp_device_field, CL_SUCCESS when it was read */
} clp_device_info;

typedef enum clp_device_field {
    CLP_FIELD_PLATFORM_NAME,
    CLP_FIELD_PLATFORM_VERSION,
    CLP_FIELD_NAME,
    CLP_FIELD_VENDOR,
    CLP_FIELD_TYPE,
    CLP_FIELD_DEVICE_VERSION,
    CLP_FIELD_DRIVER_VERSION,
    CLP_FIELD_OPENCL_C_VERSION,
    CLP_FIELD_COMPUTE_UNITS,
    CLP_FIELD_GLOBAL_MEM,
    CLP_FIELD_LOCAL_MEM,
    CLP_FIELD_MAX_ALLOC,
    CLP_FIELD_MAX_WORK_GROUP,
    CLP_FIELD_GLOBAL_CACHE,
    CLP_FIELD_EXTENSIONS,
    CLP_FIELD_COUNT
} clp_device_field;

typedef struct clp_device_list clp_device_list;

/* Enumerates every device of every platform. No platform at all is CLP_NO_PLATFORM with a
 * message that says how to install PoCL. */
CLP_API clp_status clp_device_list_create(clp_device_list **out, clp_error *err);
CLP_API void clp_device_list_destroy(clp_device_list *list);
CLP_API size_t clp_device_list_count(const clp_device_list *list);
/* Borrowed until the list is destroyed. */
CLP_API const clp_device_info *clp_device_list_get(const clp_device_list *list, size_t i);
/* Selector: an index ("1"), a type ("gpu", "cpu", "accelerator"), an implementation's short
 * name ("pocl") or a case-insensitive substring of platform, vendor or device name, or either
 * of those last two with ":K", the K-th (from 0) device it matches ("pocl:1"). NULL or "" means the
 * default: the first GPU, else the first CPU, else the first device. No match is CLP_NO_DEVICE with
 * the list in the message. */
CLP_API clp_status clp_device_select(const clp_device_list *list, const char *selector,
                                     const clp_device_info **out, clp_error *err);
CLP_API const char *clp_device_type_name(cl_device_type type);
/* Whether `ext` appears as a whole word in the device's extension list. */
CLP_API bool clp_device_has_extension(const clp_device_info *dev, const char *ext);

/* ==== Options ============================================================================ */

typedef enum clp_option_type {
    CLP_OPT_BOOL,
    CLP_OPT_INT,
    CLP_OPT_FLOAT,
    CLP_OPT_ENUM
} clp_option_type;

/* Where a value came from, for messages: the default, a case file, a preset, the command line,
 * the run itself (a decision for the device, as sph.fit_device's list-free fallback), or the
 * tuning database (a performance option's value measured best on a device like this one). */
typedef enum clp_origin_kind {
    CLP_ORIGIN_DEFAULT,
    CLP_ORIGIN_CASE,
    CLP_ORIGIN_PRESET,
    CLP_ORIGIN_COMMAND_LINE,
    CLP_ORIGIN_DECIDED,
    CLP_ORIGIN_TUNING
} clp_origin_kind;

typedef struct clp_option_value {
    clp_option_type type;
    bool b;
    long long i; /* int value, or the index of an enum value */
    double f;
    clp_origin_kind origin;
    /* "default", "case.json", "case.json preset \"fast\"", "-s x=y", "the run's decision" */
    char origin_text[160];
} clp_option_value;

/* The schema: every option of every options/<module>.json, in a fixed order. */
typedef struct clp_schema clp_schema;
/* The values of one run, checked against a schema. */
typedef struct clp_options clp_options;

/* Loads every options/<module>.json of `options_dir` (module files in name order). */
CLP_API clp_status clp_schema_load(const char *options_dir, clp_schema **out, clp_error *err);
CLP_API void clp_schema_destroy(clp_schema *schema);
CLP_API size_t clp_schema_count(const clp_schema *schema);
/* Index of the option called `name` ("core.summation"), or -1. */
CLP_API long clp_schema_find(const clp_schema *schema, const char *name);
CLP_API const char *clp_schema_option_name(const clp_schema *schema, size_t i);

/* Values start at the schema's defaults. The schema must outlive the options. */
CLP_API clp_status clp_options_create(const clp_schema *schema, clp_options **out, clp_error *err);
/* A copy of every value and its origin, and of the case's model name. New. */
CLP_API clp_status clp_options_dup(const clp_options *opts, clp_options **out, clp_error *err);
CLP_API void clp_options_destroy(clp_options *opts);
CLP_API const clp_schema *clp_options_schema(const clp_options *opts);
/* Applies a case file's "options" object, then each named preset of its "presets" object in
 * order. Also keeps the case's "model" name. Malformed JSON gives file:line:column. */
CLP_API clp_status clp_options_apply_case(clp_options *opts, const char *case_path,
                                          const char *const *presets, size_t n_presets,
                                          clp_error *err);
/* Applies one "name=value" command-line assignment; `argument` names it in errors. */
CLP_API clp_status clp_options_apply_assignment(clp_options *opts, const char *assignment,
                                                clp_error *err);
/* A tuning database's value for performance option `name` (`value` as -s takes it: "simd",
 * "true"), with `origin_text` ("tuning: FILE, entry 3"): taken only where the option is still
 * at its default, so that a case, a preset or -s always wins; *taken says whether it was.
 * An option that is not a performance option, or not of the schema, or a value it refuses, is
 * CLP_OPTION_* with `origin_text` as the source, and nothing changes. A tuned value behind an
 * unmet dependency changes nothing, as a default there does, and clp_options_check lets it
 * be. */
CLP_API clp_status clp_options_tune(clp_options *opts, const char *name, const char *value,
                                    const char *origin_text, bool *taken, clp_error *err);
/* Whether the value was set by the user: a case, a preset or -s (not a default, the run's
 * decision or the tuning database). */
CLP_API bool clp_option_set_by_user(const clp_option_value *v);
/* Checks every depends_any/depends_all after all values are in. */
CLP_API clp_status clp_options_check(const clp_options *opts, clp_error *err);
/* The case's "model" (NULL when no case named one). Borrowed. */
CLP_API const char *clp_options_model(const clp_options *opts);
/* Borrowed value of option `name`; NULL when there is no such option. */
CLP_API const clp_option_value *clp_options_get(const clp_options *opts, const char *name);
CLP_API bool clp_options_bool(const clp_options *opts, const char *name);
CLP_API long long clp_options_int(const clp_options *opts, const char *name);
CLP_API double clp_options_float(const clp_options *opts, const char *name);
/* The enum value's name ("kbn"), borrowed. */
CLP_API const char *clp_options_enum(const clp_options *opts, const char *name);

/* ==== Source assembly ==================================================================== */

typedef enum clp_constant_type {
    CLP_CONST_INT,
    CLP_CONST_FLOAT,
    CLP_CONST_DOUBLE
} clp_constant_type;

/* A simulation constant the model inlines as `#define <name> <value>`. A physical float
 * constant marked `argument` comes from the CLP_BUF_CONSTANTS kernel argument instead when
 * core.inline_constants is false: `#define <name> (clp_constants[k])`. */
typedef struct clp_constant {
    const char *name;
    clp_constant_type type;
    double value; /* converted to float first for CLP_CONST_FLOAT */
    long long int_value;
    bool argument;
} clp_constant;

/* Writes a float so that it reads back as the same bits: 0x1.555556p-2f followed by the decimal
 * value in a comment. NaN and infinities become NAN, INFINITY, -INFINITY. Locale-independent.
 * Returns `buf`. */
CLP_API char *clp_format_float(float v, char buf[64]);
/* Same for a double, with 17 significant digits in the comment and no suffix. */
CLP_API char *clp_format_double(double v, char buf[64]);

/* What one program is made of: the option modules whose options become #defines, the cl/
 * files (relative to <data dir>/cl) in order, and the inlined constants. */
typedef struct clp_program_spec {
    const char *model;
    const char *const *modules;
    size_t n_modules;
    const char *const *cl_files;
    size_t n_files;
    const clp_constant *constants;
    size_t n_constants;
} clp_program_spec;

/* The generated prelude followed by each cl/ file behind a #line 1 "cl/<path>" directive.
 * The same options and spec give byte-identical text. *out is new, freed by the caller. */
CLP_API clp_status clp_source_assemble(const clp_options *opts, const char *data_dir,
                                       const clp_program_spec *spec, char **out, clp_error *err);
/* The values of the constants that the options pass as a kernel argument, in the order of
 * clp_constants[k], into `values` (room for n_constants); returns how many (0 when inlined). */
CLP_API size_t clp_constant_arguments(const clp_options *opts, const clp_program_spec *spec,
                                      cl_float *values);

/* The self-test's program spec for these options; the spec's arrays are static or live in
 * `storage` (borrowed until the next call with the same storage). */
typedef struct clp_model_storage {
    clp_constant constants[32];
} clp_model_storage;
CLP_API clp_status clp_selftest_spec(const clp_options *opts, clp_model_storage *storage,
                                     clp_program_spec *out, clp_error *err);

/* Finds the folder with options/ and cl/: CLPART_DATA_DIR, next to the executable, the
 * installed data directory, then the source tree. Borrowed, static. */
CLP_API const char *clp_data_dir(void);

/* ==== Program binary cache =============================================================== */

typedef struct clp_cache clp_cache;

typedef struct clp_cache_stats {
    uint64_t entries;
    uint64_t bytes;
    uint64_t hits;
    uint64_t misses;
    uint64_t max_bytes;
} clp_cache_stats;

typedef struct clp_cache_entry {
    char path[512];
    char device[256]; /* "platform / device / driver" from the key record */
    uint64_t bytes;
    int64_t created;   /* Unix seconds */
    int64_t last_used; /* Unix seconds */
} clp_cache_entry;

/* Opens the cache folder `dir`, or when NULL: $CLPART_CACHE_DIR, else $XDG_CACHE_HOME/clpart,
 * else ~/.cache/clpart. A folder that cannot be created or written gives one warning and an
 * open, disabled cache; this is not an error. */
CLP_API clp_status clp_cache_open(const char *dir, clp_cache **out, clp_error *err);
CLP_API void clp_cache_close(clp_cache *cache);
CLP_API bool clp_cache_enabled(const clp_cache *cache);
CLP_API const char *clp_cache_dir(const clp_cache *cache);
/* Size cap in bytes (default 1 GiB, or $CLPART_CACHE_MAX with K/M/G suffix). */
CLP_API void clp_cache_set_max_bytes(clp_cache *cache, uint64_t max_bytes);
CLP_API clp_status clp_cache_stats_get(clp_cache *cache, clp_cache_stats *out, clp_error *err);
/* Entries, most recently used first. *out is new (free()), *count its length. */
CLP_API clp_status clp_cache_list(clp_cache *cache, clp_cache_entry **out, size_t *count,
                                  clp_error *err);
CLP_API clp_status clp_cache_clear(clp_cache *cache, clp_error *err);

/* The key record: every input of a build, as text. *out is new. */
CLP_API char *clp_cache_key_record(const char *source, const char *flags,
                                   const clp_device_info *dev);
/* XXH3-128 of the key record, as 32 hex digits. */
CLP_API void clp_cache_key_hash(const char *record, char hex[33]);

/* Looks up `record`. On a hit *binary (new), *size and *log (new, may be "") are set and
 * *hit is true. A truncated, corrupt or foreign entry is removed with one warning and is a
 * miss. Counts a hit or a miss. */
CLP_API clp_status clp_cache_load(clp_cache *cache, const char *record, unsigned char **binary,
                                  size_t *size, char **log, bool *hit, clp_error *err);
/* Stores an entry atomically (temporary file, fsync, rename), then evicts least recently used
 * entries above the size cap. Failure to write is a warning, not an error. */
CLP_API clp_status clp_cache_store(clp_cache *cache, const char *record,
                                   const unsigned char *binary, size_t size, const char *log,
                                   clp_error *err);

/* ==== Workers: context, queue, program, kernels and buffers of one device ================= */

typedef struct clp_worker clp_worker;

/* How the last program was obtained, for -v and the tests. */
typedef struct clp_build_report {
    bool cache_hit;
    double seconds; /* build or cache load, wall clock */
    char flags[512];
    char key[33];
} clp_build_report;

CLP_API clp_status clp_worker_create(const clp_device_info *dev, clp_worker **out, clp_error *err);
CLP_API void clp_worker_destroy(clp_worker *worker);
CLP_API const clp_device_info *clp_worker_device(const clp_worker *worker);
CLP_API cl_context clp_worker_context(const clp_worker *worker);
CLP_API cl_command_queue clp_worker_queue(const clp_worker *worker);

/* The build flags for this device and these options: -cl-std from the device's OpenCL C
 * version, option flags, vendor flags only where the device lists their extension. New. */
CLP_API clp_status clp_build_flags(const clp_device_info *dev, const clp_options *opts, char **out,
                                   clp_error *err);
/* Builds `source` with `flags` (through `cache` when not NULL) and makes it the worker's
 * program, releasing kernels of a previous one. A build error fills err with the first
 * diagnostic's file:line:column; the whole log is then clp_worker_build_log(). */
CLP_API clp_status clp_worker_build(clp_worker *worker, const char *source, const char *flags,
                                    clp_cache *cache, clp_build_report *report, clp_error *err);
/* clp_worker_build with the flags clp_build_flags gives the worker's device under `opts`. */
CLP_API clp_status clp_worker_build_for(clp_worker *worker, const char *source,
                                        const clp_options *opts, clp_cache *cache,
                                        clp_build_report *report, clp_error *err);
/* The log of the last build (from the cache entry on a hit). Borrowed. */
CLP_API const char *clp_worker_build_log(const clp_worker *worker);
/* The kernel `name` of the current program, created on first use. Borrowed. */
CLP_API clp_status clp_worker_kernel(clp_worker *worker, const char *name, cl_kernel *out,
                                     clp_error *err);
/* Kernel timing through profiling events (off by default). */
CLP_API void clp_worker_set_profiling(clp_worker *worker, bool on);
/* While `*stop` is nonzero (a signal handler's flag; NULL: none), every kernel launch fails with
 * CLP_INTERRUPTED before it is queued: for a long phase of many launches, such as the probes,
 * that ends at the next one. A run's time loop stops at a step instead (clp_run_config). */
CLP_API void clp_worker_set_stop(clp_worker *worker, volatile sig_atomic_t *stop);

/* ---- Buffers: symbolic bitmask names with a traits table (src/worker/buffer_table.c): the
 * the grid's (its per-particle ones the sort and a split run carry) and the constants. Every
 * model owns its own buffers by name (below). */

typedef uint64_t clp_buffer_set; /* an OR of CLP_BUF_* bits */

/* How many elements a buffer has. */
typedef enum clp_buffer_kind {
    CLP_PER_PARTICLE, /* counts.particles */
    CLP_PER_CELL,     /* counts.cells */
    CLP_SINGLE,       /* one element */
    CLP_PER_CUSTOM    /* counts.custom[bit index] */
} clp_buffer_kind;

/* Buffer names. A kernel lists these parameters in bit order, the constants last, so the
 * neighbour-iteration parameters (CLP_GRID_PARAMS in cl/grid) open every model kernel and a
 * model's own buffers follow them (clp_worker_set_step_buffers). */
#define CLP_BUF_BIT(k) ((clp_buffer_set)1 << (k))
/* float4: global position, or offset from the cell centre */
#define CLP_BUF_POS CLP_BUF_BIT(0)
/* uint: cell key */
#define CLP_BUF_KEY CLP_BUF_BIT(1)
/* uint: particle type (split neighbour lists) */
#define CLP_BUF_TYPE CLP_BUF_BIT(2)
/* uint per key: first particle of the cell */
#define CLP_BUF_CELL_START CLP_BUF_BIT(3)
/* uint per key: one past the last particle */
#define CLP_BUF_CELL_END CLP_BUF_BIT(4)
/* uint: neighbour k of particle p at k*N + p */
#define CLP_BUF_NEIB_LIST CLP_BUF_BIT(5)
/* uint: the particle's index at set-up */
#define CLP_BUF_ID CLP_BUF_BIT(6)
/* uint: sorted slot -> previous index */
#define CLP_BUF_PERM CLP_BUF_BIT(7)
/* uint per key: particles per cell (counting sort) */
#define CLP_BUF_CELL_COUNT CLP_BUF_BIT(8)
/* uint[8]: outside count, first outside id, max count */
#define CLP_BUF_GRID_STATUS CLP_BUF_BIT(9)
/* float: the model's constants, when not inlined */
#define CLP_BUF_CONSTANTS CLP_BUF_BIT(10)
/* float4: positions at the last rebuild */
#define CLP_BUF_POS_REBUILT CLP_BUF_BIT(11)
/* uint4 per particle: the sort's scratch, into which the reorder gathers each re-sorted
 * buffer before copying it back (one scratch for all of them, not a second copy of each) */
#define CLP_BUF_SORT_SCRATCH CLP_BUF_BIT(12)
enum { CLP_BUF_COUNT = 13 };

typedef struct clp_buffer_traits {
    clp_buffer_set bit;
    const char *name;         /* "velocity": used in messages */
    const char *element_type; /* OpenCL C type of one component: "float", "uint" */
    size_t element_size;      /* bytes of one component */
    unsigned components;      /* components per element */
    clp_buffer_kind kind;
    bool resorted;            /* follows the particle permutation of a sort */
    const char *needs_option; /* allocated only when this option...        (NULL: always) */
    const char *needs_value;  /* ...has this value (enum name, "true"/"false") */
    bool needs_not;           /* ...or, when set, has any other value */
} clp_buffer_traits;

typedef struct clp_buffer_counts {
    size_t particles;
    size_t cells;
    size_t custom[CLP_BUF_COUNT];
} clp_buffer_counts;

/* The traits of one buffer bit, NULL for an unknown bit. Borrowed, static. */
CLP_API const clp_buffer_traits *clp_buffer_traits_of(clp_buffer_set bit);
/* Which buffers of `wanted` the options need. */
CLP_API clp_buffer_set clp_buffers_needed(clp_buffer_set wanted, const clp_options *opts);
/* The device memory a set of buffers needs: in all, and its largest
 * single allocation, which must fit CL_DEVICE_MAX_MEM_ALLOC_SIZE. */
typedef struct clp_memory_need {
    unsigned long long total, largest;
    const char *largest_name; /* NULL when there is none */
} clp_memory_need;
/* The need of the buffers of `wanted` that the options call for. */
CLP_API clp_memory_need clp_buffers_need(clp_buffer_set wanted, const clp_options *opts,
                                         const clp_buffer_counts *counts);
/* Allocates the needed buffers of `wanted` (releasing any previous ones of those bits). A
 * size over the device's limits, or an allocation failure, is CLP_DEVICE_MEMORY naming the
 * buffer and its bytes. */
CLP_API clp_status clp_worker_alloc(clp_worker *worker, clp_buffer_set wanted,
                                    const clp_options *opts, const clp_buffer_counts *counts,
                                    clp_error *err);
/* The allocated buffers. */
CLP_API clp_buffer_set clp_worker_buffers(const clp_worker *worker);
/* The device buffer, or NULL. Borrowed. */
CLP_API cl_mem clp_worker_buffer(const clp_worker *worker, clp_buffer_set bit);
CLP_API size_t clp_worker_buffer_bytes(const clp_worker *worker, clp_buffer_set bit);
/* Blocking copies between host memory and a whole buffer. */
CLP_API clp_status clp_worker_write(clp_worker *worker, clp_buffer_set bit, const void *data,
                                    clp_error *err);
CLP_API clp_status clp_worker_read(clp_worker *worker, clp_buffer_set bit, void *data,
                                   clp_error *err);

/* One step of a model, as data: a kernel whose arguments are the allocated buffers of
 * `buffers` in bit order, CLP_BUF_CONSTANTS last (a kernel fences an optional argument with the
 * same #if as the buffer's needs), run over `global` work-items with work-group size `local` (0:
 * chosen). */
typedef struct clp_step {
    const char *kernel;
    clp_buffer_set buffers;
    size_t global;
    size_t local;
} clp_step;

CLP_API clp_status clp_worker_run_step(clp_worker *worker, const clp_step *step, double *seconds,
                                       clp_error *err);
/* The step over exactly the work-items first .. first + count - 1 (global ids, as particle
 * indices), not over step->global: the groups of the chosen size, then one smaller group for
 * the rest, so a kernel that guards only against the particle count still leaves the others
 * alone (a multi-device rank computes its own particles, not its halo). */
CLP_API clp_status clp_worker_run_step_range(clp_worker *worker, const clp_step *step, size_t first,
                                             size_t count, double *seconds, clp_error *err);

/* Launches `kernel` over `global` work-items in 1D. local 0 picks the work-group size from
 * the device and kernel; the global size is then rounded up to a multiple of it, so kernels
 * guard their index. With profiling on, *seconds gets the kernel's device time. */
CLP_API clp_status clp_launch(clp_worker *worker, const char *kernel_name, size_t global,
                              size_t local, double *seconds, clp_error *err);
/* The same over exactly the work-items first .. first + count - 1, as
 * clp_worker_run_step_range takes them (the kernel's arguments already set). */
CLP_API clp_status clp_launch_range(clp_worker *worker, const char *kernel_name, size_t first,
                                    size_t count, size_t local, double *seconds, clp_error *err);
/* The work-group size clp_launch would pick. */
CLP_API clp_status clp_launch_local_size(clp_worker *worker, const char *kernel_name, size_t *local,
                                         clp_error *err);

/* ---- Buffers a model declares by name and owns (src/worker/model_buffers.c): no CLP_BUF_* bit
 * and no row of the traits table, so a new model adds none. The model sets them as its kernels'
 * arguments itself (clp_worker_set_arg_buffer, or a table of them: clp_worker_bind_buffers) and
 * launches with clp_launch. */

typedef struct clp_buffer clp_buffer;

/* A buffer of `bytes` bytes named `name` ("<model>.pos": 1 to 63 characters, used in
 * messages), zeroed, which the worker releases at clp_worker_destroy unless
 * clp_worker_buffer_free does first. A name the worker holds already gets new memory under the
 * same handle (the old memory released), so a second run on one worker reuses its buffers. A
 * size over the device's largest allocation, or an allocation failure, is CLP_DEVICE_MEMORY
 * naming the buffer and its bytes. *out is borrowed from the worker. */
CLP_API clp_status clp_worker_buffer_create(clp_worker *worker, const char *name, size_t bytes,
                                            clp_buffer **out, clp_error *err);
/* clp_worker_buffer_create of `count` buffers, names[i] of bytes[i] bytes, into out[i]; their
 * total over the device's memory is refused first, as CLP_DEVICE_MEMORY with its bytes. */
CLP_API clp_status clp_worker_buffers_create(clp_worker *worker, const char *const *names,
                                             const size_t *bytes, size_t count, clp_buffer **out,
                                             clp_error *err);
/* The worker's buffer named `name`, or NULL. Borrowed. */
CLP_API clp_buffer *clp_worker_buffer_find(const clp_worker *worker, const char *name);
/* Releases a buffer of the worker's now (NULL: nothing). */
CLP_API void clp_worker_buffer_free(clp_worker *worker, clp_buffer *buffer);
/* The buffer's device memory, bytes and name. Borrowed. */
CLP_API cl_mem clp_buffer_mem(const clp_buffer *buffer);
CLP_API size_t clp_buffer_size(const clp_buffer *buffer);
CLP_API const char *clp_buffer_name(const clp_buffer *buffer);
/* The buffers the worker holds for models, in the order created: up to `most` into out (NULL:
 * none), and their number. */
CLP_API size_t clp_worker_owned_buffers(const clp_worker *worker, const clp_buffer **out,
                                        size_t most);
/* Blocking copies between host memory and the whole buffer; a buffer of another worker is
 * CLP_USAGE. */
CLP_API clp_status clp_worker_buffer_write(clp_worker *worker, clp_buffer *buffer, const void *data,
                                           clp_error *err);
CLP_API clp_status clp_worker_buffer_read(clp_worker *worker, const clp_buffer *buffer, void *data,
                                          clp_error *err);
/* A blocking read of bytes offset .. offset + bytes - 1 of the buffer, and the zeroing of such a
 * range (whole 4-byte words), queued; a range outside the buffer is CLP_USAGE. */
CLP_API clp_status clp_worker_buffer_read_range(clp_worker *worker, const clp_buffer *buffer,
                                                size_t offset, size_t bytes, void *data,
                                                clp_error *err);
CLP_API clp_status clp_worker_buffer_zero_range(clp_worker *worker, clp_buffer *buffer,
                                                size_t offset, size_t bytes, clp_error *err);
/* Sets argument `index` of kernel `kernel` of the current program: `size` bytes at `value` (a
 * scalar, or NULL with a size for local memory), or the buffer. A kernel keeps its arguments
 * from launch to launch, until a new program is built. Errors name the kernel, the argument and
 * the buffer or size. */
CLP_API clp_status clp_worker_set_arg(clp_worker *worker, const char *kernel, cl_uint index,
                                      size_t size, const void *value, clp_error *err);
CLP_API clp_status clp_worker_set_arg_buffer(clp_worker *worker, const char *kernel, cl_uint index,
                                             const clp_buffer *buffer, clp_error *err);

/* A kernel that takes CLP_BUF_* buffers of the grid's and a model's own: clp_worker_run_step sets
 * the step's buffers the worker holds as its first arguments, and this sets the `count` buffers
 * after them, in order. Set before each run of the step: how many bits come first depends on
 * what the options allocated, and a program built again drops the arguments. */
CLP_API clp_status clp_worker_set_step_buffers(clp_worker *worker, const clp_step *step,
                                               clp_buffer *const *buffers, size_t count,
                                               clp_error *err);

/* One kernel's buffer arguments, as a row of a model's table: the kernel's name, the variants
 * of the model's program that hold it (a bit mask the model defines; 0 is read as every
 * variant) and, from argument 0 on, the index of each argument's buffer in the model's array,
 * CLP_ARGS_END closing the list. */
enum { CLP_MOST_BUFFER_ARGS = 12, CLP_ARGS_END = -1 };
typedef struct clp_kernel_buffers {
    const char *kernel;
    unsigned variants;
    signed char args[CLP_MOST_BUFFER_ARGS];
} clp_kernel_buffers;
/* Sets the buffer arguments of each of the `rows` kernels whose variants include `variant`
 * (clp_worker_set_arg_buffer), once: a kernel keeps them from launch to launch. */
CLP_API clp_status clp_worker_bind_buffers(clp_worker *worker, const clp_kernel_buffers *table,
                                           size_t rows, unsigned variant,
                                           clp_buffer *const *buffers, clp_error *err);

/* ==== Grid and neighbour search ========================================================== */

/* The domain of a particle set: a box, each axis periodic or walled (options
 * grid.periodic_x/y/z), with cells at least as wide as the search radius. */
typedef struct clp_grid_desc {
    double origin[3];
    double size[3];
    double radius; /* influence radius: interactions stop here */
} clp_grid_desc;

/* What the options and the domain make of the grid. */
typedef struct clp_grid_geometry {
    int dim; /* core.dim */
    double origin[3];
    double size[3];
    double radius;
    double search_radius; /* radius * (1 + neighbors.skin) */
    int cells[3];         /* per axis; 1 on the unused axis in 2D */
    double cell_size[3];  /* size / cells, at least search_radius */
    bool periodic[3];
    uint32_t key_count;     /* cell keys 0..key_count-1; key_count marks "outside" */
    uint32_t max_neighbors; /* neighbors.max in list mode: 0 sizes the list as it runs */
    bool bits;              /* neighbors.format=bits: a bit per candidate (cl/grid/list_bits.cl) */
    uint32_t cell_words;    /* bits: 32-bit words a cell takes at first, for the fullest expected */
    /* Work-items that read one particle's list together, each every list_lanes-th entry
     * (1 unless the model sets more): a plain list ends in that many end markers, so each
     * reader meets one. */
    uint32_t list_lanes;
    /* Buffers a list of bits takes (neighbors.pieces; 0 or 1: one), each holding the list of
     * clp_grid_list_stride() particles, the last the rest. */
    uint32_t list_pieces;
    /* The model bounds how far particles move between rebuilds itself and rebuilds before the
     * bound passes half the skin (SPH): the grid keeps no positions of the last rebuild to
     * measure the moves, and a rebuild checks none. */
    bool moves_bounded;
    /* The model lends the sort its scratch and permutation (clp_grid_lend_sort): the grid
     * allocates neither. */
    bool sort_borrowed;
} clp_grid_geometry;

CLP_API clp_status clp_grid_geometry_make(const clp_options *opts, const clp_grid_desc *desc,
                                          clp_grid_geometry *out, clp_error *err);
/* The most words a cell a list of bits takes (cells of 992 particles); fuller cells take a
 * list of indices (neighbors.format=index). */
enum { CLP_GRID_BITS_MOST_CELL_WORDS = 31 };
/* The most buffers a neighbour list is split into (neighbors.pieces). */
enum { CLP_LIST_MOST_PIECES = 64 };
/* The words of a particle's list of bits: which cells have a neighbour, and cell_words for
 * each of the 3^d cells around it. */
CLP_API size_t clp_grid_bits_words(const clp_grid_geometry *g);
/* The particles a piece of the list holds: all of them in one piece; large pieces a multiple
 * of 1024. */
CLP_API size_t clp_grid_list_stride(const clp_grid_geometry *g, size_t particles);
/* The inlined constants the grid's cl/ files need (CLP_GRID_*), for source assembly, with
 * the particle count. Writes at most `max`; returns how many there are. */
CLP_API size_t clp_grid_constants(const clp_grid_geometry *g, size_t particles, clp_constant *out,
                                  size_t max);
/* The cl/ files of the grid, in assembly order (NULL-terminated, static): CLP_GRID_CL_FILES
 * of them, for the arrays of a program's files. */
enum { CLP_GRID_CL_FILES = 11 };
CLP_API const char *const *clp_grid_cl_files(void);
/* The buffers a kernel that iterates over neighbours takes, in bit order: CLP_GRID_PARAMS. */
CLP_API clp_buffer_set clp_grid_iteration_buffers(const clp_options *opts);

/* Every buffer the grid may allocate; clp_buffers_needed keeps those the options need. */
#define CLP_GRID_BUFFERS                                                                           \
    (CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_ID | CLP_BUF_PERM | CLP_BUF_CELL_START |   \
     CLP_BUF_CELL_END | CLP_BUF_CELL_COUNT | CLP_BUF_NEIB_LIST | CLP_BUF_GRID_STATUS |             \
     CLP_BUF_POS_REBUILT | CLP_BUF_SORT_SCRATCH)

typedef struct clp_grid clp_grid;

/* The grid of a worker whose program contains clp_grid_cl_files() built with
 * clp_grid_constants(). Allocates the grid's buffers, and releases those of the grid's an
 * earlier run left that these options do not need. Every re-sorted buffer, the grid's and those
 * a model has it carry, must hold one element per particle (else an update is CLP_USAGE). */
CLP_API clp_status clp_grid_create(clp_worker *worker, const clp_options *opts,
                                   const clp_grid_geometry *geometry, size_t particles,
                                   clp_grid **out, clp_error *err);
CLP_API void clp_grid_destroy(clp_grid *grid);
/* Uploads positions (x, y, z per particle, in double) and types (NULL: all 0). With local
 * positions the cell and the offset from its centre are computed here in double, so no
 * digit of a position is lost to the domain's size. IDs become 0..N-1. */
CLP_API clp_status clp_grid_set_particles(clp_grid *grid, const double *xyz, const uint32_t *types,
                                          clp_error *err);
/* The device memory the grid's buffers need for `particles`; with neighbors.max 0 the list,
 * sized at the first rebuild, is not counted. */
CLP_API clp_memory_need clp_grid_memory_need(const clp_grid_geometry *geometry,
                                             const clp_options *opts, size_t particles);
/* The least device-memory traffic in bytes of one rebuild of `particles` with `neighbours`
 * listed per particle: every element each phase must read or write once. The second gives
 * it by phase: keys, sort and reorder; and the list build. */
CLP_API double clp_grid_update_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                                     size_t particles, double neighbours);
CLP_API void clp_grid_update_phase_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                                         size_t particles, double neighbours, double *sort,
                                         double *list);
/* One rebuild: cell keys, sort (every re-sorted buffer follows), cell ranges and, in list
 * mode, the neighbour list. Particles outside a walled domain are CLP_DOMAIN with the count
 * and an index. With neighbors.max 0 the first list build sizes the list at the largest count
 * and a quarter more, and a later one that finds more neighbours grows it and builds again;
 * a list that would not fit the device is CLP_DEVICE_MEMORY. With a fixed neighbors.max,
 * more neighbours is CLP_NEIGHBORS with the largest count; so is a particle that moved more than
 * half the skin since the last rebuild (with neighbors.every above 1), since pairs may then have
 * been missed. */
CLP_API clp_status clp_grid_update(clp_grid *grid, clp_error *err);
/* With geometry.sort_borrowed: the sort's scratch (16 bytes a particle) and permutation (4)
 * live in the model's own buffers `scratch` and `perm` (model_buffers.c) from now on, which
 * must hold at least as much and whose contents a rebuild may overwrite (buffers a step writes
 * before it reads them, such as rates of change). Before the first update, and again after
 * either is made anew. */
CLP_API clp_status clp_grid_lend_sort(clp_grid *grid, const clp_buffer *scratch,
                                      const clp_buffer *perm, clp_error *err);
/* A model's own buffer (model_buffers.c) of one 4- or 16-byte element a particle that follows
 * the particles' permutation from now on: each sort gathers it after the re-sorted bits, and a
 * split run's migration carries it after them. Up to CLP_GRID_MOST_CARRIED; one given again is
 * carried once. */
enum { CLP_GRID_MOST_CARRIED = 16 };
CLP_API clp_status clp_grid_carry(clp_grid *grid, const clp_buffer *buffer, clp_error *err);
/* The buffers clp_grid_carry gave, in order: up to `most` into out, and their number. */
CLP_API size_t clp_grid_carried(const clp_grid *grid, const clp_buffer **out, size_t most);
/* From now on the list is built for slots first .. first + count - 1 only (count 0: all): a
 * multi-device rank's own particles, whose forces it computes; its halo's lists would go
 * unread. The other slots' lists are left as they were. */
CLP_API void clp_grid_list_only(clp_grid *grid, size_t first, size_t count);
/* The check that begins clp_grid_update, alone: CLP_NEIGHBORS when a particle moved more than
 * half the skin since the last rebuild (for a multi-device rebuild, which moves particles
 * between devices before its update). */
CLP_API clp_status clp_grid_check_moved(clp_grid *grid, clp_error *err);
/* After a restart: the neighbour list again from the current positions and the restored
 * keys and cell ranges, without a sort, so the neighbours come in the order of the run that
 * wrote the checkpoint. */
CLP_API clp_status clp_grid_relist(clp_grid *grid, clp_error *err);
/* The particle type a model gives a particle it takes out of the computation: the next sort
 * moves it outside the grid, where no search finds it (CLP_GRID_EXCLUDED in cl/grid/grid.cl). */
enum { CLP_GRID_EXCLUDED = 255 };
/* Whether step `step` (0, 1, ...) rebuilds: every neighbors.every steps. */
CLP_API bool clp_grid_rebuilds_at(const clp_grid *grid, uint64_t step);
/* neighbors.check: whether a rebuild is also due once a particle has moved more than half the
 * skin since the last one, which the model measures (clp_grid_moved) after each move. */
CLP_API bool clp_grid_checks_moves(const clp_grid *grid);
/* The largest distance a particle has moved since the last rebuild (0 when the list is built
 * every step), measured on the device: a launch and a read that waits for it. */
CLP_API clp_status clp_grid_moved(clp_grid *grid, double *moved, clp_error *err);
/* Counts a step of the particles, which moved the largest distance `moved` since the last
 * rebuild (0 without neighbors.check), and says whether the list must be rebuilt before
 * the next forces: neighbors.every steps after the last rebuild, or with neighbors.check once
 * `moved` passes half the skin (LAMMPS's neigh_modify check yes). */
CLP_API bool clp_grid_step_done(clp_grid *grid, double moved);
/* Positions in double (rebuilt from cell and offset with local positions) and original IDs,
 * in the current (sorted) order. Either may be NULL. */
CLP_API clp_status clp_grid_read_particles(clp_grid *grid, double *xyz, uint32_t *ids,
                                           clp_error *err);
/* The capacity a list sized from the counts (neighbors.max 0) takes for a largest count:
 * a quarter more, and 4. For estimates of the memory a case will need. */
CLP_API uint32_t clp_grid_list_room(uint32_t largest);
/* The largest neighbour count seen by the last list build (list mode; 0 otherwise). */
CLP_API uint32_t clp_grid_max_neighbors_seen(const clp_grid *grid);
/* The neighbours the list holds per particle now (list mode; 0 otherwise, and before the
 * first build when neighbors.max is 0). */
CLP_API uint32_t clp_grid_list_capacity(const clp_grid *grid);
/* Seconds of the last update's phases (with profiling on): keys, sort, reorder, list. */
typedef struct clp_grid_timing {
    double keys, sort, reorder, list;
} clp_grid_timing;
CLP_API clp_grid_timing clp_grid_last_timing(const clp_grid *grid);

#ifdef __cplusplus
}
#endif

#endif
