/* Lennard-Jones forces on the device for one state: the periodic box's grid, the program
 * (summation modes, the grid, cl/lj with the cutoff constants), one neighbour search and the
 * force kernel of the chosen strategy, read back in the state's own particle order. */
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
    return CLP_OK;
}

static clp_status build(clp_worker *w, const clp_options *opts, clp_cache *cache,
                        const clp_grid_geometry *geo, size_t n, const clp__lj_params *p,
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

/* Work-items of the looping strategy: a fixed grid, whatever the particle count. */
enum { LOOP_WORK_ITEMS = 4096 };

/* The device's results, from sorted order back to the state's order through the IDs. */
static clp_status read_results(clp_worker *w, clp_grid *grid, size_t n, double *force,
                               double *energy, double *virial, clp_error *err) {
    clp_status st = CLP_OK;
    cl_float4 *f4 = malloc(n * sizeof *f4);
    cl_float *w1 = malloc(n * sizeof *w1);
    uint32_t *ids = malloc(n * sizeof *ids);
    CLP_REQUIRE(f4 && w1 && ids, err, CLP_NOMEM, "out of host memory for %zu atoms", n);
    CLP_TRY(clp_worker_read(w, CLP_BUF_LJ_FORCE, f4, err));
    CLP_TRY(clp_worker_read(w, CLP_BUF_LJ_VIRIAL, w1, err));
    CLP_TRY(clp_grid_read_particles(grid, NULL, ids, err));
    *virial = 0;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            force[3 * ids[i] + a] = f4[i].s[a];
        energy[ids[i]] = f4[i].s[3];
        *virial += w1[i];
    }
fail:
    free(f4);
    free(w1);
    free(ids);
    return st;
}

clp_status clp__lj_device_forces(clp_worker *w, const clp_options *opts, clp_cache *cache,
                                 const clp__lj_state *s, const clp__lj_params *p, double *force,
                                 double *energy, double *virial, clp_error *err) {
    clp_status st = CLP_OK;
    clp_grid *grid = NULL;
    clp_grid_geometry geo;
    CLP_TRY(check_options(opts, err));
    const clp_grid_desc desc = {{0, 0, 0}, {s->box, s->box, s->box}, p->rc};
    CLP_TRY(clp_grid_geometry_make(opts, &desc, &geo, err));
    CLP_TRY(build(w, opts, cache, &geo, s->n, p, err));
    CLP_TRY(clp_grid_create(w, opts, &geo, s->n, &grid, err));
    CLP_TRY(clp_grid_set_particles(grid, s->xyz, NULL, err));
    const clp_buffer_counts counts = {.particles = s->n};
    CLP_TRY(clp_worker_alloc(w, CLP_BUF_LJ_FORCE | CLP_BUF_LJ_VIRIAL, opts, &counts, err));
    CLP_TRY(clp_grid_update(grid, err));
    const bool loop = strcmp(clp_options_enum(opts, "lj.strategy"), "par_part_loop") == 0;
    const clp_step forces = {
        "lj_forces", clp_grid_iteration_buffers(opts) | CLP_BUF_LJ_FORCE | CLP_BUF_LJ_VIRIAL,
        loop ? LOOP_WORK_ITEMS : s->n, 0};
    CLP_TRY(clp_worker_run_step(w, &forces, NULL, err));
    CLP_TRY(read_results(w, grid, s->n, force, energy, virial, err));
fail:
    clp_grid_destroy(grid);
    return st;
}
