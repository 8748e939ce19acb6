/* Host memory a case needs, checked from its parameters before anything is allocated: Linux
 * grants large allocations it cannot back (overcommit), so a case too large for the machine
 * would otherwise fill it page by page until the kernel kills the process, with no message. */
#include "internal.h"

#include <sys/resource.h>
#include <unistd.h>

/* What this process may hold: the machine's physical memory, or the address-space limit a
 * batch job or `ulimit -v` sets where that is smaller; 0 where the system says neither. */
static double allowed_bytes(const char **which) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double bytes = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    *which = "this machine has";
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        (bytes == 0 || (double)limit.rlim_cur < bytes)) {
        bytes = (double)limit.rlim_cur;
        *which = "the process may hold (ulimit -v)";
    }
    return bytes;
}

double clp__host_memory_allowed(void) {
    const char *which;
    return allowed_bytes(&which);
}

clp_status clp__host_memory_check(double bytes, const char *what, clp_error *err) {
    const char *which;
    const double allowed = allowed_bytes(&which), gib = 1024.0 * 1024.0 * 1024.0;
    if (allowed == 0 || bytes <= allowed)
        return CLP_OK;
    return CLP_FAIL(err, CLP_NOMEM, "%s take %.2f GiB of host memory, more than the %.2f GiB %s",
                    what, bytes / gib, allowed / gib, which);
}
