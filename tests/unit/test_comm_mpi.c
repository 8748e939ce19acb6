/* The comm over MPI: run as 3 processes by mpirun (tests/meson.build), each running the shared
 * checks (comm_checks.h) with its own rank, the abort last; first, a flush that times out, and
 * the checks that move messages again with pieces of a few KiB, so that messages of many
 * pieces (as those over 1 GiB go), of whole pieces and an empty one, and of one go through;
 * then, on a
 * second comm, the end of one aborted with a send that no rank takes in. */
#include "internal.h"
#include "comm_checks.h"

/* After an abort, a send that no rank will take in (4 MiB: not sent ahead, unlike small ones)
 * holds up the end of its comm for a moment, not for its timeout of 30 s. */
static void check_abandoned_send(void) {
    clp__comm *c = NULL;
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_mpi_create(30, &c, &err), &err);
    clp__comm_set_tag_names(c, comm_tag_names, TAG_COUNT);
    const int rank = clp__comm_rank(c);
    unsigned char *big = calloc(4u << 20, 1);
    CLP_ASSERT(big);
    if (rank == 0)
        CLP_ASSERT_OK(clp__comm_send(c, 1, TAG_B, big, 4u << 20, &err), &err);
    /* rank 1 fails once the others say they are ready, so the send is on its way by then
       (else the abort could reach rank 0 first, which then refuses the send, as it should) */
    if (rank == 1) {
        for (int from = 0; from < COMM_RANKS; from += 2) {
            char ready;
            CLP_ASSERT_OK(clp__comm_recv_into(c, from, TAG_A, &ready, 1, &err), &err);
        }
        CLP_FAIL(&err, CLP_CHECK, "failed on purpose");
        clp__comm_abort(c, &err);
    } else {
        CLP_ASSERT_OK(clp__comm_send(c, 1, TAG_A, "r", 1, &err), &err);
        void *data;
        size_t bytes;
        CLP_ASSERT_STATUS(clp__comm_recv(c, 1, TAG_NEVER, &data, &bytes, &err), CLP_COMM, &err);
        CLP_ASSERT_CONTAINS(err.message, "rank 1 failed: failed on purpose");
    }
    const double start = clp__now();
    clp__comm_destroy(c);
    const double ended = clp__now() - start;
    if (ended > 10.0)
        CLP_TEST_FAIL("rank %d: the comm's end took %.1f s after the abort", rank, ended);
    free(big);
}

int main(void) {
    CLP_ASSERT(clp__comm_mpi_launched());
    clp__comm *comm = NULL;
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__comm_mpi_create(30, &comm, &err), &err);
    /* mpirun puts the 3 processes of this test on this host. */
    int local_rank, local_size;
    clp__comm_local(comm, &local_rank, &local_size);
    CLP_ASSERT_EQ(local_rank, clp__comm_rank(comm));
    CLP_ASSERT_EQ(local_size, COMM_RANKS);
    /* A flush that no receive answers ends at the timeout, naming what is left. */
    const int rank = clp__comm_rank(comm);
    unsigned char *big = calloc(4u << 20, 1);
    CLP_ASSERT(big);
    clp__comm_set_tag_names(comm, comm_tag_names, TAG_COUNT);
    if (rank == 0) {
        clp__comm_set_timeout(comm, 0.2);
        CLP_ASSERT_OK(clp__comm_send(comm, 1, TAG_B, big, 4u << 20, &err), &err);
        CLP_ASSERT_STATUS(clp__comm_flush(comm, &err), CLP_COMM, &err);
        CLP_ASSERT_STR_EQ(err.message, "rank 0: 1 messages it sent were not taken in by their "
                                       "ranks after 0.2 s (CLPART_COMM_TIMEOUT)");
        clp_error_clear(&err);
        clp__comm_set_timeout(comm, 30);
    }
    CLP_ASSERT_OK(clp__comm_barrier(comm, &err), &err);
    if (rank == 1)
        CLP_ASSERT_OK(clp__comm_recv_into(comm, 0, TAG_B, big, 4u << 20, &err), &err);
    CLP_ASSERT_OK(clp__comm_flush(comm, &err), &err);
    free(big);
    /* pieces of 4096 bytes divide 1 and 4 MiB (whole pieces, then an empty one); of 3000 they
       leave a shorter rest */
    clp__comm_set_tag_names(comm, comm_tag_names, TAG_COUNT);
    for (size_t piece = 4096; piece >= 3000; piece -= 1096) {
        clp__comm_mpi_set_piece(comm, piece);
        check_ring(comm);  /* 0 bytes, 1 and 1 MiB; then a message of the wrong size */
        check_flush(comm); /* 4 MiB lent, taken into memory of its size */
        check_fifo(comm);
        check_broadcast(comm);
    }
    clp__comm_mpi_set_piece(comm, (size_t)1 << 30);
    comm_checks_run(comm);
    check_abandoned_send();
    clp__comm_destroy(comm);
    return 0;
}
