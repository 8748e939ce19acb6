/* The comm transport for ranks that are threads of one process: a hub shared by all ranks
 * holds a FIFO mailbox per (sender, receiver) pair, one mutex, a condition variable per rank,
 * and the first abort's reason. A borrowed send leaves its data where it is: the receiver
 * copies it straight into its own memory (a halo into pinned staging, with no copy between),
 * and the sender's flush waits until every receiver has. */
#include "dist/comm_private.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct message {
    struct message *next;
    int tag, from;
    size_t bytes;
    void *data;    /* NULL when empty */
    bool borrowed; /* data is the sender's, until it is taken */
} message;

typedef struct mailbox {
    message *head;
    message *tail;
} mailbox;

typedef struct hub {
    pthread_mutex_t lock;
    pthread_cond_t *arrived; /* [size], per rank: a message came for it, or one it lent went */
    mailbox *boxes;          /* [from * size + to] */
    bool *gone;              /* [size]: that rank has destroyed its comm */
    int *lent;               /* [size]: that rank's borrowed messages not yet taken */
    int size;
    int refs;
    bool aborted;
    char abort_reason[sizeof((clp_error *)0)->message];
} hub;

typedef struct threads_comm {
    clp__comm base;
    hub *hub;
} threads_comm;

static hub *hub_of(clp__comm *c) {
    return ((threads_comm *)c)->hub;
}

/* Frees a message taken out of its box; one borrowed is given back to its sender. Called with
 * the lock held. */
static void release(hub *h, message *m) {
    if (m->borrowed) {
        h->lent[m->from]--;
        pthread_cond_broadcast(&h->arrived[m->from]);
    } else {
        free(m->data);
    }
    free(m);
}

static void hub_free(hub *h) {
    for (int i = 0; i < h->size * h->size; i++) {
        for (message *m = h->boxes[i].head, *next; m; m = next) {
            next = m->next;
            if (!m->borrowed)
                free(m->data);
            free(m);
        }
    }
    for (int r = 0; r < h->size; r++)
        pthread_cond_destroy(&h->arrived[r]);
    pthread_mutex_destroy(&h->lock);
    free(h->arrived);
    free(h->boxes);
    free(h->gone);
    free(h->lent);
    free(h);
}

/* Puts `data` (bytes of it) in the box for `to`: a copy, or with `borrowed` the caller's. */
static clp_status post(clp__comm *c, int to, int tag, const void *data, size_t bytes, bool borrowed,
                       clp_error *err) {
    hub *h = hub_of(c);
    message *m = calloc(1, sizeof *m);
    void *copy = bytes && !borrowed ? malloc(bytes) : NULL;
    if (!m || (bytes && !borrowed && !copy)) {
        free(m);
        free(copy);
        return CLP_FAIL(err, CLP_NOMEM, "rank %d: out of host memory sending %zu bytes to rank %d",
                        c->rank, bytes, to);
    }
    if (copy)
        memcpy(copy, data, bytes);
    *m = (message){.tag = tag,
                   .from = c->rank,
                   .bytes = bytes,
                   .data = borrowed && bytes ? (void *)data : copy,
                   .borrowed = borrowed && bytes};

    pthread_mutex_lock(&h->lock);
    if (h->aborted) {
        char reason[sizeof h->abort_reason];
        memcpy(reason, h->abort_reason, sizeof reason);
        pthread_mutex_unlock(&h->lock);
        free(copy);
        free(m);
        return clp__comm_fail_aborted(c, "sending to", to, tag, reason, err);
    }
    if (h->gone[to]) { /* a rank that has left takes nothing: the message goes nowhere */
        pthread_mutex_unlock(&h->lock);
        free(copy);
        free(m);
        return CLP_OK;
    }
    mailbox *box = &h->boxes[c->rank * h->size + to];
    if (box->tail)
        box->tail->next = m;
    else
        box->head = m;
    box->tail = m;
    h->lent[c->rank] += m->borrowed;
    pthread_cond_broadcast(&h->arrived[to]);
    pthread_mutex_unlock(&h->lock);
    return CLP_OK;
}

static clp_status threads_send(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                               clp_error *err) {
    return post(c, to, tag, data, bytes, false, err);
}

static clp_status threads_send_borrowed(clp__comm *c, int to, int tag, const void *data,
                                        size_t bytes, clp_error *err) {
    return post(c, to, tag, data, bytes, true, err);
}

/* The first message with `tag` in the box, unlinked; NULL if none. Called with the lock held. */
static message *take(mailbox *box, int tag) {
    message *prev = NULL;
    for (message *m = box->head; m; prev = m, m = m->next) {
        if (m->tag != tag)
            continue;
        if (prev)
            prev->next = m->next;
        else
            box->head = m->next;
        if (box->tail == m)
            box->tail = prev;
        return m;
    }
    return NULL;
}

/* Now plus `seconds` on the monotonic clock (at most about 30 years ahead). */
static struct timespec deadline_after(double seconds) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double whole;
    const double fraction = modf(fmin(seconds, 1e9), &whole);
    const long nsec = t.tv_nsec + (long)(fraction * 1e9);
    t.tv_sec += (time_t)whole + nsec / 1000000000L;
    t.tv_nsec = nsec % 1000000000L;
    return t;
}

typedef enum wait_end { GOT_MESSAGE, ABORTED, SENDER_GONE, TIMED_OUT } wait_end;

/* Waits for the first message from `from` with `tag` and takes it out of its box (*out). */
static clp_status wait_message(clp__comm *c, int from, int tag, message **out, clp_error *err) {
    hub *h = hub_of(c);
    mailbox *box = &h->boxes[from * h->size + c->rank];
    const struct timespec deadline = deadline_after(c->timeout_s);
    char reason[sizeof h->abort_reason];
    wait_end end;

    pthread_mutex_lock(&h->lock);
    for (bool expired = false;;) {
        /* A message that is there is taken even after an abort: its sender had sent it. */
        if ((*out = take(box, tag))) {
            end = GOT_MESSAGE;
            break;
        }
        if (h->aborted) {
            memcpy(reason, h->abort_reason, sizeof reason);
            end = ABORTED;
            break;
        }
        if (h->gone[from] || expired) {
            end = h->gone[from] ? SENDER_GONE : TIMED_OUT;
            break;
        }
        expired = pthread_cond_timedwait(&h->arrived[c->rank], &h->lock, &deadline) == ETIMEDOUT;
    }
    pthread_mutex_unlock(&h->lock);

    char buf[64];
    switch (end) {
    case GOT_MESSAGE:
        return CLP_OK;
    case ABORTED:
        return clp__comm_fail_aborted(c, "receiving from", from, tag, reason, err);
    case SENDER_GONE:
        return CLP_FAIL(err, CLP_COMM,
                        "rank %d, receiving from rank %d with tag %s: rank %d has left the run "
                        "(destroyed its comm) without sending it",
                        c->rank, from, clp__comm_tag_str(c, tag, buf), from);
    case TIMED_OUT:
        break;
    }
    return clp__comm_fail_timeout(c, from, tag, err);
}

/* Gives a taken message back to the hub: its copy freed, or its sender's data returned. */
static void done_with(clp__comm *c, message *m) {
    hub *h = hub_of(c);
    pthread_mutex_lock(&h->lock);
    release(h, m);
    pthread_mutex_unlock(&h->lock);
}

static clp_status threads_recv(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                               clp_error *err) {
    clp_status st = CLP_OK;
    message *m = NULL;
    CLP_TRY(wait_message(c, from, tag, &m, err));
    *bytes = m->bytes;
    if (!m->borrowed) { /* the copy becomes the caller's */
        *data = m->data;
        m->data = NULL;
    } else {
        *data = malloc(m->bytes);
        if (*data)
            memcpy(*data, m->data, m->bytes);
    }
    done_with(c, m);
    CLP_REQUIRE(*data || *bytes == 0, err, CLP_NOMEM,
                "rank %d: out of host memory receiving %zu bytes from rank %d", c->rank, *bytes,
                from);
fail:
    return st;
}

static clp_status threads_recv_into(clp__comm *c, int from, int tag, void *data, size_t bytes,
                                    size_t *got, clp_error *err) {
    clp_status st = CLP_OK;
    message *m = NULL;
    CLP_TRY(wait_message(c, from, tag, &m, err));
    *got = m->bytes;
    if (m->bytes == bytes && bytes)
        memcpy(data, m->data, bytes);
    done_with(c, m);
fail:
    return st;
}

static clp_status threads_recv_lent(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                                    void **loan, clp_error *err) {
    clp_status st = CLP_OK;
    message *m = NULL;
    CLP_TRY(wait_message(c, from, tag, &m, err));
    *data = m->data;
    *bytes = m->bytes;
    *loan = m;
fail:
    return st;
}

static void threads_give_back(clp__comm *c, void *loan) {
    done_with(c, loan);
}

static clp_status threads_flush(clp__comm *c, clp_error *err) {
    hub *h = hub_of(c);
    const struct timespec deadline = deadline_after(c->timeout_s);
    char reason[sizeof h->abort_reason];
    bool aborted = false, expired = false;
    int left;
    pthread_mutex_lock(&h->lock);
    while ((left = h->lent[c->rank]) > 0 && !(aborted = h->aborted) && !expired)
        expired = pthread_cond_timedwait(&h->arrived[c->rank], &h->lock, &deadline) == ETIMEDOUT;
    if (aborted)
        memcpy(reason, h->abort_reason, sizeof reason);
    pthread_mutex_unlock(&h->lock);
    if (left == 0)
        return CLP_OK;
    if (aborted)
        return CLP_FAIL(err, CLP_COMM, "rank %d, waiting for its messages to be taken in: %s",
                        c->rank, reason);
    return CLP_FAIL(err, CLP_COMM,
                    "rank %d: %d messages it sent were not taken in by their ranks after %g s "
                    "(CLPART_COMM_TIMEOUT)",
                    c->rank, left, c->timeout_s);
}

static void threads_abort(clp__comm *c, const char *reason) {
    hub *h = hub_of(c);
    pthread_mutex_lock(&h->lock);
    if (!h->aborted) {
        h->aborted = true;
        snprintf(h->abort_reason, sizeof h->abort_reason, "%s", reason);
    }
    for (int r = 0; r < h->size; r++)
        pthread_cond_broadcast(&h->arrived[r]);
    pthread_mutex_unlock(&h->lock);
}

static void threads_destroy(clp__comm *c) {
    hub *h = hub_of(c);
    pthread_mutex_lock(&h->lock);
    h->gone[c->rank] = true;
    for (int from = 0; from < h->size; from++) { /* what no one will take: borrowed goes back */
        mailbox *box = &h->boxes[from * h->size + c->rank];
        for (message *m = box->head, *next; m; m = next) {
            next = m->next;
            release(h, m);
        }
        box->head = box->tail = NULL;
    }
    for (int r = 0; r < h->size; r++)
        pthread_cond_broadcast(&h->arrived[r]);
    const bool last = --h->refs == 0;
    pthread_mutex_unlock(&h->lock);
    if (last)
        hub_free(h);
    free(c);
}

static const clp__comm_ops threads_ops = {
    .send = threads_send,
    .send_borrowed = threads_send_borrowed,
    .recv = threads_recv,
    .recv_into = threads_recv_into,
    .recv_lent = threads_recv_lent,
    .give_back = threads_give_back,
    .flush = threads_flush,
    .abort = threads_abort,
    .destroy = threads_destroy,
};

/* A hub for `size` ranks with its lock and conditions (on the monotonic clock, so that a
 * change of the wall clock does not stretch a timeout); NULL when out of memory. */
static hub *hub_create(int size) {
    hub *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->arrived = calloc((size_t)size, sizeof *h->arrived);
    h->boxes = calloc((size_t)size * (size_t)size, sizeof *h->boxes);
    h->gone = calloc((size_t)size, sizeof *h->gone);
    h->lent = calloc((size_t)size, sizeof *h->lent);
    pthread_condattr_t attr;
    bool attr_ok = pthread_condattr_init(&attr) == 0;
    if (!h->arrived || !h->boxes || !h->gone || !h->lent || !attr_ok ||
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
        pthread_mutex_init(&h->lock, NULL) != 0) {
        if (attr_ok)
            pthread_condattr_destroy(&attr);
        free(h->arrived);
        free(h->boxes);
        free(h->gone);
        free(h->lent);
        free(h);
        return NULL;
    }
    for (int r = 0; r < size; r++) {
        if (pthread_cond_init(&h->arrived[r], &attr) != 0) {
            h->size = r; /* hub_free destroys the conditions made so far */
            pthread_condattr_destroy(&attr);
            hub_free(h);
            return NULL;
        }
    }
    pthread_condattr_destroy(&attr);
    h->size = size;
    h->refs = size;
    return h;
}

clp_status clp__comm_threads_create(int size, double timeout_s, clp__comm **comms, clp_error *err) {
    if (size < 1)
        return CLP_FAIL(err, CLP_USAGE, "a run over threads needs at least 1 rank, not %d", size);
    hub *h = hub_create(size);
    threads_comm **made = calloc((size_t)size, sizeof *made);
    bool ok = h && made;
    for (int r = 0; ok && r < size; r++) {
        made[r] = calloc(1, sizeof **made);
        ok = made[r] != NULL;
    }
    if (!ok) {
        for (int r = 0; made && r < size; r++)
            free(made[r]);
        free(made);
        if (h)
            hub_free(h);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory creating %d ranks", size);
    }
    for (int r = 0; r < size; r++) {
        clp__comm_init(&made[r]->base, &threads_ops, r, size, timeout_s);
        made[r]->hub = h;
        comms[r] = &made[r]->base;
    }
    free(made);
    return CLP_OK;
}
