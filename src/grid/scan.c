/* Exclusive prefix sums of uints on the device: a work-group scan per block of
 * 2 * CLP_GRID_SCAN_GROUP elements (cl/grid/scan.cl), the block totals scanned the same way one
 * level up, then added back down. Everything is enqueued in order: no host round trip. */
#include "grid/grid_private.h"

#include <assert.h>
#include <stdint.h>

enum { SCAN_BLOCK = 2 * CLP_GRID_SCAN_GROUP };

static size_t blocks_of(size_t n) {
    return (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
}

clp_status clp__scan_create(clp_worker *w, size_t capacity, clp__scan *out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__scan s = {.worker = w, .capacity = capacity};
    /* The kernels index with uint up to the end of the last block. */
    const uint64_t max = (uint64_t)UINT32_MAX + 1 - SCAN_BLOCK;
    CLP_REQUIRE((uint64_t)capacity <= max, err, CLP_USAGE,
                "scan of %zu elements: at most %llu fit in the kernels' uint indices", capacity,
                (unsigned long long)max);
    /* Level l holds the block totals of level l - 1 (of the input for l = 0), down to one. */
    for (size_t n = capacity; n > 0; n = blocks_of(n) > 1 ? blocks_of(n) : 0) {
        assert(s.n_levels < CLP_SCAN_MAX_LEVELS); /* 512^8 elements do not fit in uint */
        char name[32];
        snprintf(name, sizeof name, "scan level %zu", s.n_levels);
        CLP_TRY(clp__buffer_create(w, name, blocks_of(n) * sizeof(cl_uint), &s.levels[s.n_levels],
                                   err));
        s.n_levels++;
    }
    *out = s;
    return CLP_OK;
fail:
    clp__scan_destroy(&s);
    return st;
}

void clp__scan_destroy(clp__scan *s) {
    for (size_t l = 0; l < s->n_levels; l++)
        clp__buffer_release(s->levels[l]);
    s->n_levels = 0;
}

/* Scans n > 0 elements of `in` into `out` with the block totals in level `level`, and those
 * totals, when there is more than one, through the levels above. */
static clp_status scan_level(clp__scan *s, cl_mem in, cl_mem out, size_t n, size_t level,
                             clp_error *err) {
    clp_status st = CLP_OK;
    const size_t blocks = blocks_of(n);
    const size_t global = blocks * CLP_GRID_SCAN_GROUP;
    const cl_uint count = (cl_uint)n;
    cl_mem sums = s->levels[level];
    CLP_TRY(clp__grid_launch(s->worker, "grid_scan_blocks", (cl_mem[]){in, out, sums}, 3, &count, 1,
                             global, CLP_GRID_SCAN_GROUP, err));
    if (blocks > 1) {
        CLP_TRY(scan_level(s, sums, sums, blocks, level + 1, err));
        CLP_TRY(clp__grid_launch(s->worker, "grid_scan_add", (cl_mem[]){out, sums}, 2, &count, 1,
                                 global, CLP_GRID_SCAN_GROUP, err));
    }
fail:
    return st;
}

clp_status clp__scan_exclusive(clp__scan *s, cl_mem in, cl_mem out, size_t n, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_REQUIRE(n <= s->capacity, err, CLP_USAGE,
                "scan of %zu elements: the scratch was made for at most %zu", n, s->capacity);
    if (n > 0)
        CLP_TRY(scan_level(s, in, out, n, 0, err));
fail:
    return st;
}
