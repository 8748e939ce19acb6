/* Checked reads of a case file's JSON, shared by the model case readers (case_json.c): the
 * file parsed, keys refused with a "did you mean", numbers and integers in a range. Errors are
 * CLP_CASE (CLP_JSON for malformed JSON) and begin with the case's path; `name` is the key as
 * the user sees it, such as 'lj.rc'. */
#ifndef CLPART_CASE_JSON_H
#define CLPART_CASE_JSON_H

#include "internal.h"

#include <jansson.h>

/* The case file at `path` as JSON: *root (new) is an object, and *text (new, NUL-terminated)
 * the file's bytes unless `text` is NULL. On an error both are left NULL. */
clp_status clp__case_parse(const char *path, char **text, json_t **root, clp_error *err);

/* Every key of `object` is one of the `n` `names`; else an error naming `section` + the key
 * ("pso." or "" for the top level), with the closest name when it looks like a typo. */
clp_status clp__case_known_keys(json_t *object, const char *section, const char *const *names,
                                size_t n, const char *path, clp_error *err);

/* A number at `key` of `parent` in [min, max], or (min, max] when `open_min`; absent keeps
 * *out (the default), unless `required`. */
clp_status clp__case_number(json_t *parent, const char *key, const char *name, double min,
                            bool open_min, double max, bool required, double *out, const char *path,
                            clp_error *err);

/* An integer at `key` of `parent` in [min, max]; `note`, or NULL, is added to the message of a
 * value out of range. Absent keeps *out, unless `required`. */
clp_status clp__case_integer(json_t *parent, const char *key, const char *name, long long min,
                             long long max, bool required, const char *note, long long *out,
                             const char *path, clp_error *err);

#endif
