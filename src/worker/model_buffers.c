/* Buffers a model declares by name and owns, beside the CLP_BUF_* set: no bit and no row of
 * the traits table. Each is created zeroed and checked against the device's limits
 * (clp__buffer_create), copied whole, set as a kernel argument by the model itself
 * (launch.c), and
 * released by clp_worker_buffer_free or with its worker. Every OpenCL call is checked, and its
 * error names the buffer and its bytes, or the kernel and the argument. */
#include "worker/worker_private.h"

#include <stdlib.h>
#include <string.h>

enum { NAME_SIZE = 64 };

struct clp_buffer {
    clp_worker *worker;
    clp_buffer *next; /* the worker's next, in the order created */
    cl_mem mem;
    size_t bytes;
    char name[NAME_SIZE];
};

static clp_buffer *find(const clp_worker *w, const char *name) {
    for (clp_buffer *b = w->owned; b; b = b->next)
        if (strcmp(b->name, name) == 0)
            return b;
    return NULL;
}

/* CLP_USAGE unless `b` is one of the worker's. */
clp_status clp__buffer_check_owner(const clp_worker *w, const clp_buffer *b, clp_error *err) {
    if (!b)
        return CLP_FAIL(err, CLP_USAGE, "no buffer given (NULL)");
    if (b->worker != w)
        return CLP_FAIL(err, CLP_USAGE, "buffer \"%s\" (%zu bytes) belongs to another worker",
                        b->name, b->bytes);
    return CLP_OK;
}

clp_status clp_worker_buffer_create(clp_worker *w, const char *name, size_t bytes, clp_buffer **out,
                                    clp_error *err) {
    clp_status st = CLP_OK;
    cl_mem mem = NULL;
    CLP_REQUIRE(name && *name && strlen(name) < NAME_SIZE, err, CLP_USAGE,
                "a buffer's name takes 1 to %d characters: \"%s\"", NAME_SIZE - 1,
                name ? name : "(null)");
    clp_buffer *b = find(w, name);
    CLP_TRY(clp__buffer_create(w, name, bytes, &mem, err));
    if (!b) {
        b = calloc(1, sizeof *b);
        CLP_REQUIRE(b, err, CLP_NOMEM, "out of host memory for buffer \"%s\"", name);
        *b = (clp_buffer){.worker = w};
        snprintf(b->name, sizeof b->name, "%s", name);
        clp_buffer **end = &w->owned;
        while (*end)
            end = &(*end)->next;
        *end = b;
    }
    clp__buffer_release(b->mem); /* a name made again: new memory, the same handle */
    b->mem = mem;
    b->bytes = bytes;
    *out = b;
    return CLP_OK;
fail:
    clp__buffer_release(mem);
    return st;
}

void clp_worker_buffer_free(clp_worker *w, clp_buffer *buffer) {
    for (clp_buffer **at = &w->owned; buffer && *at; at = &(*at)->next)
        if (*at == buffer) {
            *at = buffer->next;
            clp__buffer_release(buffer->mem);
            free(buffer);
            return;
        }
    if (buffer)
        CLP_WARN(CLP_LOG_BUFFER, "buffer \"%s\" is not this worker's: not freed", buffer->name);
}

void clp__worker_release_owned(clp_worker *w) {
    while (w->owned)
        clp_worker_buffer_free(w, w->owned);
}

cl_mem clp_buffer_mem(const clp_buffer *buffer) {
    return buffer->mem;
}

size_t clp_buffer_size(const clp_buffer *buffer) {
    return buffer->bytes;
}

const char *clp_buffer_name(const clp_buffer *buffer) {
    return buffer->name;
}

clp_status clp_worker_buffers_create(clp_worker *w, const char *const *names, const size_t *bytes,
                                     size_t count, clp_buffer **out, clp_error *err) {
    clp_status st = CLP_OK;
    unsigned long long total = 0;
    for (size_t i = 0; i < count; i++)
        total += bytes[i];
    CLP_REQUIRE(total <= w->device.global_mem_size, err, CLP_DEVICE_MEMORY,
                "the buffers need %llu bytes, more than the %llu bytes of device '%s'", total,
                (unsigned long long)w->device.global_mem_size, w->device.name);
    for (size_t i = 0; i < count; i++)
        CLP_TRY(clp_worker_buffer_create(w, names[i], bytes[i], &out[i], err));
fail:
    return st;
}

clp_buffer *clp_worker_buffer_find(const clp_worker *w, const char *name) {
    return name ? find(w, name) : NULL;
}

size_t clp_worker_owned_buffers(const clp_worker *w, const clp_buffer **out, size_t most) {
    size_t n = 0;
    for (const clp_buffer *b = w->owned; b; b = b->next, n++)
        if (out && n < most)
            out[n] = b;
    return n;
}

unsigned long long clp__worker_owned_bytes(const clp_worker *w) {
    unsigned long long total = 0;
    for (const clp_buffer *b = w->owned; b; b = b->next)
        total += b->bytes;
    return total;
}

unsigned long long clp__worker_allocated_bytes(const clp_worker *w) {
    return clp__worker_bit_bytes(w) + clp__worker_owned_bytes(w);
}

clp_status clp__worker_alias_owned(clp_worker *w, clp_buffer_set bit, const clp_buffer *host,
                                   size_t bytes, clp_error *err) {
    const clp_status st = clp__buffer_check_owner(w, host, err);
    return st != CLP_OK
               ? st
               : clp__worker_alias_mem(w, bit, host->mem, host->bytes, host->name, bytes, err);
}

/* CLP_USAGE unless bytes offset .. offset + bytes - 1 lie in `b`. */
static clp_status check_range(const clp_buffer *b, size_t offset, size_t bytes, clp_error *err) {
    if (offset > b->bytes || bytes > b->bytes - offset)
        return CLP_FAIL(err, CLP_USAGE, "bytes %zu to %zu are outside buffer \"%s\" (%zu bytes)",
                        offset, offset + bytes, b->name, b->bytes);
    return CLP_OK;
}

static clp_status copy(clp_worker *w, const clp_buffer *b, size_t offset, size_t bytes, void *data,
                       bool to_device, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__buffer_check_owner(w, b, err));
    CLP_TRY(check_range(b, offset, bytes, err));
    if (bytes == 0)
        return CLP_OK;
    if (to_device)
        CLP_CL_CHECK(
            clEnqueueWriteBuffer(w->queue, b->mem, CL_TRUE, offset, bytes, data, 0, NULL, NULL),
            err, "buffer \"%s\" (%zu bytes): clEnqueueWriteBuffer", b->name, b->bytes);
    else
        CLP_CL_CHECK(
            clEnqueueReadBuffer(w->queue, b->mem, CL_TRUE, offset, bytes, data, 0, NULL, NULL), err,
            "buffer \"%s\" (%zu bytes): clEnqueueReadBuffer", b->name, b->bytes);
fail:
    return st;
}

clp_status clp_worker_buffer_write(clp_worker *w, clp_buffer *buffer, const void *data,
                                   clp_error *err) {
    return copy(w, buffer, 0, buffer ? buffer->bytes : 0, (void *)data, true, err);
}

clp_status clp_worker_buffer_read(clp_worker *w, const clp_buffer *buffer, void *data,
                                  clp_error *err) {
    return copy(w, buffer, 0, buffer ? buffer->bytes : 0, data, false, err);
}

clp_status clp_worker_buffer_read_range(clp_worker *w, const clp_buffer *buffer, size_t offset,
                                        size_t bytes, void *data, clp_error *err) {
    return copy(w, buffer, offset, bytes, data, false, err);
}

clp_status clp_worker_buffer_zero_range(clp_worker *w, clp_buffer *buffer, size_t offset,
                                        size_t bytes, clp_error *err) {
    clp_status st = CLP_OK;
    const cl_uint zero = 0;
    CLP_TRY(clp__buffer_check_owner(w, buffer, err));
    CLP_TRY(check_range(buffer, offset, bytes, err));
    CLP_REQUIRE(offset % sizeof zero == 0 && bytes % sizeof zero == 0, err, CLP_USAGE,
                "buffer \"%s\": bytes %zu to %zu are not whole 4-byte words", buffer->name, offset,
                offset + bytes);
    if (bytes == 0)
        return CLP_OK;
    CLP_CL_CHECK(clEnqueueFillBuffer(w->queue, buffer->mem, &zero, sizeof zero, offset, bytes, 0,
                                     NULL, NULL),
                 err, "buffer \"%s\" (%zu bytes): clEnqueueFillBuffer of bytes %zu to %zu",
                 buffer->name, buffer->bytes, offset, offset + bytes);
fail:
    return st;
}
