/* Pinned host staging for a rank's exchanges. */
#include "dist/staging.h"

void clp__dist_staging_release(clp__dist_staging *s, cl_command_queue queue) {
    if (s->host && clEnqueueUnmapMemObject(queue, s->mem, s->host, 0, NULL, NULL) == CL_SUCCESS)
        clFinish(queue); /* released below: the unmap must have run (nothing to report) */
    clp__buffer_release(s->mem);
    *s = (clp__dist_staging){0};
}

clp_status clp__dist_staging_reserve(clp__dist_staging *s, clp_worker *w, cl_command_queue queue,
                                     size_t bytes, clp_error *err) {
    clp_status st = CLP_OK;
    cl_int rc;
    if (bytes <= s->bytes)
        return CLP_OK;
    clp__dist_staging_release(s, queue);
    const size_t grown =
        bytes + bytes / 4 + 4096; /* the edges grow and shrink as the fluid moves */
    s->mem =
        clCreateBuffer(w->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, grown, NULL, &rc);
    CLP_CL_CHECK(rc, err,
                 "device '%s': %zu bytes of pinned host memory for the halo exchange: "
                 "clCreateBuffer",
                 w->device.name, grown);
    s->host = clEnqueueMapBuffer(queue, s->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, grown, 0,
                                 NULL, NULL, &rc);
    CLP_CL_CHECK(rc, err, "device '%s': mapping %zu bytes of halo staging: clEnqueueMapBuffer",
                 w->device.name, grown);
    s->bytes = grown;
fail:
    if (st != CLP_OK)
        clp__dist_staging_release(s, queue);
    return st;
}
