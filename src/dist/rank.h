/* One rank of a multi-device run (Bilotta et al. 2018, 4.5): its slab of
 * the cell grid, the sorted layout of its particles, and the exchanges with the ranks beside
 * it. After each rebuild a rank's particles lie, in sorted order, as
 *
 *   [halo lo | edge lo | inner | edge hi | halo hi | outside (padding, excluded)]
 *
 * where a halo is a copy of the neighbour's edge layer, slot for slot in the owner's order:
 * each step then refreshes a halo by one copy of the edge's range, and the neighbour lists
 * built at the rebuild stay valid. The rank owns edge lo .. edge hi. Model-agnostic: the model
 * says which buffers travel with a particle and which are zeroed over the halo. */
#ifndef CLPART_DIST_RANK_H
#define CLPART_DIST_RANK_H

#include "dist/comm.h"
#include "dist/dist_device.h"
#include "dist/slabs.h"
#include "dist/staging.h"

typedef struct clp__dist_rank {
    clp__comm *comm;
    clp_worker *worker;
    clp_grid *grid;
    clp__dist_device device;
    clp_slabs slabs;
    int rank;
    int neighbor[2];         /* the rank below and above, -1 for none */
    float shift[2];          /* added to the slab-axis position of what goes to side s */
    clp_grid_geometry local; /* the slab and its halo layers */
    size_t capacity;         /* slots, CLP_GRID_PARTICLES */
    int layers, halo_layers[2];
    uint32_t layer_keys; /* cell keys per layer */
    /* the buffers a particle takes along (CLP_BUF_KEY among them); after them, in a pack, the
     * model's own that the grid carries (clp_grid_carry) */
    clp_buffer_set travels;
    clp_buffer_set zeroed; /* the buffers set to 0 over the halo after a rebuild */
    bool halo_lists;       /* a kernel reads the halo's neighbour lists: build them too */
    /* The sorted layout since the last rebuild: halo lo [0, owned_first), owned [owned_first,
     * owned_end) with edge lo up to edge_lo_end and edge hi from edge_hi_first, halo hi
     * [owned_end, halo_end). */
    size_t owned_first, edge_lo_end, edge_hi_first, owned_end, halo_end;
    /* The slots of the two owned layers by each edge, owned_first .. near_lo_end - 1 and
     * near_hi_first .. owned_end - 1: where the next rebuild looks for what left and the edges
     * (the whole slab after an upload, which leaves the particles unsorted). */
    size_t near_lo_end, near_hi_first;
    clp__dist_staging pack[2], unpack[2]; /* per side */
    cl_command_queue transfer; /* the refreshes' copies, beside the kernels on the worker's */
    clp_buffer_set pending;    /* the fields of a refresh begun and not ended */
    /* and the model's own buffers it moves after them, pending_own[0 .. n_pending_own - 1] */
    const clp_buffer *pending_own[CLP_GRID_MOST_CARRIED];
    size_t n_pending_own;
    cl_event packed;        /* the edges' reads of the refresh begun are done */
    cl_event unpacked;      /* the halos' writes of the last refresh are done */
    bool lent;              /* the comm may still read a pack it was lent (send_pack) */
    clp_grid_timing timing; /* the last rebuild's device time: both sorts and the list */
} clp__dist_rank;

/* This rank of `slabs` on `worker`, whose grid over `local` (clp__slabs_local_geometry) holds
 * its particles in all its slots. The worker's program includes cl/dist/dist.cl. */
clp_status clp__dist_rank_init(clp__dist_rank *r, clp__comm *comm, clp_worker *worker,
                               clp_grid *grid, const clp_slabs *slabs,
                               const clp_grid_geometry *local, clp_buffer_set travels,
                               clp_buffer_set zeroed, clp_error *err);
void clp__dist_rank_destroy(clp__dist_rank *r);

/* Sets the layout of freshly uploaded particles: `owned` of them from slot 0, padding after. */
void clp__dist_rank_uploaded(clp__dist_rank *r, size_t owned);

/* After a checkpoint's layout (owned_first .. halo_end) replaced the one the setup's rebuild
 * made: the neighbour lists go over its slab again, as the rebuild that wrote it set them, and
 * the next rebuild looks at the whole slab for what left (the layers by the edges were not
 * saved). */
void clp__dist_rank_restored(clp__dist_rank *r);

/* The rebuild every rank does at once: the old halos become padding; the layers by the edges
 * give the particles that entered a halo layer (they move to that neighbour) and the edges
 * (copied to the neighbours' halos); what comes in is appended, pinned to the cells its
 * sender found it in, and the sort with the neighbour list puts every particle in place;
 * r->timing gets their device time. */
clp_status clp__dist_rank_rebuild(clp__dist_rank *r, clp_error *err);
/* Zeroes a model's own per-particle buffer (one element a slot) over the halo, the slots below
 * owned_first and from owned_end to halo_end: values no rank computes there, left by the
 * particles a rebuild moved, are zero rather than stale. */
clp_status clp__dist_rank_zero_halo(clp__dist_rank *r, clp_buffer *buffer, clp_error *err);

/* Copies the `fields` of each edge into the neighbour's halo: after every kernel that changes
 * what the neighbour's kernels read of the halo. */
clp_status clp__dist_rank_refresh(clp__dist_rank *r, clp_buffer_set fields, clp_error *err);

/* The same in two halves, so that the exchange overlaps the work that needs no halo (seed
 * 4.5.2): begin enqueues the edges' reads behind the kernels that wrote them; the caller then
 * enqueues the kernels over the inner layers, and end sends the edges, takes the neighbours'
 * and enqueues their writes into the halos while those kernels run. Every rank ends each
 * refresh it began, or drops it at a rebuild, which copies the whole halo anew. */
clp_status clp__dist_rank_refresh_begin(clp__dist_rank *r, clp_buffer_set fields, clp_error *err);
clp_status clp__dist_rank_refresh_end(clp__dist_rank *r, clp_error *err);
/* The begin of a refresh of the `fields` bits and, after them, of `n_own` of the model's own
 * buffers of one element a slot (at most CLP_GRID_MOST_CARRIED). */
clp_status clp__dist_rank_refresh_begin_own(clp__dist_rank *r, clp_buffer_set fields,
                                            const clp_buffer *const *own, size_t n_own,
                                            clp_error *err);

/* Whether a refresh was begun and not ended. */
static inline bool clp__dist_rank_refreshing(const clp__dist_rank *r) {
    return r->pending || r->n_pending_own;
}

/* The slots of the owned layers that read no halo (inner), and of those that do (the two
 * edges): [first, first + count) each. */
static inline void clp__dist_rank_inner(const clp__dist_rank *r, size_t *first, size_t *count) {
    *first = r->edge_lo_end;
    *count = r->edge_hi_first - r->edge_lo_end;
}
static inline void clp__dist_rank_edge(const clp__dist_rank *r, int side, size_t *first,
                                       size_t *count) {
    *first = side ? r->edge_hi_first : r->owned_first;
    *count = side ? r->owned_end - r->edge_hi_first : r->edge_lo_end - r->owned_first;
}

/* The particles this rank owns, in sorted order. */
static inline size_t clp__dist_rank_owned(const clp__dist_rank *r) {
    return r->owned_end - r->owned_first;
}

/* Reads `count` elements of buffer `bit` from slot `first` into `out` (blocking). */
clp_status clp__dist_read_range(clp_worker *w, clp_buffer_set bit, size_t first, size_t count,
                                size_t capacity, void *out, clp_error *err);

#endif
