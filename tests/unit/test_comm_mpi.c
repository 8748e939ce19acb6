/* The comm over MPI: run as 3 processes by mpirun (tests/meson.build), each running the shared
 * checks (comm_checks.h) with its own rank, the abort last. */
#include "internal.h"
#include "comm_checks.h"

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
    comm_checks_run(comm);
    clp__comm_destroy(comm);
    return 0;
}
