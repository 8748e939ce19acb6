/* A Lennard-Jones system on the device: the periodic box's grid, the program (summation
 * modes, the grid, cl/lj with the cutoff and time-step constants), the force kernel of the
 * chosen strategy, velocity-Verlet steps, and read-back in the state's own particle order. */
#include "models/lj.h"

#include <stdlib.h>
#include <string.h>

static const char *const modules[] = {"core", "grid", "neighbors", "lj"};

/* An LJ box is 3D and periodic on every axis. */
static clp_status check_options(const clp_options *opts, clp_error *err) {
    static const char *const periodic[] = {"grid.periodic_x", "grid.periodic_y", "grid.periodic_z"};
    if (clp_options_int(opts, "core.dim") != 3)
        return CLP_FAIL(err, CLP_CASE, "a Lennard-Jones box needs core.dim=3");
    for (int a = 0; a < 3; a++)
        if (!clp_options_bool(opts, periodic[a]))
            return CLP_FAIL(err, CLP_CASE, "a Lennard-Jones box is periodic: set %s=true",
                            periodic[a]);
    const char *strategy = clp_options_enum(opts, "lj.strategy");
    if (strncmp(strategy, "par_cell", 8) == 0 &&
        strcmp(clp_options_enum(opts, "neighbors.mode"), "jit") != 0)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=%s searches the neighbouring cells itself: set "
                        "neighbors.mode=jit",
                        strategy);
    return CLP_OK;
}

/* Work-items of the looping strategy: a fixed grid, whatever the particle count; and of
 * each cell's work-group in par_cell, as the paper's 128 but for fewer particles per cell. */
enum { LOOP_WORK_ITEMS = 4096, CELL_GROUP = 64 };

static clp_status build(clp_worker *w, const clp_options *opts, clp_cache *cache,
                        const clp_grid_geometry *geo, size_t n, const clp__lj_params *p, double dt,
                        clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL, *flags = NULL;
    clp_constant constants[64];
    size_t nc = clp_grid_constants(geo, n, constants, 60);
    const double rc2 = p->rc * p->rc, eps2 = p->softening * p->softening;
    const double inv3 = 1.0 / ((rc2 + eps2) * (rc2 + eps2) * (rc2 + eps2));
    constants[nc++] = (clp_constant){"CLP_LJ_RC2", CLP_CONST_FLOAT, rc2, 0, false};
    constants[nc++] = (clp_constant){"CLP_LJ_EPS2", CLP_CONST_FLOAT, eps2, 0, false};
    constants[nc++] =
        (clp_constant){"CLP_LJ_SHIFT", CLP_CONST_FLOAT, 4.0 * (inv3 * inv3 - inv3), 0, false};
    constants[nc++] = (clp_constant){"CLP_LJ_DT", CLP_CONST_FLOAT, dt, 0, false};
    constants[nc++] = (clp_constant){"CLP_LJ_CELL_GROUP", CLP_CONST_INT, 0, CELL_GROUP, false};
    const char *files[16];
    size_t nf = 0;
    files[nf++] = "common/summation.cl";
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        files[nf++] = *f;
    files[nf++] = "lj/lj.cl";
    const clp_program_spec spec = {
        "lj", modules, sizeof modules / sizeof modules[0], files, nf, constants, nc};
    CLP_TRY(clp_source_assemble(opts, clp_data_dir(), &spec, &source, err));
    CLP_TRY(clp_build_flags(clp_worker_device(w), opts, &flags, err));
    CLP_TRY(clp_worker_build(w, source, flags, cache, NULL, err));
fail:
    free(source);
    free(flags);
    return st;
}

struct clp__lj_system {
    clp_worker *worker;
    const clp_options *opts;
    clp_grid *grid;
    size_t n;
    uint64_t step;
    size_t global, local; /* the force kernel's work size for the strategy */
};

static clp_status compute_forces(clp__lj_system *sys, clp_error *err) {
    const clp_step forces = {
        "lj_forces", clp_grid_iteration_buffers(sys->opts) | CLP_BUF_LJ_FORCE | CLP_BUF_LJ_VIRIAL,
        sys->global, sys->local};
    return clp_worker_run_step(sys->worker, &forces, NULL, err);
}

/* Velocities as float4 with w = 0, so that a drift leaves the position's w alone. */
static clp_status upload_velocities(clp__lj_system *sys, const clp__lj_state *s, clp_error *err) {
    clp_status st = CLP_OK;
    cl_float4 *v = calloc(s->n, sizeof *v);
    CLP_REQUIRE(v, err, CLP_NOMEM, "out of host memory for %zu velocities", s->n);
    for (size_t i = 0; s->vel && i < s->n; i++)
        for (int a = 0; a < 3; a++)
            v[i].s[a] = (cl_float)s->vel[3 * i + a];
    CLP_TRY(clp_worker_write(sys->worker, CLP_BUF_VEL, v, err));
fail:
    free(v);
    return st;
}

clp_status clp__lj_system_open(clp_worker *w, const clp_options *opts, clp_cache *cache,
                               const clp__lj_state *s, const clp__lj_params *p, double dt,
                               clp__lj_system **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__lj_system *sys = calloc(1, sizeof *sys);
    CLP_REQUIRE(sys, err, CLP_NOMEM, "out of host memory");
    *sys = (clp__lj_system){.worker = w, .opts = opts, .n = s->n};
    clp_grid_geometry geo;
    CLP_TRY(check_options(opts, err));
    const clp_grid_desc desc = {{0, 0, 0}, {s->box, s->box, s->box}, p->rc};
    CLP_TRY(clp_grid_geometry_make(opts, &desc, &geo, err));
    const char *strategy = clp_options_enum(opts, "lj.strategy");
    const bool per_cell = strncmp(strategy, "par_cell", 8) == 0; /* par_cell, par_cell_sm */
    sys->global = per_cell                                 ? (size_t)geo.key_count * CELL_GROUP
                  : strcmp(strategy, "par_part_loop") == 0 ? LOOP_WORK_ITEMS
                                                           : s->n;
    sys->local = per_cell ? CELL_GROUP : 0;
    CLP_TRY(build(w, opts, cache, &geo, s->n, p, dt, err));
    CLP_TRY(clp_grid_create(w, opts, &geo, s->n, &sys->grid, err));
    CLP_TRY(clp_grid_set_particles(sys->grid, s->xyz, NULL, err));
    const clp_buffer_counts counts = {.particles = s->n};
    CLP_TRY(clp_worker_alloc(w, CLP_BUF_VEL | CLP_BUF_LJ_FORCE | CLP_BUF_LJ_VIRIAL, opts, &counts,
                             err));
    CLP_TRY(upload_velocities(sys, s, err));
    CLP_TRY(clp_grid_update(sys->grid, err));
    CLP_TRY(compute_forces(sys, err));
    *out = sys;
    return CLP_OK;
fail:
    clp__lj_system_close(sys);
    return st;
}

void clp__lj_system_close(clp__lj_system *sys) {
    if (!sys)
        return;
    clp_grid_destroy(sys->grid);
    free(sys);
}

clp_status clp__lj_system_run(clp__lj_system *sys, uint64_t steps, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_step kick_drift = {"lj_kick_drift", CLP_BUF_POS | CLP_BUF_VEL | CLP_BUF_LJ_FORCE,
                                 sys->n, 0};
    const clp_step kick = {"lj_kick", CLP_BUF_VEL | CLP_BUF_LJ_FORCE, sys->n, 0};
    for (uint64_t k = 0; k < steps; k++) {
        CLP_TRY(clp_worker_run_step(sys->worker, &kick_drift, NULL, err));
        if (clp_grid_rebuilds_at(sys->grid, ++sys->step))
            CLP_TRY(clp_grid_update(sys->grid, err));
        CLP_TRY(compute_forces(sys, err));
        CLP_TRY(clp_worker_run_step(sys->worker, &kick, NULL, err));
    }
fail:
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
    CLP_TRY(clp_worker_read(sys->worker, CLP_BUF_LJ_FORCE, f4, err));
    CLP_TRY(clp_worker_read(sys->worker, CLP_BUF_VEL, v4, err));
    CLP_TRY(clp_worker_read(sys->worker, CLP_BUF_LJ_VIRIAL, w1, err));
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
