/* Stable LSD radix sort of (key, value) uint pairs on the device, one bit per pass
 * (cl/grid/radix.cl): flag, scan, scatter into the other pair of buffers, swap. Everything is
 * enqueued in order: no host round trip. */
#include "grid/grid_private.h"

clp_status clp__radix_create(clp_worker *w, size_t capacity, clp__radix *out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__radix r = {.capacity = capacity};
    const size_t bytes = capacity * sizeof(cl_uint);
    CLP_TRY(clp__scan_create(w, capacity, &r.scan, err));
    CLP_TRY(clp__buffer_create(w, "radix flags", bytes, &r.flags, err));
    CLP_TRY(clp__buffer_create(w, "radix keys", bytes, &r.keys_tmp, err));
    CLP_TRY(clp__buffer_create(w, "radix values", bytes, &r.values_tmp, err));
    *out = r;
    return CLP_OK;
fail:
    clp__radix_destroy(&r);
    return st;
}

void clp__radix_destroy(clp__radix *r) {
    clp__buffer_release(r->values_tmp);
    clp__buffer_release(r->keys_tmp);
    clp__buffer_release(r->flags);
    clp__scan_destroy(&r->scan);
    r->flags = r->keys_tmp = r->values_tmp = NULL;
}

/* Moves the pairs of src into dst, those with bit `bit` clear first, each side in order. */
static clp_status split(clp__radix *r, const cl_mem src[2], const cl_mem dst[2], size_t n,
                        unsigned bit, clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker *w = r->scan.worker;
    const cl_uint args[2] = {(cl_uint)n, bit};
    CLP_TRY(clp__grid_launch(w, "grid_radix_flags", (cl_mem[]){src[0], r->flags}, 2, args, 2, n, 0,
                             err));
    CLP_TRY(clp__scan_exclusive(&r->scan, r->flags, r->flags, n, err));
    CLP_TRY(clp__grid_launch(w, "grid_radix_scatter",
                             (cl_mem[]){src[0], src[1], r->flags, dst[0], dst[1]}, 5, args, 2, n, 0,
                             err));
fail:
    return st;
}

clp_status clp__radix_sort(clp__radix *r, cl_mem keys, cl_mem values, size_t n, unsigned bits,
                           clp_error *err) {
    clp_status st = CLP_OK;
    CLP_REQUIRE(n <= r->capacity, err, CLP_USAGE,
                "radix sort of %zu pairs: the scratch was made for at most %zu", n, r->capacity);
    CLP_REQUIRE(bits <= 32, err, CLP_USAGE, "radix sort on %u bits: keys have 32", bits);
    if (n == 0 || bits == 0)
        return CLP_OK;
    cl_mem a[2] = {keys, values}, b[2] = {r->keys_tmp, r->values_tmp};
    for (unsigned bit = 0; bit < bits; bit++)
        CLP_TRY(split(r, bit % 2 ? b : a, bit % 2 ? a : b, n, bit, err));
    if (bits % 2) {
        const size_t bytes = n * sizeof(cl_uint);
        cl_command_queue q = r->scan.worker->queue;
        CLP_CL_CHECK(clEnqueueCopyBuffer(q, b[0], a[0], 0, 0, bytes, 0, NULL, NULL), err,
                     "radix sort: copying %zu bytes of keys back: clEnqueueCopyBuffer", bytes);
        CLP_CL_CHECK(clEnqueueCopyBuffer(q, b[1], a[1], 0, 0, bytes, 0, NULL, NULL), err,
                     "radix sort: copying %zu bytes of values back: clEnqueueCopyBuffer", bytes);
    }
fail:
    return st;
}
