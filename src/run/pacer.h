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
/* Steps to queue next, at most `left`: the whole of it when nothing can ask for a stop. */
uint64_t clp__pacer_slice(clp__pacer *p, uint64_t left);
/* After the slice was queued: waits for the device, sizes the next slice from how long this
 * one took (twice as long below 0.05 s, half above 0.2 s) and says whether a stop was asked. */
clp_status clp__pacer_wait(clp__pacer *p, bool *stop, clp_error *err);
/* Whether a stop was asked. */
bool clp__pacer_stopped(const clp__pacer *p);

#endif
