/* Checked reads of a case file's JSON (case_json.h). */
#include "run/case_json.h"
#include "base/json_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

clp_status clp__case_parse(const char *path, char **text, json_t **root, clp_error *err) {
    char *bytes = NULL;
    size_t size = 0;
    *root = NULL;
    if (text)
        *text = NULL;
    clp_status st = clp__file_read(path, &bytes, &size, err);
    if (st != CLP_OK)
        return st;
    json_t *json = NULL;
    st = clp__json_parse(bytes, size, path, CLP_JSON, &json, err);
    if (st == CLP_OK && !json_is_object(json))
        st = CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: the top level must be an object", path);
    if (st != CLP_OK) {
        json_decref(json);
        free(bytes);
        return st;
    }
    *root = json;
    if (text)
        *text = bytes;
    else
        free(bytes);
    return CLP_OK;
}

/* The closest of `n` names to `key`, when it is close enough to be a typo; else NULL. */
static const char *closest(const char *key, const char *const *names, size_t n) {
    const char *best = NULL;
    size_t best_distance = 3; /* at most 2 edits */
    for (size_t i = 0; i < n; i++) {
        const size_t d = clp__edit_distance(key, names[i]);
        if (d < best_distance) {
            best = names[i];
            best_distance = d;
        }
    }
    return best;
}

clp_status clp__case_known_keys(json_t *object, const char *section, const char *const *names,
                                size_t n, const char *path, clp_error *err) {
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        size_t k = 0;
        while (k < n && strcmp(names[k], key) != 0)
            k++;
        if (k < n)
            continue;
        const char *near = closest(key, names, n);
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: unknown key '%s%s'%s%s%s", path,
                           section, key, near ? "; did you mean '" : "", near ? near : "",
                           near ? "'?" : "");
    }
    return CLP_OK;
}

clp_status clp__case_number(json_t *parent, const char *key, const char *name, double min,
                            bool open_min, double max, bool required, double *out, const char *path,
                            clp_error *err) {
    json_t *v = json_object_get(parent, key);
    if (!v && !required)
        return CLP_OK;
    if (!v)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: '%s' is required", path, name);
    /* NaN fails both comparisons: a value of another type is out of range */
    const double x = json_is_number(v) ? json_number_value(v) : NAN;
    if (!(open_min ? x > min : x >= min) || !(x <= max))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: '%s' must be a number in %c%g, %g]",
                           path, name, open_min ? '(' : '[', min, max);
    *out = x;
    return CLP_OK;
}

clp_status clp__case_integer(json_t *parent, const char *key, const char *name, long long min,
                             long long max, bool required, const char *note, long long *out,
                             const char *path, clp_error *err) {
    json_t *v = json_object_get(parent, key);
    if (!v && !required)
        return CLP_OK;
    if (!v)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: '%s' is required", path, name);
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: '%s' must be an integer in [%lld, %lld]%s", path, name, min, max,
                           note ? note : "");
    *out = (long long)json_integer_value(v);
    return CLP_OK;
}
