/* What a comm transport provides (comm_threads.c, comm_mpi.c) and the shared parts of every
 * comm, plus the messages that all transports give for the same failures (comm.c). */
#ifndef CLPART_DIST_COMM_PRIVATE_H
#define CLPART_DIST_COMM_PRIVATE_H

#include "dist/comm.h"

/* Tags of the collectives and of the abort notice, above the callers' tags. */
enum {
    CLP_COMM_TAG_ALLREDUCE = CLP_COMM_TAGS,
    CLP_COMM_TAG_GATHER,
    CLP_COMM_TAG_BROADCAST,
    CLP_COMM_TAG_BARRIER,
    CLP_COMM_TAG_ABORT,
    CLP_COMM_TAG_END
};

/* The arguments are checked (ranks in range, tags valid) before these are called. */
typedef struct clp__comm_ops {
    clp_status (*send)(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                       clp_error *err);
    /* Optional, a send from `data` itself, which the caller keeps until its next flush. NULL:
     * send. */
    clp_status (*send_borrowed)(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                                clp_error *err);
    /* Waits up to c->timeout_s; fails through clp__comm_fail_timeout and
     * clp__comm_fail_aborted. */
    clp_status (*recv)(clp__comm *c, int from, int tag, void **data, size_t *bytes, clp_error *err);
    /* Optional, the same into `data` that holds `bytes`: a message of another size is dropped
     * and *got says its size. NULL: recv and a copy. */
    clp_status (*recv_into)(clp__comm *c, int from, int tag, void *data, size_t bytes, size_t *got,
                            clp_error *err);
    /* Optional, a receive without a copy: *data the message as the transport holds it, until
     * give_back(*loan). NULL: clp__comm_recv_lent takes nothing and says so. */
    clp_status (*recv_lent)(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                            void **loan, clp_error *err);
    void (*give_back)(clp__comm *c, void *loan);
    /* Optional (NULL: every send is complete when it returns): waits up to c->timeout_s until
     * the receivers have taken every message sent. */
    clp_status (*flush)(clp__comm *c, clp_error *err);
    /* `reason` is "rank R: <why>", already cut to fit a message. */
    void (*abort)(clp__comm *c, const char *reason);
    void (*destroy)(clp__comm *c);
} clp__comm_ops;

/* The first member of each transport's comm. */
struct clp__comm {
    const clp__comm_ops *ops;
    int rank;
    int size;
    int local_rank;
    int local_size;
    double timeout_s;
    const char *const *tag_names; /* borrowed */
    int tag_count;
    double waited; /* seconds blocked in receives (clp__comm_waited) */
};

/* Fills the shared part; a timeout <= 0 takes clp__comm_default_timeout(). */
void clp__comm_init(clp__comm *c, const clp__comm_ops *ops, int rank, int size, double timeout_s);

/* "3 (halo)", "3" or "allreduce": tag as the messages name it. */
const char *clp__comm_tag_str(const clp__comm *c, int tag, char buf[64]);

/* The failures every transport reports alike, all CLP_COMM. */
clp_status clp__comm_fail_timeout(const clp__comm *c, int from, int tag, clp_error *err);
/* A rank aborted: `reason` is what clp__comm_abort passed on ("rank R: why"). */
clp_status clp__comm_fail_aborted(const clp__comm *c, const char *doing, int peer, int tag,
                                  const char *reason, clp_error *err);

#endif
