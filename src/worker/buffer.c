/* The worker's device buffers: which of a wanted set the options need, allocation checked
 * against the device's limits with errors that name the buffer and its size, and copies. */
#include "worker/worker_private.h"

#include <stdlib.h>
#include <string.h>

bool clp__option_matches(const clp_options *opts, const char *name, const char *value) {
    const clp_option_value *v = clp_options_get(opts, name);
    if (!v)
        return false;
    switch (v->type) {
    case CLP_OPT_ENUM:
        return strcmp(clp_options_enum(opts, name), value) == 0;
    case CLP_OPT_BOOL:
        return v->b == (strcmp(value, "true") == 0);
    case CLP_OPT_INT:
        return v->i == strtoll(value, NULL, 10);
    default:
        return false;
    }
}

static bool needed(const clp_buffer_traits *t, const clp_options *opts) {
    if (!t->needs_option)
        return true;
    return clp__option_matches(opts, t->needs_option, t->needs_value) != t->needs_not;
}

clp_buffer_set clp_buffers_needed(clp_buffer_set wanted, const clp_options *opts) {
    clp_buffer_set set = 0;
    for (int i = 0; i < CLP_BUF_COUNT; i++) {
        const clp_buffer_traits *t = clp_buffer_traits_of(1ull << i);
        if ((wanted & t->bit) && needed(t, opts))
            set |= t->bit;
    }
    return set;
}

static size_t element_count(const clp_buffer_traits *t, int index,
                            const clp_buffer_counts *counts) {
    switch (t->kind) {
    case CLP_PER_PARTICLE:
        return counts->particles;
    case CLP_PER_CELL:
        return counts->cells;
    case CLP_SINGLE:
        return 1;
    case CLP_PER_CUSTOM:
        return counts->custom[index];
    }
    return 0;
}

static void release_list_pieces(clp_worker *w) {
    for (size_t p = 1; p < w->n_list_pieces; p++) {
        clp__buffer_release(w->list_pieces[p - 1]);
        w->list_pieces[p - 1] = NULL;
    }
    w->n_list_pieces = 0;
}

static void release_buffer(clp_worker *w, int i) {
    if (1ull << i == CLP_BUF_NEIB_LIST)
        release_list_pieces(w);
    clp__buffer_release(w->buffers[i]);
    w->buffers[i] = NULL;
    w->buffer_bytes[i] = 0;
    w->aliases &= ~(1ull << i);
}

void clp__worker_release_buffers(clp_worker *w) {
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        release_buffer(w, i);
}

void clp__worker_release(clp_worker *w, clp_buffer_set set) {
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        if (set & (1ull << i))
            release_buffer(w, i);
}

/* New buffers start as zeros, written from the host: no run reads what a previous buffer
 * left, and checkers such as Oclgrind see the memory as initialised. */
static clp_status zero(clp_worker *w, cl_mem mem, size_t bytes, const char *name, clp_error *err) {
    clp_status st = CLP_OK;
    enum { CHUNK = 1 << 20 };
    static const unsigned char zeros[CHUNK];
    for (size_t offset = 0; offset < bytes; offset += CHUNK) {
        size_t n = bytes - offset < CHUNK ? bytes - offset : CHUNK;
        CLP_CL_CHECK(clEnqueueWriteBuffer(w->queue, mem, CL_FALSE, offset, n, zeros, 0, NULL, NULL),
                     err, "buffer \"%s\" (%zu bytes): clEnqueueWriteBuffer", name, bytes);
    }
    CLP_CL_CHECK(clFinish(w->queue), err, "buffer \"%s\" (%zu bytes): clFinish", name, bytes);
fail:
    return st;
}

clp_status clp__buffer_create(clp_worker *w, const char *name, size_t bytes, cl_mem *out,
                              clp_error *err) {
    clp_status st = CLP_OK;
    const clp_device_info *d = &w->device;
    cl_mem mem = NULL;
    CLP_REQUIRE(bytes <= d->max_mem_alloc_size, err, CLP_DEVICE_MEMORY,
                "buffer \"%s\" (%zu bytes) is larger than the largest allocation device '%s' "
                "allows (%llu bytes)",
                name, bytes, d->name, (unsigned long long)d->max_mem_alloc_size);
    cl_int rc;
    mem = clCreateBuffer(w->context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &rc);
    CLP_CL_CHECK(rc, err, "buffer \"%s\" (%zu bytes): clCreateBuffer", name, bytes);
    CLP_TRY(zero(w, mem, bytes, name, err));
    CLP_DEBUG(CLP_LOG_BUFFER, "buffer \"%s\": %zu bytes", name, bytes);
    *out = mem;
    return CLP_OK;
fail:
    clp__buffer_release(mem);
    return st;
}

void clp__buffer_release(cl_mem mem) {
    if (mem && clReleaseMemObject(mem) != CL_SUCCESS)
        CLP_DEBUG(CLP_LOG_BUFFER, "clReleaseMemObject failed");
}

static clp_status alloc_one(clp_worker *w, const clp_buffer_traits *t, int i, size_t bytes,
                            clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__buffer_create(w, t->name, bytes, &w->buffers[i], err));
    w->buffer_bytes[i] = bytes;
    return CLP_OK;
fail:
    release_buffer(w, i);
    return st;
}

clp_memory_need clp_buffers_need(clp_buffer_set wanted, const clp_options *opts,
                                 const clp_buffer_counts *counts) {
    clp_buffer_set set = clp_buffers_needed(wanted, opts);
    clp_memory_need need = {0, 0, NULL};
    for (int i = 0; i < CLP_BUF_COUNT; i++) {
        const clp_buffer_traits *t = clp_buffer_traits_of(1ull << i);
        if (!(set & t->bit))
            continue;
        const unsigned long long bytes =
            (unsigned long long)element_count(t, i, counts) * t->element_size * t->components;
        need.total += bytes;
        if (bytes > need.largest) {
            need.largest = bytes;
            need.largest_name = t->name;
        }
    }
    return need;
}

clp_memory_need clp__memory_need_add(clp_memory_need a, clp_memory_need b) {
    clp_memory_need sum = a.largest >= b.largest ? a : b;
    sum.total = a.total + b.total;
    return sum;
}

bool clp__memory_need_fits(const clp_memory_need *need, const clp_device_info *d) {
    return need->total <= d->global_mem_size && need->largest <= d->max_mem_alloc_size;
}

clp_status clp_worker_alloc(clp_worker *w, clp_buffer_set wanted, const clp_options *opts,
                            const clp_buffer_counts *counts, clp_error *err) {
    clp_status st = CLP_OK;
    clp_buffer_set set = clp_buffers_needed(wanted, opts);
    unsigned long long total = clp_buffers_need(wanted, opts, counts).total;
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        if (wanted & (1ull << i))
            release_buffer(w, i);
    CLP_REQUIRE(total <= w->device.global_mem_size, err, CLP_DEVICE_MEMORY,
                "the buffers need %llu bytes, more than the %llu bytes of device '%s'", total,
                (unsigned long long)w->device.global_mem_size, w->device.name);
    for (int i = 0; i < CLP_BUF_COUNT; i++) {
        const clp_buffer_traits *t = clp_buffer_traits_of(1ull << i);
        if (set & t->bit)
            CLP_TRY(alloc_one(w, t, i,
                              element_count(t, i, counts) * t->element_size * t->components, err));
    }
    return CLP_OK;
fail:
    return st;
}

clp_status clp__worker_realloc(clp_worker *w, clp_buffer_set bit, size_t bytes, clp_error *err) {
    const int i = clp__buffer_index(bit);
    release_buffer(w, i);
    return alloc_one(w, clp_buffer_traits_of(bit), i, bytes, err);
}

unsigned long long clp__worker_bit_bytes(const clp_worker *w) {
    unsigned long long total = 0;
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        total += w->aliases & (1ull << i) ? 0 : w->buffer_bytes[i];
    for (size_t p = 1; p < w->n_list_pieces; p++)
        total += w->buffer_bytes[clp__buffer_index(CLP_BUF_NEIB_LIST)];
    return total;
}

clp_buffer_set clp_worker_buffers(const clp_worker *w) {
    clp_buffer_set set = 0;
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        if (w->buffers[i])
            set |= 1ull << i;
    return set;
}

cl_mem clp_worker_buffer(const clp_worker *w, clp_buffer_set bit) {
    int i = clp__buffer_index(bit);
    return i < 0 ? NULL : w->buffers[i];
}

clp_status clp__worker_alias_mem(clp_worker *w, clp_buffer_set bit, cl_mem host, size_t held,
                                 const char *name, size_t bytes, clp_error *err) {
    clp_status st = CLP_OK;
    const int i = clp__buffer_index(bit);
    CLP_REQUIRE(i >= 0 && host && held >= bytes, err, CLP_USAGE,
                "buffer \"%s\" (%zu bytes) cannot live in buffer \"%s\" (%zu bytes)",
                i >= 0 ? clp_buffer_traits_of(bit)->name : "(unknown)", bytes, name, held);
    CLP_CL_CHECK(clRetainMemObject(host), err, "buffer \"%s\": clRetainMemObject", name);
    release_buffer(w, i);
    w->buffers[i] = host;
    w->buffer_bytes[i] = bytes;
    w->aliases |= bit;
fail:
    return st;
}

clp_status clp__worker_alias(clp_worker *w, clp_buffer_set bit, clp_buffer_set host, size_t bytes,
                             clp_error *err) {
    const int h = clp__buffer_index(host);
    return clp__worker_alias_mem(
        w, bit, h >= 0 ? w->buffers[h] : NULL, h >= 0 ? w->buffer_bytes[h] : 0,
        h >= 0 ? clp_buffer_traits_of(host)->name : "(unknown)", bytes, err);
}

clp_status clp__worker_list_pieces(clp_worker *w, size_t pieces, size_t stride, size_t particles,
                                   size_t piece_bytes, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_REQUIRE(pieces >= 1 && pieces <= CLP_LIST_MOST_PIECES, err, CLP_USAGE,
                "a neighbour list in %zu pieces: it takes 1 to %d", pieces, CLP_LIST_MOST_PIECES);
    CLP_TRY(clp__worker_realloc(w, CLP_BUF_NEIB_LIST, piece_bytes, err)); /* the extras too */
    for (size_t p = 1; p < pieces; p++) {
        CLP_TRY(clp__buffer_create(w, "neib_list", piece_bytes, &w->list_pieces[p - 1], err));
        w->n_list_pieces = p + 1;
    }
    w->n_list_pieces = pieces;
    w->list_stride = stride;
    w->list_particles = particles;
fail:
    return st;
}

size_t clp_worker_buffer_bytes(const clp_worker *w, clp_buffer_set bit) {
    int i = clp__buffer_index(bit);
    return i < 0 ? 0 : w->buffer_bytes[i];
}

static clp_status copy(clp_worker *w, clp_buffer_set bit, void *data, bool to_device,
                       clp_error *err) {
    clp_status st = CLP_OK;
    const clp_buffer_traits *t = clp_buffer_traits_of(bit);
    cl_mem mem = clp_worker_buffer(w, bit);
    CLP_REQUIRE(mem != NULL, err, CLP_USAGE, "buffer \"%s\" is not allocated",
                t ? t->name : "(unknown)");
    size_t bytes = clp_worker_buffer_bytes(w, bit);
    if (to_device)
        CLP_CL_CHECK(clEnqueueWriteBuffer(w->queue, mem, CL_TRUE, 0, bytes, data, 0, NULL, NULL),
                     err, "buffer \"%s\" (%zu bytes): clEnqueueWriteBuffer", t->name, bytes);
    else
        CLP_CL_CHECK(clEnqueueReadBuffer(w->queue, mem, CL_TRUE, 0, bytes, data, 0, NULL, NULL),
                     err, "buffer \"%s\" (%zu bytes): clEnqueueReadBuffer", t->name, bytes);
    return CLP_OK;
fail:
    return st;
}

clp_status clp_worker_write(clp_worker *w, clp_buffer_set bit, const void *data, clp_error *err) {
    return copy(w, bit, (void *)data, true, err);
}

clp_status clp_worker_read(clp_worker *w, clp_buffer_set bit, void *data, clp_error *err) {
    return copy(w, bit, data, false, err);
}
