/* The per-device worker: owns the context, queue and program of one device, and builds
 * programs through the binary cache (a hit loads the stored binary, a miss builds and
 * stores). Kernels are created in launch.c and released here with their program; buffers
 * are in buffer.c. */
#include "worker/worker_private.h"

#include <stdlib.h>
#include <string.h>

clp_status clp_worker_create(const clp_device_info *dev, clp_worker **out, clp_error *err) {
    clp_status st = CLP_OK;
    cl_int rc;
    clp_worker *w = calloc(1, sizeof *w);
    CLP_REQUIRE_ALLOC(w, err);
    w->device = *dev;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform, 0};
    w->context = clCreateContext(props, 1, &dev->device, NULL, NULL, &rc);
    CLP_CL_CHECK(rc, err, "device '%s': clCreateContext", dev->name);
    w->queue = clCreateCommandQueue(w->context, dev->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    CLP_CL_CHECK(rc, err, "device '%s': clCreateCommandQueue", dev->name);
    CLP_INFO(CLP_LOG_DEVICE, "device %zu: %s / %s (%s)", dev->index, dev->platform_name, dev->name,
             dev->driver_version);
    *out = w;
    return CLP_OK;
fail:
    clp_worker_destroy(w);
    return st;
}

/* Releases every kernel of the program (launch.c creates them on first use). */
static void release_kernels(clp_worker *w) {
    for (size_t i = 0; i < w->n_kernels; i++) {
        if (clReleaseKernel(w->kernels[i].kernel) != CL_SUCCESS)
            CLP_DEBUG(CLP_LOG_RUN, "clReleaseKernel(%s) failed", w->kernels[i].name);
        free(w->kernels[i].name);
    }
    w->n_kernels = 0;
}

static void release_program(clp_worker *w) {
    release_kernels(w);
    if (w->program && clReleaseProgram(w->program) != CL_SUCCESS)
        CLP_DEBUG(CLP_LOG_BUILD, "clReleaseProgram failed");
    w->program = NULL;
    free(w->build_log);
    w->build_log = NULL;
}

void clp_worker_destroy(clp_worker *w) {
    if (!w)
        return;
    release_program(w);
    free(w->source);
    free(w->flags);
    clp__worker_release_buffers(w);
    clp__worker_release_owned(w);
    if (w->queue)
        clReleaseCommandQueue(w->queue);
    if (w->context)
        clReleaseContext(w->context);
    free(w);
}

const clp_device_info *clp_worker_device(const clp_worker *w) {
    return &w->device;
}

cl_context clp_worker_context(const clp_worker *w) {
    return w->context;
}

cl_command_queue clp_worker_queue(const clp_worker *w) {
    return w->queue;
}

void clp_worker_set_profiling(clp_worker *w, bool on) {
    w->profiling = on;
}

void clp_worker_set_stop(clp_worker *w, volatile sig_atomic_t *stop) {
    w->stop = stop;
}

const char *clp_worker_build_log(const clp_worker *w) {
    return w->build_log ? w->build_log : "";
}

static clp_status fetch_build_log(clp_worker *w, cl_program program, char **out, clp_error *err) {
    clp_status st = CLP_OK;
    size_t size = 0;
    char *log = NULL;
    CLP_CL_CHECK(
        clGetProgramBuildInfo(program, w->device.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size), err,
        "clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)");
    log = calloc(size + 1, 1);
    CLP_REQUIRE_ALLOC(log, err);
    CLP_CL_CHECK(
        clGetProgramBuildInfo(program, w->device.device, CL_PROGRAM_BUILD_LOG, size, log, NULL),
        err, "clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)");
    *out = log;
    return CLP_OK;
fail:
    free(log);
    return st;
}

/* Reads "<file>:<line>:<column>: <rest>" into its parts; false if the line is not one. */
static bool parse_location(const char *line, char file[256], int *ln, int *col, const char **rest) {
    int used = 0;
    if (sscanf(line, "%255[^: ]:%d:%d: %n", file, ln, col, &used) != 3 || used == 0)
        return false;
    *rest = line + used;
    return true;
}

/* Finds the first error of a build log and raises it with its place. Two formats are known:
 * Clang's "<file>:<line>:<column>: error: <text>" (NVIDIA, Oclgrind) and PoCL's
 * "error: <file>:<line>:<column>: <text>". Where the driver kept the #line names, <file> is
 * already one of them (a cl/ path, or a case file's user code); otherwise the line is mapped
 * through the source's #line directives. */
static clp_status raise_build_error(const clp_worker *w, const char *source, const char *log,
                                    clp_error *err) {
    for (const char *p = log; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[512], file[256];
        int ln, col;
        const char *rest;
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        bool clang_form =
            parse_location(line, file, &ln, &col, &rest) &&
            (strncmp(rest, "error:", 6) == 0 || strncmp(rest, "fatal error:", 12) == 0);
        bool pocl_form = !clang_form && strncmp(line, "error: ", 7) == 0 &&
                         parse_location(line + 7, file, &ln, &col, &rest);
        if (clang_form || pocl_form) {
            if (!clp__source_names_file(source, file))
                clp__source_map_line(source, ln, file, &ln);
            return CLP_FAIL_AT(err, CLP_BUILD, file, ln, col, "build failed on device '%s': %s%s",
                               w->device.name, pocl_form ? "error: " : "", rest);
        }
        p = eol ? eol + 1 : NULL;
    }
    return CLP_FAIL(err, CLP_BUILD, "build failed on device '%s' (see the build log)",
                    w->device.name);
}

static clp_status program_binary(clp_worker *w, unsigned char **out, size_t *size, clp_error *err) {
    clp_status st = CLP_OK;
    unsigned char *binary = NULL;
    CLP_CL_CHECK(clGetProgramInfo(w->program, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL),
                 err, "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
    binary = malloc(*size ? *size : 1);
    CLP_REQUIRE_ALLOC(binary, err);
    CLP_CL_CHECK(clGetProgramInfo(w->program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL),
                 err, "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    *out = binary;
    return CLP_OK;
fail:
    free(binary);
    return st;
}

/* A stored binary that the driver refuses is a miss: warn and build from source. */
static bool load_binary(clp_worker *w, const unsigned char *binary, size_t size,
                        const char *flags) {
    cl_int rc, binary_status = CL_SUCCESS;
    cl_program program = clCreateProgramWithBinary(w->context, 1, &w->device.device, &size, &binary,
                                                   &binary_status, &rc);
    if (rc == CL_SUCCESS && binary_status == CL_SUCCESS)
        rc = clBuildProgram(program, 1, &w->device.device, flags, NULL, NULL);
    else if (rc == CL_SUCCESS)
        rc = binary_status;
    if (rc != CL_SUCCESS) {
        CLP_WARN(CLP_LOG_CACHE, "cached binary rejected by device '%s' (%s); rebuilding",
                 w->device.name, clp_cl_error_name(rc));
        if (program)
            clReleaseProgram(program);
        return false;
    }
    w->program = program;
    return true;
}

static clp_status build_from_source(clp_worker *w, const char *source, const char *flags,
                                    clp_error *err) {
    clp_status st = CLP_OK;
    cl_int rc;
    cl_program program = clCreateProgramWithSource(w->context, 1, &source, NULL, &rc);
    CLP_CL_CHECK(rc, err, "device '%s': clCreateProgramWithSource", w->device.name);
    rc = clBuildProgram(program, 1, &w->device.device, flags, NULL, NULL);
    if (rc == CL_BUILD_PROGRAM_FAILURE) {
        CLP_TRY(fetch_build_log(w, program, &w->build_log, err));
        st = raise_build_error(w, source, w->build_log, err);
        goto fail;
    }
    CLP_CL_CHECK(rc, err, "device '%s': clBuildProgram(\"%s\")", w->device.name, flags);
    CLP_TRY(fetch_build_log(w, program, &w->build_log, err));
    w->program = program;
    return CLP_OK;
fail:
    if (program)
        clReleaseProgram(program);
    return st;
}

clp_status clp_worker_build(clp_worker *w, const char *source, const char *flags, clp_cache *cache,
                            clp_build_report *report, clp_error *err) {
    clp_status st = CLP_OK;
    unsigned char *binary = NULL;
    char *cached_log = NULL;
    size_t size = 0;
    bool hit = false;
    double start = clp__now();
    release_program(w);
    char *record = clp_cache_key_record(source, flags, &w->device);
    CLP_REQUIRE_ALLOC(record, err);
    clp_build_report rep = {0};
    snprintf(rep.flags, sizeof rep.flags, "%s", flags);
    clp_cache_key_hash(record, rep.key);

    if (cache && clp_cache_enabled(cache)) {
        CLP_TRY(clp_cache_load(cache, record, &binary, &size, &cached_log, &hit, err));
        if (hit && load_binary(w, binary, size, flags)) {
            w->build_log = cached_log;
            cached_log = NULL;
            rep.cache_hit = true;
        }
        free(binary);
        binary = NULL;
    }
    if (!rep.cache_hit) {
        CLP_TRY(build_from_source(w, source, flags, err));
        if (cache && clp_cache_enabled(cache)) {
            CLP_TRY(program_binary(w, &binary, &size, err));
            CLP_TRY(clp_cache_store(cache, record, binary, size, w->build_log, err));
        }
    }
    free(w->source);
    free(w->flags);
    w->source = strdup(source);
    w->flags = strdup(flags);
    CLP_REQUIRE(w->source && w->flags, err, CLP_NOMEM, "out of host memory");
    rep.seconds = clp__now() - start;
    CLP_INFO(CLP_LOG_BUILD, "%s %s in %.3f s (flags: %s)",
             rep.cache_hit ? "cache hit: loaded program" : "built program", rep.key, rep.seconds,
             flags);
    if (strstr(clp_worker_build_log(w), "warning"))
        CLP_INFO(CLP_LOG_BUILD, "build log:\n%s", clp_worker_build_log(w));
    if (report)
        *report = rep;
fail:
    free(record);
    free(binary);
    free(cached_log);
    return st;
}

clp_status clp_worker_build_for(clp_worker *w, const char *source, const clp_options *opts,
                                clp_cache *cache, clp_build_report *report, clp_error *err) {
    char *flags = NULL;
    clp_status st = clp_build_flags(&w->device, opts, &flags, err);
    if (st == CLP_OK)
        st = clp_worker_build(w, source, flags, cache, report, err);
    free(flags);
    return st;
}

clp_status clp__worker_rebuild_with(clp_worker *w, const char *name, long long value,
                                    clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL, *flags = NULL;
    CLP_REQUIRE(w->source && w->flags, err, CLP_USAGE, "no program is built to build again");
    CLP_TRY(clp__source_redefine(w->source, name, value, &source, err));
    flags = strdup(w->flags);
    CLP_REQUIRE_ALLOC(flags, err);
    CLP_TRY(clp_worker_build(w, source, flags, NULL, NULL, err));
fail:
    free(source);
    free(flags);
    return st;
}
