/* Where cl/ and options/ live at run time: $CLPART_DATA_DIR, beside the executable
 * (<bindir>/../share/clpart), the installed data directory, then the source tree. */
#include "internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool has_schema(const char *dir) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/options/core.json", dir);
    return access(path, R_OK) == 0;
}

const char *clp_data_dir(void) {
    static char found[PATH_MAX + 32];
    const char *env = getenv("CLPART_DATA_DIR");
    if (env && *env)
        return env; /* trusted as given, so a wrong value shows up as a clear missing file */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(found, sizeof found, "%s/../share/clpart", exe);
            if (has_schema(found))
                return found;
        }
    }
    if (has_schema(CLPART_INSTALL_DATA_DIR))
        return CLPART_INSTALL_DATA_DIR;
    return CLPART_SOURCE_DATA_DIR;
}
