/* An SPH case on a device: read and checked, its particles made (or a checkpoint's, cut
 * again) at rest at hydrostatic density, the grid, buffers and program, and its snapshots; a
 * split run's rank places its slab through its hooks. */
#include "models/models.h"
#include "models/sph/sph_gauges.h"
#include "models/sph/sph_restart.h"
#include "models/sph/sph_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The case, its physics, particle count and geometry. */
clp_status clp__sph_load(sph_run *r, const char *case_path, clp_error *err) {
    clp_status st = CLP_OK;
    r->c.dim = (int)clp__core_dim_of(r->opts);
    r->centred = clp__sph_centred_density_of(r->opts);
    CLP_TRY(clp__sph_case_load(case_path, r->c.dim, &r->c, err));
    clp__sph_physics(&r->c, &r->phys);
    size_t moved;
    const double offset = clp__sph_gauge_offset_of(r->opts) * r->phys.h;
    CLP_TRY(clp__sph_gauges_place(&r->c, offset,
                                  clp__sph_gauge_wall_of(r->opts) == CLP_SPH_GAUGE_WALL_REFUSE,
                                  case_path, &moved, err));
    if (moved)
        CLP_WARN(CLP_LOG_RUN,
                 "%zu gauge point%s on a wall: sampled %g h (%g m) into the fluid along the "
                 "wall's normal (sph.gauge_offset; -v says where; sph.gauge_wall=refuse refuses "
                 "them)",
                 moved, moved == 1 ? " lies" : "s lie", clp__sph_gauge_offset_of(r->opts), offset);
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
    CLP_REQUIRE(!r->pencils || r->hooks->whole_grid, err, CLP_CASE,
                "sph.strategy=x_pencil runs on one device: a split run takes "
                "sph.strategy=" CLP_SPH_STRATEGY_PAR_PART_NAME);
fail:
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
    CLP_TRY(clp_worker_buffer_write(r->w, r->own[CLP__SPH_VEL], vel, err));
    CLP_TRY(clp_worker_buffer_write(r->w, r->own[CLP__SPH_RHO], rho, err));
fail:
    free(vel);
    free(rho);
    return st;
}

/* mDBC's ghost nodes: the model's own buffer, which follows the sort and a split run's
 * migration; without mDBC none, and one a previous run left on this worker goes. */
static clp_status make_ghosts(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    r->ghost = NULL;
    if (clp__sph_boundary_of(r->opts) != CLP_SPH_BOUNDARY_MDBC) {
        clp_worker_buffer_free(r->w, clp_worker_buffer_find(r->w, CLP__SPH_GHOST));
        return CLP_OK;
    }
    CLP_TRY(
        clp_worker_buffer_create(r->w, CLP__SPH_GHOST, r->n * sizeof(cl_float4), &r->ghost, err));
    CLP_TRY(clp_grid_carry(r->grid, r->ghost, err));
fail:
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
    CLP_TRY(clp_worker_buffer_write(r->w, r->ghost, ghost, err));
fail:
    free(ghost);
    return st;
}

/* neighbors.format=auto: SPH takes lists of bits, which ran the 3D dam break faster than
 * indices in a quarter of the memory (docs/benchmarks/sph.md), unless neighbors.split or a
 * fixed neighbors.max asks for indices. `out` is a copy of `opts` with the format set. */
clp_status clp__sph_resolve_format(const clp_options *opts, clp_options **out, clp_error *err) {
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
    sph_run r = {.hooks = &clp__sph_alone};
    clp_status st = CLP_OK;
    CLP_TRY(clp__sph_resolve_format(opts, &resolved, err));
    r.opts = resolved;
    CLP_TRY(clp__sph_load(&r, case_path, err));
    CLP_TRY(clp__sph_fit_device(&r, dev, err));
    CLP_TRY(clp__sph_lay_out(&r, dev, err));
    CLP_TRY(clp__sph_assemble(&r, r.opts, out, err));
fail:
    clp_options_destroy(r.fitted_opts);
    clp_options_destroy(resolved);
    return st;
}

clp_status clp__sph_make_particles(const sph_run *r, const struct clp__sph_restart *rs,
                                   double **xyz, uint32_t **types, clp_error *err) {
    if (rs->how == CLP__SPH_RESTART_RECUT)
        return clp__sph_restart_particles(rs, r->n, xyz, types, err);
    return clp__sph_particles(&r->c, r->n, xyz, types, err);
}

/* The case's particles on this device (or a checkpoint's, cut again): all of them, or a rank's
 * slab of them in its first slots with padding after. */
clp_status clp__sph_setup(sph_run *r, const struct clp__sph_restart *rs,
                          const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    double *xyz = NULL;
    uint32_t *types = NULL, *ids = NULL;
    const bool recut = rs->how == CLP__SPH_RESTART_RECUT;
    char what[64];
    snprintf(what, sizeof what, "%zu particles", r->n);
    CLP_TRY(clp__host_memory_check((double)r->n * CLP__SPH_HOST_BYTES_PER_PARTICLE, what, err));
    CLP_TRY(r->hooks->place(r, rs, &xyz, &types, &ids, err));
    if (r->left_out)
        goto fail; /* the other ranks go on without this one */
    CLP_TRY(clp__sph_lay_out(r, clp_worker_device(r->w), err));
    CLP_TRY(clp__sph_build(r, config->cache, err));
    CLP_TRY(clp_grid_create(r->w, r->opts, &r->geo, r->n, &r->grid, err));
    CLP_TRY(clp_grid_set_particles(r->grid, xyz, types, err));
    if (ids)
        CLP_TRY(clp_worker_write(r->w, CLP_BUF_ID, ids, err));
    cl_float arguments[64];
    clp_buffer_counts counts;
    const clp_buffer_set buffers = clp__sph_model_buffers(r, &counts, arguments);
    CLP_TRY(clp_worker_alloc(r->w, buffers, r->opts, &counts, err));
    CLP_TRY(clp__sph_buffers_make(r->w, r->grid, r->opts, r->n, r->own, err));
    if (clp_worker_buffers(r->w) & CLP_BUF_CONSTANTS)
        CLP_TRY(clp_worker_write(r->w, CLP_BUF_CONSTANTS, arguments, err));
    CLP_TRY(make_ghosts(r, err));
    if (recut) {
        CLP_TRY(clp__sph_restart_state(r, rs, ids, err));
    } else {
        CLP_TRY(initial_state(r, xyz, types, err));
        if (r->ghost)
            CLP_TRY(write_ghosts(r, xyz, types, err));
    }
    /* the first rebuild sizes the neighbour list: a list the device cannot hold is refused
     * before any output is written */
    CLP_TRY(r->hooks->placed(r, err));
    r->listed = true;
fail:
    free(xyz);
    free(types);
    free(ids);
    return st;
}

/* A snapshot of the particles on this device, or on rank 0 of all ranks' particles. */
clp_status clp__sph_take_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s, clp_error *err) {
    clp__sph_snapshot_free(s);
    return r->hooks->snapshot(r, step, s, err);
}

clp_status clp__sph_device_snapshot(sph_run *r, uint64_t step, clp__sph_snapshot *s,
                                    clp_error *err) {
    clp_status st = CLP_OK;
    cl_float4 *vel = NULL;
    CLP_TRY(clp__sph_snapshot_alloc(s, r->n, err));
    vel = malloc(r->n * sizeof *vel);
    CLP_REQUIRE_ALLOC(vel, err);
    CLP_TRY(clp_grid_read_particles(r->grid, s->xyz, s->id, err));
    CLP_TRY(clp_worker_read(r->w, CLP_BUF_TYPE, s->type, err));
    CLP_TRY(clp_worker_buffer_read(r->w, r->own[CLP__SPH_VEL], vel, err));
    CLP_TRY(clp_worker_buffer_read(r->w, r->own[CLP__SPH_RHO], s->rho, err));
    for (size_t i = 0; i < r->n; i++)
        for (int a = 0; a < 3; a++)
            s->vel[3 * i + a] = vel[i].s[a];
    CLP_TRY(clp__sph_snapshot_summarise(s, &r->c, r->centred, &r->phys, step, err));
fail:
    free(vel);
    return st;
}
