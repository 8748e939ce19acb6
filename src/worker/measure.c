/* Measurements for the benchmarks: the time of a device operation, as the median of rounds
 * of launches queued back to back and then waited for; and the device's copy bandwidth, the
 * yardstick of memory-bound kernels: bytes read plus written per second by
 * clEnqueueCopyBuffer between two buffers, the median of 5 copies after one that pays for
 * first touch. */
#include "worker/worker_private.h"

clp_status clp__time_launches(clp_worker *w, clp__launch_fn launch, void *context, int launches,
                              int rounds, double *median, clp_error *err) {
    clp_status st = CLP_OK;
    double seconds[64];
    rounds = rounds < 1 ? 1 : rounds > 64 ? 64 : rounds;
    launches = launches < 1 ? 1 : launches;
    cl_command_queue queue = clp_worker_queue(w);
    CLP_CL_CHECK(clFinish(queue), err, "timing: clFinish");
    for (int r = 0; r < rounds; r++) {
        const double start = clp__now();
        for (int k = 0; k < launches; k++)
            CLP_TRY(launch(context, err));
        CLP_CL_CHECK(clFinish(queue), err, "timing: clFinish");
        seconds[r] = (clp__now() - start) / launches;
    }
    *median = clp__median(seconds, (size_t)rounds);
fail:
    return st;
}

clp_status clp__copy_bandwidth(clp_worker *w, size_t bytes, double *bytes_per_second,
                               clp_error *err) {
    clp_status st = CLP_OK;
    cl_mem a = NULL, b = NULL;
    double seconds[5];
    CLP_TRY(clp__buffer_create(w, "bandwidth probe a", bytes, &a, err));
    CLP_TRY(clp__buffer_create(w, "bandwidth probe b", bytes, &b, err));
    for (int r = 0; r < 6; r++) {
        const double start = clp__now();
        CLP_CL_CHECK(clEnqueueCopyBuffer(clp_worker_queue(w), a, b, 0, 0, bytes, 0, NULL, NULL),
                     err, "bandwidth probe: clEnqueueCopyBuffer of %zu bytes", bytes);
        CLP_CL_CHECK(clFinish(clp_worker_queue(w)), err, "bandwidth probe: clFinish");
        if (r > 0)
            seconds[r - 1] = clp__now() - start;
    }
    *bytes_per_second = 2.0 * (double)bytes / clp__median(seconds, 5);
fail:
    if (a)
        clp__buffer_release(a);
    if (b)
        clp__buffer_release(b);
    return st;
}
