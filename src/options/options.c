/* A run's option values: schema defaults, then the case file, then its presets, then
 * command-line assignments (later wins), each remembering its origin; the depends check. */
#include "options_private.h"

#include <stdlib.h>
#include <string.h>

struct clp_options {
    const clp_schema *schema;
    clp_option_value *values; /* one per schema option, in schema order */
    char *model;              /* the case's "model", or NULL */
    char *case_path;          /* err->source for values from the case or its presets */
};

static const char command_line[] = "command line";
static const char decided[] = "the run's decision";

clp_status clp_options_create(const clp_schema *schema, clp_options **out, clp_error *err) {
    clp_status st = CLP_OK;
    size_t n = clp_schema_count(schema);
    clp_options *opts = calloc(1, sizeof *opts);
    CLP_REQUIRE_ALLOC(opts, err);
    opts->schema = schema;
    opts->values = calloc(n ? n : 1, sizeof *opts->values);
    CLP_REQUIRE_ALLOC(opts->values, err);
    for (size_t i = 0; i < n; i++)
        opts->values[i] = clp__schema_option(schema, i)->default_value;
    *out = opts;
    return CLP_OK;
fail:
    clp_options_destroy(opts);
    return st;
}

clp_status clp_options_dup(const clp_options *opts, clp_options **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *copy = NULL;
    CLP_TRY(clp_options_create(opts->schema, &copy, err));
    memcpy(copy->values, opts->values, clp_schema_count(opts->schema) * sizeof *copy->values);
    copy->model = opts->model ? strdup(opts->model) : NULL;
    copy->case_path = opts->case_path ? strdup(opts->case_path) : NULL;
    CLP_REQUIRE(!opts->model || copy->model, err, CLP_NOMEM, "out of host memory");
    CLP_REQUIRE(!opts->case_path || copy->case_path, err, CLP_NOMEM, "out of host memory");
    *out = copy;
    return CLP_OK;
fail:
    clp_options_destroy(copy);
    return st;
}

void clp_options_destroy(clp_options *opts) {
    if (!opts)
        return;
    free(opts->values);
    free(opts->model);
    free(opts->case_path);
    free(opts);
}

const clp_schema *clp_options_schema(const clp_options *opts) {
    return opts->schema;
}

const char *clp_options_model(const clp_options *opts) {
    return opts->model;
}

const clp_option_value *clp__options_value_at(const clp_options *opts, size_t i) {
    return &opts->values[i];
}

/* Sets v's origin; an over-long text keeps its tail (file and preset names) behind "...". */
static void set_origin(clp_option_value *v, clp_origin_kind kind, const char *text) {
    size_t len = strlen(text), room = sizeof v->origin_text - 1;
    v->origin = kind;
    if (len <= room)
        memcpy(v->origin_text, text, len + 1);
    else
        snprintf(v->origin_text, sizeof v->origin_text, "...%s", text + len - (room - 3));
}

/* A part of the case file is not what it must be: CLP_CASE. */
static clp_status shape_error(const char *case_path, const char *what, const char *expected,
                              const json_t *got, clp_error *err) {
    char described[96];
    return CLP_FAIL_AT(err, CLP_CASE, case_path, -1, -1, "%s must be %s, got %s", what, expected,
                       clp__json_describe(got, described, sizeof described));
}

/* Checks every "name": value of `obj` (found at `json_path` in the case) and, when `values`
 * is not NULL, stores them there with the given origin. */
static clp_status apply_object(const clp_schema *schema, clp_option_value *values,
                               const json_t *obj, const char *case_path, const char *json_path,
                               clp_origin_kind origin, const char *origin_text, clp_error *err) {
    if (!json_is_object(obj))
        return shape_error(case_path, json_path, "an object of option values", obj, err);
    const char *name;
    json_t *json;
    json_object_foreach((json_t *)obj, name, json) {
        char text[320];
        snprintf(text, sizeof text, "%s.%s", json_path, name);
        clp__where where = {case_path, text};
        size_t i;
        clp_option_value v;
        clp_status st = clp__schema_lookup(schema, name, &where, &i, err);
        if (st == CLP_OK)
            st = clp__value_from_json(clp__schema_option(schema, i), json, &where, &v, err);
        if (st != CLP_OK)
            return st;
        if (values) {
            set_origin(&v, origin, origin_text);
            values[i] = v;
        }
    }
    return CLP_OK;
}

/* "fast, exact" */
static void preset_names(const json_t *presets, char *buf, size_t size) {
    size_t used = 0;
    const char *name;
    json_t *preset;
    buf[0] = '\0';
    json_object_foreach((json_t *)presets, name, preset) {
        if (used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name);
    }
}

/* Every preset is checked, the requested ones are applied to `values` in the order given. */
static clp_status apply_presets(const clp_schema *schema, clp_option_value *values,
                                const json_t *presets, const char *case_path,
                                const char *const *requested, size_t n_requested, clp_error *err) {
    clp_status st = CLP_OK;
    char json_path[160], origin_text[4200];
    if (presets && !json_is_object(presets))
        return shape_error(case_path, "presets", "an object of presets", presets, err);
    const char *name;
    json_t *preset;
    json_object_foreach((json_t *)presets, name, preset) {
        snprintf(json_path, sizeof json_path, "presets.%s", name);
        CLP_TRY(
            apply_object(schema, NULL, preset, case_path, json_path, CLP_ORIGIN_PRESET, "", err));
    }
    for (size_t k = 0; k < n_requested; k++) {
        preset = presets ? json_object_get(presets, requested[k]) : NULL;
        if (!preset) {
            char known[200];
            preset_names(presets, known, sizeof known);
            return CLP_FAIL_AT(err, CLP_USAGE, case_path, -1, -1,
                               "unknown preset \"%s\"; the case has %s%s", requested[k],
                               known[0] ? "the presets " : "no presets", known);
        }
        snprintf(json_path, sizeof json_path, "presets.%s", requested[k]);
        snprintf(origin_text, sizeof origin_text, "%s preset \"%s\"", case_path, requested[k]);
        CLP_TRY(apply_object(schema, values, preset, case_path, json_path, CLP_ORIGIN_PRESET,
                             origin_text, err));
    }
fail:
    return st;
}

clp_status clp_options_apply_case(clp_options *opts, const char *case_path,
                                  const char *const *presets, size_t n_presets, clp_error *err) {
    clp_status st = CLP_OK;
    size_t n = clp_schema_count(opts->schema);
    clp_option_value *staged = NULL;
    char *model = NULL, *path = NULL;
    json_t *root = NULL;
    CLP_TRY(clp__json_load(case_path, CLP_JSON, &root, err));
    const json_t *model_json = json_object_get(root, "model");
    if (!json_is_object(root)) {
        st = shape_error(case_path, "the top level", "an object", root, err);
        goto fail;
    }
    if (model_json && !json_is_string(model_json)) {
        st = shape_error(case_path, "\"model\"", "a string", model_json, err);
        goto fail;
    }
    /* Values are staged, so a failed case leaves opts as it was. */
    staged = malloc((n ? n : 1) * sizeof *staged);
    path = strdup(case_path);
    model = model_json ? strdup(json_string_value(model_json)) : NULL;
    CLP_REQUIRE_ALLOC(staged, err);
    CLP_REQUIRE_ALLOC(path, err);
    CLP_REQUIRE(!model_json || model, err, CLP_NOMEM, "out of host memory");
    memcpy(staged, opts->values, n * sizeof *staged);
    const json_t *options = json_object_get(root, "options");
    if (options)
        CLP_TRY(apply_object(opts->schema, staged, options, case_path, "options", CLP_ORIGIN_CASE,
                             case_path, err));
    CLP_TRY(apply_presets(opts->schema, staged, json_object_get(root, "presets"), case_path,
                          presets, n_presets, err));
    memcpy(opts->values, staged, n * sizeof *staged);
    free(opts->case_path);
    opts->case_path = path;
    path = NULL;
    if (model) {
        free(opts->model);
        opts->model = model;
        model = NULL;
    }
    CLP_DEBUG(CLP_LOG_OPTIONS, "applied case %s with %zu presets", case_path, n_presets);
fail:
    free(staged);
    free(model);
    free(path);
    json_decref(root);
    return st;
}

clp_status clp_options_apply_assignment(clp_options *opts, const char *assignment, clp_error *err) {
    char text[160];
    snprintf(text, sizeof text, "-s %s", assignment);
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return CLP_FAIL_AT(err, CLP_USAGE, command_line, -1, -1,
                           "%s: expected name=value, as in -s core.summation=kbn", text);
    char *name = strndup(assignment, (size_t)(eq - assignment));
    if (!name)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    clp__where where = {command_line, text};
    size_t i;
    clp_option_value v;
    clp_status st = clp__schema_lookup(opts->schema, name, &where, &i, err);
    free(name);
    if (st == CLP_OK)
        st = clp__value_from_text(clp__schema_option(opts->schema, i), eq + 1, &where, &v, err);
    if (st != CLP_OK)
        return st;
    set_origin(&v, CLP_ORIGIN_COMMAND_LINE, text);
    opts->values[i] = v;
    return CLP_OK;
}

clp_status clp__options_decide(clp_options *opts, const char *name, clp_option_value value,
                               clp_error *err) {
    clp__where where = {opts->case_path, decided};
    size_t i;
    clp_status st = clp__schema_lookup(opts->schema, name, &where, &i, err);
    if (st != CLP_OK)
        return st;
    const clp__option_def *def = clp__schema_option(opts->schema, i);
    if (value.type != def->type)
        return CLP_FAIL(err, CLP_USAGE, "a run decided option '%s' with a value of type %s, not %s",
                        def->name, clp__option_type_name(value.type),
                        clp__option_type_name(def->type));
    st = clp__value_check(def, &value, &where, err);
    if (st != CLP_OK)
        return st;
    set_origin(&value, CLP_ORIGIN_DECIDED, decided);
    opts->values[i] = value;
    return CLP_OK;
}

clp_status clp_options_tune(clp_options *opts, const char *name, const char *value,
                            const char *origin_text, bool *taken, clp_error *err) {
    clp__where where = {origin_text, name};
    size_t i;
    clp_option_value v;
    *taken = false;
    clp_status st = clp__schema_lookup(opts->schema, name, &where, &i, err);
    if (st != CLP_OK)
        return st;
    const clp__option_def *def = clp__schema_option(opts->schema, i);
    if (!def->performance)
        return CLP_FAIL_AT(err, CLP_OPTION_VALUE, origin_text, -1, -1,
                           "%s is not a performance option: a tuning database may not set it",
                           name);
    st = clp__value_from_text(def, value, &where, &v, err);
    if (st != CLP_OK || opts->values[i].origin != CLP_ORIGIN_DEFAULT)
        return st;
    set_origin(&v, CLP_ORIGIN_TUNING, origin_text);
    opts->values[i] = v;
    *taken = true;
    return CLP_OK;
}

bool clp_option_set_by_user(const clp_option_value *v) {
    return v->origin == CLP_ORIGIN_CASE || v->origin == CLP_ORIGIN_PRESET ||
           v->origin == CLP_ORIGIN_COMMAND_LINE;
}

/* "core.summation = kbn" for one condition. */
static void append_condition(clp_strbuf *sb, const clp_schema *schema, const clp__condition *c) {
    const clp__option_def *target = clp__schema_option(schema, c->option);
    char value[64];
    clp__sb_appendf(sb, "%s = %s", target->name,
                    clp__value_format(target, &c->value, value, sizeof value));
}

/* A value's origin for messages: the case's file name stands for its path (err->source),
 * followed by " preset \"NAME\"" for a preset. */
static const char *origin_label(const clp_options *opts, const clp_option_value *v, char *buf,
                                size_t size) {
    if ((v->origin != CLP_ORIGIN_CASE && v->origin != CLP_ORIGIN_PRESET) || !opts->case_path)
        return v->origin_text;
    const char *slash = strrchr(opts->case_path, '/');
    const char *preset = NULL; /* the last " preset \"", in case the path holds one too */
    if (v->origin == CLP_ORIGIN_PRESET)
        for (const char *p = strstr(v->origin_text, " preset \""); p;
             p = strstr(p + 1, " preset \""))
            preset = p;
    snprintf(buf, size, "%s%s", slash ? slash + 1 : opts->case_path, preset ? preset : "");
    return buf;
}

/* The dependency of option i is not met: say what it needs and what the others are. */
static clp_status depends_error(const clp_options *opts, size_t i, clp_error *err) {
    const clp__option_def *def = clp__schema_option(opts->schema, i);
    const clp_option_value *v = &opts->values[i];
    bool any = def->depends_kind == CLP_DEPENDS_ANY;
    char value[64], origin[sizeof v->origin_text];
    clp_strbuf sb = {0};
    clp__sb_appendf(&sb, "option '%s' = %s (from %s) needs ", def->name,
                    clp__value_format(def, v, value, sizeof value),
                    origin_label(opts, v, origin, sizeof origin));
    for (size_t k = 0; k < def->n_depends; k++) {
        clp__sb_append(&sb, k ? (any ? " or " : " and ") : "");
        append_condition(&sb, opts->schema, &def->depends[k]);
    }
    size_t unmet = 0;
    for (size_t k = 0; k < def->n_depends; k++) {
        const clp__condition *c = &def->depends[k];
        const clp_option_value *now = &opts->values[c->option];
        if (clp__value_equal(now, &c->value))
            continue;
        const clp__option_def *target = clp__schema_option(opts->schema, c->option);
        clp__sb_append(&sb, unmet++ ? " and " : ", but ");
        if (def->n_depends > 1)
            clp__sb_appendf(&sb, "%s ", target->name);
        clp__sb_appendf(&sb, "%s %s (from %s)", def->n_depends > 1 ? "is" : "it is",
                        clp__value_format(target, now, value, sizeof value),
                        origin_label(opts, now, origin, sizeof origin));
    }
    char *message = clp__sb_take(&sb);
    const char *source = v->origin == CLP_ORIGIN_COMMAND_LINE ? command_line : opts->case_path;
    clp_status st = CLP_FAIL_AT(err, CLP_OPTION_DEPENDS, source, -1, -1, "%s",
                                message ? message : "option dependency not met");
    free(message);
    return st;
}

clp_status clp_options_check(const clp_options *opts, clp_error *err) {
    size_t n = clp_schema_count(opts->schema);
    for (size_t i = 0; i < n; i++) {
        /* An option left at its default, or at a tuning database's value, may sit behind an
           unmet dependency: there it changes nothing. */
        const clp_origin_kind origin = opts->values[i].origin;
        if (origin == CLP_ORIGIN_DEFAULT || origin == CLP_ORIGIN_TUNING)
            continue;
        if (!clp__option_depends_met(opts, i))
            return depends_error(opts, i, err);
    }
    return CLP_OK;
}

bool clp__option_depends_met(const clp_options *opts, size_t i) {
    const clp__option_def *def = clp__schema_option(opts->schema, i);
    size_t met = 0;
    for (size_t k = 0; k < def->n_depends; k++)
        met += clp__value_equal(&opts->values[def->depends[k].option], &def->depends[k].value);
    return def->depends_kind == CLP_DEPENDS_NONE ||
           (def->depends_kind == CLP_DEPENDS_ANY ? met > 0 : met == def->n_depends);
}

const clp_option_value *clp_options_get(const clp_options *opts, const char *name) {
    long i = clp_schema_find(opts->schema, name);
    return i < 0 ? NULL : &opts->values[i];
}

/* The value of `name` when it exists with this type; else a warning and NULL. */
static const clp_option_value *typed(const clp_options *opts, const char *name,
                                     clp_option_type type) {
    const clp_option_value *v = clp_options_get(opts, name);
    if (v && v->type == type)
        return v;
    CLP_WARN(CLP_LOG_OPTIONS, "no %s option '%s' in the schema%s", clp__option_type_name(type),
             name, v ? " (it has another type)" : "");
    return NULL;
}

bool clp_options_bool(const clp_options *opts, const char *name) {
    const clp_option_value *v = typed(opts, name, CLP_OPT_BOOL);
    return v ? v->b : false;
}

long long clp_options_int(const clp_options *opts, const char *name) {
    const clp_option_value *v = typed(opts, name, CLP_OPT_INT);
    return v ? v->i : 0;
}

double clp_options_float(const clp_options *opts, const char *name) {
    const clp_option_value *v = typed(opts, name, CLP_OPT_FLOAT);
    return v ? v->f : 0.0;
}

const char *clp_options_enum(const clp_options *opts, const char *name) {
    const clp_option_value *v = typed(opts, name, CLP_OPT_ENUM);
    if (!v)
        return NULL;
    long i = clp_schema_find(opts->schema, name);
    return clp__schema_option(opts->schema, (size_t)i)->values[v->i];
}
