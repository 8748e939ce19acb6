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
#include "run/driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The case, its physics, particle count and geometry. */
static clp_status load(sph_run *r, const char *case_path, clp_error *err) {
    clp_status st = CLP_OK;
    r->c.dim = (int)clp__core_dim_of(r->opts);
    r->centred = clp__sph_centred_density_of(r->opts);
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
    r->stop_on_outliers = clp__sph_outliers_of(r->opts) == CLP_SPH_OUTLIERS_STOP;
    /* refused before any particle is made: the x-pencil forces search the cells themselves,
       over the whole grid of one device */
    r->pencils = clp__sph_strategy_of(r->opts) == CLP_SPH_STRATEGY_X_PENCIL;
    CLP_REQUIRE(!r->pencils || clp__neighbors_mode_of(r->opts) == CLP_NEIGHBORS_MODE_JIT, err,
                CLP_CASE,
                "sph.strategy=x_pencil searches the neighbouring cells itself: set "
                "neighbors.mode=" CLP_NEIGHBORS_MODE_JIT_NAME);
    CLP_REQUIRE(!r->pencils || !r->comm, err, CLP_CASE,
                "sph.strategy=x_pencil runs on one device: a split run takes "
                "sph.strategy=" CLP_SPH_STRATEGY_PAR_PART_NAME);
fail:
    return st;
}

/* What the program is made of: summation modes, the grid, the model, with their constants
 * (the gauges' count of points among the model's). */
typedef struct program_parts {
    clp_constant constants[64];
    const char *files[CLP_GRID_CL_FILES + 10];
    clp_program_spec spec;
} program_parts;

static void program_spec(const sph_run *r, program_parts *p) {
    size_t nc = clp_grid_constants(&r->geo, r->n, p->constants, 64 - CLP_SPH_MAX_CONSTANTS);
    nc += clp__sph_constants(&r->c, r->opts, &r->phys, p->constants + nc);
    p->constants[nc++] = clp__sph_gauge_constant(&r->c);
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
    if (!r->pencils && clp__neighbors_mode_of(r->opts) == CLP_NEIGHBORS_MODE_LIST &&
        clp__core_nv_maxrregcount_of(r->opts) == 0 &&
        clp_device_has_extension(clp_worker_device(r->w), "cl_nv_compiler_options"))
        CLP_TRY(clp__core_nv_maxrregcount_set(*out, SPH_NV_REGISTERS, err));
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
    if (clp__neighbors_mode_of(r->opts) == CLP_NEIGHBORS_MODE_LIST && !m.sized.max_neighbors)
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
        return clp__neighbors_format_set(opts, CLP_NEIGHBORS_FORMAT_BITS, err);
    if (f == FALLBACK_PIECES) {
        CLP_TRY(clp__neighbors_format_set(opts, CLP_NEIGHBORS_FORMAT_BITS, err));
        return clp__neighbors_pieces_set(opts, pieces, err);
    }
    CLP_TRY(clp__neighbors_mode_set(opts, CLP_NEIGHBORS_MODE_JIT, err));
    if (!split)
        CLP_TRY(clp__sph_strategy_set(opts, CLP_SPH_STRATEGY_X_PENCIL, err));
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
    if (!dev || r->pencils || !clp__sph_fit_device_of(r->opts) ||
        clp__neighbors_mode_of(r->opts) != CLP_NEIGHBORS_MODE_LIST)
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
    if (clp__neighbors_mode_of(opts) != CLP_NEIGHBORS_MODE_LIST ||
        clp__neighbors_format_of(opts) != CLP_NEIGHBORS_FORMAT_AUTO)
        return CLP_OK;
    const bool indices = clp__neighbors_split_of(opts) || clp__neighbors_max_of(opts) > 0;
    CLP_TRY(clp__neighbors_format_set(
        *out, indices ? CLP_NEIGHBORS_FORMAT_INDEX : CLP_NEIGHBORS_FORMAT_BITS, err));
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
    if (clp__neighbors_mode_of(r->opts) != CLP_NEIGHBORS_MODE_LIST)
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

/* A run of the case on this device, alone or as one rank of a split run, with its clock,
 * outputs and the state of its last snapshot. */
typedef struct sph_model {
    sph_run r;
    clp__sph_clock clock;
    clp__sph_restart restart;
    clp__sph_outputs out;
    clp__sph_snapshot snap;
    uint64_t snapped; /* the step of the state in `snap` */
    clp__sph_gauges *gauges;
    char *identity;
    char checkpoint[1024]; /* the checkpoint file of the run's output folder */
} sph_model;

static clp_status sample_gauges(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    sph_model *m = model;
    if (m->r.comm) /* the halos must hold this step's state: no overlap for the next forces */
        CLP_TRY(clp__dist_rank_refresh_end(&m->r.dist, err));
    CLP_TRY(clp__sph_gauges_sample(m->gauges, clp_grid_iteration_buffers(m->r.opts), run->time,
                                   run->step, err));
fail:
    return st;
}

/* A snapshot in the output folder, unless the run continued wrote that step's. */
static clp_status write_snapshot(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    sph_model *m = model;
    if (m->out.last_step == (int64_t)run->step)
        return CLP_OK;
    CLP_TRY(take_snapshot(&m->r, run->step, &m->snap, err));
    m->snapped = run->step;
    if (run->out_dir)
        CLP_TRY(clp__sph_outputs_write(&m->out, &m->snap, run->time, run->step, m->clock.dt, err));
fail:
    return st;
}

static clp_status write_checkpoint(void *model, clp__run *run, clp_error *err) {
    (void)run;
    sph_model *m = model;
    if (m->r.comm)
        return clp__sph_dist_checkpoint_write(&m->r, m->checkpoint, m->identity,
                                              m->r.balance.weights, &m->clock, err);
    return clp__sph_checkpoint_write(m->r.w, m->checkpoint, m->identity, &m->clock, err);
}

/* The outputs in their order: gauges (every rank samples, rank 0 writes), snapshots, and
 * checkpoints at their interval, on request, on a stop and at the end. */
static void add_outputs(sph_model *m, clp__run *run, double checkpoint_interval) {
    const clp_sph_case *c = &m->r.c;
    if (c->gauges.interval > 0 && (run->out_dir || m->r.comm))
        clp__run_add_output(run, (clp__run_output){.interval = c->gauges.interval,
                                                   .next = &m->clock.next_gauge,
                                                   .also = CLP__RUN_AT_LAST,
                                                   .write = sample_gauges});
    clp__run_add_output(run, (clp__run_output){.interval = c->output_interval,
                                               .next = &m->clock.next_output,
                                               .also = CLP__RUN_AT_LAST,
                                               .write = write_snapshot});
    if (run->config->out_dir)
        clp__run_add_output(run,
                            (clp__run_output){.interval = checkpoint_interval,
                                              .next = &m->clock.next_checkpoint,
                                              .also = CLP__RUN_AT_LAST | CLP__RUN_ON_STOP |
                                                      CLP__RUN_ON_REQUEST | CLP__RUN_AFTER_FIRST,
                                              .write = write_checkpoint});
}

/* The case (or the checkpoint continued) on this device, or this rank's slab of it. */
static clp_status open_run(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    sph_model *m = model;
    sph_run *r = &m->r;
    const clp_run_config *config = run->config;
    *r = (sph_run){.w = run->worker,
                   .opts = run->opts,
                   .timed = config->timing != NULL,
                   .comm = run->comm,
                   .stop_flag = config->stop_requested,
                   .checkpoint_flag = config->checkpoint_requested};
    m->restart.how = CLP__SPH_RESTART_NONE;
    m->out.last_step = -1;
    m->snapped = UINT64_MAX;
    CLP_TRY(load(r, run->case_path, err));
    CLP_TRY(fit_device(r, r->comm ? NULL : clp_worker_device(r->w), err));
    /* a split run's identity names no device: its checkpoint may continue on others */
    CLP_TRY(clp__sph_identity(&r->c, &r->phys, r->opts, r->comm ? NULL : clp_worker_device(r->w),
                              r->particles, &m->identity, err));
    if (config->restart)
        CLP_TRY(
            clp__sph_restart_open(r, config->restart, m->identity, run->weights, &m->restart, err));
    clp__sph_balance_init(r, run->weights);
    CLP_TRY(setup(r, run->weights, &m->restart, config, err));
    if (r->left_out) {
        run->quit = true;
        goto fail;
    }
    clp_worker_set_profiling(r->w, r->timed);
    const double interval = r->c.checkpoint_interval > 0 ? r->c.checkpoint_interval : INFINITY;
    m->clock = (clp__sph_clock){.dt = r->phys.dt, .next_checkpoint = interval};
    CLP_TRY(clp__sph_restart_apply(r, &m->restart, m->identity, &m->clock, err));
    clp__sph_restart_close(&m->restart);
    run->first = run->step = m->clock.step;
    run->time = m->clock.time;
    run->dt = m->clock.dt;
    run->variable_dt = true;
    run->particles = r->particles;
    clp__run_limit_time(run, r->c.end_time);
    clp__run_limit_steps(run, UINT64_MAX, 0.0);
    if (config->out_dir)
        snprintf(m->checkpoint, sizeof m->checkpoint, "%s/" CLP__SPH_CHECKPOINT, config->out_dir);
    add_outputs(m, run, interval);
fail:
    return st;
}

/* The output files, new or those of the run continued, and the gauges. */
static clp_status start(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    sph_model *m = model;
    sph_run *r = &m->r;
    const bool restarted = run->config->restart != NULL;
    if (run->out_dir && restarted)
        CLP_TRY(clp__sph_outputs_continue(&m->out, run->out_dir, run->step, err));
    else if (run->out_dir)
        CLP_TRY(clp__sph_outputs_open(&m->out, run->out_dir, err));
    if (r->c.gauges.interval > 0 && (run->out_dir || r->comm)) {
        CLP_TRY(
            clp__sph_gauges_open(&r->c, r->w, run->out_dir, restarted, run->step, &m->gauges, err));
        if (r->comm)
            clp__sph_gauges_split(m->gauges, r->comm, &r->dist, &r->global);
    }
    if (r->comm) /* rank 0's files say which snapshots the run continued has taken */
        CLP_TRY(clp__comm_broadcast(r->comm, &m->out.last_step, sizeof m->out.last_step, err));
fail:
    return st;
}

/* Whether the turn after the coming step will only step, whatever that step's size (at most
 * the largest step, with a margin for its rounding to float on the device): no end, output,
 * gauge, checkpoint, step limit or request due then. `slack` as the driver's. */
static bool next_turn_only_steps(const sph_model *m, const clp__run *run) {
    const clp__sph_clock *clock = &m->clock;
    const clp_run_config *config = run->config;
    const double slack = 1e-9 * clock->dt, next = clock->time + 1.001 * m->r.phys.dt;
    return next < run->end_time - slack && next < clock->next_output - slack &&
           (!m->gauges || next < clock->next_gauge - slack) &&
           (!config->out_dir || next < clock->next_checkpoint - slack) &&
           clock->step + 1 < run->end_step &&
           !(config->stop_requested && *config->stop_requested) &&
           !(config->checkpoint_requested && *config->checkpoint_requested);
}

/* One step; on a split run first the re-cut that rebalances the ranks, when due. */
static clp_status advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                          clp_error *err) {
    (void)steps; /* one: the steps vary */
    clp_status st = CLP_OK;
    sph_model *m = model;
    sph_run *r = &m->r;
    *ran = 0;
    if (r->comm) {
        CLP_TRY(rebalance(r, run->opts, &m->clock, run->config, err));
        if (r->left_out) {
            run->quit = true;
            goto fail;
        }
        if (m->gauges) /* on the ranks a re-cut kept (alone: comm NULL) */
            clp__sph_gauges_split(m->gauges, r->comm, &r->dist, &r->global);
    }
    const bool next_plain = next_turn_only_steps(m, run);
    clp__sph_balance_step_begin(r);
    CLP_TRY(clp__sph_step(r, &m->clock, next_plain, err));
    clp__sph_balance_step_end(r);
    m->clock.time += m->clock.dt;
    m->clock.step++;
    run->time = m->clock.time;
    run->dt = m->clock.dt;
    *ran = 1;
fail:
    return st;
}

/* A split run's requests, agreed with the last step's record or else here; a rank left alone
 * by a re-cut takes its own. */
static clp_status requests(void *model, clp__run *run, bool *stop, bool *checkpoint,
                           clp_error *err) {
    (void)run;
    sph_run *r = &((sph_model *)model)->r;
    if (!r->comm)
        return CLP_OK;
    if (!r->flags_agreed)
        return clp__sph_dist_agree_flags(r, stop, checkpoint, err);
    *stop = r->agreed_stop;
    *checkpoint = r->agreed_checkpoint;
    r->flags_agreed = false;
    return CLP_OK;
}

/* The timing, the report on rebuilds, summary.json and the result, of the state where the
 * run ended: read again when the last snapshot was not of it, after a stop or when the last
 * row was the continued run's (every rank, when split). */
static clp_status finish(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    sph_model *m = model;
    sph_run *r = &m->r;
    const clp_run_config *config = run->config;
    r->timing.wall = run->seconds + run->outputs;
    r->timing.outputs = run->outputs;
    r->timing.particles = r->particles;
    if (run->writer)
        report_rebuilds(r);
    if (r->comm && r->timed)
        CLP_TRY(clp__sph_dist_timing(r, err));
    if (config->timing && run->writer) {
        if (!r->comm) /* a split run's phases are rank 0's, its particles a share */
            clp__sph_phase_bytes(r->opts, &r->geo, r->particles, listed_neighbours(r),
                                 r->timing.steps, r->timing.rebuilds, r->timing.bytes);
        *config->timing = r->timing;
    }
    /* the same on every rank: only rank 0 has config->result, and a run that ended at its
       last step has its snapshot */
    const bool summed = config->out_dir || (run->last && config->result);
    if (m->snapped != run->step && summed && (r->comm || run->writer))
        CLP_TRY(take_snapshot(r, run->step, &m->snap, err));
    const clp__sph_snapshot *snap = &m->snap;
    const double values[] = {run->time,  snap->kinetic, snap->mass,
                             snap->vmax, snap->front,   (double)snap->excluded};
    if (run->out_dir)
        CLP_TRY(clp__sph_summary_write(run->out_dir, r->particles, run->step, values, run->stopping,
                                       run->seconds, err));
    const uint64_t steps = run->step - run->first;
    if (run->last) /* a stopped run may not have read its state */
        clp__run_report(run, (double)r->particles * (double)steps,
                        clp__sph_run_bytes(r->opts, &r->geo, r->particles, listed_neighbours(r),
                                           steps, r->timing.rebuilds),
                        0.0, values, sizeof values / sizeof values[0]);
fail:
    return st;
}

static void close_run(void *model) {
    sph_model *m = model;
    sph_run *r = &m->r;
    free(m->identity);
    clp__sph_restart_close(&m->restart);
    clp__sph_snapshot_free(&m->snap);
    clp__sph_gauges_close(m->gauges);
    clp__sph_outputs_close(&m->out);
    if (r->comm)
        clp__dist_rank_destroy(&r->dist);
    clp_grid_destroy(r->grid);
    clp_options_destroy(r->rank_opts);
    clp_options_destroy(r->fitted_opts);
    while (r->n_views > 0)
        clp__comm_destroy(r->views[--r->n_views]);
}

static const clp__run_model sph_model_ops = {.name = "sph",
                                             .size = sizeof(sph_model),
                                             .open = open_run,
                                             .start = start,
                                             .advance = advance,
                                             .requests = requests,
                                             .finish = finish,
                                             .close = close_run};

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
        st = clp__model_drive(&sph_model_ops, w, comm, weights, resolved, case_path, config, err);
    clp_options_destroy(resolved);
    return st;
}
