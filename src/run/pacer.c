/* Slices of queued steps, so that a run notices a stop request within about 0.1 s of device
 * work while waiting for the device only that often. */
#include "run/pacer.h"

void clp__pacer_init(clp__pacer *p, clp_worker *worker, volatile sig_atomic_t *stop) {
    *p = (clp__pacer){.worker = worker, .stop = stop, .slice = 1};
}

/* Steps to queue next, at most `left`: the whole of it when nothing can ask for a stop. */
static uint64_t next_slice(clp__pacer *p, uint64_t left) {
    p->started = clp__now();
    return !p->stop || p->slice > left ? left : p->slice;
}

/* After a slice: waits for the device (so that the steps' time is theirs, not the next
 * read's), sizes the next slice, says whether a stop was asked. */
static clp_status wait_slice(clp__pacer *p, bool *stop, clp_error *err) {
    clp_status st = CLP_OK;
    *stop = false;
    CLP_CL_CHECK(clFinish(clp_worker_queue(p->worker)), err,
                 "waiting for a slice of steps: clFinish");
    const double took = clp__now() - p->started;
    if (took < 0.05 && p->slice < (UINT64_C(1) << 40))
        p->slice *= 2;
    else if (took > 0.2 && p->slice > 1)
        p->slice /= 2;
    *stop = p->stop && *p->stop != 0;
fail:
    return st;
}

clp_status clp__pacer_run(clp__pacer *p, clp__pacer_steps run, void *system, uint64_t steps,
                          uint64_t *done, bool *stopped, clp_error *err) {
    clp_status st = CLP_OK;
    *done = 0;
    *stopped = false;
    while (*done < steps && !*stopped) {
        const uint64_t slice = next_slice(p, steps - *done);
        CLP_TRY(run(system, slice, err));
        CLP_TRY(wait_slice(p, stopped, err));
        *done += slice;
    }
fail:
    return st;
}
