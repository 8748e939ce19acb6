/* One option value: parsed from JSON or command-line text, checked against its definition
 * (type, range, enum values), compared and formatted locale-independently; "did you mean";
 * reading the JSON files that hold values (schema and case files). */
#include "options_private.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* This thread's numeric locale switched to "C" (whatever setlocale says) and back. Should
 * newlocale fail (out of memory), numbers use the process locale. */
typedef struct c_numeric {
    locale_t c, saved;
} c_numeric;

static c_numeric enter_c_numeric(void) {
    c_numeric l = {newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), (locale_t)0};
    if (l.c)
        l.saved = uselocale(l.c);
    return l;
}

static void leave_c_numeric(c_numeric l) {
    if (l.c) {
        uselocale(l.saved);
        freelocale(l.c);
    }
}

/* strtod under the C locale; errno is strtod's. */
static double strtod_c(const char *text, char **end) {
    c_numeric l = enter_c_numeric();
    errno = 0;
    double v = strtod(text, end);
    int strtod_errno = errno;
    leave_c_numeric(l);
    errno = strtod_errno;
    return v;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v, under the C locale. */
static char *format_double(double v, char *buf, size_t size) {
    c_numeric l = enter_c_numeric();
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    leave_c_numeric(l);
    return buf;
}

const char *clp__option_type_name(clp_option_type type) {
    switch (type) {
    case CLP_OPT_BOOL:
        return "bool";
    case CLP_OPT_INT:
        return "int";
    case CLP_OPT_FLOAT:
        return "float";
    case CLP_OPT_ENUM:
        return "enum";
    }
    return "?";
}

char *clp__value_format(const clp__option_def *def, const clp_option_value *v, char *buf,
                        size_t size) {
    switch (def->type) {
    case CLP_OPT_BOOL:
        snprintf(buf, size, "%s", v->b ? "true" : "false");
        break;
    case CLP_OPT_INT:
        snprintf(buf, size, "%lld", v->i);
        break;
    case CLP_OPT_FLOAT:
        format_double(v->f, buf, size);
        break;
    case CLP_OPT_ENUM:
        snprintf(buf, size, "%s", def->values[v->i]);
        break;
    }
    return buf;
}

char *clp__range_format(const clp__option_def *def, char *buf, size_t size) {
    char lo[40], hi[40];
    format_double(def->min, lo, sizeof lo);
    format_double(def->max, hi, sizeof hi);
    if (def->has_min && def->has_max)
        snprintf(buf, size, "[%s, %s]", lo, hi);
    else if (def->has_min)
        snprintf(buf, size, ">= %s", lo);
    else if (def->has_max)
        snprintf(buf, size, "<= %s", hi);
    else
        snprintf(buf, size, "%s", "");
    return buf;
}

/* "naive, kahan, kbn" */
static char *enum_list(const clp__option_def *def, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < def->n_values && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "", def->values[k]);
    return buf;
}

static clp_status check_range(const clp__option_def *def, double v, const char *shown,
                              const clp__where *where, clp_error *err) {
    char range[96];
    if ((def->has_min && v < def->min) || (def->has_max && v > def->max))
        return CLP_FAIL_AT(err, CLP_OPTION_RANGE, where->source, -1, -1,
                           "option '%s' = %s is out of range %s in %s", def->name, shown,
                           clp__range_format(def, range, sizeof range), where->text);
    return CLP_OK;
}

static clp_status check_float(const clp__option_def *def, double v, const char *shown,
                              const clp__where *where, clp_error *err) {
    if (!isfinite(v))
        return CLP_FAIL_AT(err, CLP_OPTION_RANGE, where->source, -1, -1,
                           "option '%s' = %s is not a finite number in %s", def->name, shown,
                           where->text);
    if (!def->is_double && fabs(v) > FLT_MAX)
        return CLP_FAIL_AT(err, CLP_OPTION_RANGE, where->source, -1, -1,
                           "option '%s' = %s does not fit in a float in %s", def->name, shown,
                           where->text);
    return check_range(def, v, shown, where, err);
}

static clp_status set_enum(const clp__option_def *def, const char *name, const clp__where *where,
                           clp_option_value *out, clp_error *err) {
    clp__suggestion s = {.word = name};
    for (size_t k = 0; k < def->n_values; k++) {
        if (strcmp(def->values[k], name) == 0) {
            out->i = (long long)k;
            return CLP_OK;
        }
        clp__suggest_consider(&s, def->values[k]);
    }
    char allowed[160], hint[96];
    return CLP_FAIL_AT(err, CLP_OPTION_VALUE, where->source, -1, -1,
                       "option '%s' does not allow \"%s\" in %s (allowed: %s)%s", def->name, name,
                       where->text, enum_list(def, allowed, sizeof allowed),
                       clp__suggest_hint(&s, hint, sizeof hint));
}

clp_status clp__value_check(const clp__option_def *def, const clp_option_value *v,
                            const clp__where *where, clp_error *err) {
    char shown[40], allowed[160];
    switch (def->type) {
    case CLP_OPT_BOOL:
        return CLP_OK;
    case CLP_OPT_INT:
        snprintf(shown, sizeof shown, "%lld", v->i);
        return check_range(def, (double)v->i, shown, where, err);
    case CLP_OPT_FLOAT:
        return check_float(def, v->f, format_double(v->f, shown, sizeof shown), where, err);
    case CLP_OPT_ENUM:
        break;
    }
    if (v->i >= 0 && (size_t)v->i < def->n_values)
        return CLP_OK;
    return CLP_FAIL_AT(err, CLP_OPTION_VALUE, where->source, -1, -1,
                       "option '%s' has no value number %lld in %s (allowed: %s)", def->name, v->i,
                       where->text, enum_list(def, allowed, sizeof allowed));
}

char *clp__json_describe(const json_t *json, char *buf, size_t size) {
    char num[40];
    switch (json_typeof(json)) {
    case JSON_STRING:
        snprintf(buf, size, "string \"%.48s%s\"", json_string_value(json),
                 json_string_length(json) > 48 ? "..." : "");
        break;
    case JSON_INTEGER:
        snprintf(buf, size, "integer %" JSON_INTEGER_FORMAT, json_integer_value(json));
        break;
    case JSON_REAL:
        snprintf(buf, size, "real %s", format_double(json_real_value(json), num, sizeof num));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        snprintf(buf, size, "%s", json_is_true(json) ? "true" : "false");
        break;
    case JSON_NULL:
        snprintf(buf, size, "null");
        break;
    case JSON_OBJECT:
        snprintf(buf, size, "an object");
        break;
    case JSON_ARRAY:
        snprintf(buf, size, "an array");
        break;
    }
    return buf;
}

static clp_status type_error(const clp__option_def *def, const char *got, bool from_text,
                             const clp__where *where, clp_error *err) {
    char expected[200], allowed[160];
    switch (def->type) {
    case CLP_OPT_BOOL:
        snprintf(expected, sizeof expected, "a bool (%s)",
                 from_text ? "true/false, 1/0, on/off, yes/no" : "true or false");
        break;
    case CLP_OPT_INT:
        snprintf(expected, sizeof expected, "an int");
        break;
    case CLP_OPT_FLOAT:
        snprintf(expected, sizeof expected, "a number");
        break;
    case CLP_OPT_ENUM:
        snprintf(expected, sizeof expected, "a string (one of %s)",
                 enum_list(def, allowed, sizeof allowed));
        break;
    }
    return CLP_FAIL_AT(err, CLP_OPTION_TYPE, where->source, -1, -1,
                       "option '%s' expects %s, got %s in %s", def->name, expected, got,
                       where->text);
}

static bool is_whole(double x) {
    return x == floor(x) && x >= -0x1p63 && x < 0x1p63;
}

clp_status clp__value_from_json(const clp__option_def *def, const json_t *json,
                                const clp__where *where, clp_option_value *out, clp_error *err) {
    char got[96], shown[40];
    clp__json_describe(json, got, sizeof got);
    clp_option_value v = {.type = def->type};
    clp_status st = CLP_OK;
    switch (def->type) {
    case CLP_OPT_BOOL:
        if (!json_is_boolean(json))
            return type_error(def, got, false, where, err);
        v.b = json_is_true(json);
        break;
    case CLP_OPT_INT:
        /* A real with no fractional part (3.0) is still an int. */
        if (json_is_integer(json))
            v.i = json_integer_value(json);
        else if (json_is_real(json) && is_whole(json_real_value(json)))
            v.i = (long long)json_real_value(json);
        else
            return type_error(def, got, false, where, err);
        snprintf(shown, sizeof shown, "%lld", v.i);
        st = check_range(def, (double)v.i, shown, where, err);
        break;
    case CLP_OPT_FLOAT:
        if (!json_is_number(json))
            return type_error(def, got, false, where, err);
        v.f = json_number_value(json);
        st = check_float(def, v.f, format_double(v.f, shown, sizeof shown), where, err);
        break;
    case CLP_OPT_ENUM:
        if (!json_is_string(json))
            return type_error(def, got, false, where, err);
        st = set_enum(def, json_string_value(json), where, &v, err);
        break;
    }
    if (st == CLP_OK)
        *out = v;
    return st;
}

static bool parse_bool(const char *text, bool *out) {
    static const char *const words[][2] = {
        {"false", "true"}, {"0", "1"}, {"off", "on"}, {"no", "yes"}};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        for (int b = 0; b < 2; b++) {
            if (strcasecmp(text, words[k][b]) == 0) {
                *out = b;
                return true;
            }
        }
    }
    return false;
}

/* A digit, optionally after one sign: strtoll would also skip spaces. */
static bool starts_with_digit(const char *text) {
    if (*text == '+' || *text == '-')
        text++;
    return isdigit((unsigned char)*text);
}

clp_status clp__value_from_text(const clp__option_def *def, const char *text,
                                const clp__where *where, clp_option_value *out, clp_error *err) {
    char got[96];
    snprintf(got, sizeof got, "\"%.48s%s\"", text, strlen(text) > 48 ? "..." : "");
    clp_option_value v = {.type = def->type};
    char *end = NULL;
    clp_status st = CLP_OK;
    switch (def->type) {
    case CLP_OPT_BOOL:
        if (!parse_bool(text, &v.b))
            return type_error(def, got, true, where, err);
        break;
    case CLP_OPT_INT:
        errno = 0;
        v.i = strtoll(text, &end, 10);
        if (!starts_with_digit(text) || *end != '\0')
            return type_error(def, got, true, where, err);
        if (errno == ERANGE)
            return CLP_FAIL_AT(err, CLP_OPTION_RANGE, where->source, -1, -1,
                               "option '%s' = %s does not fit in a 64-bit int in %s", def->name,
                               text, where->text);
        st = check_range(def, (double)v.i, text, where, err);
        break;
    case CLP_OPT_FLOAT:
        v.f = strtod_c(text, &end);
        /* Words strtod knows ("nan", "inf") pass on to the finiteness check. */
        if (end == text || *end != '\0' || isspace((unsigned char)*text))
            return type_error(def, got, true, where, err);
        st = check_float(def, v.f, text, where, err);
        break;
    case CLP_OPT_ENUM:
        st = set_enum(def, text, where, &v, err);
        break;
    }
    if (st == CLP_OK)
        *out = v;
    return st;
}

bool clp__value_equal(const clp_option_value *a, const clp_option_value *b) {
    switch (a->type) {
    case CLP_OPT_BOOL:
        return a->b == b->b;
    case CLP_OPT_INT:
    case CLP_OPT_ENUM:
        return a->i == b->i;
    case CLP_OPT_FLOAT:
        return a->f == b->f;
    }
    return false;
}

void clp__suggest_consider(clp__suggestion *s, const char *candidate) {
    /* A difference in case only ("KBN" for "kbn") counts as one edit. */
    size_t d = strcasecmp(s->word, candidate) == 0 ? 1 : clp__edit_distance(s->word, candidate);
    if (!s->best || d < s->distance) {
        s->best = candidate;
        s->distance = d;
    }
}

char *clp__suggest_hint(const clp__suggestion *s, char *buf, size_t size) {
    size_t len = strlen(s->word);
    size_t limit = len / 3 > 2 ? len / 3 : 2;
    if (s->best && s->distance <= limit)
        snprintf(buf, size, "; did you mean '%s'?", s->best);
    else
        snprintf(buf, size, "%s", "");
    return buf;
}
