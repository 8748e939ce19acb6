/* The comm transport for ranks that are MPI processes (built with -DCLPART_WITH_MPI), or the
 * constructor that says clpart was built without MPI. Receives poll with MPI_Improbe, so that a
 * dead peer ends in a timeout, and listen for other ranks' abort notices meanwhile. MPI counts
 * a message's bytes in an int (Open MPI 4 has no large-count calls), so a message goes as
 * pieces: whole pieces while the rest fills one, then the rest, shorter, perhaps empty; a
 * receiver that gets a whole piece knows more follow, in order (MPI never lets one message
 * overtake another of the same sender, tag and communicator). A message shorter than a piece,
 * every halo and most gathers, is one MPI message as before. */
#include "dist/comm_private.h"

#include <stdlib.h>
#include <string.h>

bool clp__comm_mpi_launched(void) {
    /* Open MPI's mpirun; MPICH's Hydra and Slurm (PMI); PMIx launchers. */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *value = getenv(vars[i]);
        if (value && *value)
            return true;
    }
    return false;
}

#ifndef CLPART_WITH_MPI

clp_status clp__comm_mpi_create(double timeout_s, clp__comm **out, clp_error *err) {
    (void)timeout_s;
    (void)out;
    return CLP_FAIL(err, CLP_COMM,
                    "this clpart was built without MPI: install libopenmpi-dev and rebuild");
}

void clp_comm_mpi_end_failed(int code) {
    (void)code;
}

void clp__comm_mpi_set_piece(clp__comm *c, size_t bytes) {
    (void)c;
    (void)bytes;
}

#else

#include <limits.h>
#include <mpi.h>
#include <time.h>

/* How long a comm's end waits, after an abort, for its sends (the abort notices) to leave. */
#define ABORT_GRACE_S 1.0

/* The largest piece of a message, by default. */
#define DEFAULT_PIECE ((size_t)1 << 30)

/* A send in flight and the copy it sends from, freed once MPI is done with it (NULL: the
 * caller's memory, borrowed until its flush, or a piece of a message whose last piece holds
 * the copy). */
typedef struct pending {
    MPI_Request request;
    void *copy;
} pending;

typedef struct mpi_comm {
    clp__comm base;
    MPI_Comm comm; /* a duplicate of MPI_COMM_WORLD, returning its errors */
    bool finalize; /* this comm initialised MPI */
    size_t piece;  /* the largest piece of a message */
    pending *sends;
    size_t n_sends;
    size_t cap_sends;
    bool aborted;
    char abort_reason[sizeof((clp_error *)0)->message];
} mpi_comm;

static clp_status mpi_fail(clp_error *err, int rank, int rc, const char *call, const char *fmt, ...)
    CLP_PRINTF(5, 6);

/* "rank R, <what>: <call>: <MPI's words for rc>"; no rank before MPI has given one (-1). */
static clp_status mpi_fail(clp_error *err, int rank, int rc, const char *call, const char *fmt,
                           ...) {
    char what[128], text[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    if (rank < 0)
        return CLP_FAIL(err, CLP_COMM, "%s: %s: %s", what, call, text);
    return CLP_FAIL(err, CLP_COMM, "rank %d, %s: %s: %s", rank, what, call, text);
}

/* Expects a local `clp_status st` and a `fail:` label. */
#define MPI_CHECK(call, err, rank, ...)                                                            \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            st = mpi_fail((err), (rank), rc_, #call, __VA_ARGS__);                                 \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Frees the sends MPI has finished with, in order up to the first still going (a message's
 * copy, held by its last piece, then outlives every piece before it). */
static clp_status reap_sends(mpi_comm *m, clp_error *err) {
    clp_status st = CLP_OK;
    size_t kept = 0, i = 0;
    for (; i < m->n_sends; i++) {
        int done = 0;
        MPI_CHECK(MPI_Test(&m->sends[i].request, &done, MPI_STATUS_IGNORE), err, m->base.rank,
                  "completing a send");
        if (!done)
            break;
        free(m->sends[i].copy);
    }
fail:
    for (; i < m->n_sends; i++)
        m->sends[kept++] = m->sends[i];
    m->n_sends = kept;
    return st;
}

/* Room for one more send in flight. */
static clp_status grow_sends(mpi_comm *m, clp_error *err) {
    if (m->n_sends < m->cap_sends)
        return CLP_OK;
    const size_t cap = m->cap_sends ? 2 * m->cap_sends : 16;
    pending *grown = realloc(m->sends, cap * sizeof *grown);
    if (!grown)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    m->sends = grown;
    m->cap_sends = cap;
    return CLP_OK;
}

/* Starts sending `bytes` at `data`, or a copy of them unless `borrowed`, piece by piece. */
static clp_status start_send(mpi_comm *m, int to, int tag, const void *data, size_t bytes,
                             bool borrowed, clp_error *err) {
    clp_status st = CLP_OK;
    void *copy = NULL;
    size_t sent = 0;
    if (bytes && !borrowed) {
        copy = malloc(bytes);
        CLP_REQUIRE_ALLOC(copy, err);
        memcpy(copy, data, bytes);
    }
    const char *from = borrowed ? data : copy;
    for (bool last = false; !last;) {
        const size_t piece = bytes - sent < m->piece ? bytes - sent : m->piece;
        last = piece < m->piece;
        CLP_TRY(grow_sends(m, err));
        pending *p = &m->sends[m->n_sends];
        char buf[64];
        MPI_CHECK(MPI_Isend(from + sent, (int)piece, MPI_BYTE, to, tag, m->comm, &p->request), err,
                  m->base.rank, "sending %zu bytes to rank %d with tag %s", bytes, to,
                  clp__comm_tag_str(&m->base, tag, buf));
        p->copy = last ? copy : NULL;
        m->n_sends++;
        sent += piece;
    }
    return CLP_OK;
fail:
    if (sent == 0)
        free(copy); /* else pieces went out from it: it stays with MPI, as at the end */
    return st;
}

/* Takes in another rank's abort notice, if one has come; best effort, so MPI errors here are
 * left for the caller's own calls to report. */
static void poll_abort(mpi_comm *m) {
    int flag = 0;
    MPI_Status status;
    if (m->aborted ||
        MPI_Iprobe(MPI_ANY_SOURCE, CLP_COMM_TAG_ABORT, m->comm, &flag, &status) != MPI_SUCCESS ||
        !flag)
        return;
    char reason[sizeof m->abort_reason] = "";
    if (MPI_Recv(reason, (int)sizeof reason, MPI_CHAR, status.MPI_SOURCE, CLP_COMM_TAG_ABORT,
                 m->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        snprintf(reason, sizeof reason, "rank %d failed (its reason was lost)", status.MPI_SOURCE);
    reason[sizeof reason - 1] = '\0';
    memcpy(m->abort_reason, reason, sizeof reason);
    m->aborted = true;
}

static clp_status send_from(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                            bool borrowed, clp_error *err) {
    mpi_comm *m = (mpi_comm *)c;
    poll_abort(m);
    if (m->aborted)
        return clp__comm_fail_aborted(c, "sending to", to, tag, m->abort_reason, err);
    clp_status st = reap_sends(m, err);
    return st != CLP_OK ? st : start_send(m, to, tag, data, bytes, borrowed, err);
}

static clp_status mpi_send(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                           clp_error *err) {
    return send_from(c, to, tag, data, bytes, false, err);
}

static clp_status mpi_send_borrowed(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                                    clp_error *err) {
    return send_from(c, to, tag, data, bytes, true, err);
}

/* Between polls: none for the first 1000, then 10 us, and 100 us from the 2000th (some 10 ms
 * on): a quick answer when the message is close behind, little CPU when a peer is far behind. */
static void pause_poll(unsigned polls) {
    if (polls < 1000)
        return;
    long ns = polls < 2000 ? 10000L : 100000L;
    nanosleep(&(struct timespec){.tv_nsec = ns}, NULL);
}

/* Waits for the next message from `from` with `tag`: *message to receive, *count its bytes. */
static clp_status probe(mpi_comm *m, int from, int tag, MPI_Message *message, int *count,
                        clp_error *err) {
    clp_status st = CLP_OK;
    clp__comm *c = &m->base;
    const double deadline = clp__now() + c->timeout_s;
    char buf[64];
    for (unsigned polls = 0;; polls++) {
        int flag = 0;
        MPI_Status status;
        MPI_CHECK(MPI_Improbe(from, tag, m->comm, &flag, message, &status), err, c->rank,
                  "receiving from rank %d with tag %s", from, clp__comm_tag_str(c, tag, buf));
        if (flag) {
            MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, count), err, c->rank,
                      "receiving from rank %d with tag %s", from, clp__comm_tag_str(c, tag, buf));
            return CLP_OK;
        }
        poll_abort(m);
        if (m->aborted)
            return clp__comm_fail_aborted(c, "receiving from", from, tag, m->abort_reason, err);
        if (clp__now() > deadline)
            return clp__comm_fail_timeout(c, from, tag, err);
        pause_poll(polls);
    }
fail:
    return st;
}

/* Receives a probed message of `count` bytes into `data` (room for them, or NULL for none). */
static clp_status receive(mpi_comm *m, int from, int tag, MPI_Message *message, void *data,
                          int count, clp_error *err) {
    clp_status st = CLP_OK;
    char buf[64];
    MPI_CHECK(MPI_Mrecv(data, count, MPI_BYTE, message, MPI_STATUS_IGNORE), err, m->base.rank,
              "receiving %d bytes from rank %d with tag %s", count, from,
              clp__comm_tag_str(&m->base, tag, buf));
fail:
    return st;
}

/* Takes the next message from `from` with `tag` into `into` when it holds exactly `room`
 * bytes (straight into the caller's memory: halos of megabytes are not copied twice), else
 * into *fresh, new (NULL for an empty message); *count gets its bytes. A message of several
 * pieces grows in *fresh as they come, and is copied into `into` when it fits exactly. */
static clp_status take(mpi_comm *m, int from, int tag, void *into, size_t room, void **fresh,
                       size_t *count, clp_error *err) {
    clp_status st = CLP_OK;
    MPI_Message message;
    int bytes = 0;
    *fresh = NULL;
    *count = 0;
    CLP_TRY(probe(m, from, tag, &message, &bytes, err));
    if ((size_t)bytes < m->piece && into && (size_t)bytes == room) {
        *count = (size_t)bytes;
        return receive(m, from, tag, &message, into, bytes, err);
    }
    for (bool more = true; more;) {
        more = (size_t)bytes == m->piece;
        if (bytes > 0) {
            unsigned char *grown = realloc(*fresh, *count + (size_t)bytes);
            CLP_REQUIRE(grown, err, CLP_NOMEM,
                        "rank %d: out of host memory receiving %zu bytes from rank %d",
                        m->base.rank, *count + (size_t)bytes, from);
            *fresh = grown;
        }
        CLP_TRY(receive(m, from, tag, &message, bytes ? (unsigned char *)*fresh + *count : NULL,
                        bytes, err));
        *count += (size_t)bytes;
        if (more)
            CLP_TRY(probe(m, from, tag, &message, &bytes, err));
    }
    if (into && *count == room && room) {
        memcpy(into, *fresh, room);
        free(*fresh);
        *fresh = NULL;
    }
    return CLP_OK;
fail:
    free(*fresh);
    *fresh = NULL;
    return st;
}

static clp_status mpi_recv(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                           clp_error *err) {
    return take((mpi_comm *)c, from, tag, NULL, 0, data, bytes, err);
}

/* A message of another size is taken in and dropped: the caller reports both sizes. */
static clp_status mpi_recv_into(clp__comm *c, int from, int tag, void *data, size_t bytes,
                                size_t *got, clp_error *err) {
    void *dropped;
    clp_status st = take((mpi_comm *)c, from, tag, data, bytes, &dropped, got, err);
    free(dropped);
    return st;
}

static clp_status mpi_flush(clp__comm *c, clp_error *err) {
    mpi_comm *m = (mpi_comm *)c;
    clp_status st = CLP_OK;
    const double deadline = clp__now() + c->timeout_s;
    for (unsigned polls = 0;; polls++) {
        CLP_TRY(reap_sends(m, err));
        if (m->n_sends == 0)
            return CLP_OK;
        poll_abort(m);
        CLP_REQUIRE(!m->aborted, err, CLP_COMM,
                    "rank %d, waiting for its messages to be taken in: %s", c->rank,
                    m->abort_reason);
        CLP_REQUIRE(clp__now() <= deadline, err, CLP_COMM,
                    "rank %d: %zu messages it sent were not taken in by their ranks after %g s "
                    "(CLPART_COMM_TIMEOUT)",
                    c->rank, m->n_sends, c->timeout_s);
        pause_poll(polls);
    }
fail:
    return st;
}

static void mpi_abort(clp__comm *c, const char *reason) {
    mpi_comm *m = (mpi_comm *)c;
    poll_abort(m);
    if (m->aborted)
        return; /* another rank's notice came first and went to every rank */
    snprintf(m->abort_reason, sizeof m->abort_reason, "%s", reason);
    m->aborted = true;
    for (int r = 0; r < c->size; r++) {
        clp_error ignored = CLP_ERROR_INIT;
        if (r != c->rank)
            start_send(m, r, CLP_COMM_TAG_ABORT, m->abort_reason, strlen(m->abort_reason) + 1,
                       false, &ignored);
    }
}

/* Waits up to the timeout for the sends in flight, or after an abort a moment, for its notices
 * to leave: the other ranks stop receiving then, and what they have not taken in they never
 * will (a rank that failed mid-exchange left its neighbours' halos unread: waiting out the
 * timeout kept every rank, and the failure's message, for 10 minutes). Those still going then
 * stay with MPI (their requests freed, their copies left behind), since freeing a copy under a
 * send is unsafe. */
static void finish_sends(mpi_comm *m) {
    const double start = clp__now();
    for (unsigned polls = 0; m->n_sends > 0; polls++) {
        clp_error ignored = CLP_ERROR_INIT;
        if (reap_sends(m, &ignored) != CLP_OK)
            break;
        poll_abort(m);
        if (clp__now() - start > (m->aborted ? ABORT_GRACE_S : m->base.timeout_s))
            break;
        pause_poll(polls);
    }
    if (m->n_sends > 0 && !m->aborted)
        CLP_WARN(CLP_LOG_RUN, "rank %d: %zu sends to other ranks not received after %g s",
                 m->base.rank, m->n_sends, m->base.timeout_s);
    for (size_t i = 0; i < m->n_sends; i++)
        MPI_Request_free(&m->sends[i].request);
    m->n_sends = 0;
}

/* Seconds that the ranks of an aborted comm have to meet before MPI_Finalize: those that took
 * the abort notice close at once, one that hangs never does. */
#define CLOSE_GRACE_S 10.0

/* Set when a comm that ended in an abort left MPI open: MPI_Finalize is collective, and
 * waits for ever on a rank that hangs (a stopped process, a kernel that never returns). */
static bool left_open;

/* Whether every rank of an aborted comm reaches its close within CLOSE_GRACE_S. */
static bool ranks_meet(mpi_comm *m) {
    MPI_Request request;
    int met = 0;
    if (MPI_Ibarrier(m->comm, &request) != MPI_SUCCESS)
        return false;
    const double start = clp__now();
    for (unsigned polls = 0; !met && clp__now() - start < CLOSE_GRACE_S; polls++) {
        if (MPI_Test(&request, &met, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return false;
        pause_poll(polls);
    }
    return met;
}

static void mpi_destroy(clp__comm *c) {
    mpi_comm *m = (mpi_comm *)c;
    finish_sends(m);
    free(m->sends);
    if (m->finalize && m->aborted && !ranks_meet(m)) {
        left_open = true; /* clp_comm_mpi_end_failed ends the job: a rank hangs */
        free(m);
        return;
    }
    if (m->comm != MPI_COMM_NULL)
        MPI_Comm_free(&m->comm);
    if (m->finalize)
        MPI_Finalize();
    free(m);
}

void clp_comm_mpi_end_failed(int code) {
    if (left_open)
        MPI_Abort(MPI_COMM_WORLD, code);
}

static const clp__comm_ops mpi_ops = {
    .send = mpi_send,
    .send_borrowed = mpi_send_borrowed,
    .recv = mpi_recv,
    .recv_into = mpi_recv_into,
    .flush = mpi_flush,
    .abort = mpi_abort,
    .destroy = mpi_destroy,
};

/* This rank's place among the ranks that share its host's memory. */
static clp_status find_local_rank(mpi_comm *m, clp_error *err) {
    clp_status st = CLP_OK;
    MPI_Comm local = MPI_COMM_NULL;
    MPI_CHECK(MPI_Comm_split_type(m->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local), err,
              m->base.rank, "finding the ranks on this host");
    MPI_CHECK(MPI_Comm_rank(local, &m->base.local_rank), err, m->base.rank,
              "finding the ranks on this host");
    MPI_CHECK(MPI_Comm_size(local, &m->base.local_size), err, m->base.rank,
              "finding the ranks on this host");
fail:
    if (local != MPI_COMM_NULL)
        MPI_Comm_free(&local);
    return st;
}

clp_status clp__comm_mpi_create(double timeout_s, clp__comm **out, clp_error *err) {
    clp_status st = CLP_OK;
    int initialised = 0, finalised = 0, provided = 0, rank = 0, size = 0;
    mpi_comm *m = calloc(1, sizeof *m);
    CLP_REQUIRE_ALLOC(m, err);
    m->comm = MPI_COMM_NULL;
    m->piece = DEFAULT_PIECE;
    MPI_CHECK(MPI_Initialized(&initialised), err, -1, "starting MPI");
    MPI_CHECK(MPI_Finalized(&finalised), err, -1, "starting MPI");
    CLP_REQUIRE(!finalised, err, CLP_COMM, "MPI was finalised already: it cannot start again");
    if (!initialised) {
        /* Serialised: the rank's one thread at a time need not be the main thread. */
        MPI_CHECK(MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided), err, -1,
                  "starting MPI");
        m->finalize = true;
    } else {
        MPI_CHECK(MPI_Query_thread(&provided), err, -1, "starting MPI");
    }
    if (provided < MPI_THREAD_SERIALIZED)
        CLP_DEBUG(CLP_LOG_RUN, "MPI gives thread level %d: use the comm from the main thread only",
                  provided);
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &m->comm), err, -1, "starting MPI");
    MPI_CHECK(MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN), err, -1, "starting MPI");
    MPI_CHECK(MPI_Comm_rank(m->comm, &rank), err, -1, "starting MPI");
    MPI_CHECK(MPI_Comm_size(m->comm, &size), err, rank, "starting MPI");
    clp__comm_init(&m->base, &mpi_ops, rank, size, timeout_s);
    CLP_TRY(find_local_rank(m, err));
    *out = &m->base;
    return CLP_OK;
fail:
    if (m) {
        if (m->comm != MPI_COMM_NULL)
            MPI_Comm_free(&m->comm);
        if (m->finalize)
            MPI_Finalize();
        free(m);
    }
    return st;
}

void clp__comm_mpi_set_piece(clp__comm *c, size_t bytes) {
    ((mpi_comm *)c)->piece = bytes;
}

#endif
