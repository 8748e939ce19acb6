/* A rank's layout, its rebuild with migration and halos, and the per-step halo refresh. */
#include "dist/rank.h"

#include "grid/grid_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the messages between neighbours carry; the tag is kind * 2 + the receiver's side. A
 * rebuild's SIZES (the migrants' and the halo's particle counts) come first, so that the
 * receiver takes the particles straight into its pinned staging. */
enum { SIZES, MIGRANTS, HALO, REFRESH, MESSAGE_KINDS };
static const char *const tag_names[2 * MESSAGE_KINDS] = {
    "sizes (from below)", "sizes (from above)", "migrants (from below)", "migrants (from above)",
    "halo (from below)",  "halo (from above)",  "refresh (from below)",  "refresh (from above)"};

static int tag(int kind, int receiver_side) {
    return 2 * kind + receiver_side;
}

static size_t element_bytes(const clp__dist_rank *r, clp_buffer_set bit) {
    return clp_worker_buffer_bytes(r->worker, bit) / r->capacity;
}

/* One field of a particle's pack: a buffer bit, or a model's own buffer (own not NULL). */
typedef struct field {
    clp_buffer_set bit;
    const clp_buffer *own;
} field;

/* The fields of a pack in their order: the bits in bit order, then the model's own buffers the
 * grid carries (clp_grid_carry) in the order given. A pack, a message and a rebuild all lay a
 * particle out so. */
typedef struct field_list {
    field at[CLP_BUF_COUNT + CLP_GRID_MOST_CARRIED];
    size_t count;
} field_list;

static field_list fields_of(clp_buffer_set bits, const clp_buffer *const *own, size_t n_own) {
    field_list l = {.count = 0};
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        if (bits & (1ull << i))
            l.at[l.count++] = (field){1ull << i, NULL};
    for (size_t k = 0; k < n_own && k < CLP_GRID_MOST_CARRIED; k++)
        l.at[l.count++] = (field){0, own[k]};
    return l;
}

/* What the particles travel with at a rebuild. */
static field_list travelling(const clp__dist_rank *r) {
    const clp_buffer *own[CLP_GRID_MOST_CARRIED];
    const size_t n = clp_grid_carried(r->grid, own, CLP_GRID_MOST_CARRIED);
    return fields_of(r->travels, own, n);
}

/* What the refresh begun and not ended moves. */
static field_list refreshed(const clp__dist_rank *r) {
    return fields_of(r->pending, r->pending_own, r->n_pending_own);
}

static cl_mem field_mem(const clp__dist_rank *r, const field *f) {
    return f->own ? clp_buffer_mem(f->own) : clp_worker_buffer(r->worker, f->bit);
}

static const char *field_name(const field *f) {
    return f->own ? clp_buffer_name(f->own) : clp_buffer_traits_of(f->bit)->name;
}

/* Bytes of one particle's field. */
static size_t field_bytes(const clp__dist_rank *r, const field *f) {
    return f->own ? clp_buffer_size(f->own) / r->capacity : element_bytes(r, f->bit);
}

/* Bytes of one particle's `fields`. */
static size_t particle_bytes(const clp__dist_rank *r, const field_list *fields) {
    size_t bytes = 0;
    for (size_t k = 0; k < fields->count; k++)
        bytes += field_bytes(r, &fields->at[k]);
    return bytes;
}

clp_status clp__dist_rank_init(clp__dist_rank *r, clp__comm *comm, clp_worker *worker,
                               clp_grid *grid, const clp_slabs *slabs,
                               const clp_grid_geometry *local, clp_buffer_set travels,
                               clp_buffer_set zeroed, clp_error *err) {
    clp_status st = CLP_OK;
    cl_int rc;
    *r = (clp__dist_rank){.comm = comm,
                          .worker = worker,
                          .grid = grid,
                          .slabs = *slabs,
                          .rank = clp__comm_rank(comm),
                          .local = *local,
                          .capacity = grid->particles,
                          .travels = (travels | CLP_BUF_KEY) & clp_worker_buffers(worker),
                          .zeroed = zeroed & clp_worker_buffers(worker)};
    const int axis = slabs->axis;
    const float length = (float)(slabs->layers * local->cell_size[axis]);
    for (int side = 0; side < 2; side++) {
        r->neighbor[side] = clp__slabs_neighbor(slabs, r->rank, side);
        const bool halo = r->neighbor[side] >= 0;
        r->halo_layers[side] = halo;
        /* a particle that crosses the periodic boundary is seen on the far side of the
           neighbour's slab */
        const bool wraps = side == 0 ? r->rank == 0 : r->rank == slabs->ranks - 1;
        r->shift[side] = halo && wraps ? (side == 0 ? length : -length) : 0.0f;
    }
    r->layers = r->local.cells[axis];
    r->layer_keys = r->local.key_count / (uint32_t)r->layers;
    clp__comm_set_tag_names(comm, tag_names, 2 * MESSAGE_KINDS);
    r->transfer = clCreateCommandQueue(worker->context, worker->device.device, 0, &rc);
    CLP_CL_CHECK(rc, err, "device '%s': a queue for the halo exchange: clCreateCommandQueue",
                 worker->device.name);
    CLP_TRY(clp__dist_device_create(worker, &r->device, err));
fail:
    return st;
}

/* Waits for a marker and releases it; nothing for none. */
static clp_status wait_mark(cl_event *event, clp_error *err) {
    clp_status st = CLP_OK;
    if (!*event)
        return CLP_OK;
    const cl_int waited = clWaitForEvents(1, event);
    clReleaseEvent(*event);
    *event = NULL;
    CLP_CL_CHECK(waited, err, "halo exchange: clWaitForEvents");
fail:
    return st;
}

/* A marker that completes when everything enqueued on `q` so far has run; flushed, so the
 * device starts on it without waiting for the host's next blocking call, and another queue
 * may wait for it. */
static clp_status mark(cl_command_queue q, cl_event *event, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(wait_mark(event, err));
    CLP_CL_CHECK(clEnqueueMarkerWithWaitList(q, 0, NULL, event), err,
                 "halo exchange: clEnqueueMarkerWithWaitList");
    CLP_CL_CHECK(clFlush(q), err, "halo exchange: clFlush");
fail:
    return st;
}

/* Makes `q` run nothing more until the flushed marker `event` has completed. */
static clp_status wait_on(cl_command_queue q, cl_event event, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_CL_CHECK(clEnqueueBarrierWithWaitList(q, 1, &event, NULL), err,
                 "halo exchange: clEnqueueBarrierWithWaitList");
fail:
    return st;
}

void clp__dist_rank_destroy(clp__dist_rank *r) {
    clp_error ignored = CLP_ERROR_INIT; /* the queue is being torn down: nothing to report */
    if (r->worker) /* writes not waited for read host memory the caller frees after this */
        clFinish(clp_worker_queue(r->worker));
    wait_mark(&r->packed, &ignored);
    wait_mark(&r->unpacked, &ignored);
    clp__dist_device_destroy(&r->device);
    if (!r->transfer)
        return;
    for (int side = 0; side < 2; side++) {
        /* a send that failed may still read its pack: that memory is left to the process's end */
        if (!r->lent)
            clp__dist_staging_release(&r->pack[side], r->transfer);
        clp__dist_staging_release(&r->unpack[side], r->transfer);
    }
    clReleaseCommandQueue(r->transfer);
    r->transfer = NULL;
}

void clp__dist_rank_uploaded(clp__dist_rank *r, size_t owned) {
    r->owned_first = r->edge_lo_end = 0;
    r->edge_hi_first = r->owned_end = r->halo_end = owned;
    r->near_lo_end = r->near_hi_first = owned;
}

void clp__dist_rank_restored(clp__dist_rank *r) {
    clp_grid_list_only(r->grid, r->owned_first, r->halo_lists ? 0 : clp__dist_rank_owned(r));
    r->near_lo_end = r->near_hi_first = r->owned_end;
}

/* ---- Moving ranges of slots between the device and the host. */

/* Enqueues the read (or the write) of slots first .. first + count - 1 of `mem`, `elem` bytes a
 * slot, on `q`; a read with `blocking` waits for it, a write's `data` must stay until the queue
 * has run it. */
static clp_status copy_range(cl_command_queue q, cl_mem mem, size_t elem, const char *name,
                             size_t first, size_t count, void *data, bool write, bool blocking,
                             clp_error *err) {
    clp_status st = CLP_OK;
    if (count == 0)
        return CLP_OK;
    if (write)
        CLP_CL_CHECK(
            clEnqueueWriteBuffer(q, mem, CL_FALSE, first * elem, count * elem, data, 0, NULL, NULL),
            err, "writing slots %zu to %zu of buffer \"%s\"", first, first + count - 1, name);
    else
        CLP_CL_CHECK(
            clEnqueueReadBuffer(q, mem, blocking, first * elem, count * elem, data, 0, NULL, NULL),
            err, "reading slots %zu to %zu of buffer \"%s\"", first, first + count - 1, name);
fail:
    return st;
}

clp_status clp__dist_read_range(clp_worker *w, clp_buffer_set bit, size_t first, size_t count,
                                size_t capacity, void *out, clp_error *err) {
    return copy_range(clp_worker_queue(w), clp_worker_buffer(w, bit),
                      clp_worker_buffer_bytes(w, bit) / capacity, clp_buffer_traits_of(bit)->name,
                      first, count, out, false, true, err);
}

/* `fields` of slots first .. first + count - 1 packed field after field, in the list's order:
 * the reads are enqueued on `q`. */
static clp_status pack(clp__dist_rank *r, cl_command_queue q, const field_list *fields,
                       size_t first, size_t count, unsigned char *out, clp_error *err) {
    clp_status st = CLP_OK;
    for (size_t k = 0; k < fields->count; k++) {
        const field *f = &fields->at[k];
        const size_t elem = field_bytes(r, f);
        CLP_TRY(copy_range(q, field_mem(r, f), elem, field_name(f), first, count, out, false, false,
                           err));
        out += count * elem;
    }
fail:
    return st;
}

/* Waits for the transfers enqueued since the last wait. */
static clp_status finish(clp__dist_rank *r, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_CL_CHECK(clFinish(clp_worker_queue(r->worker)), err, "halo exchange: clFinish");
fail:
    return st;
}

/* Writes particles from .. from + count - 1 of a pack of `packed` particles' `fields` to the
 * slots from `first` on. */
static clp_status unpack(clp__dist_rank *r, cl_command_queue q, const field_list *fields,
                         size_t first, const unsigned char *in, size_t packed, size_t from,
                         size_t count, clp_error *err) {
    clp_status st = CLP_OK;
    for (size_t k = 0; k < fields->count; k++) {
        const field *f = &fields->at[k];
        const size_t elem = field_bytes(r, f);
        CLP_TRY(copy_range(q, field_mem(r, f), elem, field_name(f), first, count,
                           (void *)(in + from * elem), true, false, err));
        in += packed * elem;
    }
fail:
    return st;
}

/* Where field `bit` starts in a pack of `count` particles' `fields`. */
static size_t field_offset(const clp__dist_rank *r, const field_list *fields, clp_buffer_set bit,
                           size_t count) {
    size_t offset = 0;
    for (size_t k = 0; k < fields->count && fields->at[k].bit != bit; k++)
        offset += count * field_bytes(r, &fields->at[k]);
    return offset;
}

static bool has_field(const field_list *fields, clp_buffer_set bit) {
    for (size_t k = 0; k < fields->count; k++)
        if (fields->at[k].bit == bit)
            return true;
    return false;
}

/* Moves the positions in a pack along the slab axis by `shift`. */
static void shift_positions(const clp__dist_rank *r, const field_list *fields, size_t count,
                            unsigned char *data, float shift) {
    if (shift == 0.0f || !has_field(fields, CLP_BUF_POS))
        return;
    cl_float4 *pos = (cl_float4 *)(data + field_offset(r, fields, CLP_BUF_POS, count));
    for (size_t i = 0; i < count; i++)
        pos[i].s[r->slabs.axis] += shift;
}

/* Puts the keys of a received pack in layer `layer` of this rank's grid: the sender found each
 * particle in that layer, and the other axes' cells are the same on both. A pack comes in runs
 * from one of the sender's layers (an edge is one layer), each moved by one offset: a division
 * per run, not per particle. */
static void relayer_keys(const clp__dist_rank *r, const field_list *fields, size_t count,
                         unsigned char *data, int layer) {
    cl_uint *key = (cl_uint *)(data + field_offset(r, fields, CLP_BUF_KEY, count));
    const cl_uint keys = r->layer_keys, to = (cl_uint)layer * keys;
    for (size_t i = 0; i < count;) {
        const cl_uint from = key[i] - key[i] % keys;   /* the first key of key[i]'s layer */
        for (; i < count && key[i] - from < keys; i++) /* unsigned: keys below wrap high */
            key[i] = key[i] - from + to;
    }
}

/* Sends a pack to the neighbour on `side`, moved across a periodic boundary when it wraps;
 * else straight from the pack, which stays as it is until the flush after (flush). */
static clp_status send_pack(clp__dist_rank *r, int side, int kind, const field_list *fields,
                            size_t count, const unsigned char *data, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t bytes = count * particle_bytes(r, fields);
    const int to = r->neighbor[side], t = tag(kind, 1 - side);
    unsigned char *shifted = NULL;
    if (r->shift[side] != 0.0f && has_field(fields, CLP_BUF_POS) && count) {
        shifted = malloc(bytes);
        CLP_REQUIRE_ALLOC(shifted, err);
        memcpy(shifted, data, bytes);
        shift_positions(r, fields, count, shifted, r->shift[side]);
        CLP_TRY(clp__comm_send(r->comm, to, t, shifted, bytes, err));
    } else {
        r->lent = true;
        CLP_TRY(clp__comm_send_borrowed(r->comm, to, t, data, bytes, err));
    }
fail:
    free(shifted);
    return st;
}

/* Waits until the neighbours have what this rank sent: its packs are its own again. */
static clp_status flush(clp__dist_rank *r, clp_error *err) {
    clp_status st = clp__comm_flush(r->comm, err);
    if (st == CLP_OK)
        r->lent = false;
    return st;
}

/* Fills slots first .. first + count - 1 as padding: excluded, with the padding ID. */
static clp_status fill_padding(clp__dist_rank *r, size_t first, size_t count, clp_error *err) {
    clp_status st = CLP_OK;
    const cl_uint excluded = CLP_GRID_EXCLUDED, padding = CLP_DIST_PADDING_ID;
    if (count == 0)
        return CLP_OK;
    cl_command_queue q = clp_worker_queue(r->worker);
    CLP_CL_CHECK(clEnqueueFillBuffer(q, clp_worker_buffer(r->worker, CLP_BUF_TYPE), &excluded,
                                     sizeof excluded, first * sizeof(cl_uint),
                                     count * sizeof(cl_uint), 0, NULL, NULL),
                 err, "padding slots %zu to %zu: clEnqueueFillBuffer", first, first + count - 1);
    CLP_CL_CHECK(clEnqueueFillBuffer(q, clp_worker_buffer(r->worker, CLP_BUF_ID), &padding,
                                     sizeof padding, first * sizeof(cl_uint),
                                     count * sizeof(cl_uint), 0, NULL, NULL),
                 err, "padding slots %zu to %zu: clEnqueueFillBuffer", first, first + count - 1);
fail:
    return st;
}

/* Sets the `zeroed` buffers to 0 over slots first .. first + count - 1. */
static clp_status zero_range(clp__dist_rank *r, size_t first, size_t count, clp_error *err) {
    clp_status st = CLP_OK;
    const cl_uint zero = 0;
    for (int i = 0; i < CLP_BUF_COUNT && count; i++) {
        const clp_buffer_set bit = 1ull << i;
        if (!(r->zeroed & bit))
            continue;
        const size_t elem = element_bytes(r, bit);
        CLP_CL_CHECK(clEnqueueFillBuffer(clp_worker_queue(r->worker),
                                         clp_worker_buffer(r->worker, bit), &zero, sizeof zero,
                                         first * elem, count * elem, 0, NULL, NULL),
                     err, "zeroing buffer \"%s\" over the halo: clEnqueueFillBuffer",
                     clp_buffer_traits_of(bit)->name);
    }
fail:
    return st;
}

/* Where the first key of each of `n` local layers falls in the sorted keys; layer `layers`
 * is the outside key. */
static clp_status layer_bounds(clp__dist_rank *r, const int *layers, size_t n, size_t *bounds,
                               clp_error *err) {
    clp_status st = CLP_OK;
    uint32_t queries[CLP_DIST_MAX_QUERIES], found[CLP_DIST_MAX_QUERIES];
    for (size_t q = 0; q < n; q++)
        queries[q] = (uint32_t)layers[q] * r->layer_keys;
    CLP_TRY(clp__dist_lower_bounds(&r->device, r->capacity, queries, found, n, err));
    for (size_t q = 0; q < n; q++)
        bounds[q] = found[q];
fail:
    return st;
}

/* One side's part of a rebuild: what left for the neighbour and the edge it keeps a copy of. */
typedef struct side_exchange {
    size_t leaving, edge;           /* particles sent */
    unsigned char *migrants, *halo; /* received, in the side's unpack staging */
    size_t migrants_in, halo_in;    /* their particle counts */
    void *loan; /* the halo, when the comm lent it in the sender's pack: given back once placed */
} side_exchange;

/* The slots of the particles a rebuild sends, class after class (CLP_DIST_LEAVES_LO to
 * CLP_DIST_LEAVES_HI), each in slot order: the order of the stable sort, which the halos copy. */
typedef struct selection {
    uint32_t *slots;
    size_t first[CLP_DIST_CLASSES], count[CLP_DIST_CLASSES];
    size_t outside; /* owned slots the sort will put outside the grid (excluded particles) */
} selection;

/* The classes of the owned slots in [first, end), read back into the selection. */
static clp_status read_classes(clp__dist_rank *r, cl_mem kind, size_t first, size_t end,
                               unsigned char *classes, clp_error *err) {
    clp_status st = CLP_OK;
    if (end <= first)
        return CLP_OK;
    CLP_CL_CHECK(clEnqueueReadBuffer(clp_worker_queue(r->worker), kind, CL_TRUE, first, end - first,
                                     classes + first - r->owned_first, 0, NULL, NULL),
                 err, "rebuild: reading the classes of slots %zu to %zu", first, end - 1);
fail:
    return st;
}

/* How many of classes[first .. end - 1] are in each class sent: a compare per class and byte,
 * which vectorises, where a count indexed by the class would wait on its own last store. */
static void count_classes(const unsigned char *classes, size_t first, size_t end,
                          size_t count[CLP_DIST_CLASSES]) {
    for (int k = CLP_DIST_LEAVES_LO; k < CLP_DIST_CLASSES; k++) {
        size_t n = 0;
        for (size_t i = first; i < end; i++)
            n += classes[i] == k;
        count[k] += n;
    }
}

/* Writes base + i for each i in first .. end - 1 with classes[i] == k to `out`, in order, and
 * returns how many: a pass per class keeps its cursor in a register. */
static size_t collect_class(const unsigned char *classes, size_t first, size_t end, unsigned char k,
                            size_t base, uint32_t *out) {
    size_t n = 0;
    for (size_t i = first; i < end; i++)
        if (classes[i] == k)
            out[n++] = (uint32_t)(base + i);
    return n;
}

/* Finds what leaves for each neighbour and each edge among the owned slots by the edges (all
 * of them after an upload, or when a particle moved farther than a layer), and enqueues the
 * write of their slots, class after class, into the permutation buffer for the gathers. */
static clp_status select_sent(clp__dist_rank *r, selection *sel, clp_error *err) {
    clp_status st = CLP_OK;
    const int L = r->layers, lo = r->halo_layers[0], hi = r->halo_layers[1];
    const unsigned sides = (r->neighbor[0] >= 0 ? 1u : 0u) | (r->neighbor[1] >= 0 ? 2u : 0u);
    const size_t owned = r->owned_end - r->owned_first;
    cl_mem kind = clp_worker_buffer(r->worker, CLP_BUF_SORT_SCRATCH);
    unsigned char *classes = malloc(owned + 1);
    CLP_REQUIRE_ALLOC(classes, err);
    size_t far;
    CLP_TRY(clp__dist_classify(&r->device, kind, r->owned_first, owned, r->layer_keys, lo,
                               L - hi - 1, sides, r->near_lo_end, r->near_hi_first, &far,
                               &sel->outside, err));
    size_t near_lo_end = r->near_lo_end, near_hi_first = r->near_hi_first;
    if (far) {
        CLP_DEBUG(CLP_LOG_RUN, "device rank %d: %zu particles moved more than a layer", r->rank,
                  far);
        near_lo_end = near_hi_first = r->owned_end;
    }
    near_hi_first = near_hi_first > near_lo_end ? near_hi_first : near_lo_end;
    CLP_TRY(read_classes(r, kind, r->owned_first, near_lo_end, classes, err));
    CLP_TRY(read_classes(r, kind, near_hi_first, r->owned_end, classes, err));
    const size_t read[2][2] = {{0, near_lo_end - r->owned_first},
                               {near_hi_first - r->owned_first, owned}};
    memset(sel->count, 0, sizeof sel->count);
    for (int range = 0; range < 2; range++)
        count_classes(classes, read[range][0], read[range][1], sel->count);
    size_t total = 0;
    for (int k = CLP_DIST_LEAVES_LO; k < CLP_DIST_CLASSES; k++)
        total += sel->count[k];
    sel->slots = malloc(total * sizeof *sel->slots + 1);
    CLP_REQUIRE_ALLOC(sel->slots, err);
    for (size_t k = CLP_DIST_LEAVES_LO, at = 0; k < CLP_DIST_CLASSES; k++) {
        sel->first[k] = at;
        for (int range = 0; range < 2 && sel->count[k]; range++)
            at += collect_class(classes, read[range][0], read[range][1], (unsigned char)k,
                                r->owned_first, sel->slots + at);
    }
    if (total)
        CLP_CL_CHECK(clEnqueueWriteBuffer(clp_worker_queue(r->worker),
                                          clp_worker_buffer(r->worker, CLP_BUF_PERM), CL_FALSE, 0,
                                          total * sizeof *sel->slots, sel->slots, 0, NULL, NULL),
                     err, "rebuild: writing the slots of %zu particles to send", total);
fail:
    free(classes);
    return st;
}

/* The classes a side sends: what leaves for that neighbour, and the edge it copies. */
static const int leaves_class[2] = {CLP_DIST_LEAVES_LO, CLP_DIST_LEAVES_HI};
static const int edge_class[2] = {CLP_DIST_EDGE_LO, CLP_DIST_EDGE_HI};

/* Gathers travelling field `f` of the `total` selected slots into the start of the sort's
 * scratch (which the sort overwrites anyway). */
static clp_status gather_selected(clp__dist_rank *r, const field *f, size_t total, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t elem = field_bytes(r, f);
    const bool sorted = f->own || clp_buffer_traits_of(f->bit)->resorted; /* own: carried */
    CLP_REQUIRE(sorted && (elem == 4 || elem == 16), err, CLP_USAGE,
                "buffer \"%s\" cannot travel between devices: it is not sorted "
                "with the particles in 4- or 16-byte elements",
                field_name(f));
    const cl_mem args[] = {field_mem(r, f), clp_worker_buffer(r->worker, CLP_BUF_SORT_SCRATCH),
                           clp_worker_buffer(r->worker, CLP_BUF_PERM)};
    const cl_uint n = (cl_uint)total;
    CLP_TRY(clp__grid_launch(r->worker, elem == 16 ? "grid_gather_uint4" : "grid_gather_uint", args,
                             3, &n, 1, total, 0, err));
fail:
    return st;
}

/* Enqueues the reads of every travelling field of the selection's classes into the packs of
 * the sides with a neighbour: a class's pack holds its particles' fields one after the other.
 * A field at a time, gathered into the one scratch that the queue's order keeps until read. */
static clp_status pack_selected(clp__dist_rank *r, const selection *sel, size_t total, size_t each,
                                clp_error *err) {
    clp_status st = CLP_OK;
    size_t before = 0; /* bytes of the fields before this one, a particle */
    const field_list fields = travelling(r);
    for (size_t f = 0; f < fields.count && total; f++) {
        const size_t elem = field_bytes(r, &fields.at[f]);
        CLP_TRY(gather_selected(r, &fields.at[f], total, err));
        for (int side = 0; side < 2; side++) {
            if (r->neighbor[side] < 0)
                continue;
            unsigned char *out = r->pack[side].host;
            for (int c = 0; c < 2; c++) {
                const int k = c == 0 ? leaves_class[side] : edge_class[side];
                const size_t bytes = sel->count[k] * elem;
                if (bytes)
                    CLP_CL_CHECK(
                        clEnqueueReadBuffer(clp_worker_queue(r->worker),
                                            clp_worker_buffer(r->worker, CLP_BUF_SORT_SCRATCH),
                                            CL_FALSE, sel->first[k] * elem, bytes,
                                            out + sel->count[k] * before, 0, NULL, NULL),
                        err, "rebuild: reading %zu particles' \"%s\" to send", sel->count[k],
                        field_name(&fields.at[f]));
                out += sel->count[k] * each;
            }
        }
        before += elem;
    }
fail:
    return st;
}

/* Takes what the neighbour on `side` sent into the side's unpack staging, which no refresh
 * uses now: pinned, so that the writes to the device go at full speed. */
static clp_status receive(clp__dist_rank *r, int side, side_exchange *x, clp_error *err) {
    clp_status st = CLP_OK;
    const field_list fields = travelling(r);
    const size_t each = particle_bytes(r, &fields);
    const int from = r->neighbor[side];
    uint64_t sizes[2];
    CLP_TRY(clp__comm_recv_into(r->comm, from, tag(SIZES, side), sizes, sizeof sizes, err));
    x->migrants_in = (size_t)sizes[0];
    x->halo_in = (size_t)sizes[1];
    clp__dist_staging *in = &r->unpack[side];
    CLP_TRY(clp__dist_staging_reserve(in, r->worker, r->transfer,
                                      (x->migrants_in + x->halo_in) * each, err));
    x->migrants = in->host;
    x->halo = in->host + x->migrants_in * each;
    CLP_TRY(clp__comm_recv_into(r->comm, from, tag(MIGRANTS, side), x->migrants,
                                x->migrants_in * each, err));
    /* over threads the halo is placed from its sender's pack, which the sender reads no more
       (it places only what left, from before the halo): no copy */
    void *lent;
    size_t bytes;
    CLP_TRY(clp__comm_recv_lent(r->comm, from, tag(HALO, side), &lent, &bytes, &x->loan, err));
    if (!x->loan)
        CLP_TRY(
            clp__comm_recv_into(r->comm, from, tag(HALO, side), x->halo, x->halo_in * each, err));
    CLP_REQUIRE(!x->loan || bytes == x->halo_in * each, err, CLP_COMM,
                "rank %d expected %zu bytes of halo from rank %d and got %zu", r->rank,
                x->halo_in * each, from, bytes);
    x->halo = x->loan ? lent : x->halo;
fail:
    return st;
}

/* Gives the halos lent by the comm back, their writes to the device done. */
static void give_back_halos(clp__dist_rank *r, side_exchange x[2]) {
    for (int side = 0; side < 2; side++) {
        clp__comm_give_back(r->comm, x[side].loan);
        x[side].loan = NULL;
    }
}

/* The free slots a rebuild fills in order: a region, then the next, which runs to the end. */
typedef struct free_slots {
    size_t at, end, next;
} free_slots;

/* Writes a pack of `count` particles into free slots, in order; with `pin`, those received from
 * the neighbour on `side` in local layer `layer`, pinned to their cells: as far as the sender's
 * rounding goes, which across the periodic boundary was at the size of coordinates a box
 * length away. */
static clp_status place(clp__dist_rank *r, int side, void *data, size_t count, bool pin, int layer,
                        free_slots *f, clp_error *err) {
    clp_status st = CLP_OK;
    const int a = r->slabs.axis;
    const float scale = r->shift[side] == 0.0f
                            ? 0.0f
                            : fabsf((float)r->local.origin[a]) + fabsf(r->shift[side]) +
                                  (float)r->local.cell_size[a];
    const field_list fields = travelling(r);
    if (pin)
        relayer_keys(r, &fields, count, data, layer);
    for (size_t done = 0; done < count;) {
        if (f->at == f->end)
            *f = (free_slots){f->next, r->capacity, r->capacity};
        const size_t n = count - done < f->end - f->at ? count - done : f->end - f->at;
        CLP_REQUIRE(n > 0, err, CLP_CHECK, "device rank %d: no free slot left of %zu", r->rank,
                    r->capacity);
        CLP_TRY(unpack(r, clp_worker_queue(r->worker), &fields, f->at, data, count, done, n, err));
        if (pin)
            CLP_TRY(clp__dist_pin(&r->device, f->at, n, scale, err));
        f->at += n;
        done += n;
    }
fail:
    return st;
}

/* A rebuild's first phase: a refresh begun is dropped (the halos are refilled from their
 * owners), the padding filled, and what leaves for each side and each edge selected and
 * packed for sending. */
static clp_status pack_sides(clp__dist_rank *r, side_exchange x[2], selection *sel, size_t each,
                             clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(wait_mark(&r->packed, err));
    CLP_TRY(wait_mark(&r->unpacked, err)); /* the receives reuse its staging */
    r->pending = 0;
    r->n_pending_own = 0;
    /* the neighbour lists were valid until now: nothing has moved yet */
    CLP_TRY(clp_grid_check_moved(r->grid, err));
    CLP_TRY(fill_padding(r, 0, r->owned_first, err));
    CLP_TRY(fill_padding(r, r->owned_end, r->halo_end - r->owned_end, err));
    CLP_TRY(select_sent(r, sel, err));
    const size_t sent = sel->first[CLP_DIST_LEAVES_HI] + sel->count[CLP_DIST_LEAVES_HI];
    for (int side = 0; side < 2; side++) {
        x[side].leaving = sel->count[leaves_class[side]];
        x[side].edge = sel->count[edge_class[side]];
        if (r->neighbor[side] >= 0)
            CLP_TRY(clp__dist_staging_reserve(&r->pack[side], r->worker, r->transfer,
                                              (x[side].leaving + x[side].edge) * each, err));
    }
    CLP_TRY(pack_selected(r, sel, sent, each, err));
    CLP_TRY(finish(r, err));
fail:
    return st;
}

/* The second: sizes, migrants and edges to each neighbour, the slots of what left padded (it
 * comes back as part of the halo), and the neighbours' in return. */
static clp_status exchange_sides(clp__dist_rank *r, side_exchange x[2], const selection *sel,
                                 size_t each, clp_error *err) {
    clp_status st = CLP_OK;
    const field_list fields = travelling(r);
    for (int side = 0; side < 2; side++) {
        if (r->neighbor[side] < 0)
            continue;
        side_exchange *s = &x[side];
        unsigned char *leaving = r->pack[side].host, *edge = leaving + s->leaving * each;
        const uint64_t sizes[2] = {s->leaving, s->edge};
        CLP_TRY(clp__comm_send(r->comm, r->neighbor[side], tag(SIZES, 1 - side), sizes,
                               sizeof sizes, err));
        CLP_TRY(send_pack(r, side, MIGRANTS, &fields, s->leaving, leaving, err));
        CLP_TRY(send_pack(r, side, HALO, &fields, s->edge, edge, err));
    }
    CLP_DEBUG(CLP_LOG_RUN, "device rank %d rebuilds: sent", r->rank);
    for (int side = 0; side < 2; side++)
        CLP_TRY(clp__dist_pad(&r->device, clp_worker_buffer(r->worker, CLP_BUF_PERM),
                              sel->first[leaves_class[side]], x[side].leaving, err));
    for (int side = 0; side < 2; side++)
        if (r->neighbor[side] >= 0)
            CLP_TRY(receive(r, side, &x[side], err));
fail:
    return st;
}

/* The third: the arrivals in their slots. The migrants go after every slot that stays, so
 * that the stable sort keeps them after the particles that stay in each cell, as their
 * senders' copies of the edges do; each halo, in the free slots before and after those, as
 * its owner's edge will sort, cell by cell: the particles that stayed in that edge, then those
 * that moved into it. *owned gets the slab's particles. */
static clp_status place_arrivals(clp__dist_rank *r, side_exchange x[2], const selection *sel,
                                 size_t *owned, clp_error *err) {
    clp_status st = CLP_OK;
    const int L = r->layers, lo = r->halo_layers[0], hi = r->halo_layers[1];
    /* over MPI the sends move only while both ranks are in MPI calls: finished before the
       device work; a lent halo is given back once placed, and the neighbour's flush waits */
    const bool lent = x[0].loan || x[1].loan;
    if (!lent)
        CLP_TRY(flush(r, err));
    const size_t stays = clp__dist_rank_owned(r) - sel->outside - x[0].leaving - x[1].leaving;
    const size_t migrants = x[0].migrants_in + x[1].migrants_in;
    const size_t halos_in = x[0].halo_in + x[1].halo_in + x[0].leaving + x[1].leaving;
    const size_t below = halos_in < r->owned_first ? halos_in : r->owned_first;
    CLP_REQUIRE(r->owned_end + migrants + halos_in - below <= r->capacity, err, CLP_DEVICE_MEMORY,
                "device rank %d: %zu particles and halo need more than its %zu slots; raise "
                "dist.room (the room its buffers keep beyond its particles at the cut)",
                r->rank, stays + migrants + halos_in, r->capacity);
    free_slots after = {r->owned_end, r->owned_end + migrants, r->capacity};
    free_slots halos = {0, r->owned_first, after.end};
    CLP_TRY(place(r, 0, x[0].migrants, x[0].migrants_in, true, lo, &after, err));
    CLP_TRY(place(r, 1, x[1].migrants, x[1].migrants_in, true, L - hi - 1, &after, err));
    for (int side = 0; side < 2; side++) {
        if (r->neighbor[side] < 0)
            continue;
        CLP_TRY(place(r, side, x[side].halo, x[side].halo_in, true, side == 0 ? 0 : L - 1, &halos,
                      err));
        /* what left keeps its cells: no pin */
        CLP_TRY(place(r, side, r->pack[side].host, x[side].leaving, false, 0, &halos, err));
    }
    CLP_DEBUG(CLP_LOG_RUN,
              "device rank %d rebuilds: %zu and %zu particles leave for the ranks below and "
              "above, %zu and %zu come in from them",
              r->rank, x[0].leaving, x[1].leaving, x[0].migrants_in, x[1].migrants_in);
    CLP_TRY(clp__dist_pin_check(&r->device, err)); /* waits for the writes too */
    if (lent) {
        give_back_halos(r, x);
        CLP_TRY(flush(r, err));
    }
    *owned = stays + migrants;
fail:
    return st;
}

/* The last: the sort and lists, and the ranges of the halos, edges and slab they give, which
 * must hold what arrived. */
static clp_status sort_and_bound(clp__dist_rank *r, const side_exchange x[2], size_t owned,
                                 clp_error *err) {
    clp_status st = CLP_OK;
    const int L = r->layers, lo = r->halo_layers[0], hi = r->halo_layers[1];
    /* the slots now hold arrivals, whose positions at the last rebuild are not there to
       compare with: the check before the packing was the last */
    r->grid->has_reference = false;
    /* the sort puts the lower halo first, then the slab: lists for the slab only, unless a
       kernel reads the halo's */
    clp_grid_list_only(r->grid, x[0].halo_in + x[0].leaving, r->halo_lists ? 0 : owned);
    CLP_TRY(clp_grid_update(r->grid, err));
    r->timing = clp_grid_last_timing(r->grid);
    CLP_DEBUG(CLP_LOG_RUN, "device rank %d rebuilds: pinned, sorted and listed", r->rank);
    const int owned_layers[] = {lo, lo + 1, lo + 2, L - hi - 2, L - hi - 1, L - hi, L};
    size_t o[7];
    CLP_TRY(layer_bounds(r, owned_layers, 7, o, err));
    r->owned_first = o[0];
    r->edge_lo_end = o[1];
    r->near_lo_end = r->neighbor[0] >= 0 ? o[2] : o[0];
    r->near_hi_first = r->neighbor[1] >= 0 ? o[3] : o[5];
    r->edge_hi_first = o[4];
    r->owned_end = o[5];
    r->halo_end = o[6];
    CLP_REQUIRE(r->owned_first == x[0].halo_in + x[0].leaving &&
                    r->halo_end - r->owned_end == x[1].halo_in + x[1].leaving &&
                    clp__dist_rank_owned(r) == owned,
                err, CLP_CHECK,
                "device rank %d: after its rebuild it holds %zu, %zu and %zu particles in its "
                "lower halo, slab and upper halo, not the %zu, %zu and %zu it took",
                r->rank, r->owned_first, clp__dist_rank_owned(r), r->halo_end - r->owned_end,
                x[0].halo_in + x[0].leaving, owned, x[1].halo_in + x[1].leaving);
    CLP_TRY(zero_range(r, 0, r->owned_first, err));
    CLP_TRY(zero_range(r, r->owned_end, r->halo_end - r->owned_end, err));
fail:
    return st;
}

clp_status clp__dist_rank_zero_halo(clp__dist_rank *r, clp_buffer *buffer, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t each = clp_buffer_size(buffer) / r->capacity;
    const size_t halos[2][2] = {{0, r->owned_first}, {r->owned_end, r->halo_end}};
    for (int side = 0; side < 2; side++)
        CLP_TRY(clp_worker_buffer_zero_range(r->worker, buffer, halos[side][0] * each,
                                             (halos[side][1] - halos[side][0]) * each, err));
fail:
    return st;
}

clp_status clp__dist_rank_rebuild(clp__dist_rank *r, clp_error *err) {
    clp_status st = CLP_OK;
    const field_list fields = travelling(r);
    const size_t each = particle_bytes(r, &fields);
    side_exchange x[2] = {{0}, {0}};
    selection sel = {0};
    size_t owned = 0;
    CLP_DEBUG(CLP_LOG_RUN, "device rank %d rebuilds: begins", r->rank);
    CLP_TRY(pack_sides(r, x, &sel, each, err));
    /* each phase logged, so that a rank that stops answering shows where */
    CLP_DEBUG(CLP_LOG_RUN, "device rank %d rebuilds: classed; edges of %zu and %zu particles",
              r->rank, x[0].edge, x[1].edge);
    CLP_TRY(exchange_sides(r, x, &sel, each, err));
    CLP_TRY(place_arrivals(r, x, &sel, &owned, err));
    CLP_TRY(sort_and_bound(r, x, owned, err));
fail:
    if (x[0].loan || x[1].loan) { /* the writes from them may still run */
        clFinish(clp_worker_queue(r->worker));
        give_back_halos(r, x);
    }
    free(sel.slots);
    return st;
}

/* The edges' and halos' slot ranges per side. */
static void edges_and_halos(const clp__dist_rank *r, size_t edge_first[2], size_t edge[2],
                            size_t halo_first[2], size_t halo[2]) {
    for (int side = 0; side < 2; side++)
        clp__dist_rank_edge(r, side, &edge_first[side], &edge[side]);
    halo_first[0] = 0;
    halo[0] = r->owned_first;
    halo_first[1] = r->owned_end;
    halo[1] = r->halo_end - r->owned_end;
}

/* The refreshes copy on the rank's transfer queue, so that the device runs the kernels over
 * the inner layers while the edges go out and the halos come in; barriers between the two
 * queues order the copies after the kernels that wrote the edges, and the kernels that read
 * the halos after the copies. */
clp_status clp__dist_rank_refresh_begin(clp__dist_rank *r, clp_buffer_set fields, clp_error *err) {
    return clp__dist_rank_refresh_begin_own(r, fields, NULL, 0, err);
}

clp_status clp__dist_rank_refresh_begin_own(clp__dist_rank *r, clp_buffer_set fields,
                                            const clp_buffer *const *own, size_t n_own,
                                            clp_error *err) {
    clp_status st = CLP_OK;
    size_t edge_first[2], edge[2], halo_first[2], halo[2];
    cl_event written = NULL;
    fields &= clp_worker_buffers(r->worker);
    edges_and_halos(r, edge_first, edge, halo_first, halo);
    const field_list list = fields_of(fields, own, n_own);
    const size_t each = particle_bytes(r, &list);
    CLP_REQUIRE(!clp__dist_rank_refreshing(r), err, CLP_CHECK,
                "device rank %d: a halo refresh began before the last one ended", r->rank);
    CLP_REQUIRE(n_own <= CLP_GRID_MOST_CARRIED, err, CLP_USAGE,
                "device rank %d: a halo refresh moves at most %d of a model's buffers", r->rank,
                CLP_GRID_MOST_CARRIED);
    for (size_t k = 0; k < n_own; k++)
        CLP_TRY(clp__buffer_check_owner(r->worker, own[k], err));
    CLP_TRY(mark(clp_worker_queue(r->worker), &written, err));
    CLP_TRY(wait_on(r->transfer, written, err));
    for (int side = 0; side < 2; side++) {
        if (r->neighbor[side] < 0)
            continue;
        CLP_TRY(clp__dist_staging_reserve(&r->pack[side], r->worker, r->transfer, edge[side] * each,
                                          err));
        CLP_TRY(pack(r, r->transfer, &list, edge_first[side], edge[side], r->pack[side].host, err));
    }
    CLP_TRY(mark(r->transfer, &r->packed, err));
    r->pending = fields;
    for (size_t k = 0; k < n_own; k++)
        r->pending_own[k] = own[k];
    r->n_pending_own = n_own;
fail:
    if (written)
        clReleaseEvent(written);
    return st;
}

clp_status clp__dist_rank_refresh_end(clp__dist_rank *r, clp_error *err) {
    clp_status st = CLP_OK;
    size_t edge_first[2], edge[2], halo_first[2], halo[2];
    if (!clp__dist_rank_refreshing(r))
        return CLP_OK;
    const field_list list = refreshed(r);
    r->pending = 0;
    r->n_pending_own = 0;
    edges_and_halos(r, edge_first, edge, halo_first, halo);
    const size_t each = particle_bytes(r, &list);
    /* the device runs what was enqueued since the begin while the host exchanges */
    CLP_CL_CHECK(clFlush(clp_worker_queue(r->worker)), err, "halo exchange: clFlush");
    CLP_TRY(wait_mark(&r->packed, err));
    for (int side = 0; side < 2; side++)
        if (r->neighbor[side] >= 0)
            CLP_TRY(send_pack(r, side, REFRESH, &list, edge[side], r->pack[side].host, err));
    CLP_TRY(wait_mark(&r->unpacked, err)); /* the last refresh's writes are off the staging */
    for (int side = 0; side < 2; side++) {
        if (r->neighbor[side] < 0)
            continue;
        clp__dist_staging *in = &r->unpack[side];
        CLP_TRY(clp__dist_staging_reserve(in, r->worker, r->transfer, halo[side] * each, err));
        CLP_TRY(clp__comm_recv_into(r->comm, r->neighbor[side], tag(REFRESH, side), in->host,
                                    halo[side] * each, err));
        CLP_TRY(unpack(r, r->transfer, &list, halo_first[side], in->host, halo[side], 0, halo[side],
                       err));
    }
    CLP_TRY(mark(r->transfer, &r->unpacked, err));
    CLP_TRY(wait_on(clp_worker_queue(r->worker), r->unpacked, err));
    CLP_TRY(flush(r, err));
fail:
    return st;
}

clp_status clp__dist_rank_refresh(clp__dist_rank *r, clp_buffer_set fields, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__dist_rank_refresh_begin(r, fields, err));
    CLP_TRY(clp__dist_rank_refresh_end(r, err));
fail:
    return st;
}
