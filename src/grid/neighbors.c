/* The neighbour-list phase of a grid update (list mode): pencils of cells staged in local
 * memory fill the interleaved lists on a GPU, a work-item per particle testing 8 candidates
 * at a time on a CPU (or, for split lists and devices without the room for pencils, one
 * work-item per particle searches the neighbouring cells); and the list's size, fixed by
 * neighbors.max or fitted to the counts the builds measure. */
#include "grid/grid_private.h"

#include <math.h>

/* Slots per particle for a capacity: an end marker per lane that reads the list, or for a
 * split list the start of its back side and an end marker per side (cl/grid/neighbors.cl).
 * A list of bits has a capacity of words a cell, and a first word (cl/grid/list_bits.cl). */
static size_t slots_for(const clp_grid *g, uint32_t capacity) {
    if (g->geo.bits)
        return clp__grid_bits_words(g->geo.dim, capacity);
    return (size_t)capacity + (g->split ? 3 : g->geo.list_lanes > 1 ? g->geo.list_lanes : 1);
}

/* Room for a quarter more than the largest count, so that a list sized at the start seldom
 * has to grow as particles crowd together; a growth costs an allocation and a list build. */
uint32_t clp_grid_list_room(uint32_t largest) {
    return largest + largest / 4 + 4;
}

/* Whether the device runs the pencil build (cl/grid/list_pencil.cl) in its groups and local
 * memory; split lists, which fill from both ends, take the per-particle build. */
static clp_status pencils_fit(clp_grid *g, bool *fit, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_device_info *dev = clp_worker_device(g->worker);
    size_t most = 0;
    cl_ulong local_bytes = 0;
    CLP_TRY(clp__kernel_limits(g->worker, "grid_build_list_pencil", &most, &local_bytes, err));
    *fit = most >= CLP_GRID_LIST_GROUP && local_bytes <= dev->local_mem_size;
    if (!*fit)
        CLP_INFO(CLP_LOG_BUFFER,
                 "'%s' runs the pencil list build in groups of %zu with %llu bytes of local "
                 "memory, not %d with %llu: the list is built a particle at a time",
                 dev->name, most, (unsigned long long)dev->local_mem_size, CLP_GRID_LIST_GROUP,
                 (unsigned long long)local_bytes);
fail:
    return st;
}

/* Cells of a pencil: as many as hold a group's worth of particles at the density that the
 * last build's largest count implies (that count over its search sphere, times a cell);
 * before any build, a guess of 8 particles a cell. */
static cl_uint pencil_cells(const clp_grid *g) {
    const clp_grid_geometry *geo = &g->geo;
    const double r = geo->search_radius;
    double cell = 1.0;
    for (int a = 0; a < geo->dim; a++)
        cell *= geo->cell_size[a];
    const double sphere = geo->dim == 3 ? 4.0 / 3.0 * M_PI * r * r * r : M_PI * r * r;
    const double per_cell = g->max_seen ? (g->max_seen + 1.0) * cell / sphere : 8.0;
    const double cells = floor(CLP_GRID_LIST_GROUP / fmax(per_cell, 1.0));
    return (cl_uint)fmax(1.0, fmin(cells, fmin(CLP_GRID_LIST_GROUP, geo->cells[0])));
}

clp_status clp__grid_build_list(clp_grid *g, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_buffer_set bits[] = {CLP_BUF_POS,        CLP_BUF_KEY,      CLP_BUF_TYPE,
                                   CLP_BUF_CELL_START, CLP_BUF_CELL_END, CLP_BUF_NEIB_LIST,
                                   CLP_BUF_GRID_STATUS};
    enum { N_BITS = sizeof bits / sizeof bits[0], LIST_ARG = 5 /* bits[5] */ };
    cl_mem buffers[N_BITS];
    for (size_t i = 0; i < N_BITS; i++)
        buffers[i] = clp_worker_buffer(g->worker, bits[i]);
    /* the build of bits takes its words a cell, of indices its slots */
    const cl_uint slots = g->geo.bits ? g->capacity : (cl_uint)slots_for(g, g->capacity);
    if (g->build == CLP__BUILD_PENCIL_UNCHECKED) {
        bool fit;
        CLP_TRY(pencils_fit(g, &fit, err));
        g->build = fit ? CLP__BUILD_PENCIL : CLP__BUILD_PARTICLE;
    }
    if (g->build == CLP__BUILD_PENCIL) {
        const size_t first = g->list_count ? g->list_first : 0;
        const size_t end = g->list_count ? g->list_first + g->list_count : g->particles;
        const cl_uint pencil = pencil_cells(g);
        const size_t pencils = (size_t)((g->geo.cells[0] + pencil - 1) / pencil) *
                               (size_t)g->geo.cells[1] * (size_t)g->geo.cells[2];
        const cl_uint args[] = {slots, (cl_uint)first, (cl_uint)end, pencil};
        return clp__grid_launch(g->worker, "grid_build_list_pencil", buffers, N_BITS, args, 4,
                                pencils * CLP_GRID_LIST_GROUP, CLP_GRID_LIST_GROUP, err);
    }
    const char *kernel = g->build == CLP__BUILD_SIMD ? "grid_build_list_simd" : "grid_build_list";
    if (g->geo.list_pieces > 1) /* bits, on one device: every particle */
        return clp__grid_launch_pieces(g->worker, kernel, buffers, N_BITS, &slots, 1, LIST_ARG, 0,
                                       g->particles, err);
    if (g->list_count)
        return clp__grid_launch_range(g->worker, kernel, buffers, N_BITS, &slots, 1, g->list_first,
                                      g->list_count, err);
    return clp__grid_launch(g->worker, kernel, buffers, N_BITS, &slots, 1, g->particles, 0, err);
fail:
    return st;
}

void clp_grid_list_only(clp_grid *g, size_t first, size_t count) {
    g->list_first = first;
    g->list_count = count;
}

clp_status clp__grid_allocate_list(clp_grid *g, uint32_t capacity, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_REQUIRE(!g->geo.bits || capacity <= CLP_GRID_BITS_MOST_CELL_WORDS, err, CLP_NEIGHBORS,
                "a list of bits for cells of %u particles: it takes cells of at most %d; set "
                "neighbors.format=" CLP_NEIGHBORS_FORMAT_INDEX_NAME,
                32 * capacity, 32 * CLP_GRID_BITS_MOST_CELL_WORDS);
    const clp_device_info *d = clp_worker_device(g->worker);
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const size_t pieces = g->geo.list_pieces > 1 ? g->geo.list_pieces : 1;
    const size_t stride = clp_grid_list_stride(&g->geo, g->particles);
    const unsigned long long piece = slots_for(g, capacity) * stride * sizeof(cl_uint),
                             bytes = piece * pieces;
    clp_worker *w = g->worker;
    const unsigned long long others =
        clp__worker_allocated_bytes(w) - clp_worker_buffer_bytes(w, CLP_BUF_NEIB_LIST) *
                                             (w->n_list_pieces > 1 ? w->n_list_pieces : 1);
    CLP_REQUIRE(piece <= d->max_mem_alloc_size && others + bytes <= d->global_mem_size, err,
                CLP_DEVICE_MEMORY,
                "the neighbour list of %zu particles with room for %u %s each needs "
                "%.2f GiB%s; device '%s' allows %.2f GiB in one allocation and has %.2f GiB left "
                "beside the other buffers",
                g->particles, g->geo.bits ? 32 * capacity : capacity,
                g->geo.bits ? "particles a cell" : "neighbours", bytes / gib,
                pieces > 1 ? " in its pieces" : "", d->name, d->max_mem_alloc_size / gib,
                (d->global_mem_size - (double)others) / gib);
    CLP_TRY(clp__worker_list_pieces(w, pieces, stride, g->particles, piece, err));
    g->capacity = capacity;
fail:
    return st;
}

/* Allocates the list for `capacity` and builds it again, its counts in `status` afresh. */
static clp_status build_again(clp_grid *g, uint32_t capacity, cl_uint status[8], clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__grid_allocate_list(g, capacity, err));
    status[2] = status[3] = status[5] = 0;
    CLP_TRY(clp_worker_write(g->worker, CLP_BUF_GRID_STATUS, status, err));
    CLP_TRY(clp__grid_build_list(g, err));
    CLP_TRY(clp_worker_read(g->worker, CLP_BUF_GRID_STATUS, status, err));
fail:
    return st;
}

/* A list of bits grows its words a cell when a build met a cell fuller than they hold, to a
 * quarter more than that cell, and builds again; the program, whose iteration takes the words
 * a cell as a constant (cl/grid/list_bits.cl), is built again for them. */
static clp_status fit_bits(clp_grid *g, cl_uint status[8], clp_error *err) {
    clp_status st = CLP_OK;
    if (status[5] <= 32 * g->capacity)
        return CLP_OK;
    uint32_t words = (clp_grid_list_room(status[5]) + 31) / 32;
    words = words < CLP_GRID_BITS_MOST_CELL_WORDS ? words : CLP_GRID_BITS_MOST_CELL_WORDS;
    CLP_REQUIRE(status[5] <= 32 * CLP_GRID_BITS_MOST_CELL_WORDS, err, CLP_NEIGHBORS,
                "a cell holds %u particles, more than a list of bits takes (%d): set "
                "neighbors.format=" CLP_NEIGHBORS_FORMAT_INDEX_NAME,
                status[5], 32 * CLP_GRID_BITS_MOST_CELL_WORDS);
    CLP_INFO(CLP_LOG_RUN,
             "neighbour list of bits grown from %u to %u words a cell (a cell holds %u "
             "particles); the program is built again for it",
             g->capacity, words, status[5]);
    CLP_TRY(build_again(g, words, status, err));
    CLP_TRY(clp__worker_rebuild_with(g->worker, "CLP_GRID_CELL_WORDS", words, err));
fail:
    return st;
}

clp_status clp__grid_fit_list(clp_grid *g, cl_uint status[8], clp_error *err) {
    clp_status st = CLP_OK;
    if (g->geo.bits)
        return fit_bits(g, status, err);
    const bool over = status[2] > g->capacity;
    /* a fixed capacity is the user's: more neighbours is an error, reported by the caller */
    if (g->geo.max_neighbors > 0 || (g->fitted && !over))
        return CLP_OK;
    /* the first build sizes the list either way; later ones only grow it */
    const uint32_t capacity = clp_grid_list_room(status[2]);
    if (g->fitted)
        CLP_INFO(CLP_LOG_RUN,
                 "neighbour list grown from %u to %u neighbours a particle (a "
                 "particle has %u)",
                 g->capacity, capacity, status[2]);
    else
        CLP_INFO(CLP_LOG_BUFFER,
                 "neighbour list sized at %u neighbours a particle (largest "
                 "count %u)",
                 capacity, status[2]);
    g->fitted = true;
    if (capacity == g->capacity)
        return CLP_OK;
    CLP_TRY(build_again(g, capacity, status, err));
fail:
    return st;
}
