/* A particle swarm on the device: the layout of its fields, the program (cl/pso with the
 * swarm's constants and, for pso.objective=user, the case's code in place of the marker in
 * cl/pso/objectives.cl), and the iterations, which stay on the device until read. */
#include "models/pso/pso.h"
#include "models/models.h"

#include <stdlib.h>
#include <string.h>

static const char *const files[] = {"common/philox.cl", "pso/layout.cl", "pso/objectives.cl",
                                    "pso/pso.cl"};
static const char marker[] = "/* CLP_PSO_USER_OBJECTIVE */";

enum { REDUCE_GROUP = 256, MOST_GROUPS = 1024 };

clp_status clp__pso_layout_make(const clp_options *opts, int dim, clp__pso_field_layout *out,
                                clp_error *err) {
    const char *used = dim == 3 ? "pso.layout" : "pso.wide_layout";
    const char *unused = dim == 3 ? "pso.wide_layout" : "pso.layout";
    if (clp_option_set_by_user(clp_options_get(opts, unused)))
        return CLP_FAIL(err, CLP_CASE, "%s applies to %s dimensions and this swarm has %d: set %s",
                        unused, dim == 3 ? "other than 3" : "3", dim, used);
    clp__pso_field_layout l = {.chunk = 1};
    if (dim == 3) {
        const clp__pso_layout layout = clp__pso_layout_of(opts);
        l.name = clp__pso_layout_name(layout);
        l.narrow = layout;
        l.aos = layout == CLP_PSO_LAYOUT_AOS || layout == CLP_PSO_LAYOUT_AOS_SELECTIVE;
        l.chunk = layout == CLP_PSO_LAYOUT_SOA_PADDED ? 4 : 3;
    } else {
        const clp__pso_wide_layout wide = clp__pso_wide_layout_of(opts);
        static const int chunks[CLP_PSO_WIDE_LAYOUT_COUNT] = {[CLP_PSO_WIDE_LAYOUT_CHUNK2] = 2,
                                                              [CLP_PSO_WIDE_LAYOUT_CHUNK4] = 4,
                                                              [CLP_PSO_WIDE_LAYOUT_CHUNK8] = 8,
                                                              [CLP_PSO_WIDE_LAYOUT_CHUNK16] = 16};
        l.name = clp__pso_wide_layout_name(wide);
        l.wide = wide;
        l.chunk = chunks[wide] ? chunks[wide] : 1;
    }
    l.dim_padded = ((size_t)dim + (size_t)l.chunk - 1) / (size_t)l.chunk * (size_t)l.chunk;
    *out = l;
    return CLP_OK;
}

size_t clp__pso_position_index(const clp__pso_field_layout *l, size_t particles, int dim, size_t p,
                               size_t c) {
    if (l->aos)
        return p * 9 + c;
    if (dim == 3)
        return p * (size_t)l->chunk + c;
    if (l->wide == CLP_PSO_WIDE_LAYOUT_NAIVE)
        return p * (size_t)dim + c;
    const size_t k = (size_t)l->chunk, chunk = c / k;
    return (chunk * particles + p) * k + c % k;
}

static size_t groups_of(size_t particles) {
    const size_t groups = (particles + REDUCE_GROUP - 1) / REDUCE_GROUP;
    return groups < MOST_GROUPS ? groups : MOST_GROUPS;
}

static size_t constants_of(const clp__pso_params *p, clp_constant *out) {
    size_t n = 0;
    out[n++] =
        (clp_constant){"CLP_PSO_PARTICLES", CLP_CONST_INT, 0, (long long)p->particles, false};
    out[n++] = (clp_constant){"CLP_PSO_DIM", CLP_CONST_INT, 0, p->dim, false};
    out[n++] = (clp_constant){"CLP_PSO_INERTIA", CLP_CONST_FLOAT, p->inertia, 0, false};
    out[n++] = (clp_constant){"CLP_PSO_COGNITIVE", CLP_CONST_FLOAT, p->cognitive, 0, false};
    out[n++] = (clp_constant){"CLP_PSO_SOCIAL", CLP_CONST_FLOAT, p->social, 0, false};
    out[n++] = (clp_constant){"CLP_PSO_LOWER", CLP_CONST_FLOAT, p->lower, 0, false};
    out[n++] = (clp_constant){"CLP_PSO_UPPER", CLP_CONST_FLOAT, p->upper, 0, false};
    out[n++] = (clp_constant){"CLP_PSO_VMAX", CLP_CONST_FLOAT, p->vmax, 0, false};
    out[n++] = (clp_constant){"CLP_PSO_SEED_LO", CLP_CONST_INT, 0,
                              (long long)(p->seed & 0xffffffffu), false};
    out[n++] =
        (clp_constant){"CLP_PSO_SEED_HI", CLP_CONST_INT, 0, (long long)(p->seed >> 32), false};
    out[n++] = (clp_constant){"CLP_PSO_GROUPS", CLP_CONST_INT, 0,
                              (long long)groups_of(p->particles), false};
    return n;
}

/* Puts the user's code where the marker stands: behind a #line naming the case file, so that
 * a compiler message points into it, then a #line back to cl/pso/objectives.cl. */
static clp_status insert_user_code(char **source, const clp__pso_params *p, clp_error *err) {
    clp_status st = CLP_OK;
    char *at = strstr(*source, marker);
    CLP_REQUIRE(at, err, CLP_IO, "cl/pso/objectives.cl has no user objective marker: %s", marker);
    /* the marker's line in objectives.cl: lines since the #line 1 that opens the file */
    const char *file = strstr(*source, "#line 1 \"cl/pso/objectives.cl\"");
    int line = 0;
    for (const char *q = file; q && q < at; q++)
        line += *q == '\n';
    clp_strbuf sb = {0};
    clp__sb_append_n(&sb, *source, (size_t)(at - *source));
    clp__sb_appendf(&sb, "#line %d \"%s\"\n", p->user_line > 0 ? p->user_line : 1,
                    p->user_origin ? p->user_origin : "user objective");
    clp__sb_appendf(&sb, p->user_is_expression ? "return (%s);\n" : "%s\n", p->user_code);
    clp__sb_appendf(&sb, "#line %d \"cl/pso/objectives.cl\"\n", line + 1);
    clp__sb_append(&sb, at + strlen(marker));
    char *text = clp__sb_take(&sb);
    CLP_REQUIRE_ALLOC(text, err);
    free(*source);
    *source = text;
fail:
    return st;
}

clp_status clp__pso_source(const clp_options *opts, const clp__pso_params *p, char **out,
                           clp_error *err) {
    clp_constant constants[16];
    const size_t nc = constants_of(p, constants);
    const bool user = clp__pso_objective_of(opts) == CLP_PSO_OBJECTIVE_USER;
    clp__pso_field_layout layout;
    /* a layout for another number of dimensions is refused here, before any build, so that
     * clpart tune leaves it out of the space */
    clp_status st = clp__pso_layout_make(opts, p->dim, &layout, err);
    if (st != CLP_OK)
        return st;
    if (user && !(p->user_code && *p->user_code))
        return CLP_FAIL_AT(err, CLP_CASE, p->user_origin ? p->user_origin : "case", -1, -1,
                           "pso.objective=user needs the objective's code in the case file "
                           "(\"objective\": {\"expression\": ...} or {\"function\": ...})");
    size_t n_modules;
    const char *const *modules = clp__model_modules("pso", &n_modules);
    const clp_program_spec spec = {
        "pso", modules, n_modules, files, sizeof files / sizeof files[0], constants, nc};
    st = clp_source_assemble(opts, clp_data_dir(), &spec, out, err);
    if (st == CLP_OK && user)
        st = insert_user_code(out, p, err);
    return st;
}

/* The swarm's buffers, its own (model_buffers.c), in the order they are made. */
enum { POS, VEL, BEST_POS, BEST_VAL, LOCAL_BEST, GLOBAL, PARTIAL, HISTORY, STATE, BUFFERS };
const char *const clp__pso_buffers[BUFFERS + 1] = {[POS] = "pso.pos",
                                                   [VEL] = "pso.vel",
                                                   [BEST_POS] = "pso.best_pos",
                                                   [BEST_VAL] = "pso.best_val",
                                                   [LOCAL_BEST] = "pso.local_best",
                                                   [GLOBAL] = "pso.global",
                                                   [PARTIAL] = "pso.partial",
                                                   [HISTORY] = "pso.history",
                                                   [STATE] = "pso.state",
                                                   [BUFFERS] = NULL};

struct clp__pso_system {
    clp_worker *worker;
    clp_options *opts;
    clp__pso_params params;
    clp__pso_field_layout layout;
    size_t history;
    size_t iterations; /* done so far */
    bool ring;
    clp_buffer *buf[BUFFERS]; /* pso.local_best only with pso.topology=ring */
};

/* Each kernel's arguments, all buffers, in the order cl/pso/pso.cl declares them (PSO_FIELDS
 * first): pso_ring and the ring's pso_move only in the ring's program, the other pso_move only
 * in the global one's. */
enum { RING = 1, GLOBAL_BEST = 2 }; /* the topologies, as the variants of the program */
static const clp_kernel_buffers bindings[] = {
    {"pso_init", 0, {POS, VEL, BEST_POS, BEST_VAL, CLP_ARGS_END}},
    {"pso_evaluate", 0, {POS, VEL, BEST_POS, BEST_VAL, CLP_ARGS_END}},
    {"pso_reduce_groups", 0, {BEST_VAL, PARTIAL, CLP_ARGS_END}},
    {"pso_reduce_final", 0, {POS, VEL, BEST_POS, GLOBAL, PARTIAL, HISTORY, STATE, CLP_ARGS_END}},
    {"pso_ring", RING, {BEST_VAL, LOCAL_BEST, CLP_ARGS_END}},
    {"pso_move", RING, {POS, VEL, BEST_POS, LOCAL_BEST, GLOBAL, STATE, CLP_ARGS_END}},
    {"pso_move", GLOBAL_BEST, {POS, VEL, BEST_POS, GLOBAL, STATE, CLP_ARGS_END}},
};

static clp_status bind_arguments(clp__pso_system *sys, clp_error *err) {
    return clp_worker_bind_buffers(sys->worker, bindings, sizeof bindings / sizeof bindings[0],
                                   sys->ring ? RING : GLOBAL_BEST, sys->buf, err);
}

static clp_status launch(clp__pso_system *sys, const char *kernel, size_t global, size_t local,
                         clp_error *err) {
    return clp_launch(sys->worker, kernel, global, local, NULL, err);
}

/* Evaluation and the reduction that appends the swarm's best to the history. */
static clp_status evaluate(clp__pso_system *sys, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = sys->params.particles, groups = groups_of(n);
    CLP_TRY(launch(sys, "pso_evaluate", n, 0, err));
    CLP_TRY(launch(sys, "pso_reduce_groups", groups * REDUCE_GROUP, REDUCE_GROUP, err));
    CLP_TRY(launch(sys, "pso_reduce_final", REDUCE_GROUP, REDUCE_GROUP, err));
fail:
    return st;
}

static clp_status move(clp__pso_system *sys, clp_error *err) {
    return launch(sys, "pso_move", sys->params.particles, 0, err);
}

/* The bytes of each buffer: a field of floats per particle in the layout (the AoS layouts'
 * whole struct of 9 in pso.pos, and a float in pso.vel and pso.best_pos, unused), the guide's
 * index per particle with a ring (0: none), the swarm's best position, a (value, index) pair
 * per reduction group, a value per iteration of the history and uint[4] of state. */
static void buffer_bytes(const clp__pso_system *sys, size_t bytes[BUFFERS]) {
    const clp__pso_field_layout *l = &sys->layout;
    const size_t n = sys->params.particles, field = n * l->dim_padded;
    bytes[POS] = (l->aos ? n * 9 : field) * sizeof(cl_float);
    bytes[VEL] = bytes[BEST_POS] = (l->aos ? 1 : field) * sizeof(cl_float);
    bytes[BEST_VAL] = n * sizeof(cl_float);
    bytes[LOCAL_BEST] = sys->ring ? n * sizeof(cl_uint) : 0;
    bytes[GLOBAL] = l->dim_padded * sizeof(cl_float);
    bytes[PARTIAL] = groups_of(n) * 2 * sizeof(cl_float);
    bytes[HISTORY] = sys->history * sizeof(cl_float);
    bytes[STATE] = 4 * sizeof(cl_uint);
}

/* The swarm's buffers, refused as a whole when they exceed the device's memory, and each
 * refused by clp_worker_buffer_create, naming it, beyond the device's largest allocation. */
static clp_status allocate(clp__pso_system *sys, clp_error *err) {
    clp_status st = CLP_OK;
    const clp__pso_params *p = &sys->params;
    size_t bytes[BUFFERS];
    buffer_bytes(sys, bytes);
    unsigned long long total = 0;
    for (int i = 0; i < BUFFERS; i++)
        total += bytes[i];
    const clp_device_info *d = clp_worker_device(sys->worker);
    const double gib = 1024.0 * 1024.0 * 1024.0;
    CLP_REQUIRE(total <= d->global_mem_size, err, CLP_DEVICE_MEMORY,
                "the swarm needs %.2f GiB of device memory for %zu particles in %d dimensions, "
                "more than the %.2f GiB of device '%s'",
                total / gib, p->particles, p->dim, d->global_mem_size / gib, d->name);
    for (int i = 0; i < BUFFERS; i++)
        if (i != LOCAL_BEST || sys->ring)
            CLP_TRY(clp_worker_buffer_create(sys->worker, clp__pso_buffers[i], bytes[i],
                                             &sys->buf[i], err));
    const cl_uint state[4] = {0, 0, 0, (cl_uint)sys->history};
    CLP_TRY(clp_worker_buffer_write(sys->worker, sys->buf[STATE], state, err));
fail:
    return st;
}

clp_status clp__pso_system_open(clp_worker *w, const clp_options *opts, clp_cache *cache,
                                const clp__pso_params *p, size_t history, clp__pso_system **out,
                                clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    clp__pso_system *sys = calloc(1, sizeof *sys);
    CLP_REQUIRE(sys, err, CLP_NOMEM, "out of host memory");
    *sys = (clp__pso_system){.worker = w, .params = *p, .history = history + 1};
    CLP_REQUIRE(p->particles >= 1 && p->particles <= 0x7fffffff && p->dim >= 1, err, CLP_CASE,
                "a swarm needs 1 to 2^31 - 1 particles and at least 1 dimension (%zu, %d)",
                p->particles, p->dim);
    CLP_TRY(clp_options_dup(opts, &sys->opts, err));
    CLP_TRY(clp__pso_layout_make(opts, p->dim, &sys->layout, err));
    sys->ring = clp__pso_topology_of(opts) == CLP_PSO_TOPOLOGY_RING;
    CLP_REQUIRE(!(sys->ring && sys->layout.aos && sys->layout.narrow == CLP_PSO_LAYOUT_AOS), err,
                CLP_CASE,
                "pso.layout=aos writes back each particle's whole struct, its best included, "
                "while its ring neighbours read that best (a data race): use "
                "pso.layout=aos_selective with pso.topology=ring");
    CLP_TRY(clp__pso_source(opts, p, &source, err));
    CLP_TRY(clp_worker_build_for(w, source, opts, cache, NULL, err));
    CLP_TRY(allocate(sys, err));
    CLP_TRY(bind_arguments(sys, err));
    CLP_TRY(launch(sys, "pso_init", p->particles, 0, err));
    CLP_TRY(evaluate(sys, err));
    *out = sys;
    sys = NULL;
fail:
    free(source);
    clp__pso_system_close(sys);
    return st;
}

void clp__pso_system_close(clp__pso_system *sys) {
    if (!sys)
        return;
    for (int i = 0; i < BUFFERS; i++)
        clp_worker_buffer_free(sys->worker, sys->buf[i]);
    clp_options_destroy(sys->opts);
    free(sys);
}

clp_status clp__pso_system_run(clp__pso_system *sys, size_t iterations, clp_error *err) {
    clp_status st = CLP_OK;
    for (size_t k = 0; k < iterations; k++) {
        if (sys->ring)
            CLP_TRY(launch(sys, "pso_ring", sys->params.particles, 0, err));
        CLP_TRY(move(sys, err));
        CLP_TRY(evaluate(sys, err));
        sys->iterations++;
    }
fail:
    return st;
}

clp_status clp__pso_system_read(clp__pso_system *sys, size_t from, double *history,
                                size_t *n_history, double *best_position, uint32_t *best_particle,
                                clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = sys->iterations + 1 < sys->history ? sys->iterations + 1 : sys->history;
    const size_t count = history && from < n ? n - from : 0;
    float *values = malloc((count ? count : 1) * sizeof *values);
    float *global = malloc(sys->layout.dim_padded * sizeof *global);
    cl_uint state[4];
    CLP_REQUIRE(values && global, err, CLP_NOMEM, "out of host memory for the history");
    if (count) /* only the new part: a long run reads each value once */
        CLP_CL_CHECK(clEnqueueReadBuffer(
                         clp_worker_queue(sys->worker), clp_buffer_mem(sys->buf[HISTORY]), CL_TRUE,
                         from * sizeof *values, count * sizeof *values, values, 0, NULL, NULL),
                     err, "reading PSO history values %zu to %zu: clEnqueueReadBuffer", from, n);
    CLP_TRY(clp_worker_buffer_read(sys->worker, sys->buf[GLOBAL], global, err));
    CLP_TRY(clp_worker_buffer_read(sys->worker, sys->buf[STATE], state, err));
    for (size_t i = 0; i < count; i++)
        history[from + i] = values[i];
    for (int c = 0; best_position && c < sys->params.dim; c++)
        best_position[c] = global[c];
    if (n_history)
        *n_history = n;
    if (best_particle)
        *best_particle = state[1];
fail:
    free(values);
    free(global);
    return st;
}

clp_status clp__pso_system_positions(clp__pso_system *sys, double *xyz, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = sys->params.particles, floats = clp_buffer_size(sys->buf[POS]) / sizeof(float);
    float *all = malloc(floats * sizeof *all);
    CLP_REQUIRE(all, err, CLP_NOMEM, "out of host memory for %zu positions", n);
    CLP_TRY(clp_worker_buffer_read(sys->worker, sys->buf[POS], all, err));
    for (size_t p = 0; p < n; p++)
        for (int c = 0; c < sys->params.dim; c++)
            xyz[p * (size_t)sys->params.dim + (size_t)c] =
                all[clp__pso_position_index(&sys->layout, n, sys->params.dim, p, (size_t)c)];
fail:
    free(all);
    return st;
}

static clp_status launch_move(void *sys, clp_error *err) {
    return move(sys, err);
}

clp_status clp__pso_system_time_move(clp__pso_system *sys, int launches, int rounds, double *median,
                                     clp_error *err) {
    return clp__time_launches(sys->worker, launch_move, sys, launches, rounds, median, err);
}

double clp__pso_move_bytes(const clp__pso_system *sys) {
    const clp__pso_field_layout *l = &sys->layout;
    const double n = (double)sys->params.particles, field = 4.0 * (double)l->dim_padded;
    if (l->aos) /* the struct read whole; written whole, or position and velocity only */
        return n * (36.0 + (l->narrow == CLP_PSO_LAYOUT_AOS ? 36.0 : 24.0));
    return n * 5.0 * field;
}
