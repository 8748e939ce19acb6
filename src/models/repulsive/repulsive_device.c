/* Repulsive particles on the device: the tile sized from the device's local memory, the
 * program (cl/repulsive with the design's size and the run's constants), the force
 * evaluation of the chosen implementation, damped semi-implicit Euler steps with a kinetic
 * energy check, and read-back. */
#include "models/repulsive/repulsive.h"
#include "models/models.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const files[] = {"repulsive/repulsive.cl"};

enum { MOST_TILE = 256, REDUCE_GROUP = 256, MOST_GROUPS = 256 };
/* The most dimensions whose target coordinates and sums a tiled work-item keeps in registers
 * (CLP_REP_PRIVATE_DIM): 2 x 16 floats beside the pair's temporaries; more would spill. */
enum { PRIVATE_DIM = 16 };

static bool tiled(const clp_options *opts) {
    return clp__repulsive_impl_of(opts) == CLP_REP_IMPL_TILED;
}

/* Section 7.1: a tiled group keeps one source point of the tile per work-item in local
 * memory, and beyond PRIVATE_DIM dimensions its target's coordinates and sums too (3 D
 * floats); the tile is the largest power of 2 up to 256 that the device's local memory
 * holds. */
static clp_status tile_of(const clp_device_info *dev, int dim, size_t *tile, clp_error *err) {
    const size_t per_point = (dim <= PRIVATE_DIM ? 1 : 3) * (size_t)dim * sizeof(cl_float);
    size_t t = MOST_TILE;
    while (t > 1 && (t * per_point > dev->local_mem_size || t > dev->max_work_group_size))
        t /= 2;
    if (t * per_point > dev->local_mem_size)
        return CLP_FAIL(err, CLP_CASE,
                        "repulsive.impl=tiled: one point in %d dimensions needs %zu bytes of local "
                        "memory; '%s' has %llu (use repulsive.impl=global)",
                        dim, per_point, dev->name, (unsigned long long)dev->local_mem_size);
    *tile = t;
    return CLP_OK;
}

/* The source rows the global kernel's launch covers at once: all N, unless N^2 work-items
 * exceed the launch cap (at least one row). */
static size_t pair_rows(size_t n, const clp__rep_params *p) {
    const size_t cap = p->launch_cap ? p->launch_cap : (size_t)1 << 31;
    const size_t most = cap / n > 0 ? cap / n : 1;
    return n < most ? n : most;
}

static size_t groups_of(size_t components) {
    const size_t groups = (components + REDUCE_GROUP - 1) / REDUCE_GROUP;
    return groups < MOST_GROUPS ? groups : MOST_GROUPS;
}

clp_status clp__rep_source(const clp_options *opts, const clp_device_info *dev, size_t n, int dim,
                           const clp__rep_params *p, char **out, clp_error *err) {
    static const char *const c_names[] = {"CLP_REP_C0", "CLP_REP_C1", "CLP_REP_C2", "CLP_REP_C3"};
    static const char *const p_names[] = {"CLP_REP_P0", "CLP_REP_P1", "CLP_REP_P2", "CLP_REP_P3"};
    size_t tile = 0;
    if (tiled(opts)) {
        clp_status st = tile_of(dev, dim, &tile, err);
        if (st != CLP_OK)
            return st;
    }
    clp_constant c[32];
    size_t nc = 0;
    c[nc++] = (clp_constant){"CLP_REP_POINTS", CLP_CONST_INT, 0, (long long)n, false};
    c[nc++] = (clp_constant){"CLP_REP_DIM", CLP_CONST_INT, 0, dim, false};
    c[nc++] = (clp_constant){"CLP_REP_Q", CLP_CONST_INT, 0, p->q, false};
    c[nc++] = (clp_constant){"CLP_REP_DT", CLP_CONST_FLOAT, p->dt, 0, false};
    c[nc++] = (clp_constant){"CLP_REP_TILE", CLP_CONST_INT, 0, (long long)(tile ? tile : 1), false};
    c[nc++] = (clp_constant){"CLP_REP_PRIVATE_DIM", CLP_CONST_INT, 0, PRIVATE_DIM, false};
    c[nc++] =
        (clp_constant){"CLP_REP_PAIR_ROWS", CLP_CONST_INT, 0, (long long)pair_rows(n, p), false};
    c[nc++] = (clp_constant){"CLP_REP_GROUPS", CLP_CONST_INT, 0,
                             (long long)groups_of(n * (size_t)dim), false};
    c[nc++] = (clp_constant){"CLP_REP_DAMPING_TERMS", CLP_CONST_INT, 0, p->n_damping, false};
    for (int k = 0; k < p->n_damping && k < CLP__REP_MOST_DAMPING; k++) {
        c[nc++] = (clp_constant){c_names[k], CLP_CONST_FLOAT, p->damping_c[k], 0, false};
        c[nc++] = (clp_constant){p_names[k], CLP_CONST_INT, 0, p->damping_p[k], false};
    }
    size_t n_modules;
    const char *const *modules = clp__model_modules("repulsive", &n_modules);
    const clp_program_spec spec = {"repulsive", modules, n_modules, files, 1, c, nc};
    return clp_source_assemble(opts, clp_data_dir(), &spec, out, err);
}

/* The design's buffers, its own (model_buffers.c), in the order they are made. */
enum { POS, VEL, ACC, ENERGY, STRESS, PARTIAL, MEASURE, BUFFERS };
const char *const clp__rep_buffers[BUFFERS + 1] = {
    [POS] = "repulsive.pos",         [VEL] = "repulsive.vel",
    [ACC] = "repulsive.acc",         [ENERGY] = "repulsive.energy",
    [STRESS] = "repulsive.stress",   [PARTIAL] = "repulsive.partial",
    [MEASURE] = "repulsive.measure", [BUFFERS] = NULL};

struct clp__rep_system {
    clp_worker *worker;
    size_t n, components, tile, pair_rows;
    int dim;
    bool tiled;
    clp_buffer *buf[BUFFERS];
};

/* Each kernel's arguments, all buffers, in the order cl/repulsive/repulsive.cl declares them:
 * rep_clear only in the global implementation's program. */
enum { TILED = 1, GLOBAL_PAIRS = 2 }; /* the implementations, as the variants of the program */
static const clp_kernel_buffers bindings[] = {
    {"rep_clear", GLOBAL_PAIRS, {ACC, ENERGY, STRESS, CLP_ARGS_END}},
    {"rep_forces", 0, {POS, ACC, ENERGY, STRESS, CLP_ARGS_END}},
    {"rep_step", 0, {POS, VEL, ACC, CLP_ARGS_END}},
    {"rep_kinetic", 0, {VEL, PARTIAL, CLP_ARGS_END}},
    {"rep_measure", 0, {POS, MEASURE, CLP_ARGS_END}},
};

static clp_status bind_arguments(clp__rep_system *sys, clp_error *err) {
    return clp_worker_bind_buffers(sys->worker, bindings, sizeof bindings / sizeof bindings[0],
                                   sys->tiled ? TILED : GLOBAL_PAIRS, sys->buf, err);
}

static clp_status run(clp__rep_system *sys, const char *kernel, size_t global, size_t local,
                      clp_error *err) {
    return clp_launch(sys->worker, kernel, global, local, NULL, err);
}

static clp_status forces(clp__rep_system *sys, clp_error *err) {
    if (sys->tiled)
        return run(sys, "rep_forces", sys->n, sys->tile, err);
    clp_status st = run(sys, "rep_clear", sys->components, 0, err);
    return st == CLP_OK ? run(sys, "rep_forces", sys->pair_rows * sys->n, 0, err) : st;
}

/* The buffers: N x D floats of positions, velocities and accelerations, a float of energy and
 * of stress per point, a partial sum per reduction group and a float2 of measures per point;
 * refused as a whole when they exceed the device's memory, and each, naming it, beyond the
 * device's largest allocation (clp_worker_buffers_create). */
static clp_status allocate(clp__rep_system *sys, clp_error *err) {
    const size_t field = sys->components * sizeof(cl_float), point = sys->n * sizeof(cl_float);
    const size_t bytes[BUFFERS] = {
        [POS] = field,        [VEL] = field,
        [ACC] = field,        [ENERGY] = point,
        [STRESS] = point,     [PARTIAL] = groups_of(sys->components) * sizeof(cl_float),
        [MEASURE] = 2 * point};
    return clp_worker_buffers_create(sys->worker, clp__rep_buffers, bytes, BUFFERS, sys->buf, err);
}

static clp_status check(const clp__rep_params *p, clp_error *err) {
    if (p->q < 1 || !(p->dt > 0) || p->n_damping < 0 || p->n_damping > CLP__REP_MOST_DAMPING)
        return CLP_FAIL(err, CLP_CASE,
                        "the exponent q must be at least 1, dt positive, and at most %d damping "
                        "terms (q %d, dt %g, %d terms)",
                        CLP__REP_MOST_DAMPING, p->q, p->dt, p->n_damping);
    for (int k = 0; k < p->n_damping; k++)
        if (p->damping_p[k] < 1 || !(p->damping_c[k] >= 0))
            return CLP_FAIL(err, CLP_CASE,
                            "damping term %d: the power must be at least 1 and the coefficient "
                            "not negative (%g v^%d)",
                            k + 1, p->damping_c[k], p->damping_p[k]);
    return CLP_OK;
}

clp_status clp__rep_system_open(clp_worker *w, const clp_options *opts, clp_cache *cache,
                                const clp__rep_design *d, const clp__rep_params *p,
                                clp__rep_system **out, clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    float *x = NULL;
    clp__rep_system *sys = calloc(1, sizeof *sys);
    CLP_REQUIRE(sys, err, CLP_NOMEM, "out of host memory");
    const clp_device_info *dev = clp_worker_device(w);
    *sys = (clp__rep_system){.worker = w,
                             .n = d->n,
                             .dim = d->dim,
                             .components = d->n * (size_t)d->dim,
                             .pair_rows = pair_rows(d->n, p),
                             .tiled = tiled(opts)};
    CLP_TRY(check(p, err));
    if (sys->tiled)
        CLP_TRY(tile_of(dev, d->dim, &sys->tile, err));
    CLP_TRY(clp__rep_source(opts, dev, d->n, d->dim, p, &source, err));
    CLP_TRY(clp_worker_build_for(w, source, opts, cache, NULL, err));
    CLP_TRY(allocate(sys, err));
    CLP_TRY(bind_arguments(sys, err));
    x = malloc(sys->components * sizeof *x);
    CLP_REQUIRE(x, err, CLP_NOMEM, "out of host memory for %zu coordinates", sys->components);
    for (size_t k = 0; k < sys->components; k++)
        x[k] = (float)d->x[k];
    CLP_TRY(clp_worker_buffer_write(w, sys->buf[POS], x, err));
    CLP_TRY(forces(sys, err));
    *out = sys;
    sys = NULL;
fail:
    free(x);
    free(source);
    clp__rep_system_close(sys);
    return st;
}

void clp__rep_system_close(clp__rep_system *sys) {
    if (!sys)
        return;
    for (int i = 0; i < BUFFERS; i++)
        clp_worker_buffer_free(sys->worker, sys->buf[i]);
    free(sys);
}

size_t clp__rep_system_tile(const clp__rep_system *sys) {
    return sys->tiled ? sys->tile : 0;
}

clp_status clp__rep_system_kinetic(clp__rep_system *sys, double *kinetic, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t groups = groups_of(sys->components);
    float partial[MOST_GROUPS];
    CLP_TRY(run(sys, "rep_kinetic", groups * REDUCE_GROUP, REDUCE_GROUP, err));
    CLP_TRY(clp_worker_buffer_read(sys->worker, sys->buf[PARTIAL], partial, err));
    *kinetic = 0;
    for (size_t g = 0; g < groups; g++)
        *kinetic += partial[g];
fail:
    return st;
}

clp_status clp__rep_system_run(clp__rep_system *sys, uint64_t steps, uint64_t check_every,
                               double tolerance, uint64_t *done, clp_error *err) {
    clp_status st = CLP_OK;
    *done = 0;
    while (*done < steps) {
        CLP_TRY(run(sys, "rep_step", sys->components, 0, err));
        CLP_TRY(forces(sys, err));
        ++*done;
        double kinetic;
        if (check_every && *done % check_every == 0) {
            CLP_TRY(clp__rep_system_kinetic(sys, &kinetic, err));
            CLP_REQUIRE(isfinite(kinetic), err, CLP_CHECK,
                        "the kinetic energy is %g at step %llu: use a smaller dt or more damping",
                        kinetic, (unsigned long long)*done);
            if (kinetic < tolerance)
                break;
        }
    }
fail:
    return st;
}

/* Reads a float buffer of `count` values into doubles. */
static clp_status read_doubles(clp__rep_system *sys, int buffer, size_t count, double *out,
                               clp_error *err) {
    clp_status st = CLP_OK;
    float *values = malloc(count * sizeof *values);
    CLP_REQUIRE(values, err, CLP_NOMEM, "out of host memory for %zu values", count);
    CLP_TRY(clp_worker_buffer_read(sys->worker, sys->buf[buffer], values, err));
    for (size_t k = 0; k < count; k++)
        out[k] = values[k];
fail:
    free(values);
    return st;
}

clp_status clp__rep_system_read(clp__rep_system *sys, double *x, double *acc, double *energy,
                                double *stress, clp_error *err) {
    clp_status st = CLP_OK;
    if (x)
        CLP_TRY(read_doubles(sys, POS, sys->components, x, err));
    if (acc)
        CLP_TRY(read_doubles(sys, ACC, sys->components, acc, err));
    if (energy)
        CLP_TRY(read_doubles(sys, ENERGY, sys->n, energy, err));
    if (stress)
        CLP_TRY(read_doubles(sys, STRESS, sys->n, stress, err));
fail:
    return st;
}

clp_status clp__rep_system_criteria(clp__rep_system *sys, double *ae, double *maximin,
                                    clp_error *err) {
    clp_status st = CLP_OK;
    double *measure = malloc(2 * sys->n * sizeof *measure);
    CLP_REQUIRE(measure, err, CLP_NOMEM, "out of host memory for %zu points", sys->n);
    CLP_TRY(run(sys, "rep_measure", sys->n, 0, err));
    CLP_TRY(read_doubles(sys, MEASURE, 2 * sys->n, measure, err));
    *ae = 0;
    *maximin = INFINITY;
    for (size_t i = 0; i < sys->n; i++) {
        *maximin = fmin(*maximin, measure[2 * i]);
        *ae += 0.5 * measure[2 * i + 1]; /* each pair counted from both ends */
    }
fail:
    free(measure);
    return st;
}

static clp_status launch_forces(void *sys, clp_error *err) {
    return forces(sys, err);
}

clp_status clp__rep_system_time_forces(clp__rep_system *sys, int launches, int rounds,
                                       double *median, clp_error *err) {
    return clp__time_launches(sys->worker, launch_forces, sys, launches, rounds, median, err);
}
