/* The grid handle: its buffers, particle upload and read-back (local positions computed and
 * rebuilt in double on the host), and the update that runs keys, sort, reorder and list. */
#include "grid/grid_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A list of indices counts only when neighbors.max fixes its size, with its end marker (a
 * list sized from the counts is allocated at its first build, neighbors.c); a list of bits
 * has its words for each neighbouring cell. */
static clp_buffer_counts grid_counts(const clp_grid_geometry *geometry, size_t particles) {
    clp_buffer_counts counts = {.particles = particles, .cells = (size_t)geometry->key_count + 1};
    const size_t most = geometry->max_neighbors;
    counts.custom[clp__buffer_index(CLP_BUF_NEIB_LIST)] =
        particles * (geometry->bits ? clp_grid_bits_words(geometry)
                     : most         ? most + 1
                                    : 0);
    return counts;
}

/* The buffers the options and the geometry call for, in memory of their own: no positions of
 * the last rebuild where the model bounds the moves itself, no sort scratch or permutation
 * where it lends them, and never the cell counts, which live in the cell ends (dead from the
 * scan of the counts into the starts until the ends are written). */
static clp_buffer_set grid_buffers(const clp_grid_geometry *geometry, const clp_options *opts) {
    return clp_buffers_needed(CLP_GRID_BUFFERS, opts) & ~CLP_BUF_CELL_COUNT &
           ~(geometry->moves_bounded ? CLP_BUF_POS_REBUILT : 0) &
           ~(geometry->sort_borrowed ? CLP_BUF_SORT_SCRATCH | CLP_BUF_PERM : 0);
}

/* The scan's partial sums, 1/256 of its input per level, are left out. */
clp_memory_need clp_grid_memory_need(const clp_grid_geometry *geometry, const clp_options *opts,
                                     size_t particles) {
    const clp_buffer_counts counts = grid_counts(geometry, particles);
    const clp_buffer_set buffers = grid_buffers(geometry, opts);
    clp_memory_need need = clp_buffers_need(buffers & ~CLP_BUF_NEIB_LIST, opts, &counts);
    const clp_memory_need list = clp_buffers_need(buffers & CLP_BUF_NEIB_LIST, opts, &counts);
    if (list.total) { /* in pieces, the largest is one of them */
        const unsigned long long piece =
            list.total / particles * clp_grid_list_stride(geometry, particles);
        need.total += list.total;
        if (piece > need.largest) {
            need.largest = piece;
            need.largest_name = list.largest_name;
        }
    }
    if (clp__grid_sort_of(opts) == CLP_GRID_SORT_RADIX) /* its flags, keys and values scratch */
        need.total += 3ull * particles * sizeof(cl_uint);
    return need;
}

clp_status clp_grid_create(clp_worker *worker, const clp_options *opts,
                           const clp_grid_geometry *geometry, size_t particles, clp_grid **out,
                           clp_error *err) {
    clp_status st = CLP_OK;
    clp_grid *g = calloc(1, sizeof *g);
    CLP_REQUIRE_ALLOC(g, err);
    CLP_REQUIRE(particles > 0 && particles < UINT32_MAX / 2, err, CLP_USAGE,
                "a grid needs between 1 and 2^31 particles, not %zu", particles);
    g->worker = worker;
    g->geo = *geometry;
    g->particles = particles;
    g->local = clp__grid_positions_of(opts) == CLP_GRID_POSITIONS_LOCAL;
    g->list = clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST;
    g->split = clp__neighbors_split_of(opts);
    CLP_REQUIRE(!g->split || !geometry->bits, err, CLP_USAGE,
                "neighbors.split splits a list of indices: set neighbors.format=index");
    CLP_REQUIRE(geometry->list_pieces <= 1 || geometry->bits, err, CLP_USAGE,
                "neighbors.pieces splits a list of bits: set neighbors.format=bits");
    CLP_REQUIRE((!g->split && !geometry->bits) || geometry->list_lanes <= 1, err, CLP_USAGE,
                "split neighbour lists and lists of bits are read by one work-item each, not %u",
                geometry->list_lanes);
    /* plain lists: by pencils where asked or by default on a GPU (the device's fit is
       checked at the first build), 8 candidates at a time where asked or by default on a CPU;
       split lists a particle at a time */
    const bool cpu = clp_worker_device(worker)->type & CL_DEVICE_TYPE_CPU;
    const bool automatic = clp__neighbors_build_of(opts) == CLP_NEIGHBORS_BUILD_AUTO;
    g->build = !g->list || g->split || geometry->bits ? CLP__BUILD_PARTICLE
               : clp__neighbors_build_of(opts) == CLP_NEIGHBORS_BUILD_PENCIL || (automatic && !cpu)
                   ? CLP__BUILD_PENCIL_UNCHECKED
               : clp__neighbors_build_of(opts) == CLP_NEIGHBORS_BUILD_SIMD || automatic
                   ? CLP__BUILD_SIMD
                   : CLP__BUILD_PARTICLE;
    g->radix = clp__grid_sort_of(opts) == CLP_GRID_SORT_RADIX;
    g->morton = clp__grid_key_of(opts) == CLP_GRID_KEY_MORTON;
    const char *order = clp__grid_axis_order_name(clp__grid_axis_order_of(opts)); /* letters */
    for (int a = 0; a < 3; a++)
        g->axis_order[a] = order[a] - 'x';
    g->every = (uint64_t)clp__neighbors_every_of(opts);
    g->check_moves = clp__neighbors_check_of(opts);
    /* a rebuild that the moves call for comes after a move past half the skin */
    g->check_displacement = !g->check_moves;
    g->buffers = grid_buffers(geometry, opts);
    /* a new particle set: the grid's buffers an earlier run left that these options do not
       need go */
    clp__worker_release(worker, CLP_GRID_BUFFERS & ~g->buffers);
    const clp_buffer_counts counts = grid_counts(geometry, particles);
    CLP_TRY(clp_worker_alloc(worker, g->buffers & ~CLP_BUF_NEIB_LIST, opts, &counts, err));
    if (!g->radix)
        CLP_TRY(clp__worker_alias(worker, CLP_BUF_CELL_COUNT, CLP_BUF_CELL_END,
                                  clp_worker_buffer_bytes(worker, CLP_BUF_CELL_END), err));
    if (g->list) /* indices: room for the end markers only until a build has counted */
        CLP_TRY(clp__grid_allocate_list(
            g, geometry->bits ? geometry->cell_words : geometry->max_neighbors, err));
    if (g->radix)
        CLP_TRY(clp__radix_create(worker, particles, &g->sorter, err));
    else
        /* the cell counts, and the outside particles' flags */
        CLP_TRY(clp__scan_create(worker, counts.cells > particles ? counts.cells : particles,
                                 &g->scan, err));
    *out = g;
    return CLP_OK;
fail:
    clp_grid_destroy(g);
    return st;
}

void clp_grid_destroy(clp_grid *g) {
    if (!g)
        return;
    clp__scan_destroy(&g->scan);
    clp__radix_destroy(&g->sorter);
    free(g);
}

bool clp_grid_rebuilds_at(const clp_grid *g, uint64_t step) {
    return step % g->every == 0;
}

bool clp_grid_checks_moves(const clp_grid *g) {
    return g->check_moves;
}

bool clp_grid_step_done(clp_grid *g, double moved) {
    const double half_skin = 0.5 * (g->geo.search_radius - g->geo.radius);
    return ++g->since >= g->every || (g->check_moves && moved > half_skin);
}

uint32_t clp_grid_max_neighbors_seen(const clp_grid *g) {
    return g->max_seen;
}

uint32_t clp_grid_list_capacity(const clp_grid *g) {
    return g->list ? g->capacity : 0;
}

clp_grid_timing clp_grid_last_timing(const clp_grid *g) {
    return g->timing;
}

void clp__run_timing_add_rebuild(clp_run_timing *t, const clp_grid_timing *g) {
    t->keys += g->keys;
    t->sort += g->sort;
    t->reorder += g->reorder;
    t->list += g->list;
    t->rebuilds++;
}

/* The host's copy of cell_key in cl/grid/grid.cl, for local positions made at upload. */
static uint32_t host_cell_key(const clp_grid *g, const int c[3]) {
    if (g->morton) {
        uint32_t key = 0;
        for (int b = 0; b < (g->geo.dim == 3 ? 10 : 16); b++)
            for (int a = 0; a < g->geo.dim; a++)
                key |= (((uint32_t)c[a] >> b) & 1u) << (b * g->geo.dim + a);
        return key;
    }
    const int *o = g->axis_order, *n = g->geo.cells;
    return (uint32_t)(c[o[0]] + n[o[0]] * (c[o[1]] + n[o[1]] * c[o[2]]));
}

/* Cell and offset from the cell centre of one position, in double; false when outside a
 * walled axis. Periodic axes wrap. */
static bool locate(const clp_grid_geometry *geo, const double x[3], int c[3], double off[3]) {
    bool inside = true;
    for (int a = 0; a < 3; a++) {
        if (a >= geo->dim) {
            c[a] = 0;
            off[a] = 0;
            continue;
        }
        double rel = x[a] - geo->origin[a];
        if (geo->periodic[a])
            rel -= geo->size[a] * floor(rel / geo->size[a]);
        c[a] = (int)fmax(fmin(floor(rel / geo->cell_size[a]), 2e9), -2e9);
        if (c[a] == geo->cells[a] && geo->periodic[a])
            c[a] = 0;
        inside = inside && c[a] >= 0 && c[a] < geo->cells[a];
        off[a] = rel - (c[a] + 0.5) * geo->cell_size[a];
    }
    return inside;
}

clp_status clp_grid_set_particles(clp_grid *g, const double *xyz, const uint32_t *types,
                                  clp_error *err) {
    clp_status st = CLP_OK;
    size_t n = g->particles;
    cl_float4 *pos = malloc(n * sizeof *pos);
    cl_uint *key = calloc(n, sizeof *key), *id = malloc(n * sizeof *id),
            *type = calloc(n, sizeof *type);
    CLP_REQUIRE(pos && key && id && type, err, CLP_NOMEM, "out of host memory for %zu particles",
                n);
    for (size_t i = 0; i < n; i++) {
        const double *x = xyz + 3 * i;
        id[i] = (cl_uint)i;
        type[i] = types ? types[i] : 0;
        if (!g->local) {
            pos[i] = (cl_float4){{(float)x[0], (float)x[1], (float)x[2], 0.0f}};
            continue;
        }
        int c[3];
        double off[3];
        bool inside = locate(&g->geo, x, c, off);
        key[i] = inside ? host_cell_key(g, c) : g->geo.key_count;
        pos[i] = (cl_float4){{(float)off[0], (float)off[1], (float)off[2], 0.0f}};
    }
    CLP_TRY(clp_worker_write(g->worker, CLP_BUF_POS, pos, err));
    CLP_TRY(clp_worker_write(g->worker, CLP_BUF_KEY, key, err));
    CLP_TRY(clp_worker_write(g->worker, CLP_BUF_ID, id, err));
    CLP_TRY(clp_worker_write(g->worker, CLP_BUF_TYPE, type, err));
fail:
    free(pos);
    free(key);
    free(id);
    free(type);
    return st;
}

/* The cell of a key: the inverse of host_cell_key. */
static void host_key_cell(const clp_grid *g, uint32_t key, int c[3]) {
    if (g->morton) {
        c[0] = c[1] = c[2] = 0;
        for (int b = 0; b < (g->geo.dim == 3 ? 10 : 16); b++)
            for (int a = 0; a < g->geo.dim; a++)
                c[a] |= (int)((key >> (b * g->geo.dim + a)) & 1u) << b;
        return;
    }
    const int *o = g->axis_order, *n = g->geo.cells;
    c[o[0]] = (int)(key % (uint32_t)n[o[0]]);
    c[o[1]] = (int)(key / (uint32_t)n[o[0]] % (uint32_t)n[o[1]]);
    c[o[2]] = (int)(key / ((uint32_t)n[o[0]] * (uint32_t)n[o[1]]));
}

clp_status clp_grid_read_particles(clp_grid *g, double *xyz, uint32_t *ids, clp_error *err) {
    clp_status st = CLP_OK;
    size_t n = g->particles;
    cl_float4 *pos = malloc(n * sizeof *pos);
    cl_uint *key = malloc(n * sizeof *key);
    CLP_REQUIRE(pos && key, err, CLP_NOMEM, "out of host memory for %zu particles", n);
    if (ids)
        CLP_TRY(clp_worker_read(g->worker, CLP_BUF_ID, ids, err));
    if (xyz) {
        CLP_TRY(clp_worker_read(g->worker, CLP_BUF_POS, pos, err));
        CLP_TRY(clp_worker_read(g->worker, CLP_BUF_KEY, key, err));
        for (size_t i = 0; i < n; i++) {
            int c[3] = {0, 0, 0};
            bool cell_known = g->local && key[i] != g->geo.key_count;
            if (cell_known)
                host_key_cell(g, key[i], c);
            for (int a = 0; a < 3; a++) {
                double centre = g->geo.origin[a] + (c[a] + 0.5) * g->geo.cell_size[a];
                xyz[3 * i + a] = (cell_known ? centre : 0.0) + (double)pos[i].s[a];
            }
        }
    }
fail:
    free(pos);
    free(key);
    return st;
}

/* Ends a phase: with profiling on, waits for the device and adds the wall time. */
static clp_status phase_end(clp_grid *g, double *seconds, double *start, clp_error *err) {
    clp_status st = CLP_OK;
    if (!g->worker->profiling)
        return CLP_OK;
    CLP_CL_CHECK(clFinish(clp_worker_queue(g->worker)), err, "grid update: clFinish");
    double now = clp__now();
    *seconds = now - *start;
    *start = now;
fail:
    return st;
}

/* The largest displacement since the last rebuild, in status[4] as a float's bits. */
static double status_moved(const cl_uint status[8]) {
    cl_float moved;
    memcpy(&moved, &status[4], sizeof moved);
    return moved;
}

/* The status after a rebuild (outside count, smallest outside ID, largest neighbour count,
 * particles over capacity, largest displacement), with the list fitted to the counts. */
static clp_status check_status(clp_grid *g, bool listed, clp_error *err) {
    clp_status st = CLP_OK;
    cl_uint status[8];
    CLP_TRY(clp_worker_read(g->worker, CLP_BUF_GRID_STATUS, status, err));
    if (g->list && listed)
        CLP_TRY(clp__grid_fit_list(g, status, err));
    g->max_seen = status[2];
    const double moved = status_moved(status);
    const double half_skin = 0.5 * (g->geo.search_radius - g->geo.radius);
    CLP_REQUIRE(moved <= half_skin, err, CLP_NEIGHBORS,
                "a particle moved %g since the neighbour list was built %llu steps before, "
                "more than half the skin (%g): pairs may have been missed; lower "
                "neighbors.every or raise neighbors.skin",
                moved, (unsigned long long)g->every, half_skin);
    CLP_REQUIRE(status[0] == 0, err, CLP_DOMAIN,
                "%u particle%s left the walled domain (first: particle %u); the domain is "
                "[%g, %g] x [%g, %g] x [%g, %g]",
                status[0], status[0] == 1 ? "" : "s", status[1], g->geo.origin[0],
                g->geo.origin[0] + g->geo.size[0], g->geo.origin[1],
                g->geo.origin[1] + g->geo.size[1], g->geo.origin[2],
                g->geo.origin[2] + g->geo.size[2]);
    CLP_REQUIRE(status[3] == 0, err, CLP_NEIGHBORS,
                "neighbour list overflow: %u particle%s have more neighbours than the list "
                "holds (largest count %u, capacity %u); raise neighbors.max, or set it to 0 to "
                "size the list from the counts",
                status[3], status[3] == 1 ? "" : "s", status[2], g->capacity);
fail:
    return st;
}

/* Copies one whole buffer into another of the same size on the device. */
static clp_status copy_buffer(clp_grid *g, clp_buffer_set from, clp_buffer_set to, clp_error *err) {
    clp_status st = CLP_OK;
    cl_command_queue queue = clp_worker_queue(g->worker);
    CLP_CL_CHECK(clEnqueueCopyBuffer(queue, clp_worker_buffer(g->worker, from),
                                     clp_worker_buffer(g->worker, to), 0, 0,
                                     clp_worker_buffer_bytes(g->worker, from), 0, NULL, NULL),
                 err, "copying buffer \"%s\" to \"%s\"", clp_buffer_traits_of(from)->name,
                 clp_buffer_traits_of(to)->name);
fail:
    return st;
}

clp_status clp_grid_relist(clp_grid *g, clp_error *err) {
    clp_status st = CLP_OK;
    const cl_uint initial_status[8] = {0, UINT32_MAX, 0, 0, 0, 0, 0, 0};
    CLP_TRY(clp_worker_write(g->worker, CLP_BUF_GRID_STATUS, initial_status, err));
    if (g->list)
        CLP_TRY(clp__grid_build_list(g, err));
    CLP_TRY(check_status(g, true, err));
    g->has_reference = false; /* the positions of the last rebuild were not saved */
fail:
    return st;
}

/* Whether a rebuild measures how far the particles moved since the last: with that one's
 * positions kept, and the check not left to the model. */
static bool measures_displacement(const clp_grid *g) {
    return (g->buffers & CLP_BUF_POS_REBUILT) && g->has_reference && g->check_displacement;
}

/* Enqueues the measure of the largest move since the last rebuild into the status, in
 * groups of the kernel's reduction. */
static clp_status measure_moves(clp_grid *g, clp_error *err) {
    const clp_step measure = {"grid_displacement",
                              CLP_BUF_POS | CLP_BUF_GRID_STATUS | CLP_BUF_POS_REBUILT, g->particles,
                              CLP_GRID_SCAN_GROUP};
    return clp_worker_run_step(g->worker, &measure, NULL, err);
}

/* Starts a rebuild's status, and enqueues the measure of the moves (checked by
 * check_status). */
static clp_status start_status(clp_grid *g, clp_error *err) {
    clp_status st = CLP_OK;
    const cl_uint initial_status[8] = {0, UINT32_MAX, 0, 0, 0, 0, 0, 0};
    CLP_TRY(clp_worker_write(g->worker, CLP_BUF_GRID_STATUS, initial_status, err));
    if (measures_displacement(g))
        CLP_TRY(measure_moves(g, err));
fail:
    return st;
}

clp_status clp_grid_moved(clp_grid *g, double *moved, clp_error *err) {
    clp_status st = CLP_OK;
    *moved = 0;
    if (!(g->buffers & CLP_BUF_POS_REBUILT) || !g->has_reference)
        return CLP_OK; /* rebuilt every step, or not yet: nothing moved since */
    cl_uint status[8];
    /* zeroed by a launch, not by a write from the host, which would wait for the device a
       second time each step; a rebuild sets the whole status afresh */
    CLP_TRY(clp__grid_fill(g, CLP_BUF_GRID_STATUS, 0, err));
    CLP_TRY(measure_moves(g, err));
    CLP_TRY(clp_worker_read(g->worker, CLP_BUF_GRID_STATUS, status, err));
    *moved = status_moved(status);
fail:
    return st;
}

clp_status clp_grid_check_moved(clp_grid *g, clp_error *err) {
    clp_status st = CLP_OK;
    if (!measures_displacement(g)) /* a fresh status has nothing else to say: no round trip */
        return CLP_OK;
    CLP_TRY(start_status(g, err));
    CLP_TRY(check_status(g, false, err));
fail:
    return st;
}

clp_status clp_grid_lend_sort(clp_grid *g, const clp_buffer *scratch, const clp_buffer *perm,
                              clp_error *err) {
    clp_status st = CLP_OK;
    CLP_REQUIRE(g->geo.sort_borrowed, err, CLP_USAGE,
                "the grid allocated its own sort buffers: a geometry with sort_borrowed borrows "
                "them");
    CLP_TRY(clp__worker_alias_owned(g->worker, CLP_BUF_SORT_SCRATCH, scratch,
                                    g->particles * 4 * sizeof(cl_uint), err));
    CLP_TRY(clp__worker_alias_owned(g->worker, CLP_BUF_PERM, perm, g->particles * sizeof(cl_uint),
                                    err));
fail:
    return st;
}

clp_status clp_grid_update(clp_grid *g, clp_error *err) {
    clp_status st = CLP_OK;
    double start = clp__now();
    const clp_buffer_set sort = CLP_BUF_SORT_SCRATCH | CLP_BUF_PERM;
    CLP_REQUIRE((clp_worker_buffers(g->worker) & sort) == sort, err, CLP_USAGE,
                "the sort's scratch and permutation were not lent (clp_grid_lend_sort)");
    g->timing = (clp_grid_timing){0};
    g->since = 0;
    CLP_TRY(start_status(g, err));
    if (!g->radix)
        CLP_TRY(clp__grid_fill(g, CLP_BUF_CELL_COUNT, 0, err));
    const clp_step keys = {"grid_keys",
                           CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_ID |
                               CLP_BUF_CELL_COUNT | CLP_BUF_GRID_STATUS,
                           g->particles, 0};
    CLP_TRY(clp_worker_run_step(g->worker, &keys, NULL, err));
    CLP_TRY(phase_end(g, &g->timing.keys, &start, err));
    CLP_TRY(clp__grid_sort_by_key(g, err));
    CLP_TRY(phase_end(g, &g->timing.sort, &start, err));
    CLP_TRY(clp__grid_reorder(g, err));
    if (g->buffers & CLP_BUF_POS_REBUILT) {
        CLP_TRY(copy_buffer(g, CLP_BUF_POS, CLP_BUF_POS_REBUILT, err));
        g->has_reference = true;
    }
    CLP_TRY(phase_end(g, &g->timing.reorder, &start, err));
    if (g->list)
        CLP_TRY(clp__grid_build_list(g, err));
    CLP_TRY(phase_end(g, &g->timing.list, &start, err));
    CLP_TRY(check_status(g, true, err));
fail:
    return st;
}
