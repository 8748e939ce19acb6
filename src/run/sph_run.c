/* The SPH time loop: build the program, set up particles, then rebuild, forces and
 * integration every step, with diagnostics at each output time. */
#include "models/sph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sph_run {
    clp_worker *w;
    const clp_options *opts;
    clp_sph_case c;
    clp__sph_physics_values phys;
    clp_grid_geometry geo;
    clp_grid *grid;
    size_t n, n_fluid;
} sph_run;

static clp_status build(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    clp_constant constants[64];
    size_t nc = clp_grid_constants(&r->geo, r->n, constants, 48);
    nc += clp__sph_constants(&r->c, r->opts, &r->phys, constants + nc);
    const char *files[16];
    size_t nf = 0;
    files[nf++] = "common/summation.cl";
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        files[nf++] = *f;
    files[nf++] = "sph/sph.cl";
    size_t n_modules;
    const char *const *modules = clp__sph_modules(&n_modules);
    clp_program_spec spec = {"sph", modules, n_modules, files, nf, constants, nc};
    char *source = NULL, *flags = NULL;
    clp_cache *cache = NULL;
    CLP_TRY(clp_source_assemble(r->opts, clp_data_dir(), &spec, &source, err));
    CLP_TRY(clp_build_flags(clp_worker_device(r->w), r->opts, &flags, err));
    CLP_TRY(clp_cache_open(NULL, &cache, err));
    CLP_TRY(clp_worker_build(r->w, source, flags, cache, NULL, err));
fail:
    clp_cache_close(cache);
    free(source);
    free(flags);
    return st;
}

/* Fluid starts at hydrostatic density, rho0 (1 + rho0 |g| depth / B)^(1/7), at rest. */
static clp_status initial_state(sph_run *r, const double *xyz, const uint32_t *types,
                                clp_error *err) {
    clp_status st = CLP_OK;
    cl_float4 *vel = calloc(r->n, sizeof *vel);
    cl_float *rho = malloc(r->n * sizeof *rho);
    CLP_REQUIRE(vel && rho, err, CLP_NOMEM, "out of host memory");
    const int up = r->c.dim - 1;
    double top = -INFINITY, g = fabs(r->c.gravity[up]);
    for (size_t b = 0; b < r->c.n_fluid; b++)
        top = fmax(top, r->c.fluid[b].max[up]);
    double tait_b = r->phys.c0 * r->phys.c0 * r->c.rho0 / 7.0;
    for (size_t i = 0; i < r->n; i++) {
        double depth = types[i] == 0 ? fmax(0.0, top - xyz[3 * i + up]) : 0.0;
        rho[i] = (float)(r->c.rho0 * pow(1.0 + r->c.rho0 * g * depth / tait_b, 1.0 / 7.0));
    }
    CLP_TRY(clp_worker_write(r->w, CLP_BUF_VEL, vel, err));
    CLP_TRY(clp_worker_write(r->w, CLP_BUF_RHO, rho, err));
fail:
    free(vel);
    free(rho);
    return st;
}

static clp_status setup(sph_run *r, const char *case_path, clp_error *err) {
    clp_status st = CLP_OK;
    double *xyz = NULL;
    uint32_t *types = NULL;
    r->c.dim = (int)clp_options_int(r->opts, "core.dim");
    CLP_TRY(clp__sph_case_load(case_path, r->c.dim, &r->c, err));
    clp__sph_physics(&r->c, &r->phys);
    CLP_TRY(clp__sph_particles(&r->c, &xyz, &types, &r->n, &r->n_fluid, err));
    clp_grid_desc desc = {.radius = 2.0 * r->phys.h};
    memcpy(desc.origin, r->c.origin, sizeof desc.origin);
    memcpy(desc.size, r->c.size, sizeof desc.size);
    CLP_TRY(clp_grid_geometry_make(r->opts, &desc, &r->geo, err));
    CLP_TRY(build(r, err));
    CLP_TRY(clp_grid_create(r->w, r->opts, &r->geo, r->n, &r->grid, err));
    CLP_TRY(clp_grid_set_particles(r->grid, xyz, types, err));
    clp_buffer_counts counts = {.particles = r->n};
    CLP_TRY(clp_worker_alloc(r->w, CLP_BUF_VEL | CLP_BUF_RHO | CLP_BUF_ACC | CLP_BUF_DRHO, r->opts,
                             &counts, err));
    CLP_TRY(initial_state(r, xyz, types, err));
fail:
    free(xyz);
    free(types);
    return st;
}

typedef struct diagnostics {
    double kinetic, mass, vmax, front;
} diagnostics;

/* Diagnostics from the particles, and the first non-finite value if any. */
static clp_status diagnose(sph_run *r, uint64_t step, diagnostics *d, clp_error *err) {
    clp_status st = CLP_OK;
    double *xyz = malloc(3 * r->n * sizeof(double));
    uint32_t *id = malloc(r->n * sizeof(uint32_t)), *type = malloc(r->n * sizeof(uint32_t));
    cl_float4 *vel = malloc(r->n * sizeof *vel);
    cl_float *rho = malloc(r->n * sizeof *rho);
    CLP_REQUIRE(xyz && id && type && vel && rho, err, CLP_NOMEM, "out of host memory");
    CLP_TRY(clp_grid_read_particles(r->grid, xyz, id, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_TYPE, type, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_VEL, vel, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_RHO, rho, err));
    *d = (diagnostics){.front = -INFINITY};
    for (size_t i = 0; i < r->n; i++) {
        double v2 = 0;
        for (int a = 0; a < 3; a++)
            v2 += (double)vel[i].s[a] * vel[i].s[a];
        const char *bad = !isfinite(rho[i]) ? "density" : !isfinite(v2) ? "velocity" : NULL;
        CLP_REQUIRE(!bad, err, CLP_CHECK, "step %llu: particle %u has a non-finite %s",
                    (unsigned long long)step, id[i], bad);
        if (type[i] != 0)
            continue;
        d->kinetic += 0.5 * r->phys.mass * v2;
        d->mass += r->phys.mass;
        d->vmax = fmax(d->vmax, sqrt(v2));
        d->front = fmax(d->front, xyz[3 * i]);
    }
fail:
    free(xyz);
    free(id);
    free(type);
    free(vel);
    free(rho);
    return st;
}

static clp_status step(sph_run *r, uint64_t n, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_buffer_set grid = clp_grid_iteration_buffers(r->opts);
    const bool summation = strcmp(clp_options_enum(r->opts, "sph.density"), "summation") == 0;
    if (clp_grid_rebuilds_at(r->grid, n))
        CLP_TRY(clp_grid_update(r->grid, err));
    const clp_step density = {"sph_density", grid | CLP_BUF_RHO, r->n, 0};
    const clp_step forces = {
        "sph_forces", grid | CLP_BUF_VEL | CLP_BUF_RHO | CLP_BUF_ACC | CLP_BUF_DRHO, r->n, 0};
    const clp_step integrate = {"sph_integrate",
                                CLP_BUF_POS | CLP_BUF_TYPE | CLP_BUF_VEL | CLP_BUF_RHO |
                                    CLP_BUF_ACC | CLP_BUF_DRHO,
                                r->n, 0};
    if (summation)
        CLP_TRY(clp_worker_run_step(r->w, &density, NULL, err));
    CLP_TRY(clp_worker_run_step(r->w, &forces, NULL, err));
    CLP_TRY(clp_worker_run_step(r->w, &integrate, NULL, err));
fail:
    return st;
}

clp_status clp_sph_run(clp_worker *w, const clp_options *opts, const char *case_path,
                       const char *csv_path, clp_error *err) {
    clp_status st = CLP_OK;
    sph_run r = {.w = w, .opts = opts};
    FILE *csv = NULL;
    CLP_TRY(setup(&r, case_path, err));
    if (csv_path) {
        csv = fopen(csv_path, "w");
        CLP_REQUIRE(csv, err, CLP_IO, "cannot write %s", csv_path);
        fprintf(csv, "time,step,dt,kinetic_energy,mass,max_velocity,front\n");
    }
    uint64_t steps = (uint64_t)ceil(r.c.end_time / r.phys.dt - 1e-9);
    uint64_t every = (uint64_t)fmax(1.0, round(r.c.output_interval / r.phys.dt));
    for (uint64_t n = 0; n <= steps; n++) {
        if (n % every == 0 || n == steps) {
            diagnostics d = {0};
            CLP_TRY(diagnose(&r, n, &d, err));
            if (csv) {
                fprintf(csv, "%.9g,%llu,%.9g,%.9g,%.9g,%.9g,%.9g\n", n * r.phys.dt,
                        (unsigned long long)n, r.phys.dt, d.kinetic, d.mass, d.vmax, d.front);
                fflush(csv);
            }
        }
        if (n < steps)
            CLP_TRY(step(&r, n, err));
    }
fail:
    if (csv)
        fclose(csv);
    clp_grid_destroy(r.grid);
    return st;
}
