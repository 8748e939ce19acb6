/* Private to the options files (options_schema.c, options_value.c, options.c): turning one
 * JSON or command-line value into a checked clp_option_value, name lookup and "did you mean"
 * hints. Jansson's json_t stays behind this header. */
#ifndef CLPART_OPTIONS_PRIVATE_H
#define CLPART_OPTIONS_PRIVATE_H

#include "base/json_file.h"
#include "options_schema.h"

#include <jansson.h>

/* Where a value came from, for error messages. */
typedef struct clp__where {
    const char *source; /* err->source: the case or schema path, or "command line" */
    const char *text;   /* ends the message: "options.selftest.n", "-s selftest.n=1" */
} clp__where;

/* Converts `json` to a value of def's type and checks it: CLP_OPTION_TYPE, CLP_OPTION_RANGE
 * or CLP_OPTION_VALUE, with where->source and line -1. Sets type and the value fields only. */
clp_status clp__value_from_json(const clp__option_def *def, const json_t *json,
                                const clp__where *where, clp_option_value *out, clp_error *err);
/* Same for command-line text ("on", "1024", "0.5", "kbn"); numbers parse under the C locale
 * whatever setlocale says. */
clp_status clp__value_from_text(const clp__option_def *def, const char *text,
                                const clp__where *where, clp_option_value *out, clp_error *err);
/* Checks a value already of def's type against its range, finiteness or enum values, as
 * clp__value_from_json does. */
clp_status clp__value_check(const clp__option_def *def, const clp_option_value *v,
                            const clp__where *where, clp_error *err);
/* A JSON value for messages: "string \"abc\"", "integer 3", "real 3.5", "true", "null",
 * "an object", "an array". Returns buf. */
char *clp__json_describe(const json_t *json, char *buf, size_t size);
/* Whether two values of the same option are equal (origins are ignored). */
bool clp__value_equal(const clp_option_value *a, const clp_option_value *b);

/* Keeps the candidate closest to `word`, for a "did you mean" hint. Start with {word}. */
typedef struct clp__suggestion {
    const char *word;
    const char *best;
    size_t distance;
} clp__suggestion;
void clp__suggest_consider(clp__suggestion *s, const char *candidate);
/* "; did you mean 'kbn'?" when the closest candidate is within max(2, strlen(word) / 3)
 * edits (a difference in case only is one edit), else "". Returns buf. */
char *clp__suggest_hint(const clp__suggestion *s, char *buf, size_t size);

/* Index of the option `name`; CLP_OPTION_UNKNOWN naming `where`, with a hint, if none. */
clp_status clp__schema_lookup(const clp_schema *schema, const char *name, const clp__where *where,
                              size_t *index, clp_error *err);

#endif
