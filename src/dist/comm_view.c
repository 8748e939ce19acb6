/* A comm over some of another comm's ranks: those a cut keeps when it leaves out a device too
 * slow to take even its thinnest slab. Its ranks are numbered anew, in the parent's order; its
 * messages travel through the parent's transport, under the parent's timeout. */
#include "dist/comm_private.h"

#include <stdlib.h>
#include <string.h>

typedef struct view_comm {
    clp__comm base;
    clp__comm *parent;              /* borrowed */
    int parent_rank[CLP_MAX_RANKS]; /* of each of the view's ranks */
} view_comm;

/* The parent, waiting as long as the view does and naming tags as it does (only this rank's
 * thread uses either), and the parent's number for the view's rank `rank`. */
static clp__comm *parent_of(clp__comm *c, int rank, int *parent_rank) {
    view_comm *v = (view_comm *)c;
    *parent_rank = v->parent_rank[rank];
    v->parent->timeout_s = c->timeout_s;
    v->parent->tag_names = c->tag_names;
    v->parent->tag_count = c->tag_count;
    return v->parent;
}

static clp_status view_send(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                            clp_error *err) {
    int peer;
    clp__comm *p = parent_of(c, to, &peer);
    return p->ops->send(p, peer, tag, data, bytes, err);
}

static clp_status view_send_borrowed(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                                     clp_error *err) {
    int peer;
    clp__comm *p = parent_of(c, to, &peer);
    return p->ops->send_borrowed ? p->ops->send_borrowed(p, peer, tag, data, bytes, err)
                                 : p->ops->send(p, peer, tag, data, bytes, err);
}

static clp_status view_recv(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                            clp_error *err) {
    int peer;
    clp__comm *p = parent_of(c, from, &peer);
    return p->ops->recv(p, peer, tag, data, bytes, err);
}

static clp_status view_recv_into(clp__comm *c, int from, int tag, void *data, size_t bytes,
                                 size_t *got, clp_error *err) {
    int peer;
    clp__comm *p = parent_of(c, from, &peer);
    if (p->ops->recv_into)
        return p->ops->recv_into(p, peer, tag, data, bytes, got, err);
    void *message = NULL;
    clp_status st = p->ops->recv(p, peer, tag, &message, got, err);
    if (st == CLP_OK && *got == bytes && bytes)
        memcpy(data, message, bytes);
    free(message);
    return st;
}

static clp_status view_recv_lent(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                                 void **loan, clp_error *err) {
    int peer;
    clp__comm *p = parent_of(c, from, &peer);
    return p->ops->recv_lent ? p->ops->recv_lent(p, peer, tag, data, bytes, loan, err) : CLP_OK;
}

static void view_give_back(clp__comm *c, void *loan) {
    int unused;
    clp__comm *p = parent_of(c, c->rank, &unused);
    p->ops->give_back(p, loan);
}

static clp_status view_flush(clp__comm *c, clp_error *err) {
    int unused;
    clp__comm *p = parent_of(c, c->rank, &unused);
    return p->ops->flush ? p->ops->flush(p, err) : CLP_OK;
}

static void view_abort(clp__comm *c, const char *reason) {
    int unused;
    clp__comm *p = parent_of(c, c->rank, &unused);
    p->ops->abort(p, reason);
}

static void view_destroy(clp__comm *c) {
    free(c);
}

static const clp__comm_ops view_ops = {
    .send = view_send,
    .send_borrowed = view_send_borrowed,
    .recv = view_recv,
    .recv_into = view_recv_into,
    .recv_lent = view_recv_lent,
    .give_back = view_give_back,
    .flush = view_flush,
    .abort = view_abort,
    .destroy = view_destroy,
};

clp_status clp__comm_view_create(clp__comm *parent, const bool *kept, clp__comm **out,
                                 clp_error *err) {
    view_comm *v = calloc(1, sizeof *v);
    *out = NULL;
    if (!v)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    int size = 0, rank = -1;
    for (int r = 0; r < parent->size; r++) {
        if (!kept[r])
            continue;
        if (r == parent->rank)
            rank = size;
        v->parent_rank[size++] = r;
    }
    if (rank < 0 || size == 0) {
        free(v);
        return CLP_FAIL(err, CLP_USAGE, "rank %d: a view of the ranks must keep the caller",
                        parent->rank);
    }
    clp__comm_init(&v->base, &view_ops, rank, size, parent->timeout_s);
    v->base.local_rank = parent->local_rank;
    v->base.local_size = parent->local_size;
    clp__comm_set_tag_names(&v->base, parent->tag_names, parent->tag_count);
    v->parent = parent;
    *out = &v->base;
    return CLP_OK;
}
