/* The comm over threads: 3 ranks run the shared checks (comm_checks.h), and so do 3 of 4 on a
 * view of the 4; then a rank that has left, a borrowed send to one, an empty borrowed send,
 * a receive without a copy, the time a receive waits counted, the default timeout from the
 * environment, and how an MPI launch is recognised. */
#include "internal.h"
#include "comm_checks.h"

#include <pthread.h>

static void *run_rank(void *comm) {
    comm_checks_run(comm);
    return NULL;
}

static void *leave(void *comm) {
    comm_sleep(0.05);
    clp__comm_destroy(comm);
    return NULL;
}

/* Rank 1 destroys its comm while rank 0 waits for it (30 s timeout): rank 0 hears at once. */
static void check_gone(void) {
    clp__comm *comms[2];
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_threads_create(2, 30, comms, &err), &err);
    int value = 7;
    CLP_ASSERT_OK(clp__comm_send(comms[1], 0, TAG_A, &value, sizeof value, &err), &err);
    pthread_t thread;
    CLP_ASSERT(pthread_create(&thread, NULL, leave, comms[1]) == 0);
    /* What it sent before leaving still arrives. */
    value = 0;
    CLP_ASSERT_OK(clp__comm_recv_into(comms[0], 1, TAG_A, &value, sizeof value, &err), &err);
    CLP_ASSERT_EQ(value, 7);
    void *data;
    size_t bytes;
    const double start = clp__now();
    CLP_ASSERT_STATUS(clp__comm_recv(comms[0], 1, TAG_B, &data, &bytes, &err), CLP_COMM, &err);
    CLP_ASSERT(clp__now() - start < 10.0);
    CLP_ASSERT_STR_EQ(err.message, "rank 0, receiving from rank 1 with tag 2: rank 1 has left "
                                   "the run (destroyed its comm) without sending it");
    CLP_ASSERT(pthread_join(thread, NULL) == 0);
    clp__comm_destroy(comms[0]);
}

/* A borrowed send to a rank that leaves without taking it: the sender's flush, waiting for it
 * (30 s timeout), returns as the receiver leaves; one to a rank already gone goes nowhere. */
static void check_lent_to_gone(void) {
    clp__comm *comms[2];
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_threads_create(2, 30, comms, &err), &err);
    static const int value = 5;
    CLP_ASSERT_OK(clp__comm_send_borrowed(comms[0], 1, TAG_A, &value, sizeof value, &err), &err);
    pthread_t thread;
    CLP_ASSERT(pthread_create(&thread, NULL, leave, comms[1]) == 0);
    const double start = clp__now();
    CLP_ASSERT_OK(clp__comm_flush(comms[0], &err), &err);
    CLP_ASSERT(clp__now() - start < 10.0);
    CLP_ASSERT(pthread_join(thread, NULL) == 0);
    CLP_ASSERT_OK(clp__comm_send_borrowed(comms[0], 1, TAG_A, &value, sizeof value, &err), &err);
    CLP_ASSERT_OK(clp__comm_flush(comms[0], &err), &err);
    CLP_ASSERT(clp__now() - start < 10.0);
    clp__comm_destroy(comms[0]);
}

/* An empty borrowed send (a slab's edge without particles) lends nothing: taken, it frees
 * nothing of the sender's, and the flush has nothing to wait for. */
static void check_empty_lent(void) {
    clp__comm *comms[2];
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_threads_create(2, 30, comms, &err), &err);
    int edge[4] = {0};
    CLP_ASSERT_OK(clp__comm_send_borrowed(comms[0], 1, TAG_A, edge, 0, &err), &err);
    CLP_ASSERT_OK(clp__comm_flush(comms[0], &err), &err);
    CLP_ASSERT_OK(clp__comm_recv_into(comms[1], 0, TAG_A, edge, 0, &err), &err);
    clp__comm_destroy(comms[0]);
    clp__comm_destroy(comms[1]);
}

/* Over threads a lent receive is the sender's own bytes, and its flush returns once they are
 * given back. */
static void check_lends(void) {
    clp__comm *comms[2];
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_threads_create(2, 30, comms, &err), &err);
    int value = 11;
    CLP_ASSERT_OK(clp__comm_send_borrowed(comms[0], 1, TAG_A, &value, sizeof value, &err), &err);
    void *lent, *loan;
    size_t bytes;
    CLP_ASSERT_OK(clp__comm_recv_lent(comms[1], 0, TAG_A, &lent, &bytes, &loan, &err), &err);
    CLP_ASSERT(loan && lent == (void *)&value && bytes == sizeof value);
    clp__comm_give_back(comms[1], loan);
    CLP_ASSERT_OK(clp__comm_flush(comms[0], &err), &err);
    clp__comm_destroy(comms[0]);
    clp__comm_destroy(comms[1]);
}

static void *send_late(void *comm) {
    comm_sleep(0.05);
    int value = 3;
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_send(comm, 0, TAG_A, &value, sizeof value, &err), &err);
    return NULL;
}

/* A receive that waits for a late sender counts its wait (a rank's busy time leaves it out);
 * sending counts none. */
static void check_waited(void) {
    clp__comm *comms[2];
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_threads_create(2, 30, comms, &err), &err);
    CLP_ASSERT(clp__comm_waited(comms[0]) == 0);
    pthread_t thread;
    CLP_ASSERT(pthread_create(&thread, NULL, send_late, comms[1]) == 0);
    int value = 0;
    CLP_ASSERT_OK(clp__comm_recv_into(comms[0], 1, TAG_A, &value, sizeof value, &err), &err);
    CLP_ASSERT(pthread_join(thread, NULL) == 0);
    CLP_ASSERT_EQ(value, 3);
    CLP_ASSERT(clp__comm_waited(comms[0]) >= 0.04);
    CLP_ASSERT(clp__comm_waited(comms[1]) == 0);
    clp__comm_destroy(comms[0]);
    clp__comm_destroy(comms[1]);
}

static void check_environment(void) {
    setenv("CLPART_COMM_TIMEOUT", "2.5", 1);
    CLP_ASSERT(clp__comm_default_timeout() == 2.5);
    setenv("CLPART_COMM_TIMEOUT", "soon", 1);
    CLP_ASSERT(clp__comm_default_timeout() == 600.0);
    unsetenv("CLPART_COMM_TIMEOUT");
    CLP_ASSERT(clp__comm_default_timeout() == 600.0);

    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("PMI_SIZE");
    unsetenv("PMIX_RANK");
    CLP_ASSERT(!clp__comm_mpi_launched());
    setenv("PMIX_RANK", "0", 1);
    CLP_ASSERT(clp__comm_mpi_launched());
    unsetenv("PMIX_RANK");

#ifndef CLPART_WITH_MPI
    clp__comm *comm = NULL;
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_STATUS(clp__comm_mpi_create(0, &comm, &err), CLP_COMM, &err);
    CLP_ASSERT_STR_EQ(err.message,
                      "this clpart was built without MPI: install libopenmpi-dev and rebuild");
    CLP_ASSERT(comm == NULL);
#endif
}

/* A view of ranks 0 to 2 of 4 runs the same checks through the threads of the 4; rank 3, left
 * out, takes no part. */
static void *run_view(void *comm) {
    const bool kept[COMM_RANKS + 1] = {true, true, true, false};
    clp__comm *view = NULL;
    clp_error err = CLP_ERROR_INIT;
    if (clp__comm_rank(comm) == COMM_RANKS)
        return NULL;
    CLP_ASSERT_OK(clp__comm_view_create(comm, kept, &view, &err), &err);
    comm_checks_run(view);
    clp__comm_destroy(view);
    return NULL;
}

static void check_view(void) {
    clp__comm *comms[COMM_RANKS + 1];
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_threads_create(COMM_RANKS + 1, 30, comms, &err), &err);
    pthread_t threads[COMM_RANKS + 1];
    for (int r = 0; r <= COMM_RANKS; r++)
        CLP_ASSERT(pthread_create(&threads[r], NULL, run_view, comms[r]) == 0);
    for (int r = 0; r <= COMM_RANKS; r++)
        CLP_ASSERT(pthread_join(threads[r], NULL) == 0);
    clp__comm *view = NULL;
    CLP_ASSERT_STATUS(
        clp__comm_view_create(comms[3], (const bool[]){true, true, true, false}, &view, &err),
        CLP_USAGE, &err);
    for (int r = 0; r <= COMM_RANKS; r++)
        clp__comm_destroy(comms[r]);
}

int main(void) {
    clp__comm *comms[COMM_RANKS];
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_threads_create(COMM_RANKS, 30, comms, &err), &err);
    pthread_t threads[COMM_RANKS];
    for (int r = 0; r < COMM_RANKS; r++) {
        CLP_ASSERT_EQ(clp__comm_rank(comms[r]), r);
        int local_rank, local_size;
        clp__comm_local(comms[r], &local_rank, &local_size);
        CLP_ASSERT_EQ(local_rank, r);
        CLP_ASSERT_EQ(local_size, COMM_RANKS);
        CLP_ASSERT(pthread_create(&threads[r], NULL, run_rank, comms[r]) == 0);
    }
    for (int r = 0; r < COMM_RANKS; r++)
        CLP_ASSERT(pthread_join(threads[r], NULL) == 0);
    for (int r = 0; r < COMM_RANKS; r++)
        clp__comm_destroy(comms[r]);

    check_view();
    check_gone();
    check_lent_to_gone();
    check_empty_lent();
    check_lends();
    check_waited();
    check_environment();
    return 0;
}
