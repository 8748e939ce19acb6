/* The sort phase of a grid update: a counting sort (count, scan, scatter, then ordering
 * inside each cell so equal keys keep their previous order) or a radix sort of the keys,
 * and the reorder that gathers every re-sorted buffer (the bits, then the model's own it was
 * given, clp_grid_carry) into the sort's scratch and copies it back: one scratch of 16 bytes a
 * particle instead of a second copy of each buffer, for a copy a rebuild that costs little next
 * to the steps between rebuilds. */
#include "grid/grid_private.h"

/* The outside particles' ranks among them, in index order, into the sort's scratch (which
 * the reorder overwrites anyway) for grid_scatter. */
static clp_status rank_outside(clp_grid *g, cl_mem ranks, clp_error *err) {
    clp_status st = CLP_OK;
    const cl_mem buffers[] = {clp_worker_buffer(g->worker, CLP_BUF_KEY), ranks};
    CLP_TRY(clp__grid_launch(g->worker, "grid_outside_flags", buffers, 2, NULL, 0, g->particles, 0,
                             err));
    CLP_TRY(clp__scan_exclusive(&g->scan, ranks, ranks, g->particles, err));
fail:
    return st;
}

static clp_status counting_sort(clp_grid *g, clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker *w = g->worker;
    size_t cells = (size_t)g->geo.key_count + 1; /* the last key holds outside particles */
    cl_mem start = clp_worker_buffer(w, CLP_BUF_CELL_START);
    cl_mem end = clp_worker_buffer(w, CLP_BUF_CELL_END);
    cl_mem outside_rank = clp_worker_buffer(w, CLP_BUF_SORT_SCRATCH);
    CLP_TRY(
        clp__scan_exclusive(&g->scan, clp_worker_buffer(w, CLP_BUF_CELL_COUNT), start, cells, err));
    CLP_CL_CHECK(clEnqueueCopyBuffer(clp_worker_queue(w), start, end, 0, 0, cells * sizeof(cl_uint),
                                     0, NULL, NULL),
                 err, "buffer \"cell_end\" (%zu bytes): clEnqueueCopyBuffer",
                 cells * sizeof(cl_uint));
    CLP_TRY(rank_outside(g, outside_rank, err));
    const cl_mem scatter[] = {clp_worker_buffer(w, CLP_BUF_KEY), start, end,
                              clp_worker_buffer(w, CLP_BUF_PERM), outside_rank};
    CLP_TRY(clp__grid_launch(w, "grid_scatter", scatter, 5, NULL, 0, g->particles, 0, err));
    const clp_step order = {"grid_order_cells",
                            CLP_BUF_CELL_START | CLP_BUF_CELL_END | CLP_BUF_PERM, cells, 0};
    CLP_TRY(clp_worker_run_step(w, &order, NULL, err));
fail:
    return st;
}

/* Bits that hold every key, the outside key included. */
static unsigned key_bits(uint32_t key_count) {
    unsigned bits = 0;
    while (bits < 32 && ((uint64_t)1 << bits) <= key_count)
        bits++;
    return bits;
}

/* Sorts a copy of the keys (in the sort's scratch, which the reorder overwrites anyway) with
 * the previous indices as values. */
static clp_status radix_sort(clp_grid *g, clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker *w = g->worker;
    cl_mem keys = clp_worker_buffer(w, CLP_BUF_KEY);
    cl_mem sorted = clp_worker_buffer(w, CLP_BUF_SORT_SCRATCH);
    cl_mem perm = clp_worker_buffer(w, CLP_BUF_PERM);
    cl_uint n = (cl_uint)g->particles;
    CLP_CL_CHECK(clEnqueueCopyBuffer(clp_worker_queue(w), keys, sorted, 0, 0, n * sizeof(cl_uint),
                                     0, NULL, NULL),
                 err, "buffer \"key\" (%zu bytes): clEnqueueCopyBuffer", n * sizeof(cl_uint));
    CLP_TRY(clp__grid_launch(w, "grid_iota", &perm, 1, &n, 1, n, 0, err));
    CLP_TRY(clp__radix_sort(&g->sorter, sorted, perm, n, key_bits(g->geo.key_count), err));
fail:
    return st;
}

clp_status clp__grid_sort_by_key(clp_grid *g, clp_error *err) {
    return g->radix ? radix_sort(g, err) : counting_sort(g, err);
}

/* buffer = buffer[perm], through the sort's scratch: `mem` of `bytes` bytes, `name` in
 * messages, `each` bytes a particle. */
static clp_status gather(clp_grid *g, cl_mem mem, size_t bytes, const char *name, size_t each,
                         clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker *w = g->worker;
    const char *kernel = each == 16 ? "grid_gather_uint4" : "grid_gather_uint";
    CLP_REQUIRE(each == 4 || each == 16, err, CLP_USAGE,
                "buffer \"%s\": the reorder moves 4- or 16-byte elements, not %zu", name, each);
    CLP_REQUIRE(bytes == each * g->particles, err, CLP_USAGE,
                "buffer \"%s\" holds %zu bytes, and the reorder of %zu particles moves %zu: a "
                "re-sorted buffer must have one element per particle of the grid",
                name, bytes, g->particles, each * g->particles);
    const cl_mem args[] = {mem, clp_worker_buffer(w, CLP_BUF_SORT_SCRATCH),
                           clp_worker_buffer(w, CLP_BUF_PERM)};
    const cl_uint n = (cl_uint)g->particles;
    CLP_TRY(clp__grid_launch(w, kernel, args, 3, &n, 1, g->particles, 0, err));
    CLP_CL_CHECK(clEnqueueCopyBuffer(clp_worker_queue(w), args[1], args[0], 0, 0,
                                     each * g->particles, 0, NULL, NULL),
                 err, "buffer \"%s\" (%zu bytes): clEnqueueCopyBuffer from the sort's scratch",
                 name, each * g->particles);
fail:
    return st;
}

clp_status clp_grid_carry(clp_grid *g, const clp_buffer *buffer, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__buffer_check_owner(g->worker, buffer, err));
    const size_t bytes = clp_buffer_size(buffer);
    CLP_REQUIRE(bytes == 4 * g->particles || bytes == 16 * g->particles, err, CLP_USAGE,
                "buffer \"%s\" (%zu bytes) cannot follow the sort of %zu particles: it needs "
                "one 4- or 16-byte element a particle",
                clp_buffer_name(buffer), bytes, g->particles);
    for (size_t k = 0; k < g->n_carried; k++)
        if (g->carried[k] == buffer)
            return CLP_OK;
    CLP_REQUIRE(g->n_carried < CLP_GRID_MOST_CARRIED, err, CLP_USAGE,
                "buffer \"%s\": the sort carries at most %d of a model's buffers",
                clp_buffer_name(buffer), CLP_GRID_MOST_CARRIED);
    g->carried[g->n_carried++] = buffer;
fail:
    return st;
}

size_t clp_grid_carried(const clp_grid *g, const clp_buffer **out, size_t most) {
    for (size_t k = 0; k < g->n_carried && k < most; k++)
        out[k] = g->carried[k];
    return g->n_carried;
}

clp_status clp__grid_reorder(clp_grid *g, clp_error *err) {
    clp_status st = CLP_OK;
    clp_buffer_set allocated = clp_worker_buffers(g->worker);
    for (int i = 0; i < CLP_BUF_COUNT; i++) {
        const clp_buffer_traits *t = clp_buffer_traits_of(1ull << i);
        if (t->resorted && (allocated & t->bit))
            CLP_TRY(gather(g, clp_worker_buffer(g->worker, t->bit),
                           clp_worker_buffer_bytes(g->worker, t->bit), t->name,
                           t->element_size * t->components, err));
    }
    for (size_t k = 0; k < g->n_carried; k++) { /* after the bits: a model's own */
        const clp_buffer *b = g->carried[k];
        CLP_TRY(gather(g, clp_buffer_mem(b), clp_buffer_size(b), clp_buffer_name(b),
                       clp_buffer_size(b) / g->particles, err));
    }
    if (g->radix) {
        CLP_TRY(clp__grid_fill(g, CLP_BUF_CELL_START, 0, err));
        CLP_TRY(clp__grid_fill(g, CLP_BUF_CELL_END, 0, err));
        const clp_step ranges = {"grid_cell_ranges",
                                 CLP_BUF_KEY | CLP_BUF_CELL_START | CLP_BUF_CELL_END, g->particles,
                                 0};
        CLP_TRY(clp_worker_run_step(g->worker, &ranges, NULL, err));
    }
fail:
    return st;
}
