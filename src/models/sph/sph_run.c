/* The SPH time loop: build the program, set up particles, then rebuild, forces and
 * integration every step, with diagnostics and VTK snapshots at each output time. */
#include "io/io.h"
#include "models/models.h"
#include "models/sph/sph.h"
#include "models/sph/sph_checkpoint.h"
#include "models/sph/sph_gauges.h"
#include "run/run_flags.h"

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
    bool centred;          /* rho[] holds rho/rho0 - 1 */
    bool timed;            /* profiling on: device time per phase goes into `timing` */
    bool listed;           /* the grid was just rebuilt: the first step need not rebuild it again */
    bool stop_on_outliers; /* sph.outliers=stop */
    double half_skin;      /* a particle that moved farther since the last rebuild forces one */
    clp_run_timing timing;
} sph_run;

/* The case, its physics, particle count and geometry. */
static clp_status load(sph_run *r, const char *case_path, clp_error *err) {
    clp_status st = CLP_OK;
    r->c.dim = (int)clp_options_int(r->opts, "core.dim");
    r->centred = clp_options_bool(r->opts, "sph.centred_density");
    CLP_TRY(clp__sph_case_load(case_path, r->c.dim, &r->c, err));
    clp__sph_physics(&r->c, &r->phys);
    CLP_TRY(clp__sph_count(&r->c, &r->n, &r->n_fluid, err));
    clp_grid_desc desc = {.radius = 2.0 * r->phys.h};
    memcpy(desc.origin, r->c.origin, sizeof desc.origin);
    memcpy(desc.size, r->c.size, sizeof desc.size);
    CLP_TRY(clp_grid_geometry_make(r->opts, &desc, &r->geo, err));
    r->half_skin = 0.5 * (r->geo.search_radius - r->geo.radius);
    r->stop_on_outliers = strcmp(clp_options_enum(r->opts, "sph.outliers"), "stop") == 0;
fail:
    return st;
}

/* What the program is made of: summation modes, the grid, the model, with their constants. */
typedef struct program_parts {
    clp_constant constants[64];
    const char *files[16];
    clp_program_spec spec;
} program_parts;

static void program_spec(const sph_run *r, program_parts *p) {
    size_t nc = clp_grid_constants(&r->geo, r->n, p->constants, 64 - CLP_SPH_MAX_CONSTANTS);
    nc += clp__sph_constants(&r->c, r->opts, &r->phys, r->n, p->constants + nc);
    size_t nf = 0;
    p->files[nf++] = "common/summation.cl";
    p->files[nf++] = "common/constants.cl";
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        p->files[nf++] = *f;
    p->files[nf++] = "sph/sph.cl";
    p->files[nf++] = "sph/mdbc.cl";
    p->files[nf++] = "sph/gauges.cl";
    size_t n_modules;
    const char *const *modules = clp__model_modules("sph", &n_modules);
    p->spec = (clp_program_spec){"sph", modules, n_modules, p->files, nf, p->constants, nc};
}

static clp_status assemble(const sph_run *r, char **source, clp_error *err) {
    program_parts parts;
    program_spec(r, &parts);
    return clp_source_assemble(r->opts, clp_data_dir(), &parts.spec, source, err);
}

clp_status clp_sph_source(const clp_options *opts, const clp_device_info *dev,
                          const char *case_path, char **out, clp_error *err) {
    (void)dev; /* the program depends on the options and the case only */
    sph_run r = {.opts = opts};
    clp_status st = load(&r, case_path, err);
    return st != CLP_OK ? st : assemble(&r, out, err);
}

static clp_status build(sph_run *r, clp_cache *cache, clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    CLP_TRY(assemble(r, &source, err));
    CLP_TRY(clp_worker_build_for(r->w, source, r->opts, cache, NULL, err));
fail:
    free(source);
    return st;
}

/* The distance from point x to box b (0 inside). */
static double box_distance(const clp_box *b, const double *x, int dim) {
    double d2 = 0;
    for (int a = 0; a < dim; a++) {
        const double out = fmax(b->min[a] - x[a], fmax(0.0, x[a] - b->max[a]));
        d2 += out * out;
    }
    return sqrt(d2);
}

/* The water level over particle i at the start: the fluid's highest top for fluid, the
 * highest top of the fluid boxes within the kernel's reach for a boundary particle; -inf for
 * a boundary particle no fluid reaches, which starts at rest density. */
static double start_level(const sph_run *r, const double *x, uint32_t type) {
    const int up = r->c.dim - 1;
    double level = -INFINITY;
    for (size_t b = 0; b < r->c.n_fluid; b++)
        if (type == 0 || box_distance(&r->c.fluid[b], x, r->c.dim) <= 2.0 * r->phys.h)
            level = fmax(level, r->c.fluid[b].max[up]);
    return level;
}

/* Particles start at rest at hydrostatic density, rho0 (1 + rho0 |g| depth / B)^(1/7): the
 * fluid, and the boundary particles beside it, whose pressure then holds the fluid up from
 * the first step instead of sending a pressure wave through it. */
static clp_status initial_state(sph_run *r, const double *xyz, const uint32_t *types,
                                clp_error *err) {
    clp_status st = CLP_OK;
    cl_float4 *vel = calloc(r->n, sizeof *vel);
    cl_float *rho = malloc(r->n * sizeof *rho);
    CLP_REQUIRE(vel && rho, err, CLP_NOMEM, "out of host memory");
    const int up = r->c.dim - 1;
    const double g = fabs(r->c.gravity[up]), tait_b = r->phys.c0 * r->phys.c0 * r->c.rho0 / 7.0;
    for (size_t i = 0; i < r->n; i++) {
        const double depth = fmax(0.0, start_level(r, xyz + 3 * i, types[i]) - xyz[3 * i + up]);
        const double density = r->c.rho0 * pow(1.0 + r->c.rho0 * g * depth / tait_b, 1.0 / 7.0);
        rho[i] = (float)clp__sph_stored_density(&r->c, r->centred, density);
    }
    CLP_TRY(clp_worker_write(r->w, CLP_BUF_VEL, vel, err));
    CLP_TRY(clp_worker_write(r->w, CLP_BUF_RHO, rho, err));
fail:
    free(vel);
    free(rho);
    return st;
}

/* mDBC: each boundary particle's ghost node, in the order the particles start in. */
static clp_status write_ghosts(sph_run *r, const double *xyz, const uint32_t *types,
                               clp_error *err) {
    clp_status st = CLP_OK;
    cl_float4 *ghost = calloc(r->n, sizeof *ghost);
    CLP_REQUIRE(ghost, err, CLP_NOMEM, "out of host memory");
    for (size_t i = 0; i < r->n; i++) {
        double to_ghost[3];
        if (types[i] == 1 && clp__sph_ghost(&r->c, xyz + 3 * i, to_ghost))
            ghost[i] = (cl_float4){{(float)to_ghost[0], (float)to_ghost[1], (float)to_ghost[2], 1}};
    }
    CLP_TRY(clp_worker_write(r->w, CLP_BUF_GHOST, ghost, err));
fail:
    free(ghost);
    return st;
}

/* The model's buffers beyond the grid's; the options leave out those they do not need. */
#define MODEL_BUFFERS                                                                              \
    (CLP_BUF_VEL | CLP_BUF_RHO | CLP_BUF_ACC | CLP_BUF_DRHO | CLP_BUF_DT_PARTIAL |                 \
     CLP_BUF_SPH_STEP | CLP_BUF_XSPH | CLP_BUF_POS_OLD | CLP_BUF_VEL_OLD | CLP_BUF_RHO_OLD |       \
     CLP_BUF_CONSTANTS | CLP_BUF_SHIFT | CLP_BUF_GHOST)

/* The model buffers (the case's gauges' too) and their sizes into *counts; `arguments` gets
 * the constants passed as a kernel argument. */
static clp_buffer_set model_buffers(const sph_run *r, clp_buffer_counts *counts,
                                    cl_float arguments[64]) {
    program_parts parts;
    program_spec(r, &parts);
    *counts = (clp_buffer_counts){.particles = r->n};
    counts->custom[clp__buffer_index(CLP_BUF_DT_PARTIAL)] = clp__sph_dt_groups(r->n);
    counts->custom[clp__buffer_index(CLP_BUF_CONSTANTS)] =
        clp_constant_arguments(r->opts, &parts.spec, arguments);
    return MODEL_BUFFERS | clp__sph_gauge_buffers(&r->c, counts);
}

/* Refuses a case whose buffers do not fit the device, in all or one by one, before anything
 * is allocated. A list sized from the counts is counted as the first build will size it,
 * from the lattice the particles start on. */
static clp_status check_device_memory(const sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_device_info *d = clp_worker_device(r->w);
    cl_float arguments[64];
    clp_buffer_counts counts;
    const clp_buffer_set buffers = model_buffers(r, &counts, arguments);
    clp_grid_geometry sized = r->geo;
    if (strcmp(clp_options_enum(r->opts, "neighbors.mode"), "list") == 0 && !sized.max_neighbors)
        sized.max_neighbors =
            clp_grid_list_room(clp__sph_lattice_neighbours(&r->c, r->geo.search_radius));
    const clp_memory_need grid = clp_grid_memory_need(&sized, r->opts, r->n);
    const clp_memory_need model = clp_buffers_need(buffers, r->opts, &counts);
    const clp_memory_need largest = grid.largest >= model.largest ? grid : model;
    const double gib = 1024.0 * 1024.0 * 1024.0, total = (grid.total + model.total) / gib;
    CLP_REQUIRE(total <= d->global_mem_size / gib, err, CLP_DEVICE_MEMORY,
                "the case needs %.2f GiB of device memory for %zu particles (neighbour search "
                "%.2f GiB, SPH %.2f GiB), more than the %.2f GiB of device '%s'",
                total, r->n, grid.total / gib, model.total / gib, d->global_mem_size / gib,
                d->name);
    CLP_REQUIRE(largest.largest <= d->max_mem_alloc_size, err, CLP_DEVICE_MEMORY,
                "the case's buffer \"%s\" needs %.2f GiB for %zu particles, more than the "
                "largest allocation device '%s' allows (%.2f GiB)",
                largest.largest_name, largest.largest / gib, r->n, d->name,
                d->max_mem_alloc_size / gib);
    CLP_INFO(CLP_LOG_BUFFER, "%zu particles take %.3f GiB of the %.2f GiB of device '%s'", r->n,
             total, d->global_mem_size / gib, d->name);
fail:
    return st;
}

static clp_status setup(sph_run *r, const char *case_path, clp_cache *cache, clp_error *err) {
    clp_status st = CLP_OK;
    double *xyz = NULL;
    uint32_t *types = NULL;
    CLP_TRY(load(r, case_path, err));
    CLP_TRY(check_device_memory(r, err));
    CLP_TRY(clp__sph_particles(&r->c, r->n, &xyz, &types, err));
    CLP_TRY(build(r, cache, err));
    CLP_TRY(clp_grid_create(r->w, r->opts, &r->geo, r->n, &r->grid, err));
    clp_grid_set_displacement_check(r->grid, false); /* each step checks it (step_end) */
    CLP_TRY(clp_grid_set_particles(r->grid, xyz, types, err));
    cl_float arguments[64];
    clp_buffer_counts counts;
    const clp_buffer_set buffers = model_buffers(r, &counts, arguments);
    CLP_TRY(clp_worker_alloc(r->w, buffers, r->opts, &counts, err));
    if (clp_worker_buffers(r->w) & CLP_BUF_CONSTANTS)
        CLP_TRY(clp_worker_write(r->w, CLP_BUF_CONSTANTS, arguments, err));
    CLP_TRY(initial_state(r, xyz, types, err));
    if (clp_worker_buffers(r->w) & CLP_BUF_GHOST)
        CLP_TRY(write_ghosts(r, xyz, types, err));
    /* the first rebuild sizes the neighbour list: a list the device cannot hold is refused
     * before any output is written */
    CLP_TRY(clp_grid_update(r->grid, err));
    r->listed = true;
fail:
    free(xyz);
    free(types);
    return st;
}

/* One output: the particles in double and float, diagnostics, and the first non-finite
 * value if any. */
typedef struct snapshot {
    double *xyz;
    uint32_t *id, *type;
    float *vel, *rho, *pressure; /* vel: n x 3 */
    cl_float4 *vel4;
    double kinetic, mass, vmax, front;
    size_t excluded; /* fluid particles taken out of the computation so far */
} snapshot;

static void snapshot_free(snapshot *s) {
    free(s->xyz);
    free(s->id);
    free(s->type);
    free(s->vel);
    free(s->rho);
    free(s->pressure);
    free(s->vel4);
}

static clp_status take_snapshot(sph_run *r, uint64_t step, snapshot *s, clp_error *err) {
    clp_status st = CLP_OK;
    size_t n = r->n;
    *s = (snapshot){.xyz = malloc(3 * n * sizeof(double)),
                    .id = malloc(n * sizeof(uint32_t)),
                    .type = malloc(n * sizeof(uint32_t)),
                    .vel = malloc(3 * n * sizeof(float)),
                    .rho = malloc(n * sizeof(float)),
                    .pressure = malloc(n * sizeof(float)),
                    .vel4 = malloc(n * sizeof(cl_float4)),
                    .front = -INFINITY};
    CLP_REQUIRE(s->xyz && s->id && s->type && s->vel && s->rho && s->pressure && s->vel4, err,
                CLP_NOMEM, "out of host memory for a snapshot of %zu particles", n);
    CLP_TRY(clp_grid_read_particles(r->grid, s->xyz, s->id, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_TYPE, s->type, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_VEL, s->vel4, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_RHO, s->rho, err));
    const double tait_b = r->phys.c0 * r->phys.c0 * r->c.rho0 / 7.0;
    for (size_t i = 0; i < n; i++) {
        const double density = clp__sph_density(&r->c, r->centred, s->rho[i]);
        double v2 = 0;
        for (int a = 0; a < 3; a++) {
            s->vel[3 * i + a] = s->vel4[i].s[a];
            v2 += (double)s->vel4[i].s[a] * s->vel4[i].s[a];
        }
        const char *bad = !isfinite(s->rho[i]) ? "density"
                          : !isfinite(v2)      ? "velocity"
                          : !isfinite(s->xyz[3 * i] + s->xyz[3 * i + 1] + s->xyz[3 * i + 2])
                              ? "position"
                              : NULL;
        s->rho[i] = (float)density;
        s->pressure[i] = (float)(tait_b * (pow(density / r->c.rho0, 7) - 1));
        s->excluded += s->type[i] == CLP_GRID_EXCLUDED; /* kept as it was when it left */
        CLP_REQUIRE(!bad || s->type[i] == CLP_GRID_EXCLUDED, err, CLP_CHECK,
                    "step %llu: particle %u has a non-finite %s", (unsigned long long)step,
                    s->id[i], bad);
        if (s->type[i] != 0)
            continue;
        s->kinetic += 0.5 * r->phys.mass * v2;
        s->mass += r->phys.mass;
        s->vmax = fmax(s->vmax, sqrt(v2));
        s->front = fmax(s->front, s->xyz[3 * i]);
    }
fail:
    return st;
}

/* The files of a run's output folder. */
typedef struct outputs {
    char dir[900];
    clp__csv *csv;
    double *times;
    char **files;
    size_t count, capacity;
    int64_t last_step; /* of the last row written, -1 before any */
} outputs;

/* The values of a run's result (clp_run_result), as the registry lists them. */
const char *const clp__sph_diagnostics[] = {"time",  "kinetic_energy", "mass", "max_velocity",
                                            "front", "excluded",       NULL};

static const char *const diagnostics_columns[] = {"time", "step",         "dt",    "kinetic_energy",
                                                  "mass", "max_velocity", "front", "excluded"};
enum { DIAGNOSTICS_COLUMNS = 8 };

static clp_status outputs_open(outputs *o, const char *dir, clp_error *err) {
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    o->last_step = -1;
    return clp__csv_open_in(dir, "diagnostics.csv", diagnostics_columns, DIAGNOSTICS_COLUMNS,
                            &o->csv, err);
}

static clp_status outputs_remember(outputs *o, double time, clp_error *err);

/* A restart into the folder of the run it continues: the diagnostics up to the checkpoint's
 * step stay, those after it go (that part is run again), and the snapshots go on from the
 * last one kept, each row having had its snapshot. Into a new folder: a new start. */
static clp_status outputs_continue(outputs *o, const char *dir, uint64_t step, clp_error *err) {
    clp_status st = CLP_OK;
    double *kept = NULL;
    size_t n_kept = 0;
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    o->last_step = -1;
    CLP_TRY(clp__csv_continue_in(dir, "diagnostics.csv", diagnostics_columns, DIAGNOSTICS_COLUMNS,
                                 1, (double)step, &kept, &n_kept, &o->csv, err));
    for (size_t i = 0; i < n_kept; i++)
        CLP_TRY(outputs_remember(o, kept[i * DIAGNOSTICS_COLUMNS], err));
    if (n_kept > 0) {
        o->last_step = (int64_t)kept[(n_kept - 1) * DIAGNOSTICS_COLUMNS + 1];
        char path[1024];
        snprintf(path, sizeof path, "%s/particles.pvd", o->dir);
        CLP_TRY(clp__pvd_write(path, o->times, (const char *const *)o->files, o->count, err));
    }
fail:
    free(kept);
    return st;
}

/* Adds the next snapshot's file name and time to the index. */
static clp_status outputs_remember(outputs *o, double time, clp_error *err) {
    clp_status st = CLP_OK;
    if (o->count == o->capacity) {
        size_t cap = o->capacity ? 2 * o->capacity : 64;
        double *times = realloc(o->times, cap * sizeof *times);
        CLP_REQUIRE_ALLOC(times, err);
        o->times = times;
        char **files = realloc(o->files, cap * sizeof *files);
        CLP_REQUIRE_ALLOC(files, err);
        o->files = files;
        o->capacity = cap;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/particles_%05zu.vtp", o->dir, o->count);
    o->files[o->count] = strdup(path);
    CLP_REQUIRE_ALLOC(o->files[o->count], err);
    o->times[o->count++] = time;
fail:
    return st;
}

static clp_status outputs_write(outputs *o, const snapshot *s, size_t n, double time, uint64_t step,
                                double dt, clp_error *err) {
    clp_status st = CLP_OK;
    const double row[] = {time,    (double)step, dt,       s->kinetic,
                          s->mass, s->vmax,      s->front, (double)s->excluded};
    CLP_TRY(clp__csv_row(o->csv, row, err));
    o->last_step = (int64_t)step;
    CLP_TRY(outputs_remember(o, time, err));
    clp__vtp_fields f = {n, s->xyz, s->vel, s->rho, s->pressure, s->type, time};
    CLP_TRY(clp__vtp_write(o->files[o->count - 1], &f, err));
    char path[1024];
    snprintf(path, sizeof path, "%s/particles.pvd", o->dir);
    CLP_TRY(clp__pvd_write(path, o->times, (const char *const *)o->files, o->count, err));
fail:
    return st;
}

static void outputs_close(outputs *o) {
    clp_error ignored = CLP_ERROR_INIT;
    clp__csv_close(o->csv, &ignored);
    for (size_t i = 0; i < o->count; i++)
        free(o->files[i]);
    free(o->files);
    free(o->times);
}

/* Runs one kernel over `global` work-items, its device time added to *phase when timed. */
static clp_status run_kernel(sph_run *r, const char *kernel, clp_buffer_set buffers, size_t global,
                             size_t local, double *phase, clp_error *err) {
    const clp_step s = {kernel, buffers, global, local};
    double seconds = 0;
    clp_status st = clp_worker_run_step(r->w, &s, r->timed ? &seconds : NULL, err);
    *phase += seconds;
    return st;
}

/* The particles' rates at the current state: the boundary particles' density first under
 * mDBC, the fluid's when it is a sum. */
static clp_status rates(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_buffer_set grid = clp_grid_iteration_buffers(r->opts);
    if (clp_worker_buffers(r->w) & CLP_BUF_GHOST)
        CLP_TRY(run_kernel(r, "sph_mdbc",
                           CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_CELL_START |
                               CLP_BUF_CELL_END | CLP_BUF_RHO | CLP_BUF_GHOST | CLP_BUF_CONSTANTS,
                           r->n, 0, &r->timing.boundary, err));
    if (strcmp(clp_options_enum(r->opts, "sph.density"), "summation") == 0)
        CLP_TRY(run_kernel(r, "sph_density", grid | CLP_BUF_RHO | CLP_BUF_CONSTANTS, r->n, 0,
                           &r->timing.density, err));
    CLP_TRY(run_kernel(r, "sph_forces",
                       grid | CLP_BUF_VEL | CLP_BUF_RHO | CLP_BUF_ACC | CLP_BUF_DRHO |
                           CLP_BUF_XSPH | CLP_BUF_SHIFT | CLP_BUF_CONSTANTS,
                       r->n, 0, &r->timing.forces, err));
fail:
    return st;
}

/* The device's choice of step from the rates just computed, into a new step record. */
static clp_status choose_step(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t groups = clp__sph_dt_groups(r->n);
    CLP_TRY(run_kernel(r, "sph_dt_partial",
                       CLP_BUF_TYPE | CLP_BUF_VEL | CLP_BUF_ACC | CLP_BUF_DT_PARTIAL,
                       groups * CLP_SPH_DT_GROUP, CLP_SPH_DT_GROUP, &r->timing.time_step, err));
    CLP_TRY(run_kernel(r, "sph_dt_final", CLP_BUF_DT_PARTIAL | CLP_BUF_SPH_STEP | CLP_BUF_CONSTANTS,
                       CLP_SPH_DT_GROUP, CLP_SPH_DT_GROUP, &r->timing.time_step, err));
fail:
    return st;
}

/* The buffers of the integration kernels: the state every one takes, the state at the start
 * of a step (predictor-corrector), and those the end of a step checks. */
#define STATE_BUFFERS                                                                              \
    (CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_ID | CLP_BUF_VEL | CLP_BUF_RHO |           \
     CLP_BUF_ACC | CLP_BUF_DRHO | CLP_BUF_SPH_STEP | CLP_BUF_XSPH | CLP_BUF_CONSTANTS)
#define OLD_BUFFERS (CLP_BUF_POS_OLD | CLP_BUF_VEL_OLD | CLP_BUF_RHO_OLD)
#define END_BUFFERS (CLP_BUF_POS_REBUILT | CLP_BUF_SHIFT)

/* What the step record says beyond the step: particles the integration excluded (an error
 * with sph.outliers=stop, else a warning), and a particle that moved so far since the last
 * rebuild that the list must be rebuilt before the next force evaluation. */
static clp_status read_step_record(sph_run *r, clp__sph_clock *clock, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_step_record rec;
    _Static_assert(sizeof rec == 5 * sizeof(cl_uint), "the step record is five words");
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_SPH_STEP, &rec, err)); /* the host keeps the clock */
    clock->dt = rec.dt;
    clock->rebuild_due = rec.moved > r->half_skin;
    if (rec.excluded == 0)
        return CLP_OK;
    char why[160];
    clp__sph_outlier_reasons(&r->c, r->opts, &r->phys, rec.reasons, why, sizeof why);
    CLP_REQUIRE(!r->stop_on_outliers, err, CLP_CHECK,
                "step %llu, t = %.6g s: %u fluid particle%s (first: particle %u) %s; "
                "sph.outliers=exclude takes such particles out and goes on",
                (unsigned long long)clock->step, clock->time, rec.excluded,
                rec.excluded == 1 ? "" : "s", rec.first_id, why);
    CLP_WARN(CLP_LOG_RUN,
             "step %llu, t = %.6g s: excluded %u fluid particle%s (first: particle %u) "
             "that %s",
             (unsigned long long)clock->step, clock->time, rec.excluded,
             rec.excluded == 1 ? "" : "s", rec.first_id, why);
fail:
    return st;
}

/* One step from the clock's step and time: rebuild when due or forced, rates, the device's
 * step, then the integrator: symplectic Euler, or a predictor half step, rates again and the
 * corrector. The clock gets the step taken and whether the next one must rebuild first. */
static clp_status step(sph_run *r, clp__sph_clock *clock, clp_error *err) {
    clp_status st = CLP_OK;
    const bool symplectic = strcmp(clp_options_enum(r->opts, "sph.integrator"), "symplectic") == 0;
    const bool scheduled = clp_grid_rebuilds_at(r->grid, clock->step);
    if ((scheduled || clock->rebuild_due) && !r->listed) {
        CLP_TRY(clp_grid_update(r->grid, err));
        const clp_grid_timing g = clp_grid_last_timing(r->grid);
        r->timing.keys += g.keys;
        r->timing.sort += g.sort;
        r->timing.reorder += g.reorder;
        r->timing.list += g.list;
        r->timing.rebuilds++;
        r->timing.forced_rebuilds += !scheduled;
    }
    r->listed = false;
    CLP_TRY(rates(r, err));
    CLP_TRY(choose_step(r, err));
    if (symplectic) {
        CLP_TRY(run_kernel(r, "sph_integrate", STATE_BUFFERS | END_BUFFERS, r->n, 0,
                           &r->timing.integration, err));
    } else {
        CLP_TRY(run_kernel(r, "sph_predict", STATE_BUFFERS | OLD_BUFFERS, r->n, 0,
                           &r->timing.integration, err));
        CLP_TRY(rates(r, err));
        CLP_TRY(run_kernel(r, "sph_correct", STATE_BUFFERS | OLD_BUFFERS | END_BUFFERS, r->n, 0,
                           &r->timing.integration, err));
    }
    CLP_TRY(read_step_record(r, clock, err));
    r->timing.steps++;
fail:
    return st;
}

/* How often a particle forced an early rebuild: a run where most rebuilds come early would
 * go faster with a wider skin. */
static void report_rebuilds(const sph_run *r) {
    const clp_run_timing *t = &r->timing;
    if (t->forced_rebuilds == 0)
        return;
    CLP_LOG(2 * t->forced_rebuilds > t->rebuilds ? CLP_LOG_WARN : CLP_LOG_INFO, CLP_LOG_RUN,
            "%llu of the %llu neighbour-list rebuilds came early, when a particle had moved more "
            "than half the skin (%g m) since the last; a wider neighbors.skin or a smaller "
            "neighbors.every rebuilds on schedule",
            (unsigned long long)t->forced_rebuilds, (unsigned long long)t->rebuilds, r->half_skin);
}

/* The checkpoint file of a run's output folder. */
static void checkpoint_path(const clp_run_config *config, char *path, size_t size) {
    snprintf(path, size, "%s/" CLP__SPH_CHECKPOINT, config->out_dir);
}

clp_status clp_sph_run(clp_worker *w, const clp_options *opts, const char *case_path,
                       const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    sph_run r = {.w = w, .opts = opts, .timed = config->timing != NULL};
    outputs out = {.last_step = -1};
    snapshot snap = {0};
    clp__progress progress;
    clp__sph_gauges *gauges = NULL;
    char *identity = NULL, ckpt[1024];
    CLP_TRY(clp__run_check_flags(config, "sph", err));
    CLP_TRY(setup(&r, case_path, config->cache, err));
    clp_worker_set_profiling(w, r.timed);
    CLP_TRY(clp__sph_identity(&r.c, &r.phys, opts, clp_worker_device(w), r.n, &identity, err));
    const double interval = r.c.checkpoint_interval > 0 ? r.c.checkpoint_interval : INFINITY;
    clp__sph_clock clock = {0, 0.0, r.phys.dt, 0.0, interval, 0.0, false};
    if (config->restart) {
        CLP_TRY(clp__sph_checkpoint_restore(w, config->restart, identity, &clock, err));
        CLP_TRY(clp_grid_relist(r.grid, err));
        r.listed = false; /* the restored order is the one to keep, rebuilt as before */
    }
    const uint64_t first = clock.step;
    if (config->out_dir) {
        if (config->restart)
            CLP_TRY(outputs_continue(&out, config->out_dir, clock.step, err));
        else
            CLP_TRY(outputs_open(&out, config->out_dir, err));
        checkpoint_path(config, ckpt, sizeof ckpt);
        if (r.c.gauges.interval > 0)
            CLP_TRY(clp__sph_gauges_open(&r.c, w, config->out_dir, config->restart != NULL,
                                         clock.step, &gauges, err));
    }
    const double end_time =
        config->max_time > 0 && config->max_time < r.c.end_time ? config->max_time : r.c.end_time;
    if (config->progress)
        clp__progress_init(&progress, config->progress, clock.time, end_time,
                           CLP__PROGRESS_PLAIN_INTERVAL);
    double start = clp__now();
    bool last = false;
    for (;;) {
        /* a hair of slack so rounding in the sum of steps never skips the last output */
        const double slack = 1e-9 * clock.dt;
        last = clock.time >= end_time - slack ||
               (config->max_steps && clock.step - first >= config->max_steps);
        const double outputs_start = clp__now();
        const bool written = out.last_step == (int64_t)clock.step; /* by the run continued */
        if (gauges && (clock.time >= clock.next_gauge - slack || last)) {
            CLP_TRY(clp__sph_gauges_sample(gauges, clp_grid_iteration_buffers(opts), clock.time,
                                           clock.step, err));
            while (clock.next_gauge <= clock.time + slack)
                clock.next_gauge += r.c.gauges.interval;
        }
        if ((clock.time >= clock.next_output - slack || last) && !written) {
            snapshot_free(&snap);
            CLP_TRY(take_snapshot(&r, clock.step, &snap, err));
            if (config->out_dir)
                CLP_TRY(outputs_write(&out, &snap, r.n, clock.time, clock.step, clock.dt, err));
            while (clock.next_output <= clock.time + slack)
                clock.next_output += r.c.output_interval;
        }
        const bool requested = config->checkpoint_requested && *config->checkpoint_requested;
        const bool due = clock.time >= clock.next_checkpoint - slack;
        const bool stopping = config->stop_requested && *config->stop_requested;
        if (config->out_dir && (stopping || (clock.step > first && (due || requested || last)))) {
            while (clock.next_checkpoint <= clock.time + slack)
                clock.next_checkpoint += interval;
            CLP_TRY(clp__sph_checkpoint_write(w, ckpt, identity, &clock, err));
            if (requested)
                *config->checkpoint_requested = 0;
        }
        r.timing.outputs += clp__now() - outputs_start;
        /* the stepping rate: the time spent writing outputs is not the device's */
        double rate = (double)r.n * (clock.step - first) / (clp__now() - start - r.timing.outputs);
        if (config->progress)
            clp__progress_update(&progress, clock.step, clock.time, rate);
        if (last || stopping)
            break;
        CLP_TRY(step(&r, &clock, err));
        clock.time += clock.dt;
        clock.step++;
    }
    r.timing.wall = clp__now() - start;
    r.timing.particles = r.n;
    report_rebuilds(&r);
    if (config->progress)
        clp__progress_finish(&progress, clock.step, clock.time,
                             (double)r.n * (clock.step - first) /
                                 (r.timing.wall - r.timing.outputs));
    if (config->timing)
        *config->timing = r.timing;
    if (last && config->result) {
        if (!snap.xyz) /* the last row was the continued run's: read the state again */
            CLP_TRY(take_snapshot(&r, clock.step, &snap, err));
        const double values[] = {clock.time, snap.kinetic, snap.mass,
                                 snap.vmax,  snap.front,   (double)snap.excluded};
        clp__run_result_set(config, r.timing.wall - r.timing.outputs,
                            (double)r.n * (double)(clock.step - first), clock.step - first,
                            clp__sph_diagnostics, values, sizeof values / sizeof values[0]);
        const bool list = strcmp(clp_options_enum(r.opts, "neighbors.mode"), "list") == 0;
        const double listed = list ? clp__sph_lattice_neighbours(&r.c, r.geo.search_radius) : 0.0;
        clp__run_result_cost(
            config,
            clp__sph_run_bytes(r.opts, &r.geo, r.n, listed, clock.step - first, r.timing.rebuilds),
            0.0);
    }
    if (!last) { /* stopped on request */
        if (config->out_dir)
            st = CLP_FAIL(err, CLP_INTERRUPTED,
                          "stopped at step %llu, t = %.9g s of %g; checkpoint written to %s: "
                          "continue with --restart %s",
                          (unsigned long long)clock.step, clock.time, r.c.end_time, ckpt, ckpt);
        else
            st = CLP_FAIL(err, CLP_INTERRUPTED, "stopped at step %llu, t = %.9g s of %g",
                          (unsigned long long)clock.step, clock.time, r.c.end_time);
    }
fail:
    free(identity);
    snapshot_free(&snap);
    clp__sph_gauges_close(gauges);
    if (config->out_dir)
        outputs_close(&out);
    clp_grid_destroy(r.grid);
    return st;
}
