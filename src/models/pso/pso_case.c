/* A particle swarm optimisation case file: the "pso" section (the swarm, its coefficients, the
 * search box, the user objective's code) and "output_every". The JSON stays in this file;
 * errors name the file and the key, and keys this file does not know are refused. Options
 * are read by options.c. */
#include "run/case_json.h"
#include "models/pso/pso_case.h"

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The top-level keys of a PSO case: options.c reads the first three. */
static const char *const top_keys[] = {"model", "options", "presets", "pso", "output_every"};
/* The keys of the "pso" section. */
static const char *const pso_keys[] = {"particles", "dimensions", "iterations", "inertia",
                                       "cognitive", "social",     "bounds",     "vmax",
                                       "seed",      "objective"};
/* The keys of "pso.objective": exactly one of them. */
static const char *const code_keys[] = {"expression", "function"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* CLP_REQUIRE for the case file: a CLP_CASE error whose source is the file at `path`. */
#define REQUIRE_CASE(cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            st = CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, __VA_ARGS__);                            \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Bounds and speeds become float constants on the device; this keeps upper - lower finite. */
static const double largest_bound = 1e30;

/* "bounds": [lower, upper], finite, lower < upper also in single precision. */
static clp_status read_bounds(json_t *pso, clp__pso_params *p, const char *path, clp_error *err) {
    json_t *b = json_object_get(pso, "bounds");
    if (!b)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'pso.bounds' is required: [lower, upper], the search box of "
                           "every component",
                           path);
    const bool pair = json_is_array(b) && json_array_size(b) == 2 &&
                      json_is_number(json_array_get(b, 0)) && json_is_number(json_array_get(b, 1));
    const double lower = pair ? json_number_value(json_array_get(b, 0)) : NAN;
    const double upper = pair ? json_number_value(json_array_get(b, 1)) : NAN;
    if (!(fabs(lower) <= largest_bound && fabs(upper) <= largest_bound))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'pso.bounds' must be an array of 2 numbers [lower, upper] of "
                           "magnitude at most %g",
                           path, largest_bound);
    if (!((float)lower < (float)upper))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'pso.bounds' is [%g, %g]; the lower bound must be below the upper "
                           "one (also in single precision, as the device holds them)",
                           path, lower, upper);
    p->lower = lower;
    p->upper = upper;
    return CLP_OK;
}

/* ---- Where the user code stands in the file. A small scanner over text that Jansson has
 * already accepted: it only tracks strings, nesting and line breaks. */

typedef struct cursor {
    const char *p;
    int line;
} cursor;

static void skip_space(cursor *c) {
    for (; *c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'; c->p++)
        c->line += *c->p == '\n';
}

/* A string at the cursor, which stands on its opening quote; its raw text (escapes as written)
 * in [*start, *start + *len). */
static bool skip_string(cursor *c, const char **start, size_t *len) {
    if (*c->p != '"')
        return false;
    const char *s = ++c->p;
    for (; *c->p && *c->p != '"'; c->p++)
        if (*c->p == '\\' && c->p[1])
            c->p++;
    if (!*c->p)
        return false;
    if (start) {
        *start = s;
        *len = (size_t)(c->p - s);
    }
    c->p++;
    return true;
}

static bool skip_value(cursor *c);

/* An object or array at the cursor, which stands on its opening bracket. */
static bool skip_container(cursor *c) {
    const char close = *c->p == '{' ? '}' : ']';
    const bool object = close == '}';
    c->p++;
    skip_space(c);
    if (*c->p == close) {
        c->p++;
        return true;
    }
    for (;;) {
        if (object) {
            if (!skip_string(c, NULL, NULL))
                return false;
            skip_space(c);
            if (*c->p++ != ':')
                return false;
        }
        if (!skip_value(c))
            return false;
        skip_space(c);
        if (*c->p == close) {
            c->p++;
            return true;
        }
        if (*c->p++ != ',')
            return false;
        skip_space(c);
    }
}

static bool skip_value(cursor *c) {
    skip_space(c);
    if (*c->p == '"')
        return skip_string(c, NULL, NULL);
    if (*c->p == '{' || *c->p == '[')
        return skip_container(c);
    const char *start = c->p; /* a number, true, false or null */
    while (*c->p && !strchr(",}] \t\r\n", *c->p))
        c->p++;
    return c->p > start;
}

/* Moves the cursor to the value of `key` in the object at the cursor; false if it has none. */
static bool find_key(cursor *c, const char *key) {
    skip_space(c);
    if (*c->p != '{')
        return false;
    c->p++;
    for (;;) {
        skip_space(c);
        const char *name;
        size_t len;
        if (!skip_string(c, &name, &len))
            return false; /* "}" of an object without the key, or not JSON */
        skip_space(c);
        if (*c->p++ != ':')
            return false;
        skip_space(c);
        if (len == strlen(key) && strncmp(name, key, len) == 0)
            return true;
        if (!skip_value(c))
            return false;
        skip_space(c);
        if (*c->p++ != ',')
            return false;
    }
}

int clp__pso_code_line(const char *text, const char *key) {
    cursor c = {text, 1};
    if (!find_key(&c, "pso") || !find_key(&c, "objective") || !find_key(&c, key))
        return -1;
    if (*c.p == '[') {
        c.p++;
        skip_space(&c);
    }
    return *c.p == '"' ? c.line : -1;
}

/* ---- The user objective */

/* "pso.objective": exactly one of "expression" (a string) or "function" (a string or an
 * array of strings, its lines), joined into c->code. */
static clp_status read_code(json_t *code, const char *text, clp__pso_case *c, const char *path,
                            clp_error *err) {
    clp_status st = CLP_OK;
    clp_strbuf sb = {0};
    if (!json_is_object(code))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'pso.objective' must be an object with one key, \"expression\" "
                           "or \"function\"",
                           path);
    CLP_TRY(clp__case_known_keys(code, "pso.objective.", code_keys, COUNT(code_keys), path, err));
    json_t *expression = json_object_get(code, "expression");
    json_t *function = json_object_get(code, "function");
    REQUIRE_CASE(!expression || !function,
                 "%s: 'pso.objective' holds both \"expression\" and \"function\"; give one", path);
    REQUIRE_CASE(expression || function,
                 "%s: 'pso.objective' needs \"expression\" (an OpenCL C float expression) or "
                 "\"function\" (the lines of a function body that returns a float)",
                 path);
    if (expression) {
        const char *s = json_is_string(expression) ? json_string_value(expression) : NULL;
        REQUIRE_CASE(s && *s,
                     "%s: 'pso.objective.expression' must be a non-empty string: an OpenCL C "
                     "float expression of X(0) to X(PSO_DIM - 1)",
                     path);
        clp__sb_append(&sb, s);
    } else if (json_is_string(function)) {
        clp__sb_append(&sb, json_string_value(function));
    } else {
        REQUIRE_CASE(json_is_array(function) && json_array_size(function) > 0,
                     "%s: 'pso.objective.function' must be a string or a non-empty array of "
                     "strings (the lines of a function body that returns a float)",
                     path);
        size_t i;
        json_t *line;
        json_array_foreach(function, i, line) {
            REQUIRE_CASE(json_is_string(line),
                         "%s: 'pso.objective.function[%zu]' must be a string (one line of code)",
                         path, i);
            if (i)
                clp__sb_append(&sb, "\n");
            clp__sb_append(&sb, json_string_value(line));
        }
    }
    c->code = clp__sb_take(&sb);
    CLP_REQUIRE_ALLOC(c->code, err);
    REQUIRE_CASE(*c->code, "%s: 'pso.objective.function' is empty; it must return a float", path);
    /* bounded: a 750 KB expression overflowed the stack of PoCL's compiler */
    REQUIRE_CASE(strlen(c->code) <= CLP__PSO_MOST_USER_CODE,
                 "%s: 'pso.objective' holds %zu bytes of code, more than the %d it may", path,
                 strlen(c->code), CLP__PSO_MOST_USER_CODE);
    /* no directive: #include would compile a host file into the program */
    REQUIRE_CASE(!strchr(c->code, '#'),
                 "%s: 'pso.objective' holds '#': preprocessor directives (#include, #define) "
                 "are not taken in user code",
                 path);
    /* the swarm's arrays only through X(i), which keeps i within the dimensions */
    REQUIRE_CASE(!strstr(c->code, "pso_"),
                 "%s: 'pso.objective' names clpart's own 'pso_' identifiers: read the position "
                 "through X(0) to X(PSO_DIM - 1)",
                 path);
    c->params.user_code = c->code;
    c->params.user_is_expression = expression != NULL;
    c->params.user_origin = path;
    const int line = clp__pso_code_line(text, expression ? "expression" : "function");
    c->params.user_line = line > 0 ? line : 1;
fail:
    clp__sb_free(&sb);
    return st;
}

/* ---- The case */

static clp_status read_case(json_t *root, const char *text, clp__pso_objective objective,
                            clp__pso_case *c, const char *path, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__case_known_keys(root, "", top_keys, COUNT(top_keys), path, err));
    json_t *pso = json_object_get(root, "pso");
    REQUIRE_CASE(json_is_object(pso), "%s: a particle swarm case needs an object 'pso'", path);
    CLP_TRY(clp__case_known_keys(pso, "pso.", pso_keys, COUNT(pso_keys), path, err));
    long long particles = 0, dimensions = 0, iterations = 0, seed = 1, every = 100;
    CLP_TRY(clp__case_integer(pso, "particles", "pso.particles", 1, 2147483647LL, true, NULL,
                              &particles, path, err));
    CLP_TRY(clp__case_integer(pso, "dimensions", "pso.dimensions", 1, 100000, true, NULL,
                              &dimensions, path, err));
    CLP_TRY(clp__case_integer(pso, "iterations", "pso.iterations", 1, CLP__PSO_MAX_ITERATIONS, true,
                              NULL, &iterations, path, err));
    clp__pso_params *p = &c->params;
    p->particles = (size_t)particles;
    p->dim = (int)dimensions;
    /* Clerc and Kennedy's constriction: chi = 0.7298 and chi * 2.05 */
    p->inertia = 0.7298;
    p->cognitive = p->social = 1.49618;
    CLP_TRY(clp__case_number(pso, "inertia", "pso.inertia", 0, false, 1, false, &p->inertia, path,
                             err));
    CLP_TRY(clp__case_number(pso, "cognitive", "pso.cognitive", 0, false, 10, false, &p->cognitive,
                             path, err));
    CLP_TRY(
        clp__case_number(pso, "social", "pso.social", 0, false, 10, false, &p->social, path, err));
    CLP_TRY(read_bounds(pso, p, path, err));
    p->vmax = p->upper - p->lower;
    CLP_TRY(clp__case_number(pso, "vmax", "pso.vmax", 0, true, largest_bound, false, &p->vmax, path,
                             err));
    CLP_TRY(clp__case_integer(pso, "seed", "pso.seed", 0, INT64_MAX, false,
                              " (JSON integers are signed 64-bit here, so not up to 2^64 - 1)",
                              &seed, path, err));
    p->seed = (uint64_t)seed;
    CLP_TRY(clp__case_integer(root, "output_every", "output_every", 1, CLP__PSO_MAX_ITERATIONS,
                              false, NULL, &every, path, err));
    c->iterations = (uint64_t)iterations;
    c->output_every = (uint64_t)every;
    REQUIRE_CASE(objective != CLP_PSO_OBJECTIVE_ROSENBROCK || p->dim >= 2,
                 "%s: 'pso.dimensions' is 1, and the option pso.objective=rosenbrock needs at "
                 "least 2: its terms couple neighbouring components, so in 1 dimension it is 0 "
                 "everywhere",
                 path);
    json_t *code = json_object_get(pso, "objective");
    const bool user = objective == CLP_PSO_OBJECTIVE_USER;
    REQUIRE_CASE(!code || user,
                 "%s: 'pso.objective' is user code, which only the option pso.objective=user "
                 "takes, and the option is \"%s\": set it to \"user\" in the case's options (or "
                 "-s pso.objective=user), or remove the key",
                 path, clp__pso_objective_name(objective));
    REQUIRE_CASE(code || !user,
                 "%s: the option pso.objective=user needs the objective in the case: \"pso\": "
                 "{\"objective\": {\"expression\": \"...\"}} or {\"function\": [\"...\", ...]}",
                 path);
    if (code)
        CLP_TRY(read_code(code, text, c, path, err));
fail:
    return st;
}

clp_status clp__pso_case_load(const char *path, clp__pso_objective objective, clp__pso_case *out,
                              clp_error *err) {
    char *text;
    json_t *root;
    clp_status st = clp__case_parse(path, &text, &root, err);
    if (st != CLP_OK)
        return st;
    clp__pso_case c = {0};
    st = read_case(root, text, objective, &c, path, err);
    json_decref(root);
    free(text);
    if (st != CLP_OK) {
        clp__pso_case_free(&c);
        return st;
    }
    *out = c;
    return CLP_OK;
}

void clp__pso_case_free(clp__pso_case *c) {
    free(c->code);
    *c = (clp__pso_case){0};
}
