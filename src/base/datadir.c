/* Where cl/ and options/ live at run time: $CLPART_DATA_DIR, beside the executable
 * (<bindir>/../share/clpart), the installed data directory, then the source tree. */
#include "internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool has_schema(const char *dir) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/options/core.json", dir);
    return access(path, R_OK) == 0;
}

/* The data directory beside the executable, when it holds the schema, else "". Found once:
 * threads (a sweep runs one per device) read it while assembling sources. */
static char beside_exe[PATH_MAX + 32];

static void find_beside_exe(void) {
    char exe[PATH_MAX], dir[sizeof beside_exe];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    snprintf(dir, sizeof dir, "%s/../share/clpart", exe);
    if (has_schema(dir))
        memcpy(beside_exe, dir, sizeof dir);
}

const char *clp_data_dir(void) {
    const char *env = getenv("CLPART_DATA_DIR");
    if (env && *env)
        return env; /* trusted as given, so a wrong value shows up as a clear missing file */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_beside_exe);
    if (beside_exe[0])
        return beside_exe;
    if (has_schema(CLPART_INSTALL_DATA_DIR))
        return CLPART_INSTALL_DATA_DIR;
    return CLPART_SOURCE_DATA_DIR;
}
