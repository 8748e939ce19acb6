/* Stop requests in the runs that queue many steps between reads (LJ, PSO, repulsive): the
 * pacer cuts a chunk of steps into slices of about a tenth of a second of device work and
 * waits for the device after each, so that a request (a signal, through
 * clp_run_config.stop_requested) is answered within a slice. Internal to the library. */
#ifndef CLPART_PACER_H
#define CLPART_PACER_H

#include "internal.h"

typedef struct clp__pacer {
    clp_worker *worker;
    volatile sig_atomic_t *stop; /* borrowed; NULL: no requests, no slices, no waits */
    uint64_t slice;              /* steps in the next slice */
    double started;              /* clp__now() when the current slice was queued */
} clp__pacer;

void clp__pacer_init(clp__pacer *p, clp_worker *worker, volatile sig_atomic_t *stop);

/* Queues `steps` steps of a model's system on the device. */
typedef clp_status (*clp__pacer_steps)(void *system, uint64_t steps, clp_error *err);
/* Runs `steps` steps through `run` in slices, waiting for the device after each, until they
 * are done or a stop is asked: *done gets the steps run, *stopped whether a stop was asked.
 * Each slice is sized from how long the last one took: twice as long below 0.05 s, half
 * above 0.2 s. Without a stop pointer it is one slice. */
clp_status clp__pacer_run(clp__pacer *p, clp__pacer_steps run, void *system, uint64_t steps,
                          uint64_t *done, bool *stopped, clp_error *err);

#endif
