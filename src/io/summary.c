/* A run's summary.json: one line of JSON, so that scripts read a run's result without parsing
 * its CSV files, with the keys every model's summary starts with. Written atomically, so a
 * reader never sees half of one. */
#include "io.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

json_t *clp__summary_begin(const char *model, size_t particles, uint64_t steps, bool interrupted,
                           double seconds) {
    json_t *root = json_object();
    json_object_set_new(root, "model", json_string(model));
    json_object_set_new(root, "particles", json_integer((json_int_t)particles));
    json_object_set_new(root, "steps", json_integer((json_int_t)steps));
    json_object_set_new(root, "interrupted", json_boolean(interrupted));
    json_object_set_new(root, "seconds", json_real(seconds));
    return root;
}

void clp__summary_number(json_t *root, const char *key, double v) {
    json_object_set_new(root, key,
                        isfinite(v) ? json_real(v)
                        : isnan(v)  ? json_string("nan")
                        : v > 0     ? json_string("inf")
                                    : json_string("-inf"));
}

void clp__summary_values(json_t *root, const char *const *names, const double *values, size_t n) {
    for (size_t i = 0; i < n; i++)
        clp__summary_number(root, names[i], values[i]);
}

clp_status clp__json_write(const char *dir, const char *name, json_t *root, size_t flags,
                           clp_error *err) {
    const size_t size = strlen(dir) + strlen(name) + 2;
    char *path = malloc(size);
    char *text = root ? json_dumps(root, flags) : NULL;
    json_decref(root);
    clp_status st = CLP_OK;
    if (path)
        snprintf(path, size, "%s/%s", dir, name);
    if (!path || !text)
        st = CLP_FAIL(err, CLP_NOMEM, "out of host memory for %s/%s", dir, name);
    else {
        const size_t len = strlen(text);
        text[len] = '\n'; /* json_dumps's terminator: the file ends with a line break instead */
        st = clp__atomic_write_file(path, text, len + 1, err);
    }
    free(text);
    free(path);
    return st;
}

clp_status clp__summary_write(const char *dir, const char *name, json_t *root, clp_error *err) {
    return clp__json_write(dir, name, root, JSON_PRESERVE_ORDER, err);
}
