/* Host memory for a rank's exchanges that the device copies to and from at full speed and
 * asynchronously (Bilotta et al. 2018, 4.5.2): a buffer in pinned host
 * memory (CL_MEM_ALLOC_HOST_PTR), mapped once, whose pointer is then the host side of the
 * reads and writes of other buffers. Plain malloc'ed memory would make the driver copy
 * through a bounce buffer of its own, at about half the speed, while the host waits. */
#ifndef CLPART_DIST_STAGING_H
#define CLPART_DIST_STAGING_H

#include "worker/worker_private.h"

typedef struct clp__dist_staging {
    cl_mem mem;
    unsigned char *host; /* mapped: valid until release */
    size_t bytes;
} clp__dist_staging;

/* Makes `s` hold at least `bytes` (its content is not kept when it grows); `queue` maps and
 * unmaps it and must have nothing left that reads or writes through it. */
clp_status clp__dist_staging_reserve(clp__dist_staging *s, clp_worker *w, cl_command_queue queue,
                                     size_t bytes, clp_error *err);
void clp__dist_staging_release(clp__dist_staging *s, cl_command_queue queue);

#endif
