/* How clpart sweep spreads its devices over threads: devices that run on the host's cores form
 * one group, run one after the other (at once, each would time the other's load); every other
 * device is a group of its own; one thread runs each group. */
#ifndef CLPART_SWEEP_GROUPS_H
#define CLPART_SWEEP_GROUPS_H

#include "clpart.h"

#include <stdatomic.h>

typedef enum sweep_schedule {
    SWEEP_BY_HARDWARE, /* the host's devices together, every other device alone */
    SWEEP_SERIAL,      /* --serial: every device in one group, as with the host otherwise idle */
    SWEEP_PARALLEL,    /* --parallel: every device alone, even those that share the host */
} sweep_schedule;

/* Whether `dev` runs its kernels on the host's cores: an OpenCL CPU device (PoCL, Intel's CPU
 * runtime), or a device of a platform that emulates its device on the host whatever type it
 * reports (Oclgrind reports a GPU; Intel's FPGA emulator an accelerator). */
bool sweep_device_on_host(const clp_device_info *dev);

/* Puts each of the `n` devices in a group as `schedule` says: group_of[d] for device d, the
 * groups numbered from 0 in the order of their first device. Returns the number of groups. */
size_t sweep_group_devices(const clp_device_info *const *devices, size_t n, sweep_schedule schedule,
                           size_t *group_of);

/* Sweeps one device: `run(d, user, err)`. It should look at *stop between its runs and return
 * CLP_OK early once it is set. */
typedef clp_status (*sweep_device_fn)(size_t d, void *user, clp_error *err);

/* Runs `run` for every device, one thread per group (the group's devices in their order), and
 * waits for all. The first failure (in time) sets *stop, so that the other threads stop after
 * their current run, and is returned with its error. */
clp_status sweep_groups_run(const size_t *group_of, size_t n, size_t n_groups, sweep_device_fn run,
                            void *user, atomic_bool *stop, clp_error *err);

#endif
