/* The checks that every rank of a comm runs, the same for threads (test_comm.c) and MPI
 * processes (test_comm_mpi.c): each rank calls comm_checks_run with its own comm, for 3 ranks.
 * Expectations are computed here, independently of the comm. */
#ifndef CLPART_TEST_COMM_CHECKS_H
#define CLPART_TEST_COMM_CHECKS_H

#include "dist/comm.h"
#include "test.h"

#include <time.h>

enum { TAG_RING, TAG_A, TAG_B, TAG_NEVER, TAG_COUNT };
static const char *const comm_tag_names[TAG_COUNT] = {"ring", "a", "b", "never"};

#define COMM_RANKS 3

static void comm_sleep(double seconds) {
    struct timespec t = {.tv_sec = (time_t)seconds,
                         .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
}

static unsigned char ring_byte(int from, size_t i, size_t size) {
    return (unsigned char)(from * 31 + i * 7 + size);
}

/* Sizes 0, 1 and 1 MiB from each rank to the next, checked byte by byte; then a receive into
 * memory of the wrong size. */
static void check_ring(clp__comm *c) {
    const int rank = clp__comm_rank(c), next = (rank + 1) % COMM_RANKS,
              prev = (rank + COMM_RANKS - 1) % COMM_RANKS;
    const size_t sizes[] = {0, 1, 1 << 20};
    clp_error err = CLP_ERROR_INIT;
    unsigned char *out = malloc(1 << 20);
    CLP_ASSERT(out);
    for (size_t k = 0; k < 3; k++) {
        for (size_t i = 0; i < sizes[k]; i++)
            out[i] = ring_byte(rank, i, sizes[k]);
        CLP_ASSERT_OK(clp__comm_send(c, next, TAG_RING, out, sizes[k], &err), &err);
    }
    memset(out, 0xee, 1 << 20); /* the comm copied them */
    for (size_t k = 0; k < 3; k++) {
        void *data;
        size_t bytes;
        CLP_ASSERT_OK(clp__comm_recv(c, prev, TAG_RING, &data, &bytes, &err), &err);
        CLP_ASSERT_EQ(bytes, sizes[k]);
        CLP_ASSERT(bytes > 0 || data == NULL);
        for (size_t i = 0; i < bytes; i++)
            if (((unsigned char *)data)[i] != ring_byte(prev, i, sizes[k]))
                CLP_TEST_FAIL("rank %d: byte %zu of %zu from rank %d is wrong", rank, i, bytes,
                              prev);
        free(data);
    }
    free(out);

    const uint32_t four = 4;
    uint64_t eight = 0;
    CLP_ASSERT_OK(clp__comm_send(c, next, TAG_A, &four, sizeof four, &err), &err);
    CLP_ASSERT_STATUS(clp__comm_recv_into(c, prev, TAG_A, &eight, sizeof eight, &err), CLP_COMM,
                      &err);
    char want[128];
    snprintf(want, sizeof want, "rank %d expected 8 bytes from rank %d with tag 1 (a) and got 4",
             rank, prev);
    CLP_ASSERT_STR_EQ(err.message, want);
}

/* `size` bytes of rank `from`'s message (new). */
static unsigned char *ring_message(int from, size_t size) {
    unsigned char *m = malloc(size);
    CLP_ASSERT(m);
    for (size_t i = 0; i < size; i++)
        m[i] = ring_byte(from, i, size);
    return m;
}

/* Rank `rank` got rank `from`'s message of `size` bytes in `in`. */
static void check_ring_message(const unsigned char *in, int rank, int from, size_t size) {
    for (size_t i = 0; i < size; i++)
        if (in[i] != ring_byte(from, i, size))
            CLP_TEST_FAIL("rank %d: byte %zu of %zu from rank %d is wrong", rank, i, size, from);
}

/* A message of 4 MiB, past any eager limit of MPI, lent (sent without a copy) and taken 0.2 s
 * late into memory of its size: the sender's flush waits for it, the bytes arrive, and the
 * sender may overwrite them once its flush has returned. */
static void check_flush(clp__comm *c) {
    const int rank = clp__comm_rank(c), next = (rank + 1) % COMM_RANKS,
              prev = (rank + COMM_RANKS - 1) % COMM_RANKS;
    const size_t size = 4u << 20;
    clp_error err = CLP_ERROR_INIT;
    unsigned char *out = ring_message(rank, size), *in = malloc(size);
    CLP_ASSERT(in);
    CLP_ASSERT_OK(clp__comm_send_borrowed(c, next, TAG_B, out, size, &err), &err);
    if (rank == 0) {
        CLP_ASSERT_OK(clp__comm_flush(c, &err), &err);
    } else {
        comm_sleep(0.2);
        CLP_ASSERT_OK(clp__comm_recv_into(c, prev, TAG_B, in, size, &err), &err);
        CLP_ASSERT_OK(clp__comm_flush(c, &err), &err);
    }
    memset(out, 0xee, size);
    if (rank == 0)
        CLP_ASSERT_OK(clp__comm_recv_into(c, prev, TAG_B, in, size, &err), &err);
    check_ring_message(in, rank, prev, size);
    free(out);
    free(in);
}

/* A receive without a copy, where the transport lends one: the bytes are the sender's own (a
 * change shows in its buffer after its flush, which waits for the loan to end); where it
 * cannot, nothing is taken and the message arrives as usual. */
static void check_lent(clp__comm *c) {
    const int rank = clp__comm_rank(c), next = (rank + 1) % COMM_RANKS,
              prev = (rank + COMM_RANKS - 1) % COMM_RANKS;
    const size_t size = 1u << 20;
    clp_error err = CLP_ERROR_INIT;
    unsigned char *out = ring_message(rank, size), *in = malloc(size);
    CLP_ASSERT(in);
    CLP_ASSERT_OK(clp__comm_send_borrowed(c, next, TAG_B, out, size, &err), &err);
    void *lent, *loan;
    size_t bytes;
    CLP_ASSERT_OK(clp__comm_recv_lent(c, prev, TAG_B, &lent, &bytes, &loan, &err), &err);
    if (loan) {
        CLP_ASSERT_EQ(bytes, size);
        memcpy(in, lent, size);
        ((unsigned char *)lent)[0] = 0xab;
        clp__comm_give_back(c, loan);
    } else {
        CLP_ASSERT_OK(clp__comm_recv_into(c, prev, TAG_B, in, size, &err), &err);
    }
    check_ring_message(in, rank, prev, size);
    CLP_ASSERT_OK(clp__comm_flush(c, &err), &err);
    int was_lent = loan != NULL, mine_lent = -1;
    CLP_ASSERT_OK(clp__comm_send(c, prev, TAG_A, &was_lent, sizeof was_lent, &err), &err);
    CLP_ASSERT_OK(clp__comm_recv_into(c, next, TAG_A, &mine_lent, sizeof mine_lent, &err), &err);
    CLP_ASSERT_EQ(out[0], mine_lent ? 0xab : ring_byte(rank, 0, size));
    free(out);
    free(in);
}

/* Per tag, messages come in the order sent; a tag does not wait behind another. */
static void check_fifo(clp__comm *c) {
    const int rank = clp__comm_rank(c), next = (rank + 1) % COMM_RANKS,
              prev = (rank + COMM_RANKS - 1) % COMM_RANKS;
    clp_error err = CLP_ERROR_INIT;
    const int sent[][2] = {{TAG_A, 1}, {TAG_B, 10}, {TAG_A, 2}, {TAG_B, 20}, {TAG_A, 3}};
    for (size_t i = 0; i < 5; i++) {
        int value = sent[i][1] + 100 * rank;
        CLP_ASSERT_OK(clp__comm_send(c, next, sent[i][0], &value, sizeof value, &err), &err);
    }
    const int wanted[][2] = {{TAG_B, 10}, {TAG_B, 20}, {TAG_A, 1}, {TAG_A, 2}, {TAG_A, 3}};
    for (size_t i = 0; i < 5; i++) {
        int value = -1;
        CLP_ASSERT_OK(clp__comm_recv_into(c, prev, wanted[i][0], &value, sizeof value, &err), &err);
        CLP_ASSERT_EQ(value, wanted[i][1] + 100 * prev);
    }
}

/* Rank r's values: index 0 sums to 0 only in rank order ((1e16 + 1) - 1e16), index 1 is
 * 0.1 + 0.2 + 0.3 (not 0.6 in doubles), index 3 has a NaN on rank 2. */
static double reduce_input(int rank, size_t i) {
    const double table[][COMM_RANKS] = {
        {1e16, 1.0, -1e16}, {0.1, 0.2, 0.3}, {-0.0, 5.0, -7.5}, {1.0, 2.0, NAN}};
    return table[i][rank];
}

static void check_allreduce(clp__comm *c) {
    const int rank = clp__comm_rank(c);
    clp_error err = CLP_ERROR_INIT;
    const clp__comm_op ops[] = {CLP_COMM_SUM, CLP_COMM_MIN, CLP_COMM_MAX};
    for (size_t k = 0; k < 3; k++) {
        double values[4], want[4];
        for (size_t i = 0; i < 4; i++) {
            values[i] = reduce_input(rank, i);
            want[i] = reduce_input(0, i);
            for (int r = 1; r < COMM_RANKS; r++) {
                const double v = reduce_input(r, i);
                want[i] = ops[k] == CLP_COMM_SUM       ? want[i] + v
                          : isnan(v) || isnan(want[i]) ? NAN
                          : ops[k] == CLP_COMM_MIN     ? fmin(want[i], v)
                                                       : fmax(want[i], v);
            }
        }
        CLP_ASSERT_OK(clp__comm_allreduce(c, values, 4, ops[k], &err), &err);
        if (memcmp(values, want, sizeof want) != 0)
            CLP_TEST_FAIL("rank %d, allreduce %zu: %.17g %.17g %.17g %.17g, expected %.17g %.17g "
                          "%.17g %.17g",
                          rank, k, values[0], values[1], values[2], values[3], want[0], want[1],
                          want[2], want[3]);
        if (ops[k] == CLP_COMM_SUM) {
            CLP_ASSERT(values[0] == 0.0); /* rank order, not 1 */
            CLP_ASSERT(values[1] != 0.6); /* (0.1 + 0.2) + 0.3 */
            CLP_ASSERT(isnan(values[3]));
        }
    }
    CLP_ASSERT_OK(clp__comm_allreduce(c, NULL, 0, CLP_COMM_SUM, &err), &err);
}

/* Ranks give 5, 0 and 300 bytes. */
static void check_gather(clp__comm *c) {
    const int rank = clp__comm_rank(c);
    const size_t sizes[COMM_RANKS] = {5, 0, 300};
    clp_error err = CLP_ERROR_INIT;
    unsigned char mine[300];
    memset(mine, rank + 1, sizeof mine);
    void *all = (void *)1;
    size_t offsets[COMM_RANKS + 1] = {0};
    CLP_ASSERT_OK(clp__comm_gather(c, mine, sizes[rank], &all, rank == 0 ? offsets : NULL, &err),
                  &err);
    if (rank != 0) {
        CLP_ASSERT(all == NULL);
        return;
    }
    CLP_ASSERT(all != NULL);
    for (int r = 0; r < COMM_RANKS; r++) {
        CLP_ASSERT_EQ(offsets[r + 1] - offsets[r], sizes[r]);
        for (size_t i = offsets[r]; i < offsets[r + 1]; i++)
            CLP_ASSERT_EQ(((unsigned char *)all)[i], r + 1);
    }
    CLP_ASSERT_EQ(offsets[COMM_RANKS], 305);
    free(all);
}

/* Rank 0's values reach all; rank 1 then asks for the wrong size. */
static void check_broadcast(clp__comm *c) {
    const int rank = clp__comm_rank(c);
    clp_error err = CLP_ERROR_INIT;
    double values[3] = {0};
    if (rank == 0)
        memcpy(values, (double[]){3.5, -2.0, 1e300}, sizeof values);
    CLP_ASSERT_OK(clp__comm_broadcast(c, values, sizeof values, &err), &err);
    CLP_ASSERT(values[0] == 3.5 && values[1] == -2.0 && values[2] == 1e300);

    const size_t bytes = rank == 1 ? 8 : 16;
    clp_status st = clp__comm_broadcast(c, values, bytes, &err);
    if (rank != 1) {
        CLP_ASSERT_OK(st, &err);
        return;
    }
    CLP_ASSERT_STATUS(st, CLP_COMM, &err);
    CLP_ASSERT_STR_EQ(err.message, "rank 1 expected 8 bytes from rank 0 with tag broadcast and "
                                   "got 16");
}

/* Rank 2 comes late: no rank leaves before the last has come (one clock: CLOCK_MONOTONIC is
 * shared by the processes of one host too). */
static void check_barrier(clp__comm *c) {
    const int rank = clp__comm_rank(c);
    clp_error err = CLP_ERROR_INIT;
    if (rank == 2)
        comm_sleep(0.1);
    double times[2];
    times[0] = clp__now();
    CLP_ASSERT_OK(clp__comm_barrier(c, &err), &err);
    times[1] = clp__now();
    void *all;
    size_t offsets[COMM_RANKS + 1];
    CLP_ASSERT_OK(clp__comm_gather(c, times, sizeof times, &all, offsets, &err), &err);
    if (rank != 0)
        return;
    const double *t = all;
    for (int r = 0; r < COMM_RANKS; r++)
        for (int q = 0; q < COMM_RANKS; q++)
            if (t[2 * r + 1] < t[2 * q])
                CLP_TEST_FAIL("rank %d left the barrier %.3f s before rank %d came", r,
                              t[2 * q] - t[2 * r + 1], q);
    free(all);
}

/* Rank 0 waits 0.2 s for a message rank 2 never sends; the others wait for it at a barrier. */
static void check_timeout(clp__comm *c) {
    const int rank = clp__comm_rank(c);
    clp_error err = CLP_ERROR_INIT;
    if (rank == 0) {
        clp__comm_set_timeout(c, 0.2);
        void *data;
        size_t bytes;
        const double start = clp__now();
        CLP_ASSERT_STATUS(clp__comm_recv(c, 2, TAG_NEVER, &data, &bytes, &err), CLP_COMM, &err);
        const double waited = clp__now() - start;
        CLP_ASSERT(waited >= 0.2 && waited < 2.0);
        CLP_ASSERT_STR_EQ(err.message,
                          "rank 0 waited 0.2 s for a message from rank 2 with tag 3 (never) and "
                          "none came (CLPART_COMM_TIMEOUT sets the limit)");
        clp__comm_set_timeout(c, 30);
    }
    CLP_ASSERT_OK(clp__comm_barrier(c, &err), &err);
}

/* Bad ranks and tags are refused before anything is sent. */
static void check_usage(clp__comm *c) {
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_STATUS(clp__comm_send(c, COMM_RANKS, TAG_A, "x", 1, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "rank 3: there are ranks 0 to 2 only");
    clp_error_clear(&err);
    void *data;
    size_t bytes;
    CLP_ASSERT_STATUS(clp__comm_recv(c, 0, CLP_COMM_TAGS, &data, &bytes, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "tag 1000 is not 0 to 999");
}

/* Rank 1 fails while ranks 0 and 2 wait for each other (with a 30 s timeout): both hear of it
 * at once, with rank 1's reason, and so does a later send. Leaves the comm aborted. */
static void check_abort(clp__comm *c) {
    const int rank = clp__comm_rank(c);
    clp_error err = CLP_ERROR_INIT;
    if (rank == 1) {
        comm_sleep(0.1);
        CLP_FAIL(&err, CLP_DEVICE_MEMORY, "buffer \"halo\" (8 bytes): out of memory on purpose");
        clp__comm_abort(c, &err);
        return;
    }
    const int peer = 2 - rank;
    void *data;
    size_t bytes;
    const double start = clp__now();
    CLP_ASSERT_STATUS(clp__comm_recv(c, peer, TAG_NEVER, &data, &bytes, &err), CLP_COMM, &err);
    CLP_ASSERT(clp__now() - start < 10.0);
    char want[256];
    snprintf(want, sizeof want,
             "rank %d, receiving from rank %d with tag 3 (never): rank 1 failed: buffer \"halo\" "
             "(8 bytes): out of memory on purpose",
             rank, peer);
    CLP_ASSERT_STR_EQ(err.message, want);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__comm_send(c, peer, TAG_A, "x", 1, &err), CLP_COMM, &err);
    CLP_ASSERT_CONTAINS(err.message, "rank 1 failed: buffer");
}

static void comm_checks_run(clp__comm *c) {
    CLP_ASSERT_EQ(clp__comm_size(c), COMM_RANKS);
    clp__comm_set_tag_names(c, comm_tag_names, TAG_COUNT);
    check_usage(c);
    check_ring(c);
    check_flush(c);
    check_lent(c);
    check_fifo(c);
    check_allreduce(c);
    check_gather(c);
    check_broadcast(c);
    check_barrier(c);
    check_timeout(c);
    check_abort(c);
}

#endif
