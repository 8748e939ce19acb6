/* A run's summary.json: one line of JSON, so that scripts read a run's result without parsing
 * its CSV files. */
#include "io.h"

#include <jansson.h>
#include <stdlib.h>

clp_status clp__summary_write(const char *dir, const char *name, json_t *root, clp_error *err) {
    char path[1024];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
        json_decref(root);
        return CLP_FAIL_AT(err, CLP_IO, dir, -1, -1, "the output folder's name is too long");
    }
    char *text = root ? json_dumps(root, JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for %s", path);
    FILE *f = fopen(path, "w");
    const bool written = f && fprintf(f, "%s\n", text) >= 0;
    const bool closed = f && fclose(f) == 0;
    free(text);
    if (!written || !closed)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s", path);
    return CLP_OK;
}
