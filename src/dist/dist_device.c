/* A rank's layer bounds and pinned particles, on its device. */
#include "dist/dist_device.h"

#include <string.h>

#include "grid/grid_private.h"

/* What dist_pin leaves: the particles it could not pin, and the first one's slot, axis, cell,
 * wanted cell and position. */
enum { PIN_RECORD = 8 };

clp_status clp__dist_device_create(clp_worker *w, clp__dist_device *out, clp_error *err) {
    clp_status st = CLP_OK;
    *out = (clp__dist_device){.worker = w};
    CLP_TRY(clp__buffer_create(w, "dist.scratch", CLP_DIST_MAX_QUERIES * sizeof(cl_uint),
                               &out->scratch, err));
    CLP_TRY(
        clp__buffer_create(w, "dist.unpinned", PIN_RECORD * sizeof(cl_uint), &out->unpinned, err));
    return CLP_OK;
fail:
    clp__dist_device_destroy(out);
    return st;
}

void clp__dist_device_destroy(clp__dist_device *d) {
    clp__buffer_release(d->scratch);
    clp__buffer_release(d->unpinned);
    d->scratch = d->unpinned = NULL;
}

/* A kernel whose input and output go through the scratch buffer: `in` written to it, the
 * kernel launched over `items` work-items (none for 0), then `out` read back (blocking). */
static clp_status scratch_launch(clp__dist_device *d, const char *kernel, const cl_mem *buffers,
                                 size_t n_buffers, const cl_uint *args, size_t n_args, size_t items,
                                 const void *in, void *out, size_t bytes, const char *what,
                                 clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker *w = d->worker;
    CLP_CL_CHECK(clEnqueueWriteBuffer(w->queue, d->scratch, CL_FALSE, 0, bytes, in, 0, NULL, NULL),
                 err, "%s: clEnqueueWriteBuffer", what);
    if (items)
        CLP_TRY(clp__grid_launch(w, kernel, buffers, n_buffers, args, n_args, items, 0, err));
    CLP_CL_CHECK(clEnqueueReadBuffer(w->queue, d->scratch, CL_TRUE, 0, bytes, out, 0, NULL, NULL),
                 err, "%s: clEnqueueReadBuffer", what);
fail:
    return st;
}

clp_status clp__dist_lower_bounds(clp__dist_device *d, size_t n, const uint32_t *queries,
                                  uint32_t *bounds, size_t n_queries, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_REQUIRE(n_queries <= CLP_DIST_MAX_QUERIES, err, CLP_USAGE,
                "%zu layer bounds asked at once, more than %d", n_queries, CLP_DIST_MAX_QUERIES);
    const cl_mem buffers[] = {clp_worker_buffer(d->worker, CLP_BUF_KEY), d->scratch};
    const cl_uint args[] = {(cl_uint)n, (cl_uint)n_queries};
    CLP_TRY(scratch_launch(d, "dist_lower_bounds", buffers, 2, args, 2, n_queries, queries, bounds,
                           n_queries * sizeof(cl_uint), "layer bounds", err));
fail:
    return st;
}

clp_status clp__dist_pin(clp__dist_device *d, size_t first, size_t count, float scale,
                         clp_error *err) {
    if (count == 0)
        return CLP_OK;
    const cl_mem buffers[] = {clp_worker_buffer(d->worker, CLP_BUF_POS),
                              clp_worker_buffer(d->worker, CLP_BUF_KEY), d->unpinned};
    cl_uint scale_bits;
    memcpy(&scale_bits, &scale, sizeof scale_bits);
    const cl_uint args[] = {(cl_uint)first, (cl_uint)count, scale_bits};
    d->pinned += count;
    return clp__grid_launch(d->worker, "dist_pin", buffers, 3, args, 3, count, 0, err);
}

clp_status clp__dist_pin_check(clp__dist_device *d, clp_error *err) {
    clp_status st = CLP_OK;
    const cl_uint zero[PIN_RECORD] = {0};
    cl_uint record[PIN_RECORD];
    const size_t pinned = d->pinned;
    d->pinned = 0;
    CLP_CL_CHECK(clEnqueueReadBuffer(d->worker->queue, d->unpinned, CL_TRUE, 0, sizeof record,
                                     record, 0, NULL, NULL),
                 err, "pin: clEnqueueReadBuffer");
    CLP_CL_CHECK(clEnqueueWriteBuffer(d->worker->queue, d->unpinned, CL_TRUE, 0, sizeof zero, zero,
                                      0, NULL, NULL),
                 err, "pin: clEnqueueWriteBuffer");
    float x[3];
    memcpy(x, record + 5, sizeof x);
    CLP_REQUIRE(record[0] == 0, err, CLP_CHECK,
                "%u of %zu particles received from other devices lie more than 64 float steps "
                "outside the cells their senders found them in (the first: slot %u at (%.9g, "
                "%.9g, %.9g), in cell %d along %c where its sender found cell %d)",
                record[0], pinned, record[1], x[0], x[1], x[2], (int)record[3],
                'x' + (int)record[2], (int)record[4]);
fail:
    return st;
}

clp_status clp__dist_classify(clp__dist_device *d, cl_mem kind, size_t first, size_t count,
                              uint32_t layer_keys, int lo, int hi, unsigned sides,
                              size_t near_lo_end, size_t near_hi_first, size_t *far,
                              size_t *outside, clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker *w = d->worker;
    static const cl_uint zero[2] = {0, 0};
    cl_uint counted[2] = {0, 0};
    const cl_mem buffers[] = {clp_worker_buffer(w, CLP_BUF_POS), clp_worker_buffer(w, CLP_BUF_KEY),
                              clp_worker_buffer(w, CLP_BUF_TYPE), kind, d->scratch};
    const cl_uint args[] = {(cl_uint)first,       (cl_uint)count,        layer_keys,
                            (cl_uint)lo,          (cl_uint)hi,           sides,
                            (cl_uint)near_lo_end, (cl_uint)near_hi_first};
    CLP_TRY(scratch_launch(d, "dist_classify", buffers, 5, args, 8, count, zero, counted,
                           sizeof counted, "classifying particles", err));
    *far = counted[0];
    *outside = counted[1];
fail:
    return st;
}

clp_status clp__dist_pad(clp__dist_device *d, cl_mem slots, size_t first, size_t count,
                         clp_error *err) {
    if (count == 0)
        return CLP_OK;
    const cl_mem buffers[] = {clp_worker_buffer(d->worker, CLP_BUF_TYPE),
                              clp_worker_buffer(d->worker, CLP_BUF_ID), slots};
    const cl_uint args[] = {(cl_uint)first, (cl_uint)count, CLP_DIST_PADDING_ID};
    return clp__grid_launch(d->worker, "dist_pad", buffers, 3, args, 3, count, 0, err);
}
