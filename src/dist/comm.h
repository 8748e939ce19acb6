/* How the ranks of one distributed run talk: point-to-point messages and a few collectives
 * over one interface, whether the ranks are threads of one process (one per OpenCL device) or
 * MPI processes. The same SPMD code runs on every rank. Internal to the library. */
#ifndef CLPART_DIST_COMM_H
#define CLPART_DIST_COMM_H

#include "internal.h"

typedef struct clp__comm clp__comm;

typedef enum clp__comm_op { CLP_COMM_SUM, CLP_COMM_MIN, CLP_COMM_MAX } clp__comm_op;

/* Callers' tags are 0 .. CLP_COMM_TAGS - 1 (a small enum of their own); the collectives use
 * tags above, so that their messages never meet the callers'. */
enum { CLP_COMM_TAGS = 1000 };

/* Seconds a receive waits before it fails: 600, or the environment's CLPART_COMM_TIMEOUT (a
 * positive number of seconds). The constructors take it when given a timeout of 0 or less. */
double clp__comm_default_timeout(void);

/* ---- Transports. Each rank's comm is used by one thread at a time. */

/* Ranks as `size` threads of this process: comms[r] is rank r's (new; destroy each of them, in
 * any order: the last one frees what they share). */
clp_status clp__comm_threads_create(int size, double timeout_s, clp__comm **comms, clp_error *err);

/* Ranks as the processes of MPI_COMM_WORLD; every process calls it. Initialises MPI unless it
 * already is, and then finalises it at destroy. Fails at once, saying so, when clpart was built
 * without MPI. */
clp_status clp__comm_mpi_create(double timeout_s, clp__comm **out, clp_error *err);

/* The largest piece an MPI comm sends as one message (1 GiB; MPI counts bytes in an int, so a
 * longer message goes as pieces). Smaller pieces let tests cross that boundary cheaply. */
void clp__comm_mpi_set_piece(clp__comm *c, size_t bytes);

/* Whether mpirun (or another PMI launcher) started this process, from its environment; true
 * also in a build without MPI, so that the command line can say it cannot run as asked. */
bool clp__comm_mpi_launched(void);

/* A comm over the ranks of `parent` with kept[r] set (the caller among them), numbered anew in
 * the parent's order (new; destroy it before the parent). Messages travel through the parent,
 * which the view's ranks no longer use themselves. */
clp_status clp__comm_view_create(clp__comm *parent, const bool *kept, clp__comm **out,
                                 clp_error *err);

/* NULL does nothing. Over MPI it first waits, up to the timeout, for this rank's sends to be
 * received, since MPI must not lose a message a peer still waits for. */
void clp__comm_destroy(clp__comm *c);

/* ---- Who is who. */
int clp__comm_rank(const clp__comm *c);
int clp__comm_size(const clp__comm *c);
/* "device rank R: ", the start of a rank's own message, or "" without a comm (NULL). */
void clp__comm_rank_label(const clp__comm *c, char *out, size_t size);
/* This rank's place among the ranks on its host (the threads of this process, or the MPI
 * processes that share its memory), to pick its device: local rank 0 .. local size - 1. */
void clp__comm_local(const clp__comm *c, int *local_rank, int *local_size);

/* Seconds this rank has spent blocked in receives (the collectives' too) since its comm was
 * made: time it waited on the other ranks, which its own speed leaves out. */
double clp__comm_waited(const clp__comm *c);

/* Error messages name tag t as names[t] when t < count (the table is borrowed for the comm's
 * life), else by number. */
void clp__comm_set_tag_names(clp__comm *c, const char *const *names, int count);
/* This rank's receive timeout from now on; <= 0 restores the default. */
void clp__comm_set_timeout(clp__comm *c, double timeout_s);

/* ---- Point to point. Messages from one rank to another with one tag arrive in the order they
 * were sent (FIFO per (from, to, tag)); messages with different tags do not wait for each
 * other. Every failure is CLP_COMM with a message that names this rank and the peer. */

/* Sends `bytes` at `data` (borrowed for the call: the comm copies them) to rank `to` and
 * returns without waiting for the receiver. */
clp_status clp__comm_send(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                          clp_error *err);
/* The same without a copy where the transport can (MPI): `data` must stay as it is until this
 * rank's next clp__comm_flush has returned. */
clp_status clp__comm_send_borrowed(clp__comm *c, int to, int tag, const void *data, size_t bytes,
                                   clp_error *err);
/* Takes the next message from rank `from` with `tag`: *data is new (the caller frees it; NULL
 * for an empty message), *bytes its size. Waits up to the timeout, and fails at once when a rank
 * has called clp__comm_abort (naming that rank and its reason) or, over threads, when `from`
 * has destroyed its comm with no such message left: a failed rank costs the others no timeout. */
clp_status clp__comm_recv(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                          clp_error *err);
/* Like clp__comm_recv, into `data` that holds exactly `bytes`: a message of another size is an
 * error naming both sizes (and is dropped). */
clp_status clp__comm_recv_into(clp__comm *c, int from, int tag, void *data, size_t bytes,
                               clp_error *err);

/* Where the transport can (threads), takes the next message from rank `from` with `tag`
 * without a copy: *data is its `bytes`, the sender's own when it lent them, which the caller
 * may read and change until it passes *loan to clp__comm_give_back; the sender's flush waits
 * for that. Where it cannot (MPI), *loan is NULL and nothing is taken: receive it as usual.
 * Waits and fails as clp__comm_recv. */
clp_status clp__comm_recv_lent(clp__comm *c, int from, int tag, void **data, size_t *bytes,
                               void **loan, clp_error *err);
/* Ends a loan of clp__comm_recv_lent; NULL does nothing. */
void clp__comm_give_back(clp__comm *c, void *loan);

/* Waits until the receivers have taken every message this rank sent. Over MPI a large message
 * moves only while both ranks are in MPI calls: an exchange flushes before its rank goes back
 * to its device, or the neighbour would wait for this rank's next call. Fails like a receive,
 * after the timeout or when a rank aborted. */
clp_status clp__comm_flush(clp__comm *c, clp_error *err);

/* ---- Collectives, built on send and receive so that they share the timeout and the abort
 * handling (a blocking MPI collective would hang on a dead peer). Every rank calls them in the
 * same order. */

/* Element-wise reduction of n doubles over all ranks, in place. Rank 0 combines them in rank
 * order, ((v0 op v1) op v2) ..., and sends its result to all, so every rank gets the same
 * bits, with either transport. MIN and MAX return NaN when any value is NaN. */
clp_status clp__comm_allreduce(clp__comm *c, double *values, size_t n, clp__comm_op op,
                               clp_error *err);
/* Rank 0 gets every rank's `bytes` at `data` concatenated in rank order: *all (new; NULL when
 * all are empty) and offsets[0 .. size] (rank r's bytes start at offsets[r]). Other ranks get
 * *all = NULL and may pass offsets = NULL. */
clp_status clp__comm_gather(clp__comm *c, const void *data, size_t bytes, void **all,
                            size_t *offsets, clp_error *err);
/* Rank 0's `bytes` at `data` to every rank's `data`; the sizes must agree. */
clp_status clp__comm_broadcast(clp__comm *c, void *data, size_t bytes, clp_error *err);
/* Returns once every rank has called it. */
clp_status clp__comm_barrier(clp__comm *c, clp_error *err);

/* This rank has failed with `why` (NULL: no reason given) and will not take part any more: the
 * other ranks' waits (and sends) then fail at once with an error naming this rank and the
 * reason. Best effort; the first rank to abort is the one named. Destroy the comm after it. */
void clp__comm_abort(clp__comm *c, const clp_error *why);

#endif
