/* JSON input files, read through clp__file_read so that every one is checked alike. */
#include "base/json_file.h"

#include <stdlib.h>

clp_status clp__json_parse(const char *text, size_t size, const char *path, clp_status malformed,
                           json_t **out, clp_error *err) {
    json_error_t jerr;
    *out = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!*out)
        return CLP_FAIL_AT(err, malformed, path, jerr.line, jerr.column, "malformed JSON: %s",
                           jerr.text);
    return CLP_OK;
}

clp_status clp__json_load(const char *path, clp_status malformed, json_t **out, clp_error *err) {
    char *text = NULL;
    size_t size = 0;
    *out = NULL;
    clp_status st = clp__file_read(path, &text, &size, err);
    if (st == CLP_OK)
        st = clp__json_parse(text, size, path, malformed, out, err);
    free(text);
    return st;
}
