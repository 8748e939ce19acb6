/* The neighbour-list phase of a grid update (list mode): one work-item per particle searches
 * the neighbouring cells with the search radius and fills its interleaved list; and the
 * list's size, fixed by neighbors.max or fitted to the counts the builds measure. */
#include "grid/grid_private.h"

/* Slots per particle for a capacity: one end marker, or for a split list the start of its
 * back side and an end marker per side (cl/grid/neighbors.cl). */
static size_t slots_for(const clp_grid *g, uint32_t capacity) {
    return (size_t)capacity + (g->split ? 3 : 1);
}

/* Room for a quarter more than the largest count, so that a list sized at the start seldom
 * has to grow as particles crowd together; a growth costs an allocation and a list build. */
uint32_t clp_grid_list_room(uint32_t largest) {
    return largest + largest / 4 + 4;
}

clp_status clp__grid_build_list(clp_grid *g, clp_error *err) {
    const clp_buffer_set bits[] = {CLP_BUF_POS,        CLP_BUF_KEY,      CLP_BUF_TYPE,
                                   CLP_BUF_CELL_START, CLP_BUF_CELL_END, CLP_BUF_NEIB_LIST,
                                   CLP_BUF_GRID_STATUS};
    enum { N_BITS = sizeof bits / sizeof bits[0] };
    cl_mem buffers[N_BITS];
    for (size_t i = 0; i < N_BITS; i++)
        buffers[i] = clp_worker_buffer(g->worker, bits[i]);
    const cl_uint slots = (cl_uint)slots_for(g, g->capacity);
    if (g->list_count)
        return clp__grid_launch_range(g->worker, "grid_build_list", buffers, N_BITS, &slots, 1,
                                      g->list_first, g->list_count, err);
    return clp__grid_launch(g->worker, "grid_build_list", buffers, N_BITS, &slots, 1, g->particles,
                            0, err);
}

void clp_grid_list_only(clp_grid *g, size_t first, size_t count) {
    g->list_first = first;
    g->list_count = count;
}

clp_status clp__grid_allocate_list(clp_grid *g, uint32_t capacity, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_device_info *d = clp_worker_device(g->worker);
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const unsigned long long bytes = slots_for(g, capacity) * g->particles * sizeof(cl_uint);
    const unsigned long long others = clp__worker_allocated_bytes(g->worker) -
                                      clp_worker_buffer_bytes(g->worker, CLP_BUF_NEIB_LIST);
    CLP_REQUIRE(bytes <= d->max_mem_alloc_size && others + bytes <= d->global_mem_size, err,
                CLP_DEVICE_MEMORY,
                "the neighbour list of %zu particles with room for %u neighbours each needs "
                "%.2f GiB; device '%s' allows %.2f GiB in one allocation and has %.2f GiB left "
                "beside the other buffers",
                g->particles, capacity, bytes / gib, d->name, d->max_mem_alloc_size / gib,
                (d->global_mem_size - (double)others) / gib);
    CLP_TRY(clp__worker_realloc(g->worker, CLP_BUF_NEIB_LIST, bytes, err));
    g->capacity = capacity;
fail:
    return st;
}

clp_status clp__grid_fit_list(clp_grid *g, cl_uint status[8], clp_error *err) {
    clp_status st = CLP_OK;
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
    CLP_TRY(clp__grid_allocate_list(g, capacity, err));
    status[2] = status[3] = 0;
    CLP_TRY(clp_worker_write(g->worker, CLP_BUF_GRID_STATUS, status, err));
    CLP_TRY(clp__grid_build_list(g, err));
    CLP_TRY(clp_worker_read(g->worker, CLP_BUF_GRID_STATUS, status, err));
fail:
    return st;
}
