/* The comm interface over its transports: argument checks, the shared failure messages, the
 * default timeout, and the collectives built on send and receive. */
#include "dist/comm_private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_S 600.0

double clp__comm_default_timeout(void) {
    const char *text = getenv("CLPART_COMM_TIMEOUT");
    if (!text || !*text)
        return DEFAULT_TIMEOUT_S;
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno == 0 && end != text && !*end && value > 0 && isfinite(value))
        return value;
    CLP_WARN(CLP_LOG_RUN,
             "CLPART_COMM_TIMEOUT=\"%s\" is not a positive number of seconds; ranks wait up to "
             "%g s for each other",
             text, DEFAULT_TIMEOUT_S);
    return DEFAULT_TIMEOUT_S;
}

void clp__comm_init(clp__comm *c, const clp__comm_ops *ops, int rank, int size, double timeout_s) {
    *c =
        (clp__comm){.ops = ops, .rank = rank, .size = size, .local_rank = rank, .local_size = size};
    clp__comm_set_timeout(c, timeout_s);
}

void clp__comm_destroy(clp__comm *c) {
    if (c)
        c->ops->destroy(c);
}

int clp__comm_rank(const clp__comm *c) {
    return c->rank;
}

void clp__comm_rank_label(const clp__comm *c, char *out, size_t size) {
    if (c)
        snprintf(out, size, "device rank %d: ", c->rank);
    else if (size)
        out[0] = '\0';
}

int clp__comm_size(const clp__comm *c) {
    return c->size;
}

void clp__comm_local(const clp__comm *c, int *local_rank, int *local_size) {
    *local_rank = c->local_rank;
    *local_size = c->local_size;
}

double clp__comm_waited(const clp__comm *c) {
    return c->waited;
}

void clp__comm_set_tag_names(clp__comm *c, const char *const *names, int count) {
    c->tag_names = names;
    c->tag_count = names ? count : 0;
}

void clp__comm_set_timeout(clp__comm *c, double timeout_s) {
    c->timeout_s = timeout_s > 0 ? timeout_s : clp__comm_default_timeout();
}

const char *clp__comm_tag_str(const clp__comm *c, int tag, char buf[64]) {
    static const char *const internal[] = {"allreduce", "gather", "broadcast", "barrier", "abort"};
    if (tag >= CLP_COMM_TAGS && tag < CLP_COMM_TAG_END)
        return internal[tag - CLP_COMM_TAGS];
    if (tag >= 0 && tag < c->tag_count && c->tag_names[tag])
        snprintf(buf, 64, "%d (%s)", tag, c->tag_names[tag]);
    else
        snprintf(buf, 64, "%d", tag);
    return buf;
}

clp_status clp__comm_fail_timeout(const clp__comm *c, int from, int tag, clp_error *err) {
    char buf[64];
    return CLP_FAIL(err, CLP_COMM,
                    "rank %d waited %g s for a message from rank %d with tag %s and none came "
                    "(CLPART_COMM_TIMEOUT sets the limit)",
                    c->rank, c->timeout_s, from, clp__comm_tag_str(c, tag, buf));
}

clp_status clp__comm_fail_aborted(const clp__comm *c, const char *doing, int peer, int tag,
                                  const char *reason, clp_error *err) {
    char buf[64];
    return CLP_FAIL(err, CLP_COMM, "rank %d, %s rank %d with tag %s: %s", c->rank, doing, peer,
                    clp__comm_tag_str(c, tag, buf), reason);
}

/* The caller's rank and tag; the collectives' own are right by construction. */
static clp_status check_args(const clp__comm *c, const char *doing, int peer, int tag,
                             clp_error *err) {
    if (peer < 0 || peer >= c->size)
        return CLP_FAIL(err, CLP_USAGE, "rank %d, %s rank %d: there are ranks 0 to %d only",
                        c->rank, doing, peer, c->size - 1);
    if (tag < 0 || tag >= CLP_COMM_TAGS)
        return CLP_FAIL(err, CLP_USAGE, "rank %d, %s rank %d: tag %d is not 0 to %d", c->rank,
                        doing, peer, tag, CLP_COMM_TAGS - 1);
    return CLP_OK;
}

/* Every receive goes through here: the time it blocks is time this rank waited on another. */
static clp_status timed_recv(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                             clp_error *err) {
    const double start = clp__now();
    clp_status st = c->ops->recv(c, from, tag, data, bytes, err);
    c->waited += clp__now() - start;
    return st;
}

static clp_status recv_exactly(clp__comm *c, int from, int tag, void *data, size_t bytes,
                               clp_error *err) {
    void *got = NULL;
    size_t got_bytes = 0;
    clp_status st;
    if (c->ops->recv_into) {
        const double start = clp__now();
        st = c->ops->recv_into(c, from, tag, data, bytes, &got_bytes, err);
        c->waited += clp__now() - start;
    } else {
        st = timed_recv(c, from, tag, &got, &got_bytes, err);
        if (st == CLP_OK && got_bytes == bytes && bytes)
            memcpy(data, got, bytes);
    }
    if (st != CLP_OK)
        return st;
    if (got_bytes != bytes) {
        char buf[64];
        st = CLP_FAIL(err, CLP_COMM,
                      "rank %d expected %zu bytes from rank %d with tag %s and got %zu", c->rank,
                      bytes, from, clp__comm_tag_str(c, tag, buf), got_bytes);
    }
    free(got);
    return st;
}

clp_status clp__comm_send(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                          clp_error *err) {
    clp_status st = check_args(c, "sending to", to, tag, err);
    return st != CLP_OK ? st : c->ops->send(c, to, tag, data, bytes, err);
}

clp_status clp__comm_send_borrowed(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                                   clp_error *err) {
    clp_status st = check_args(c, "sending to", to, tag, err);
    if (st != CLP_OK)
        return st;
    return c->ops->send_borrowed ? c->ops->send_borrowed(c, to, tag, data, bytes, err)
                                 : c->ops->send(c, to, tag, data, bytes, err);
}

clp_status clp__comm_recv(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                          clp_error *err) {
    *data = NULL;
    *bytes = 0;
    clp_status st = check_args(c, "receiving from", from, tag, err);
    return st != CLP_OK ? st : timed_recv(c, from, tag, data, bytes, err);
}

clp_status clp__comm_recv_into(clp__comm *c, int from, int tag, void *data, size_t bytes,
                               clp_error *err) {
    clp_status st = check_args(c, "receiving from", from, tag, err);
    return st != CLP_OK ? st : recv_exactly(c, from, tag, data, bytes, err);
}

clp_status clp__comm_recv_lent(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                               void **loan, clp_error *err) {
    *data = *loan = NULL;
    *bytes = 0;
    clp_status st = check_args(c, "receiving from", from, tag, err);
    if (st != CLP_OK || !c->ops->recv_lent)
        return st;
    const double start = clp__now();
    st = c->ops->recv_lent(c, from, tag, data, bytes, loan, err);
    c->waited += clp__now() - start;
    return st;
}

void clp__comm_give_back(clp__comm *c, void *loan) {
    if (loan)
        c->ops->give_back(c, loan);
}

clp_status clp__comm_flush(clp__comm *c, clp_error *err) {
    if (!c->ops->flush)
        return CLP_OK;
    const double start = clp__now();
    clp_status st = c->ops->flush(c, err);
    c->waited += clp__now() - start; /* on the receivers */
    return st;
}

/* ---- Collectives: rank 0 collects, combines in rank order and answers. */

/* NaN wins, so that a NaN diagnostic on one rank shows on all. */
static double combine(double a, double b, clp__comm_op op) {
    if (op == CLP_COMM_SUM)
        return a + b;
    if (isnan(a) || isnan(b))
        return NAN;
    if (op == CLP_COMM_MIN)
        return b < a ? b : a;
    return b > a ? b : a;
}

/* Rank 0 sends `bytes` at `data` to every other rank, which receives exactly that many. */
static clp_status fan_out(clp__comm *c, int tag, void *data, size_t bytes, clp_error *err) {
    if (c->rank != 0)
        return recv_exactly(c, 0, tag, data, bytes, err);
    for (int r = 1; r < c->size; r++) {
        clp_status st = c->ops->send(c, r, tag, data, bytes, err);
        if (st != CLP_OK)
            return st;
    }
    return CLP_OK;
}

/* Allreduce with `tag`; with n = 0, a barrier. */
static clp_status reduce_to_all(clp__comm *c, int tag, double *values, size_t n, clp__comm_op op,
                                clp_error *err) {
    clp_status st = CLP_OK;
    double *other = NULL;
    CLP_REQUIRE(op == CLP_COMM_SUM || op == CLP_COMM_MIN || op == CLP_COMM_MAX, err, CLP_USAGE,
                "rank %d: allreduce with an unknown operation %d", c->rank, (int)op);
    if (c->rank != 0) {
        CLP_TRY(c->ops->send(c, 0, tag, values, n * sizeof *values, err));
    } else {
        if (n > 0) {
            other = malloc(n * sizeof *other);
            CLP_REQUIRE_ALLOC(other, err);
        }
        for (int r = 1; r < c->size; r++) {
            CLP_TRY(recv_exactly(c, r, tag, other, n * sizeof *other, err));
            for (size_t i = 0; i < n; i++)
                values[i] = combine(values[i], other[i], op);
        }
    }
    CLP_TRY(fan_out(c, tag, values, n * sizeof *values, err));
fail:
    free(other);
    return st;
}

clp_status clp__comm_allreduce(clp__comm *c, double *values, size_t n, clp__comm_op op,
                               clp_error *err) {
    return reduce_to_all(c, CLP_COMM_TAG_ALLREDUCE, values, n, op, err);
}

clp_status clp__comm_gather(clp__comm *c, const void *data, size_t bytes, void **all,
                            size_t *offsets, clp_error *err) {
    const int tag = CLP_COMM_TAG_GATHER;
    *all = NULL;
    if (c->rank != 0) { /* flushed: rank 0 takes it in before this rank's next call */
        clp_status st = c->ops->send(c, 0, tag, data, bytes, err);
        return st != CLP_OK ? st : clp__comm_flush(c, err);
    }

    clp_status st = CLP_OK;
    unsigned char *joined = NULL;
    void *part = NULL;
    offsets[0] = 0;
    for (int r = 0; r < c->size; r++) {
        size_t part_bytes = bytes;
        if (r > 0)
            CLP_TRY(timed_recv(c, r, tag, &part, &part_bytes, err));
        offsets[r + 1] = offsets[r] + part_bytes;
        if (part_bytes > 0) {
            unsigned char *grown = realloc(joined, offsets[r + 1]);
            CLP_REQUIRE(grown, err, CLP_NOMEM, "rank 0: out of host memory gathering %zu bytes",
                        offsets[r + 1]);
            joined = grown;
            memcpy(joined + offsets[r], r > 0 ? part : data, part_bytes);
        }
        free(part);
        part = NULL;
    }
    *all = joined;
    return CLP_OK;
fail:
    free(part);
    free(joined);
    return st;
}

clp_status clp__comm_broadcast(clp__comm *c, void *data, size_t bytes, clp_error *err) {
    return fan_out(c, CLP_COMM_TAG_BROADCAST, data, bytes, err);
}

clp_status clp__comm_barrier(clp__comm *c, clp_error *err) {
    return reduce_to_all(c, CLP_COMM_TAG_BARRIER, NULL, 0, CLP_COMM_SUM, err);
}

void clp__comm_abort(clp__comm *c, const clp_error *why) {
    if (!c)
        return;
    char reason[sizeof why->message];
    const char *text = !why                    ? "no reason given"
                       : why->message[0]       ? why->message
                       : why->status != CLP_OK ? clp_status_str(why->status)
                                               : "no reason given";
    /* Cut to leave room for the waiting rank's own words before it. */
    snprintf(reason, sizeof reason, "rank %d failed: %.190s", c->rank, text);
    c->ops->abort(c, reason);
}
