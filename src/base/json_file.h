/* JSON input files (cases, schemas, suites, lists of records), read as every text input is:
 * a folder or a file of more than 256 MiB refused by name, duplicate keys rejected. */
#ifndef CLPART_JSON_FILE_H
#define CLPART_JSON_FILE_H

#include "internal.h"

#include <jansson.h>

/* Loads the JSON file at `path`; *out is new. A missing or unreadable file is CLP_IO; a parse
 * error is `malformed` (CLP_JSON, CLP_SCHEMA, CLP_CASE) with Jansson's line, column and text. */
clp_status clp__json_load(const char *path, clp_status malformed, json_t **out, clp_error *err);
/* Parses `size` bytes of `text` read from `path` as clp__json_load does; *out is new. */
clp_status clp__json_parse(const char *text, size_t size, const char *path, clp_status malformed,
                           json_t **out, clp_error *err);

#endif
