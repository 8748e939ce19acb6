/* Slices of queued steps, so that a run notices a stop request within about 0.1 s of device
 * work while waiting for the device only that often. */
#include "run/pacer.h"

void clp__pacer_init(clp__pacer *p, clp_worker *worker, volatile sig_atomic_t *stop) {
    *p = (clp__pacer){.worker = worker, .stop = stop, .slice = 1};
}

uint64_t clp__pacer_slice(clp__pacer *p, uint64_t left) {
    p->started = clp__now();
    return !p->stop || p->slice > left ? left : p->slice;
}

clp_status clp__pacer_wait(clp__pacer *p, bool *stop, clp_error *err) {
    clp_status st = CLP_OK;
    *stop = false;
    if (!p->stop)
        return CLP_OK;
    CLP_CL_CHECK(clFinish(clp_worker_queue(p->worker)), err,
                 "waiting for a slice of steps: clFinish");
    const double took = clp__now() - p->started;
    if (took < 0.05 && p->slice < (UINT64_C(1) << 40))
        p->slice *= 2;
    else if (took > 0.2 && p->slice > 1)
        p->slice /= 2;
    *stop = clp__pacer_stopped(p);
fail:
    return st;
}

bool clp__pacer_stopped(const clp__pacer *p) {
    return p->stop && *p->stop;
}
