/* The comm transport for ranks that are threads of one process: a hub shared by all ranks
 * holds a FIFO mailbox per (sender, receiver) pair, one mutex, a condition variable per
 * receiver, and the first abort's reason. */
#include "dist/comm_private.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct message {
    struct message *next;
    int tag;
    size_t bytes;
    void *data; /* NULL when empty */
} message;

typedef struct mailbox {
    message *head;
    message *tail;
} mailbox;

typedef struct hub {
    pthread_mutex_t lock;
    pthread_cond_t *arrived; /* [size], one per receiving rank */
    mailbox *boxes;          /* [from * size + to] */
    bool *gone;              /* [size]: that rank has destroyed its comm */
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

static void hub_free(hub *h) {
    for (int i = 0; i < h->size * h->size; i++) {
        for (message *m = h->boxes[i].head, *next; m; m = next) {
            next = m->next;
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
    free(h);
}

static clp_status threads_send(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                               clp_error *err) {
    hub *h = hub_of(c);
    message *m = calloc(1, sizeof *m);
    void *copy = bytes ? malloc(bytes) : NULL;
    if (!m || (bytes && !copy)) {
        free(m);
        free(copy);
        return CLP_FAIL(err, CLP_NOMEM, "rank %d: out of host memory sending %zu bytes to rank %d",
                        c->rank, bytes, to);
    }
    if (bytes)
        memcpy(copy, data, bytes);
    *m = (message){.tag = tag, .bytes = bytes, .data = copy};

    pthread_mutex_lock(&h->lock);
    if (h->aborted) {
        char reason[sizeof h->abort_reason];
        memcpy(reason, h->abort_reason, sizeof reason);
        pthread_mutex_unlock(&h->lock);
        free(copy);
        free(m);
        return clp__comm_fail_aborted(c, "sending to", to, tag, reason, err);
    }
    mailbox *box = &h->boxes[c->rank * h->size + to];
    if (box->tail)
        box->tail->next = m;
    else
        box->head = m;
    box->tail = m;
    pthread_cond_signal(&h->arrived[to]);
    pthread_mutex_unlock(&h->lock);
    return CLP_OK;
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

static clp_status threads_recv(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                               clp_error *err) {
    hub *h = hub_of(c);
    mailbox *box = &h->boxes[from * h->size + c->rank];
    const struct timespec deadline = deadline_after(c->timeout_s);
    char reason[sizeof h->abort_reason];
    message *m = NULL;
    wait_end end;

    pthread_mutex_lock(&h->lock);
    for (bool expired = false;;) {
        /* A message that is there is taken even after an abort: its sender had sent it. */
        if ((m = take(box, tag))) {
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
        *data = m->data;
        *bytes = m->bytes;
        free(m);
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
    .recv = threads_recv,
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
    pthread_condattr_t attr;
    bool attr_ok = pthread_condattr_init(&attr) == 0;
    if (!h->arrived || !h->boxes || !h->gone || !attr_ok ||
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
        pthread_mutex_init(&h->lock, NULL) != 0) {
        if (attr_ok)
            pthread_condattr_destroy(&attr);
        free(h->arrived);
        free(h->boxes);
        free(h->gone);
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
