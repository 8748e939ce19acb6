/* Ranks as MPI processes: for now only whether mpirun started this process, and the
 * constructor that says clpart was built without MPI. */
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

clp_status clp__comm_mpi_create(double timeout_s, clp__comm **out, clp_error *err) {
    (void)timeout_s;
    (void)out;
    return CLP_FAIL(err, CLP_COMM,
                    "this clpart was built without MPI: install libopenmpi-dev and rebuild");
}
