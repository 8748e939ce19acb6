/* The option schema as the library's other files read it: one definition per option, in
 * schema order (modules by file name, options in file order). Owned by options.c. */
#ifndef CLPART_OPTIONS_SCHEMA_H
#define CLPART_OPTIONS_SCHEMA_H

#include "internal.h"

typedef enum clp__depends_kind {
    CLP_DEPENDS_NONE,
    CLP_DEPENDS_ANY,
    CLP_DEPENDS_ALL
} clp__depends_kind;

/* One {"option": value} condition of a depends_any/depends_all list. */
typedef struct clp__condition {
    size_t option;          /* index in the schema */
    clp_option_value value; /* the value it must have */
} clp__condition;

typedef struct clp__option_def {
    char *name;        /* "core.summation" */
    char *module;      /* "core" */
    char *define;      /* "CLP_CORE_SUMMATION"; NULL: a host-only option, not in the source */
    char *description; /* one line */
    clp_option_type type;
    bool is_double; /* float options: emitted as a double literal ("ctype": "double") */
    char **values;  /* enum value names, in order; the emitted integer is the index */
    size_t n_values;
    bool has_min, has_max; /* int and float ranges, inclusive */
    double min, max;
    clp_option_value default_value;
    char *flag;           /* build flag: bools add it when true; ints format it with %lld when
                             nonzero; NULL when the option adds none */
    char *flag_extension; /* the device extension the flag needs, or NULL */
    /* changes the speed, not the results: clpart bench sweeps its values for the best */
    bool performance;
    clp__depends_kind depends_kind;
    clp__condition *depends;
    size_t n_depends;
} clp__option_def;

const clp__option_def *clp__schema_option(const clp_schema *schema, size_t i);
/* The value of the option at schema index i. */
const clp_option_value *clp__options_value_at(const clp_options *opts, size_t i);
/* Whether the depends_any/depends_all of the option at schema index i hold for the values now
 * in `opts` (true for an option that depends on nothing): where they fail, its value changes
 * nothing. */
bool clp__option_depends_met(const clp_options *opts, size_t i);

/* A run's decision (src/models: a format that fits the device, a fallback mode, a register
 * cap): option `name` (CLP_OPTION_UNKNOWN when the schema has none) takes `value` of its type,
 * checked against its range or values as a user's would be (CLP_OPTION_RANGE, CLP_OPTION_VALUE or,
 * for another type, CLP_USAGE), with CLP_ORIGIN_DECIDED. The typed setters of option_enums.h
 * (tools/gen-option-enums) call it. */
clp_status clp__options_decide(clp_options *opts, const char *name, clp_option_value value,
                               clp_error *err);

/* "bool", "int", "float" or "enum". */
const char *clp__option_type_name(clp_option_type type);
/* A value as a user would write it ("true", "1024", "0.33333333333333331", "kbn"),
 * locale-independent, into buf (cut at size). Returns buf. */
char *clp__value_format(const clp__option_def *def, const clp_option_value *v, char *buf,
                        size_t size);
/* The range as text: "[64, 16777216]", ">= 0", "<= 5", or "" when unbounded. Returns buf. */
char *clp__range_format(const clp__option_def *def, char *buf, size_t size);

#endif
