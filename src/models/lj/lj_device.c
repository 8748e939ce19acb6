/* A Lennard-Jones system on the device: the box's grid, the program (summation modes, the
 * grid, cl/lj with the cutoff, time-step and layout constants), the force kernel of the
 * chosen strategy, velocity-Verlet steps, and read-back in the state's own particle order.
 * It opens with the options' choices made: lj_probe.c's clp__lj_system_open resolves
 * lj.strategy=auto by a timing probe, and lj.fit_device (lj_fit.c), before. */
#include "models/lj/lj.h"
#include "models/models.h"

#include <stdlib.h>
#include <string.h>

/* An LJ box is 3D, periodic on every axis, or walled on every axis for an open box. */
static clp_status check_options(const clp_options *opts, const clp__lj_params *p, clp_error *err) {
    if (clp__core_dim_of(opts) != 3)
        return CLP_FAIL(err, CLP_CASE, "a Lennard-Jones box needs core.dim=3");
    for (int a = 0; a < 3; a++)
        if (clp__grid_periodic_of(opts, a) == p->open_box)
            return CLP_FAIL(err, CLP_CASE, "a %s Lennard-Jones box needs grid.periodic_%c=%s",
                            p->open_box ? "walled" : "periodic", 'x' + a,
                            p->open_box ? "false" : "true");
    if (clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST &&
        clp__neighbors_format_of(opts) == CLP_NEIGHBORS_FORMAT_BITS)
        return CLP_FAIL(err, CLP_CASE,
                        "Lennard-Jones lists hold indices: neighbors.format=bits is for SPH and "
                        "the neighbour search (set neighbors.format=index)");
    const clp__lj_strategy s = clp__lj_strategy_of(opts);
    if (s != CLP_LJ_STRATEGY_AUTO && clp__lj_strategy_searches_cells(s) &&
        clp__neighbors_mode_of(opts) != CLP_NEIGHBORS_MODE_JIT)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=%s searches the neighbouring cells itself: set "
                        "neighbors.mode=" CLP_NEIGHBORS_MODE_JIT_NAME,
                        clp__lj_strategy_name(s));
    return CLP_OK;
}

size_t clp__lj_constants(const clp_grid_geometry *geo, size_t n, const clp__lj_params *p, double dt,
                         const clp__lj_layout *l, clp_constant *out) {
    size_t nc = clp_grid_constants(geo, n, out, CLP__LJ_MAX_CONSTANTS - 16);
    const double rc2 = p->rc * p->rc, eps2 = p->softening * p->softening;
    const double inv3 = 1.0 / ((rc2 + eps2) * (rc2 + eps2) * (rc2 + eps2));
    out[nc++] = (clp_constant){"CLP_LJ_RC2", CLP_CONST_FLOAT, rc2, 0, false};
    out[nc++] = (clp_constant){"CLP_LJ_EPS2", CLP_CONST_FLOAT, eps2, 0, false};
    out[nc++] =
        (clp_constant){"CLP_LJ_SHIFT", CLP_CONST_FLOAT, 4.0 * (inv3 * inv3 - inv3), 0, false};
    out[nc++] = (clp_constant){"CLP_LJ_DT", CLP_CONST_FLOAT, dt, 0, false};
    if (!l)
        return nc;
    if (l->lanes > 1) {
        out[nc++] = (clp_constant){"CLP_LJ_LANES", CLP_CONST_INT, 0, (long long)l->lanes, false};
        out[nc++] =
            (clp_constant){"CLP_LJ_LANE_GROUP", CLP_CONST_INT, 0, (long long)l->group, false};
    }
    if (l->strategy == CLP_LJ_STRATEGY_PAR_CELL || l->strategy == CLP_LJ_STRATEGY_PAR_CELL_SM)
        out[nc++] =
            (clp_constant){"CLP_LJ_CELL_GROUP", CLP_CONST_INT, 0, (long long)l->group, false};
    if (l->strategy == CLP_LJ_STRATEGY_X_PENCIL || l->strategy == CLP_LJ_STRATEGY_ALL_IN_SM) {
        static const char *const box[3] = {"CLP_LJ_BOX_X", "CLP_LJ_BOX_Y", "CLP_LJ_BOX_Z"};
        for (int a = 0; a < 3; a++)
            out[nc++] = (clp_constant){box[a], CLP_CONST_INT, 0, l->box[a], false};
        out[nc++] =
            (clp_constant){"CLP_LJ_BOX_GROUP", CLP_CONST_INT, 0, (long long)l->group, false};
        out[nc++] = (clp_constant){"CLP_LJ_STAGE_CAPACITY", CLP_CONST_INT, 0,
                                   (long long)l->capacity, false};
    }
    return nc;
}

clp_status clp__lj_source(const clp_options *opts, const clp_grid_geometry *geo, size_t n,
                          const clp__lj_params *p, double dt, const clp__lj_layout *l, bool split,
                          char **out, clp_error *err) {
    clp_constant constants[CLP__LJ_MAX_CONSTANTS];
    const size_t nc = clp__lj_constants(geo, n, p, dt, l, constants);
    const char *files[CLP_GRID_CL_FILES + 8];
    size_t nf = 0;
    files[nf++] = "common/summation.cl";
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        files[nf++] = *f;
    files[nf++] = "lj/lj.cl";
    files[nf++] = "lj/lj_sub_box.cl";
    files[nf++] = "lj/lj_simd.cl";
    if (split)
        files[nf++] = "dist/dist.cl";
    size_t n_modules;
    const char *const *modules = clp__model_modules("lj", &n_modules);
    const clp_program_spec spec = {"lj", modules, n_modules, files, nf, constants, nc};
    return clp_source_assemble(opts, clp_data_dir(), &spec, out, err);
}

clp_status clp__lj_program(const clp_options *opts, const clp_device_info *dev,
                           clp_grid_geometry *geo, const clp__lj_state *s, const clp__lj_params *p,
                           double dt, clp__lj_strategy strategy, clp__lj_layout *layout,
                           char **source, clp_error *err) {
    clp_status st = CLP_OK;
    const long long capacity = clp__lj_cell_capacity_of(opts);
    const unsigned max_per_cell = capacity > 0 ? (unsigned)capacity : clp__lj_max_per_cell(geo, s);
    unsigned lanes;
    CLP_TRY(clp__lj_lanes(opts, dev, s->n, strategy, false, &lanes, err));
    CLP_TRY(clp__lj_layout_make(dev, geo, s->n, max_per_cell, strategy, lanes, layout, err));
    /* simd reads a list CLP__LJ_SIMD_WIDTH slots at a time */
    geo->list_lanes = strategy == CLP_LJ_STRATEGY_SIMD ? CLP__LJ_SIMD_WIDTH : layout->lanes;
    CLP_TRY(clp__lj_source(opts, geo, s->n, p, dt, layout, false, source, err));
fail:
    return st;
}

clp_status clp__lj_check_kernel(clp_worker *w, const clp__lj_layout *l, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_device_info *dev = clp_worker_device(w);
    size_t most = 0;
    cl_ulong local_bytes = 0;
    CLP_TRY(clp__kernel_limits(w, "lj_forces", &most, &local_bytes, err));
    if (l->local > most)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=%s: its groups of %zu work-items are more than the %zu the "
                        "compiled kernel allows on '%s'",
                        clp__lj_strategy_name(l->strategy), l->local, most, dev->name);
    if (local_bytes > dev->local_mem_size)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=%s: the kernel needs %llu bytes of local memory; '%s' has "
                        "%llu",
                        clp__lj_strategy_name(l->strategy), (unsigned long long)local_bytes,
                        dev->name, (unsigned long long)dev->local_mem_size);
fail:
    return st;
}

const char *const clp__lj_buffers[CLP__LJ_OWN + 1] = {
    [CLP__LJ_VEL] = "lj.vel", [CLP__LJ_FORCE] = "lj.force", [CLP__LJ_VIRIAL] = "lj.virial"};

static size_t own_bytes(size_t n, int which) {
    return n * (which == CLP__LJ_VIRIAL ? sizeof(cl_float) : sizeof(cl_float4));
}

clp_status clp__lj_own_create(clp_worker *w, clp_grid *grid, size_t slots, clp_buffer **own,
                              clp_error *err) {
    clp_status st = CLP_OK;
    size_t bytes[CLP__LJ_OWN];
    for (int i = 0; i < CLP__LJ_OWN; i++)
        bytes[i] = own_bytes(slots, i);
    CLP_TRY(clp_worker_buffers_create(w, clp__lj_buffers, bytes, CLP__LJ_OWN, own, err));
    CLP_TRY(clp_grid_carry(grid, own[CLP__LJ_VEL], err));
fail:
    return st;
}

clp_memory_need clp__lj_own_need(size_t n) {
    clp_memory_need need = {0, 0, NULL};
    for (int i = 0; i < CLP__LJ_OWN; i++) {
        const unsigned long long bytes = own_bytes(n, i);
        need = clp__memory_need_add(need, (clp_memory_need){bytes, bytes, clp__lj_buffers[i]});
    }
    return need;
}

struct clp__lj_system {
    clp_worker *worker;
    clp_options *opts; /* the caller's, with auto resolved */
    clp_grid *grid;
    clp_grid_geometry geo;
    size_t n;
    uint64_t step, rebuilds;
    clp__lj_layout layout;
    clp_run_timing *timing; /* profiled steps: each phase's device time added here */
    clp_buffer *own[CLP__LJ_OWN];
};

/* Runs a step whose kernel takes `count` of the model's buffers from own[first] after its bits;
 * in a timed run (phase set) its device time is added to *phase. */
static clp_status run_timed(clp__lj_system *sys, const clp_step *step, int first, size_t count,
                            double *phase, clp_error *err) {
    clp_status st = CLP_OK;
    double seconds = 0;
    CLP_TRY(clp_worker_set_step_buffers(sys->worker, step, sys->own + first, count, err));
    CLP_TRY(clp_worker_run_step(sys->worker, step, phase ? &seconds : NULL, err));
    if (phase)
        *phase += seconds;
fail:
    return st;
}

static clp_status compute_forces(clp__lj_system *sys, clp_error *err) {
    const clp_step forces = {"lj_forces", clp_grid_iteration_buffers(sys->opts), sys->layout.global,
                             sys->layout.local};
    return run_timed(sys, &forces, CLP__LJ_FORCES_FIRST, CLP__LJ_FORCES_ARGS,
                     sys->timing ? &sys->timing->forces : NULL, err);
}

/* Velocities as float4 with w = 0, so that a drift leaves the position's w alone. */
static clp_status upload_velocities(clp__lj_system *sys, const clp__lj_state *s, clp_error *err) {
    clp_status st = CLP_OK;
    cl_float4 *v = calloc(s->n, sizeof *v);
    CLP_REQUIRE(v, err, CLP_NOMEM, "out of host memory for %zu velocities", s->n);
    for (size_t i = 0; s->vel && i < s->n; i++)
        for (int a = 0; a < 3; a++)
            v[i].s[a] = (cl_float)s->vel[3 * i + a];
    CLP_TRY(clp_worker_buffer_write(sys->worker, sys->own[CLP__LJ_VEL], v, err));
fail:
    free(v);
    return st;
}

double clp__lj_density(const clp__lj_state *s) {
    return (double)s->n / (s->box * s->box * s->box);
}

clp_status clp__lj_geometry(const clp_options *opts, const clp__lj_state *s,
                            const clp__lj_params *p, clp_grid_geometry *geo, clp_error *err) {
    const clp_grid_desc desc = {{0, 0, 0}, {s->box, s->box, s->box}, p->rc};
    clp_status st = check_options(opts, p, err);
    return st == CLP_OK ? clp_grid_geometry_make(opts, &desc, geo, err) : st;
}

clp_status clp__lj_system_open_resolved(clp_worker *w, clp_options *resolved, clp_cache *cache,
                                        const clp__lj_state *s, const clp__lj_params *p, double dt,
                                        const clp_grid_geometry *geometry,
                                        clp__lj_strategy strategy, clp__lj_system **out,
                                        clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    clp__lj_system *sys = calloc(1, sizeof *sys);
    if (!sys)
        clp_options_destroy(resolved);
    CLP_REQUIRE(sys, err, CLP_NOMEM, "out of host memory");
    *sys = (clp__lj_system){.worker = w, .opts = resolved, .n = s->n};
    clp_grid_geometry geo = *geometry;
    CLP_TRY(clp__lj_program(sys->opts, clp_worker_device(w), &geo, s, p, dt, strategy, &sys->layout,
                            &source, err));
    CLP_TRY(clp_worker_build_for(w, source, sys->opts, cache, NULL, err));
    CLP_TRY(clp__lj_check_kernel(w, &sys->layout, err));
    sys->geo = geo;
    CLP_TRY(clp_grid_create(w, sys->opts, &geo, s->n, &sys->grid, err));
    CLP_TRY(clp_grid_set_particles(sys->grid, s->xyz, NULL, err));
    CLP_TRY(clp__lj_own_create(w, sys->grid, s->n, sys->own, err));
    CLP_TRY(upload_velocities(sys, s, err));
    CLP_TRY(clp_grid_update(sys->grid, err));
    CLP_TRY(compute_forces(sys, err));
    *out = sys;
    sys = NULL;
fail:
    free(source);
    clp__lj_system_close(sys);
    return st;
}

void clp__lj_system_close(clp__lj_system *sys) {
    if (!sys)
        return;
    for (int i = 0; i < CLP__LJ_OWN; i++)
        clp_worker_buffer_free(sys->worker, sys->own[i]);
    clp_grid_destroy(sys->grid);
    clp_options_destroy(sys->opts);
    free(sys);
}

int clp__lj_system_every(const clp__lj_system *sys) {
    return (int)clp__neighbors_every_of(sys->opts);
}

const char *clp__lj_system_mode(const clp__lj_system *sys) {
    return clp__neighbors_mode_name(clp__neighbors_mode_of(sys->opts));
}

const clp__lj_layout *clp__lj_system_layout(const clp__lj_system *sys) {
    return &sys->layout;
}

static clp_status launch_forces(void *sys, clp_error *err) {
    return compute_forces(sys, err);
}

clp_status clp__lj_system_time_forces(clp__lj_system *sys, int launches, int rounds, double *median,
                                      clp_error *err) {
    return clp__time_launches(sys->worker, launch_forces, sys, launches, rounds, median, err);
}

void clp__lj_system_time(clp__lj_system *sys, clp_run_timing *timing) {
    sys->timing = timing;
    clp_worker_set_profiling(sys->worker, timing != NULL);
}

clp_status clp__lj_system_run(clp__lj_system *sys, uint64_t steps, clp_error *err) {
    clp_status st = CLP_OK;
    /* each with the velocities and forces after these */
    const clp_step kick_drift = {"lj_kick_drift", CLP_BUF_POS, sys->n, 0};
    const clp_step kicks_drift = {"lj_kicks_drift", CLP_BUF_POS, sys->n, 0};
    const clp_step kick = {"lj_kick", 0, sys->n, 0};
    double *integration = sys->timing ? &sys->timing->integration : NULL;
    for (uint64_t k = 0; k < steps; k++) {
        /* between two steps, one launch does the last one's second half kick and this one's
           first: two launches a step, not three */
        CLP_TRY(run_timed(sys, k ? &kicks_drift : &kick_drift, CLP__LJ_KICK_FIRST,
                          CLP__LJ_KICK_ARGS, integration, err));
        sys->step++;
        double moved = 0;
        if (clp_grid_checks_moves(sys->grid))
            CLP_TRY(clp_grid_moved(sys->grid, &moved, err));
        if (clp_grid_step_done(sys->grid, moved)) {
            CLP_TRY(clp_grid_update(sys->grid, err));
            sys->rebuilds++;
            if (sys->timing) {
                const clp_grid_timing g = clp_grid_last_timing(sys->grid);
                clp__run_timing_add_rebuild(sys->timing, &g);
            }
        }
        CLP_TRY(compute_forces(sys, err));
        if (sys->timing)
            sys->timing->steps++;
    }
    if (steps)
        CLP_TRY(run_timed(sys, &kick, CLP__LJ_KICK_FIRST, CLP__LJ_KICK_ARGS, integration, err));
fail:
    return st;
}

/* Per atom and step, in the order the step runs them (cl/lj/lj.cl): lj_kicks_drift (or,
 * first, lj_kick_drift) reads pos, vel and force and writes pos and vel; lj_forces reads pos
 * (and the list) and writes the force (the neighbours' positions come from cache). float4
 * each. The last step's lj_kick is left out. */
double clp__lj_step_bytes(const clp_options *opts, double listed) {
    const bool list = clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST;
    return 3 * 16 + 2 * 16 + 16 + (list ? 4 * (listed + 1) : 0) + 16;
}

/* A rebuild also re-sorts the velocities. */
double clp__lj_rebuild_bytes(const clp_options *opts, const clp_grid_geometry *geo, size_t n,
                             double listed) {
    return clp_grid_update_bytes(opts, geo, n, listed) + 2.0 * 16 * n;
}

double clp__lj_system_bytes(const clp__lj_system *sys, double listed) {
    return clp__lj_step_bytes(sys->opts, listed) * (double)sys->n * (double)sys->step +
           clp__lj_rebuild_bytes(sys->opts, &sys->geo, sys->n, listed) * (double)sys->rebuilds;
}

clp_status clp__lj_system_positions(clp__lj_system *sys, double *xyz, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = sys->n;
    double *sorted = malloc(3 * n * sizeof *sorted);
    uint32_t *ids = malloc(n * sizeof *ids);
    CLP_REQUIRE(sorted && ids, err, CLP_NOMEM, "out of host memory for %zu atoms", n);
    CLP_TRY(clp_grid_read_particles(sys->grid, sorted, ids, err));
    for (size_t i = 0; i < n; i++)
        memcpy(&xyz[3 * ids[i]], &sorted[3 * i], 3 * sizeof *xyz);
fail:
    free(sorted);
    free(ids);
    return st;
}

clp_status clp__lj_system_read(clp__lj_system *sys, double *force, double *energy, double *velocity,
                               double *virial, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = sys->n;
    cl_float4 *f4 = malloc(n * sizeof *f4), *v4 = malloc(n * sizeof *v4);
    cl_float *w1 = malloc(n * sizeof *w1);
    uint32_t *ids = malloc(n * sizeof *ids);
    CLP_REQUIRE(f4 && v4 && w1 && ids, err, CLP_NOMEM, "out of host memory for %zu atoms", n);
    CLP_TRY(clp_worker_buffer_read(sys->worker, sys->own[CLP__LJ_FORCE], f4, err));
    CLP_TRY(clp_worker_buffer_read(sys->worker, sys->own[CLP__LJ_VEL], v4, err));
    CLP_TRY(clp_worker_buffer_read(sys->worker, sys->own[CLP__LJ_VIRIAL], w1, err));
    CLP_TRY(clp_grid_read_particles(sys->grid, NULL, ids, err));
    *virial = 0;
    /* sorted order back to the state's order through the IDs */
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            force[3 * ids[i] + a] = f4[i].s[a];
            velocity[3 * ids[i] + a] = v4[i].s[a];
        }
        energy[ids[i]] = f4[i].s[3];
        *virial += w1[i];
    }
fail:
    free(f4);
    free(v4);
    free(w1);
    free(ids);
    return st;
}
