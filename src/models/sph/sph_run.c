/* The SPH time loop: build the program, set up particles, then a step at a time
 * (sph_step.c), with diagnostics and VTK snapshots at each output time, checkpoints and, on
 * several devices, the re-cuts that rebalance them. */
#include "models/models.h"
#include "models/sph/sph_balance.h"
#include "models/sph/sph_checkpoint.h"
#include "models/sph/sph_dist_checkpoint.h"
#include "models/sph/sph_gauges.h"
#include "models/sph/sph_restart.h"
#include "models/sph/sph_run.h"
#include "run/run_flags.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The case, its physics, particle count and geometry. */
static clp_status load(sph_run *r, const char *case_path, clp_error *err) {
    clp_status st = CLP_OK;
    r->c.dim = (int)clp_options_int(r->opts, "core.dim");
    r->centred = clp_options_bool(r->opts, "sph.centred_density");
    CLP_TRY(clp__sph_case_load(case_path, r->c.dim, &r->c, err));
    clp__sph_physics(&r->c, &r->phys);
    CLP_TRY(clp__sph_count(&r->c, &r->n, &r->n_fluid, err));
    r->particles = r->n;
    clp_grid_desc desc = {.radius = 2.0 * r->phys.h};
    memcpy(desc.origin, r->c.origin, sizeof desc.origin);
    memcpy(desc.size, r->c.size, sizeof desc.size);
    CLP_TRY(clp_grid_geometry_make(r->opts, &desc, &r->geo, err));
    r->geo.cell_words = clp__sph_cell_words(&r->c, &r->geo);
    r->geo.moves_bounded = true; /* by the integration's largest move a step (step_end) */
    r->geo.sort_borrowed = true; /* by the rates, which a step writes before it reads them */
    r->global = r->geo;
    r->half_skin = 0.5 * (r->geo.search_radius - r->geo.radius);
    r->stop_on_outliers = strcmp(clp_options_enum(r->opts, "sph.outliers"), "stop") == 0;
    /* refused before any particle is made: the x-pencil forces search the cells themselves,
       over the whole grid of one device */
    r->pencils = strcmp(clp_options_enum(r->opts, "sph.strategy"), "x_pencil") == 0;
    CLP_REQUIRE(!r->pencils || strcmp(clp_options_enum(r->opts, "neighbors.mode"), "jit") == 0, err,
                CLP_CASE,
                "sph.strategy=x_pencil searches the neighbouring cells itself: set "
                "neighbors.mode=jit");
    CLP_REQUIRE(!r->pencils || !r->comm, err, CLP_CASE,
                "sph.strategy=x_pencil runs on one device: a split run takes "
                "sph.strategy=par_part");
fail:
    return st;
}

/* What the program is made of: summation modes, the grid, the model, with their constants. */
typedef struct program_parts {
    clp_constant constants[64];
    const char *files[CLP_GRID_CL_FILES + 10];
    clp_program_spec spec;
} program_parts;

static void program_spec(const sph_run *r, program_parts *p) {
    size_t nc = clp_grid_constants(&r->geo, r->n, p->constants, 64 - CLP_SPH_MAX_CONSTANTS);
    nc += clp__sph_constants(&r->c, r->opts, &r->phys, p->constants + nc);
    size_t nf = 0;
    p->files[nf++] = "common/summation.cl";
    p->files[nf++] = "common/constants.cl";
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        p->files[nf++] = *f;
    p->files[nf++] = "sph/sph.cl";
    p->files[nf++] = "sph/mdbc.cl";
    p->files[nf++] = "sph/gauges.cl";
    if (r->pencils) {
        nc += clp__sph_pencil_constants(&r->pencil, p->constants + nc);
        p->files[nf++] = "sph/sph_pencil.cl";
    }
    if (r->comm)
        p->files[nf++] = "dist/dist.cl";
    size_t n_modules;
    const char *const *modules = clp__model_modules("sph", &n_modules);
    p->spec = (clp_program_spec){"sph", modules, n_modules, p->files, nf, p->constants, nc};
}

/* The x-pencil force kernel's layout on the device, when sph.strategy=x_pencil (load
 * checked that it can run). */
static clp_status lay_out(sph_run *r, const clp_device_info *dev, clp_error *err) {
    return r->pencils ? clp__sph_pencil_make(dev, &r->geo, &r->c, &r->pencil, err) : CLP_OK;
}

static clp_status assemble(const sph_run *r, const clp_options *opts, char **source,
                           clp_error *err) {
    program_parts parts;
    program_spec(r, &parts);
    return clp_source_assemble(opts, clp_data_dir(), &parts.spec, source, err);
}

/* The register cap of SPH's programs where core.nv_maxrregcount is 0 and the device takes
 * NVIDIA's compiler options, with the default force kernel (a stored list, a work-item a
 * particle): at the compiler's 64 registers a multiprocessor of an H200 holds 32 of its
 * warps, at 56 it holds 36, and the forces of the 3D dam break ran 3 % faster (the list
 * build, the sort and the integration no slower; 48 spilled and ran slower,
 * docs/benchmarks/sph.md). */
enum { SPH_NV_REGISTERS = 56 };

/* The options the program is built with, a copy of the run's (*out): with the cap above
 * where it applies. Only the build takes it: the run's options, which its checkpoints record,
 * stay those of any device. */
static clp_status build_options(const sph_run *r, clp_options **out, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp_options_dup(r->opts, out, err));
    if (!r->pencils && strcmp(clp_options_enum(r->opts, "neighbors.mode"), "list") == 0 &&
        clp_options_int(r->opts, "core.nv_maxrregcount") == 0 &&
        clp_device_has_extension(clp_worker_device(r->w), "cl_nv_compiler_options")) {
        char cap[64];
        snprintf(cap, sizeof cap, "core.nv_maxrregcount=%d", SPH_NV_REGISTERS);
        CLP_TRY(clp_options_apply_assignment(*out, cap, err));
    }
fail:
    return st;
}

static clp_status build(sph_run *r, clp_cache *cache, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *opts = NULL;
    char *source = NULL;
    CLP_TRY(build_options(r, &opts, err));
    CLP_TRY(assemble(r, opts, &source, err));
    CLP_TRY(clp_worker_build_for(r->w, source, opts, cache, NULL, err));
fail:
    free(source);
    clp_options_destroy(opts);
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
    (CLP_BUF_VEL | CLP_BUF_RHO | CLP_BUF_ACC | CLP_BUF_DRHO | CLP_BUF_SPH_LARGEST |                \
     CLP_BUF_SPH_STEP | CLP_BUF_XSPH | CLP_BUF_POS_OLD | CLP_BUF_VEL_OLD | CLP_BUF_RHO_OLD |       \
     CLP_BUF_CONSTANTS | CLP_BUF_SHIFT | CLP_BUF_GHOST)

/* The model buffers (the case's gauges' too) and their sizes into *counts; `arguments` gets
 * the constants passed as a kernel argument. */
static clp_buffer_set model_buffers(const sph_run *r, clp_buffer_counts *counts,
                                    cl_float arguments[64]) {
    program_parts parts;
    program_spec(r, &parts);
    *counts = (clp_buffer_counts){.particles = r->n};
    counts->custom[clp__buffer_index(CLP_BUF_CONSTANTS)] =
        clp_constant_arguments(r->opts, &parts.spec, arguments);
    return MODEL_BUFFERS | clp__sph_gauge_buffers(&r->c, counts);
}

/* What the case's buffers take under r's options: the grid's and the model's, each in all and
 * its largest. A list sized from the counts is counted as the first build will size it, from
 * the lattice the particles start on. */
typedef struct memory_use {
    clp_memory_need grid, model;
    clp_grid_geometry sized; /* the geometry with that list size */
} memory_use;

static memory_use memory_of(const sph_run *r) {
    memory_use m = {.sized = r->geo};
    cl_float arguments[64];
    clp_buffer_counts counts;
    const clp_buffer_set buffers = model_buffers(r, &counts, arguments);
    if (strcmp(clp_options_enum(r->opts, "neighbors.mode"), "list") == 0 && !m.sized.max_neighbors)
        m.sized.max_neighbors =
            clp_grid_list_room(clp__sph_lattice_neighbours(&r->c, r->geo.search_radius));
    m.grid = clp_grid_memory_need(&m.sized, r->opts, r->n);
    m.model = clp_buffers_need(buffers, r->opts, &counts);
    return m;
}

/* The bytes of the list that memory_of sized. */
static double list_bytes(const memory_use *m, size_t particles) {
    const double words =
        m->sized.bits ? (double)clp_grid_bits_words(&m->sized) : m->sized.max_neighbors + 1.0;
    return 4.0 * words * (double)particles;
}

static const clp_memory_need *largest_of(const memory_use *m) {
    return m->grid.largest >= m->model.largest ? &m->grid : &m->model;
}

static bool fits(const memory_use *m, const clp_device_info *d) {
    const clp_memory_need all = clp__memory_need_add(m->grid, m->model);
    return clp__memory_need_fits(&all, d);
}

/* The modes sph.fit_device falls back to from a list of indices, in order: a list of bits, a
 * quarter of its size and faster in the 3D dam break on an H200; on one device, a list of
 * bits in as many buffers as the device's largest allocation calls for; then no list at all,
 * at half the rate (docs/benchmarks/sph.md). */
typedef enum fallback { FALLBACK_BITS, FALLBACK_PIECES, FALLBACK_NO_LIST, FALLBACKS } fallback;

/* Sets `opts` to a fallback's mode, a list in `pieces` buffers: without a list, x-pencils on
 * one device and a work-item per particle split (x-pencils run on one device only). */
static clp_status fall_back(clp_options *opts, fallback f, unsigned pieces, bool split,
                            clp_error *err) {
    clp_status st = CLP_OK;
    if (f == FALLBACK_BITS)
        return clp_options_apply_assignment(opts, "neighbors.format=bits", err);
    if (f == FALLBACK_PIECES) {
        char assignment[48];
        snprintf(assignment, sizeof assignment, "neighbors.pieces=%u", pieces);
        CLP_TRY(clp_options_apply_assignment(opts, "neighbors.format=bits", err));
        return clp_options_apply_assignment(opts, assignment, err);
    }
    CLP_TRY(clp_options_apply_assignment(opts, "neighbors.mode=jit", err));
    if (!split)
        CLP_TRY(clp_options_apply_assignment(opts, "sph.strategy=x_pencil", err));
fail:
    return st;
}

/* r in a fallback's mode, its options in `opts`. */
static sph_run with_fallback(const sph_run *r, clp_options *opts, fallback f, unsigned pieces) {
    sph_run fitted = *r;
    fitted.opts = opts;
    fitted.geo.bits = f != FALLBACK_NO_LIST;
    fitted.geo.list_pieces = f == FALLBACK_PIECES ? pieces
                             : f == FALLBACK_BITS ? r->geo.list_pieces
                                                  : 0;
    fitted.pencils = f == FALLBACK_NO_LIST && !r->comm;
    fitted.geo.max_neighbors = 0;
    return fitted;
}

/* The buffers a list of bits of r's case takes on `dev`, with a quarter more room for cells
 * that fill up as the run goes: 1 where it fits one. */
static unsigned pieces_for(const sph_run *r, const clp_device_info *dev) {
    sph_run bits = *r;
    bits.geo.bits = true;
    bits.geo.list_pieces = 1;
    bits.geo.max_neighbors = 0;
    const memory_use m = memory_of(&bits);
    const double need = 1.25 * list_bytes(&m, r->n) / (double)dev->max_mem_alloc_size;
    return need <= 1.0                    ? 1
           : need >= CLP_LIST_MOST_PIECES ? CLP_LIST_MOST_PIECES
                                          : (unsigned)ceil(need);
}

/* sph.fit_device: where the stored list of indices would not fit the device and a list of
 * bits (unless neighbors.max fixes the list's size), or else no list, would, the run takes
 * that mode and says so; where none fits, the
 * refusal comes with the list's figures (check_device_memory). A split run decides after its
 * cut, from each rank's slots, and its ranks agree on the first mode that fits them all, so
 * that they step alike. */
static clp_status fit_device(sph_run *r, const clp_device_info *dev, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *fitted = NULL;
    if (!dev || r->pencils || !clp_options_bool(r->opts, "sph.fit_device") ||
        strcmp(clp_options_enum(r->opts, "neighbors.mode"), "list") != 0)
        return CLP_OK;
    const memory_use with_list = memory_of(r);
    double refused = !fits(&with_list, dev);
    if (r->comm)
        CLP_TRY(clp__comm_allreduce(r->comm, &refused, 1, CLP_COMM_MAX, err));
    if (!refused)
        return CLP_OK;
    const bool split = r->comm != NULL;
    static const char *const modes[FALLBACKS] = {
        "with a list of bits (neighbors.format=bits)",
        "with a list of bits in %u buffers (neighbors.format=bits, neighbors.pieces=%u)",
        "without one (neighbors.mode=jit%s)"};
    static const char *const rates[FALLBACKS] = {"about the same", "about the same",
                                                 "about half the"};
    /* a list of indices of a fixed size (neighbors.max) is the user's: no bits for it, nor a
       number of pieces asked for */
    const bool indices_asked = r->geo.max_neighbors > 0;
    const bool pieces_asked = r->geo.list_pieces > 0;
    const unsigned pieces = pieces_for(r, dev);
    fallback f = indices_asked ? FALLBACK_NO_LIST : !r->geo.bits ? FALLBACK_BITS : FALLBACK_PIECES;
    for (; f < FALLBACKS; f++) {
        if (f == FALLBACK_PIECES && (split || pieces_asked || pieces <= 1))
            continue;
        clp_options_destroy(fitted);
        fitted = NULL;
        CLP_TRY(clp_options_dup(r->opts, &fitted, err));
        CLP_TRY(fall_back(fitted, f, pieces, split, err));
        const sph_run candidate = with_fallback(r, fitted, f, pieces);
        const memory_use need = memory_of(&candidate);
        double refused_too = !fits(&need, dev);
        if (r->comm)
            CLP_TRY(clp__comm_allreduce(r->comm, &refused_too, 1, CLP_COMM_MAX, err));
        if (refused_too)
            continue;
        const double gib = 1024.0 * 1024.0 * 1024.0;
        char rank[32], mode[96];
        clp__comm_rank_label(r->comm, rank, sizeof rank);
        if (f == FALLBACK_PIECES)
            snprintf(mode, sizeof mode, modes[f], pieces, pieces);
        else
            snprintf(mode, sizeof mode, modes[f],
                     split ? " on every rank" : ", sph.strategy=x_pencil");
        if (!fits(&with_list, dev))
            CLP_WARN(CLP_LOG_BUFFER,
                     "%s%zu particles with a stored neighbour list would take %.2f GiB (the "
                     "list %.2f GiB in one buffer) where device '%s' has %.2f GiB and allows "
                     "%.2f GiB in one buffer: running %s in %.2f GiB, at %s "
                     "rate; -s sph.fit_device=false refuses the case instead",
                     rank, r->n, (with_list.grid.total + with_list.model.total) / gib,
                     list_bytes(&with_list, r->n) / gib, dev->name, dev->global_mem_size / gib,
                     dev->max_mem_alloc_size / gib, mode,
                     (need.grid.total + need.model.total) / gib, rates[f]);
        if (split) { /* the rank's own options, made at its cut */
            CLP_TRY(fall_back(r->rank_opts, f, pieces, true, err));
        } else {
            clp_options_destroy(r->fitted_opts);
            r->fitted_opts = fitted;
            fitted = NULL;
        }
        const sph_run done = with_fallback(r, r->comm ? r->rank_opts : r->fitted_opts, f, pieces);
        r->opts = done.opts;
        r->pencils = done.pencils;
        r->geo.bits = r->global.bits = done.geo.bits;
        r->geo.list_pieces = r->global.list_pieces = done.geo.list_pieces;
        r->geo.max_neighbors = r->global.max_neighbors = 0;
        break;
    }
fail:
    clp_options_destroy(fitted);
    return st;
}

/* Host bytes a particle takes while a run holds it: its position in double, type and ID as
 * the set-up makes them, then a snapshot's position, ID, type, velocity, density and pressure
 * and the float4 velocities it is read from. */
enum { HOST_BYTES_PER_PARTICLE = 3 * 8 + 4 + 4 + 3 * 8 + 4 + 4 + 3 * 4 + 4 + 4 + 16 };

/* Refuses a case whose buffers do not fit the device, in all or one by one, before anything
 * is allocated. */
static clp_status check_device_memory(const sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_device_info *d = clp_worker_device(r->w);
    const memory_use m = memory_of(r);
    const clp_memory_need *largest = largest_of(&m);
    const double gib = 1024.0 * 1024.0 * 1024.0, total = (m.grid.total + m.model.total) / gib;
    /* the list's share, and the mode that needs none */
    if (total > d->global_mem_size / gib && m.sized.max_neighbors)
        CLP_WARN(CLP_LOG_BUFFER,
                 "the neighbour list would take %.2f GiB; -s neighbors.mode=jit -s "
                 "sph.strategy=x_pencil needs none",
                 list_bytes(&m, r->n) / gib);
    CLP_REQUIRE(total <= d->global_mem_size / gib, err, CLP_DEVICE_MEMORY,
                "the case needs %.2f GiB of device memory for %zu particles (neighbour search "
                "%.2f GiB, SPH %.2f GiB), more than the %.2f GiB of device '%s'",
                total, r->n, m.grid.total / gib, m.model.total / gib, d->global_mem_size / gib,
                d->name);
    CLP_REQUIRE(largest->largest <= d->max_mem_alloc_size, err, CLP_DEVICE_MEMORY,
                "the case's buffer \"%s\" needs %.2f GiB for %zu particles, more than the "
                "largest allocation device '%s' allows (%.2f GiB)",
                largest->largest_name, largest->largest / gib, r->n, d->name,
                d->max_mem_alloc_size / gib);
    CLP_INFO(CLP_LOG_BUFFER, "%zu particles take %.3f GiB of the %.2f GiB of device '%s'", r->n,
             total, d->global_mem_size / gib, d->name);
    if (d->type & CL_DEVICE_TYPE_CPU) { /* its buffers are this process's memory too */
        char what[256];
        snprintf(what, sizeof what, "%zu particles, with their buffers on CPU device '%s',", r->n,
                 d->name);
        CLP_TRY(clp__host_memory_check((double)r->n * HOST_BYTES_PER_PARTICLE + total * gib, what,
                                       err));
    }
fail:
    return st;
}

/* neighbors.format=auto: SPH takes lists of bits, which ran the 3D dam break faster than
 * indices in a quarter of the memory (docs/benchmarks/sph.md), unless neighbors.split or a
 * fixed neighbors.max asks for indices. `out` is a copy of `opts` with the format set. */
static clp_status resolve_format(const clp_options *opts, clp_options **out, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp_options_dup(opts, out, err));
    if (strcmp(clp_options_enum(opts, "neighbors.mode"), "list") != 0 ||
        strcmp(clp_options_enum(opts, "neighbors.format"), "auto") != 0)
        return CLP_OK;
    const bool indices =
        clp_options_bool(opts, "neighbors.split") || clp_options_int(opts, "neighbors.max") > 0;
    CLP_TRY(clp_options_apply_assignment(
        *out, indices ? "neighbors.format=index" : "neighbors.format=bits", err));
fail:
    return st;
}

clp_status clp_sph_source(const clp_options *opts, const clp_device_info *dev,
                          const char *case_path, char **out, clp_error *err) {
    clp_options *resolved = NULL;
    sph_run r = {0};
    clp_status st = CLP_OK;
    CLP_TRY(resolve_format(opts, &resolved, err));
    r.opts = resolved;
    CLP_TRY(load(&r, case_path, err));
    CLP_TRY(fit_device(&r, dev, err));
    CLP_TRY(lay_out(&r, dev, err));
    CLP_TRY(assemble(&r, r.opts, out, err));
fail:
    clp_options_destroy(r.fitted_opts);
    clp_options_destroy(resolved);
    return st;
}

/* The case's particles on this device (or a checkpoint's, cut again): all of them, or a rank's
 * slab of them in its first slots with padding after. */
static clp_status setup(sph_run *r, const double *weights, const clp__sph_restart *rs,
                        const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    double *xyz = NULL;
    uint32_t *types = NULL, *ids = NULL;
    size_t owned = r->n;
    clp_slabs slabs;
    const bool recut = rs->how == CLP__SPH_RESTART_RECUT;
    char what[64];
    snprintf(what, sizeof what, "%zu particles", r->n);
    CLP_TRY(clp__host_memory_check((double)r->n * HOST_BYTES_PER_PARTICLE, what, err));
    if (!r->comm) /* alone, the device is known to hold them before any is made */
        CLP_TRY(check_device_memory(r, err));
    if (recut)
        CLP_TRY(clp__sph_restart_particles(rs, r->n, &xyz, &types, err));
    else
        CLP_TRY(clp__sph_particles(&r->c, r->n, &xyz, &types, err));
    if (r->comm) {
        CLP_TRY(clp__sph_dist_cut(r, weights, &xyz, &types, &ids, &owned, &slabs, err));
        if (r->left_out)
            goto fail; /* the other ranks go on without this one */
        CLP_REQUIRE(r->geo.list_pieces <= 1, err, CLP_CASE,
                    "neighbors.pieces splits the list of a run on one device: a split run "
                    "keeps each rank's list in one buffer");
        CLP_TRY(fit_device(r, clp_worker_device(r->w), err)); /* the rank's slab */
        CLP_TRY(check_device_memory(r, err));
    }
    CLP_TRY(lay_out(r, clp_worker_device(r->w), err));
    CLP_TRY(build(r, config->cache, err));
    if (!r->comm) /* a split run's ranks stop together, at a step */
        CLP_TRY(clp__run_stop_check(config, err));
    CLP_TRY(clp_grid_create(r->w, r->opts, &r->geo, r->n, &r->grid, err));
    CLP_TRY(clp_grid_set_particles(r->grid, xyz, types, err));
    if (ids)
        CLP_TRY(clp_worker_write(r->w, CLP_BUF_ID, ids, err));
    cl_float arguments[64];
    clp_buffer_counts counts;
    const clp_buffer_set buffers = model_buffers(r, &counts, arguments);
    CLP_TRY(clp_worker_alloc(r->w, buffers, r->opts, &counts, err));
    CLP_TRY(clp_grid_lend_sort(
        r->grid, CLP_BUF_ACC,
        clp_worker_buffers(r->w) & CLP_BUF_SHIFT ? CLP_BUF_SHIFT : CLP_BUF_DRHO, err));
    if (clp_worker_buffers(r->w) & CLP_BUF_CONSTANTS)
        CLP_TRY(clp_worker_write(r->w, CLP_BUF_CONSTANTS, arguments, err));
    if (recut) {
        CLP_TRY(clp__sph_restart_state(r, rs, ids, err));
    } else {
        CLP_TRY(initial_state(r, xyz, types, err));
        if (clp_worker_buffers(r->w) & CLP_BUF_GHOST)
            CLP_TRY(write_ghosts(r, xyz, types, err));
    }
    /* the first rebuild sizes the neighbour list: a list the device cannot hold is refused
     * before any output is written */
    if (r->comm) {
        CLP_TRY(clp__dist_rank_init(&r->dist, r->comm, r->w, r->grid, &slabs, &r->geo,
                                    CLP__SPH_TRAVELS, CLP__SPH_HALO_ZEROED, err));
        clp__dist_rank_uploaded(&r->dist, owned);
        CLP_TRY(clp__dist_rank_rebuild(&r->dist, err));
    } else {
        CLP_TRY(clp_grid_update(r->grid, err));
    }
    r->listed = true;
fail:
    free(xyz);
    free(types);
    free(ids);
    return st;
}

/* A snapshot of the particles on this device, or on rank 0 of all ranks' particles. */
static clp_status take_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s, clp_error *err) {
    clp_status st = CLP_OK;
    cl_float4 *vel = NULL;
    clp__sph_snapshot_free(s);
    if (r->comm)
        return clp__sph_dist_snapshot(r, step, s, err);
    CLP_TRY(clp__sph_snapshot_alloc(s, r->n, err));
    vel = malloc(r->n * sizeof *vel);
    CLP_REQUIRE_ALLOC(vel, err);
    CLP_TRY(clp_grid_read_particles(r->grid, s->xyz, s->id, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_TYPE, s->type, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_VEL, vel, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_RHO, s->rho, err));
    for (size_t i = 0; i < r->n; i++)
        for (int a = 0; a < 3; a++)
            s->vel[3 * i + a] = vel[i].s[a];
    CLP_TRY(clp__sph_snapshot_summarise(s, &r->c, r->centred, &r->phys, step, err));
fail:
    free(vel);
    return st;
}

/* Neighbours a particle lists in list mode, for the traffic counts: those of the initial
 * lattice within the search radius; 0 without a list. The counts take 4 bytes a neighbour and
 * one more for the end marker, so a list of bits counts as its words less one. */
static double listed_neighbours(const sph_run *r) {
    if (strcmp(clp_options_enum(r->opts, "neighbors.mode"), "list") != 0)
        return 0.0;
    if (r->geo.bits)
        return (double)clp_grid_bits_words(&r->geo) - 1;
    return clp__sph_lattice_neighbours(&r->c, r->geo.search_radius);
}

/* How often a particle forced an early rebuild: a run where most rebuilds come early would
 * go faster with a wider skin. */
static void report_rebuilds(const sph_run *r) {
    const clp_run_timing *t = &r->timing;
    if (t->forced_rebuilds == 0)
        return;
    CLP_LOG(2 * t->forced_rebuilds > t->rebuilds ? CLP_LOG_WARN : CLP_LOG_INFO, CLP_LOG_RUN,
            "%llu of the %llu neighbour-list rebuilds came early, when the largest moves of "
            "the steps since the last added up to more than half the skin (%g m); a wider "
            "neighbors.skin or a smaller neighbors.every rebuilds on schedule",
            (unsigned long long)t->forced_rebuilds, (unsigned long long)t->rebuilds, r->half_skin);
}

/* A split rank back to the case before its cut: no grid, slab, slots or rank options. */
static void tear_down(sph_run *r, const clp_options *opts) {
    clp__dist_rank_destroy(&r->dist);
    r->dist = (clp__dist_rank){0};
    clp_grid_destroy(r->grid);
    r->grid = NULL;
    clp_options_destroy(r->rank_opts);
    r->rank_opts = NULL;
    r->opts = opts;
    r->geo = r->global;
    r->n = r->particles;
}

/* At a rebuild of a split run, when the ranks agree that their busy times differ by more than
 * dist.rebalance: their particles collected as a restart's and cut again by the measured
 * speeds, through the setup a restart on other weights takes (the program for the new slab
 * is a cache hit after the first time). The setup's rebuild stands for the step's. */
static clp_status rebalance(sph_run *r, const clp_options *opts, const clp__sph_clock *clock,
                            const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_restart rs = {.how = CLP__SPH_RESTART_NONE};
    bool recut;
    if ((!clp_grid_rebuilds_at(r->grid, clock->step) && !clock->rebuild_due) || r->listed)
        return CLP_OK;
    CLP_TRY(clp__sph_balance_check(r, &recut, err));
    if (!recut)
        return CLP_OK;
    CLP_TRY(clp__sph_balance_collect(r, &rs, err));
    tear_down(r, opts);
    CLP_TRY(setup(r, r->balance.weights, &rs, config, err));
    if (!r->left_out && r->comm)
        CLP_TRY(clp__sph_balance_done(r, clock->step, err));
fail:
    clp__sph_restart_close(&rs);
    return st;
}

/* The checkpoint file of a run's output folder. */
static void checkpoint_path(const clp_run_config *config, char *path, size_t size) {
    snprintf(path, size, "%s/" CLP__SPH_CHECKPOINT, config->out_dir);
}

/* The first time after `time` on the schedule next, next + interval, next + 2 interval, ...
 * Computed, not stepped through: an interval far below the time (1e-300) would otherwise loop
 * for ever. Where the interval is under the time's resolution, the next step is due. */
static double schedule_after(double next, double interval, double time) {
    if (next > time)
        return next;
    const double after = next + (floor((time - next) / interval) + 1) * interval;
    return after > time ? after : nextafter(time, INFINITY);
}

/* Whether the time loop's turn after the coming step will only step, whatever that step's
 * size (at most the largest step, with a margin for its rounding to float on the device): no
 * end, output, gauge, checkpoint, step limit or request due then. `slack` as the loop's. */
static bool next_turn_only_steps(const sph_run *r, const clp__sph_clock *clock,
                                 const clp_run_config *config, double end_time, bool gauges,
                                 uint64_t first) {
    const double slack = 1e-9 * clock->dt, next = clock->time + 1.001 * r->phys.dt;
    return next < end_time - slack && next < clock->next_output - slack &&
           (!gauges || next < clock->next_gauge - slack) &&
           (!config->out_dir || next < clock->next_checkpoint - slack) &&
           !(config->max_steps && clock->step + 1 - first >= config->max_steps) &&
           !(config->stop_requested && *config->stop_requested) &&
           !(config->checkpoint_requested && *config->checkpoint_requested);
}

/* The run on this device, alone (comm NULL) or as one rank of a multi-device run, where every
 * rank calls it and rank 0 writes the outputs. */
static clp_status run(clp_worker *w, clp__comm *comm, const double *weights,
                      const clp_options *opts, const char *case_path, const clp_run_config *config,
                      clp_error *err) {
    clp_status st = CLP_OK;
    sph_run r = {.w = w,
                 .opts = opts,
                 .timed = config->timing != NULL,
                 .comm = comm,
                 .stop_flag = config->stop_requested,
                 .checkpoint_flag = config->checkpoint_requested};
    const bool writer = !comm || clp__comm_rank(comm) == 0;
    clp__sph_outputs out = {.last_step = -1};
    clp__sph_snapshot snap = {0};
    clp__progress progress;
    clp__sph_gauges *gauges = NULL;
    clp__sph_restart restart = {.how = CLP__SPH_RESTART_NONE};
    char *identity = NULL, ckpt[1024];
    const char *out_dir = writer ? config->out_dir : NULL;
    FILE *progress_file = writer ? config->progress : NULL;
    CLP_TRY(clp__run_check_flags(config, "sph", err));
    CLP_TRY(load(&r, case_path, err));
    CLP_TRY(fit_device(&r, comm ? NULL : clp_worker_device(w), err));
    /* a split run's identity names no device: its checkpoint may continue on others */
    CLP_TRY(clp__sph_identity(&r.c, &r.phys, r.opts, comm ? NULL : clp_worker_device(w),
                              r.particles, &identity, err));
    if (config->restart)
        CLP_TRY(clp__sph_restart_open(&r, config->restart, identity, weights, &restart, err));
    clp__sph_balance_init(&r, weights);
    CLP_TRY(setup(&r, weights, &restart, config, err));
    if (r.left_out)
        goto fail;
    clp_worker_set_profiling(w, r.timed);
    const double interval = r.c.checkpoint_interval > 0 ? r.c.checkpoint_interval : INFINITY;
    clp__sph_clock clock = {.dt = r.phys.dt, .next_checkpoint = interval};
    CLP_TRY(clp__sph_restart_apply(&r, &restart, identity, &clock, err));
    clp__sph_restart_close(&restart);
    const uint64_t first = clock.step;
    if (config->out_dir)
        checkpoint_path(config, ckpt, sizeof ckpt);
    if (out_dir) {
        if (config->restart)
            CLP_TRY(clp__sph_outputs_continue(&out, out_dir, clock.step, err));
        else
            CLP_TRY(clp__sph_outputs_open(&out, out_dir, err));
    }
    if (r.c.gauges.interval > 0 && (out_dir || r.comm)) { /* every rank samples, rank 0 writes */
        CLP_TRY(clp__sph_gauges_open(&r.c, w, out_dir, config->restart != NULL, clock.step, &gauges,
                                     err));
        if (r.comm)
            clp__sph_gauges_split(gauges, r.comm, &r.dist, &r.global);
    }
    if (r.comm) /* rank 0's files say which snapshots the run continued has taken */
        CLP_TRY(clp__comm_broadcast(r.comm, &out.last_step, sizeof out.last_step, err));
    const double end_time =
        config->max_time > 0 && config->max_time < r.c.end_time ? config->max_time : r.c.end_time;
    if (progress_file)
        clp__progress_init(&progress, progress_file, clock.time, end_time,
                           CLP__PROGRESS_PLAIN_INTERVAL);
    const double start = clp__now();
    bool last = false, stopping = false;
    uint64_t snapped = UINT64_MAX; /* the step of the state in `snap` */
    for (;;) {
        /* a hair of slack so rounding in the sum of steps never skips the last output */
        const double slack = 1e-9 * clock.dt;
        last = clock.time >= end_time - slack ||
               (config->max_steps && clock.step - first >= config->max_steps);
        const double outputs_start = clp__now();
        const bool written = out.last_step == (int64_t)clock.step; /* by the run continued */
        if (gauges && (clock.time >= clock.next_gauge - slack || last)) {
            if (r.comm) /* the halos must hold this step's state: no overlap for the next forces */
                CLP_TRY(clp__dist_rank_refresh_end(&r.dist, err));
            CLP_TRY(clp__sph_gauges_sample(gauges, clp_grid_iteration_buffers(r.opts), clock.time,
                                           clock.step, err));
            clock.next_gauge =
                schedule_after(clock.next_gauge, r.c.gauges.interval, clock.time + slack);
        }
        if ((clock.time >= clock.next_output - slack || last) && !written) {
            CLP_TRY(take_snapshot(&r, clock.step, &snap, err));
            snapped = clock.step;
            if (out_dir)
                CLP_TRY(clp__sph_outputs_write(&out, &snap, clock.time, clock.step, clock.dt, err));
            clock.next_output =
                schedule_after(clock.next_output, r.c.output_interval, clock.time + slack);
        }
        bool requested = config->checkpoint_requested && *config->checkpoint_requested;
        stopping = config->stop_requested && *config->stop_requested;
        if (r.comm && r.flags_agreed) { /* with the last step's record */
            stopping = r.agreed_stop;
            requested = r.agreed_checkpoint;
            r.flags_agreed = false;
        } else if (r.comm) {
            CLP_TRY(clp__sph_dist_agree_flags(&r, &stopping, &requested, err));
        }
        const bool due = clock.time >= clock.next_checkpoint - slack;
        if (config->out_dir && (stopping || (clock.step > first && (due || requested || last)))) {
            clock.next_checkpoint =
                schedule_after(clock.next_checkpoint, interval, clock.time + slack);
            if (r.comm)
                CLP_TRY(clp__sph_dist_checkpoint_write(&r, ckpt, identity, r.balance.weights,
                                                       &clock, err));
            else
                CLP_TRY(clp__sph_checkpoint_write(w, ckpt, identity, &clock, err));
            if (requested)
                *config->checkpoint_requested = 0;
        }
        r.timing.outputs += clp__now() - outputs_start;
        /* the stepping rate: the time spent writing outputs is not the device's */
        double rate =
            (double)r.particles * (clock.step - first) / (clp__now() - start - r.timing.outputs);
        if (progress_file)
            clp__progress_update(&progress, clock.step, clock.time, rate);
        if (last || stopping)
            break;
        if (r.comm) {
            CLP_TRY(rebalance(&r, opts, &clock, config, err));
            if (r.left_out)
                goto fail;
            if (gauges) /* on the ranks a re-cut kept (alone: comm NULL) */
                clp__sph_gauges_split(gauges, r.comm, &r.dist, &r.global);
        }
        const bool next_plain =
            next_turn_only_steps(&r, &clock, config, end_time, gauges != NULL, first);
        clp__sph_balance_step_begin(&r);
        CLP_TRY(clp__sph_step(&r, &clock, next_plain, err));
        clp__sph_balance_step_end(&r);
        clock.time += clock.dt;
        clock.step++;
    }
    r.timing.wall = clp__now() - start;
    r.timing.particles = r.particles;
    if (writer)
        report_rebuilds(&r);
    if (r.comm && r.timed)
        CLP_TRY(clp__sph_dist_timing(&r, err));
    if (progress_file)
        clp__progress_finish(&progress, clock.step, clock.time,
                             (double)r.particles * (clock.step - first) /
                                 (r.timing.wall - r.timing.outputs));
    if (config->timing && writer) {
        if (!r.comm) /* a split run's phases are rank 0's, its particles a share */
            clp__sph_phase_bytes(r.opts, &r.geo, r.particles, listed_neighbours(&r), r.timing.steps,
                                 r.timing.rebuilds, r.timing.bytes);
        *config->timing = r.timing;
    }
    /* the result and summary.json are of the state where the run ended: read it again when
     * the last snapshot was not of it, after a stop or when the last row was the continued
     * run's (every rank, when split) */
    const bool summed = config->out_dir || (last && config->result);
    if (snapped != clock.step && summed && (r.comm || writer))
        CLP_TRY(take_snapshot(&r, clock.step, &snap, err));
    const double values[] = {clock.time, snap.kinetic, snap.mass,
                             snap.vmax,  snap.front,   (double)snap.excluded};
    const double seconds = r.timing.wall - r.timing.outputs;
    if (out_dir)
        CLP_TRY(
            clp__sph_summary_write(out_dir, r.particles, clock.step, values, !last, seconds, err));
    if (last && config->result && writer) {
        clp__run_result_set(config, seconds, (double)r.particles * (double)(clock.step - first),
                            clock.step - first, clp__sph_diagnostics, values,
                            sizeof values / sizeof values[0]);
        clp__run_result_cost(config,
                             clp__sph_run_bytes(r.opts, &r.geo, r.particles, listed_neighbours(&r),
                                                clock.step - first, r.timing.rebuilds),
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
    clp__sph_restart_close(&restart);
    clp__sph_snapshot_free(&snap);
    clp__sph_gauges_close(gauges);
    if (out_dir)
        clp__sph_outputs_close(&out);
    if (r.comm)
        clp__dist_rank_destroy(&r.dist);
    clp_grid_destroy(r.grid);
    clp_options_destroy(r.rank_opts);
    clp_options_destroy(r.fitted_opts);
    while (r.n_views > 0)
        clp__comm_destroy(r.views[--r.n_views]);
    return st;
}

clp_status clp_sph_run(clp_worker *w, const clp_options *opts, const char *case_path,
                       const clp_run_config *config, clp_error *err) {
    return clp__sph_run_rank(w, NULL, NULL, opts, case_path, config, err);
}

clp_status clp__sph_run_rank(clp_worker *w, clp__comm *comm, const double *weights,
                             const clp_options *opts, const char *case_path,
                             const clp_run_config *config, clp_error *err) {
    clp_options *resolved = NULL;
    clp_status st = resolve_format(opts, &resolved, err);
    if (st == CLP_OK)
        st = run(w, comm, weights, resolved, case_path, config, err);
    clp_options_destroy(resolved);
    return st;
}
