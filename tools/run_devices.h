/* clpart run on several devices: --devices (threads of this process) or under mpirun (one
 * process per device). */
#ifndef CLPART_RUN_DEVICES_H
#define CLPART_RUN_DEVICES_H

#include "cli_case.h"

typedef struct run_devices_request {
    const char *devices; /* --devices SEL,...|all, or NULL */
    const char *weights; /* --weights W,..., auto (the devices' copy bandwidths) or NULL (equal) */
    /* When not NULL: called in the process that reports the run once every rank has its
     * device, before the run, with one device per rank in rank order; a failure ends the run
     * (every rank's, under mpirun) with it. */
    clp_status (*started)(void *user, const clp_device_info *const *devices, size_t n,
                          clp_error *err);
    void *user;
} run_devices_request;

/* Whether this run goes on several devices: --devices names more than one, or mpirun started
 * more than one process. */
bool run_devices_wanted(const run_devices_request *req);

/* Runs the case split among the devices; *rank0 says whether this process reports the run
 * (rank 0 of an MPI run, or the only process). */
clp_status run_devices(const clp_model *model, const cli_case *c, const clp_cli *cli,
                       const run_devices_request *req, const clp_run_config *config, bool *rank0,
                       clp_error *err);

#endif
