/* The machine a measurement ran on (see host_info.h). */
#include "host_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first "model name" of /proc/cpuinfo (x86; other architectures name the CPU otherwise),
 * its surrounding blanks removed (new string), or NULL. */
static char *cpu_model(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return NULL;
    char *line = NULL, *model = NULL;
    size_t cap = 0;
    while (!model && getline(&line, &cap, f) > 0) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        const char *start = colon + 1 + strspn(colon + 1, " \t");
        size_t n = strcspn(start, "\n");
        while (n > 0 && (start[n - 1] == ' ' || start[n - 1] == '\t'))
            n--;
        model = strndup(start, n);
    }
    free(line);
    fclose(f);
    return model;
}

json_t *host_info_json(void) {
    char hostname[256] = "";
    if (gethostname(hostname, sizeof hostname - 1) != 0)
        snprintf(hostname, sizeof hostname, "unknown");
    char *cpu = cpu_model();
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    json_t *host =
        json_pack("{s:s, s:s, s:I}", "hostname", hostname, "cpu", cpu && *cpu ? cpu : "unknown",
                  "cpus", (json_int_t)(cpus > 0 ? cpus : 0));
    free(cpu);
    return host;
}
