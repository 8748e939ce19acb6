/* The space that clpart tune searches (see tune_space.h). */
#include "tune_space.h"
#include "models/models.h"
#include "options/options_schema.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_COMBINATIONS = 1 << 20 };

typedef struct builder {
    tune_space *sp;
    const cli_case *c;
    const clp_model *model;
    const clp_device_info *dev;
    long index[TUNE_MAX_AXES]; /* each axis's option in the schema */
    int base[TUNE_MAX_AXES];   /* the case's own value on each axis */
    json_t *seen;              /* the option sets so far, as text: which combinations are one */
    size_t room;
} builder;

/* Applies "NAME=VALUE" to `opts` as -s would. */
static clp_status assign(clp_options *opts, const char *name, const char *value, clp_error *err) {
    clp_status st = CLP_OK;
    clp_strbuf sb = {0};
    clp__sb_appendf(&sb, "%s=%s", name, value);
    char *text = clp__sb_take(&sb);
    CLP_REQUIRE_ALLOC(text, err);
    st = clp_options_apply_assignment(opts, text, err);
    free(text);
fail:
    return st;
}

/* Axis `name` (schema index i) with `values` as -s takes them, each as the options write it
 * back ("1" for a bool is "true"), and the case's own value among them. */
static clp_status add_axis(builder *b, long i, char *const *values, size_t n, clp_error *err) {
    clp_status st = CLP_OK;
    tune_space *sp = b->sp;
    const clp__option_def *def = clp__schema_option(b->c->schema, (size_t)i);
    clp_options *scratch = NULL;
    CLP_REQUIRE(sp->n_axes < TUNE_MAX_AXES, err, CLP_USAGE,
                "clpart tune searches at most %d options", TUNE_MAX_AXES);
    tune_axis *axis = &sp->axes[sp->n_axes];
    CLP_REQUIRE_ALLOC(axis->name = strdup(def->name), err);
    b->index[sp->n_axes++] = i;
    char own[64], text[64];
    clp__value_format(def, clp__options_value_at(b->c->options, (size_t)i), own, sizeof own);
    CLP_TRY(clp_options_dup(b->c->options, &scratch, err));
    for (size_t k = 0; k <= n; k++) {
        if (k < n) {
            CLP_TRY(assign(scratch, def->name, values[k], err));
            clp__value_format(def, clp__options_value_at(scratch, (size_t)i), text, sizeof text);
        } else
            snprintf(text, sizeof text, "%s", own); /* the case's value, where no list had it */
        bool known = false;
        for (size_t v = 0; v < axis->n; v++)
            known |= !strcmp(axis->values[v], text);
        if (known)
            continue;
        CLP_REQUIRE(axis->n < TUNE_MAX_VALUES, err, CLP_USAGE,
                    "clpart tune takes at most %d values of %s", TUNE_MAX_VALUES, def->name);
        CLP_REQUIRE_ALLOC(axis->values[axis->n] = strdup(text), err);
        axis->n++;
    }
    for (size_t v = 0; v < axis->n; v++)
        if (!strcmp(axis->values[v], own))
            b->base[sp->n_axes - 1] = (int)v;
fail:
    clp_options_destroy(scratch);
    return st;
}

/* Whether the schema's performance option i belongs to one of the model's modules. */
static bool of_model(const clp_model *model, const clp__option_def *def) {
    for (size_t m = 0; model->modules[m]; m++)
        if (!strcmp(def->module, model->modules[m]))
            return true;
    return false;
}

/* Every value of performance option i but the one under which the run chooses its program. */
static clp_status add_performance_axis(builder *b, long i, clp_error *err) {
    const clp__option_def *def = clp__schema_option(b->c->schema, (size_t)i);
    static char *const booleans[] = {"false", "true"};
    char *values[TUNE_MAX_VALUES];
    size_t n = 0;
    char *const *all = def->type == CLP_OPT_BOOL ? booleans : def->values;
    const size_t count = def->type == CLP_OPT_BOOL ? 2 : def->n_values;
    const bool chooser =
        b->model->run_chooses_option && !strcmp(def->name, b->model->run_chooses_option);
    for (size_t k = 0; k < count && n < TUNE_MAX_VALUES; k++)
        if (!chooser || strcmp(all[k], b->model->run_chooses_value))
            values[n++] = all[k];
    return add_axis(b, i, values, n, err);
}

/* Combination `at` as an option set (new): its values other than the case's; an axis whose
 * dependency it leaves unmet is left out, and set to -1 in `at`. */
static clp_status canonical(builder *b, int *at, json_t **out, clp_error *err) {
    clp_status st = CLP_OK;
    tune_space *sp = b->sp;
    clp_options *opts = NULL;
    json_t *set = json_object();
    CLP_REQUIRE_ALLOC(set, err);
    CLP_TRY(clp_options_dup(b->c->options, &opts, err));
    for (size_t a = 0; a < sp->n_axes; a++)
        CLP_TRY(assign(opts, sp->axes[a].name, sp->axes[a].values[at[a]], err));
    for (size_t a = 0; a < sp->n_axes; a++) {
        if (!clp__option_depends_met(opts, (size_t)b->index[a]))
            at[a] = -1; /* it would change nothing */
        else if (at[a] != b->base[a])
            json_object_set_new(set, sp->axes[a].name, json_string(sp->axes[a].values[at[a]]));
    }
    *out = set;
    set = NULL;
fail:
    clp_options_destroy(opts);
    json_decref(set);
    return st;
}

/* Whether the options and the model's source take option set `set` beside the case's. */
static clp_status accepted(builder *b, const json_t *set, bool *taken, clp_error *why,
                           clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *opts = NULL;
    CLP_TRY(clp_options_dup(b->c->options, &opts, err));
    const char *name;
    json_t *value;
    *taken = true;
    json_object_foreach((json_t *)set, name, value) *taken =
        *taken && assign(opts, name, json_string_value(value), why) == CLP_OK;
    *taken = *taken && clp_options_check(opts, why) == CLP_OK;
    if (*taken && !clp_model_run_chooses(b->model, opts)) {
        char *source = NULL;
        *taken = b->model->source(opts, b->dev, b->c->case_path, &source, why) == CLP_OK;
        free(source);
    }
fail:
    clp_options_destroy(opts);
    return st;
}

/* Adds combination `wanted` unless it is one already there or refused (`why` says why). */
static clp_status add_combination(builder *b, const int *wanted, clp_error *why, clp_error *err) {
    clp_status st = CLP_OK;
    tune_space *sp = b->sp;
    int at[TUNE_MAX_AXES];
    memcpy(at, wanted, sp->n_axes * sizeof *at);
    json_t *set = NULL;
    char *text = NULL;
    CLP_TRY(canonical(b, at, &set, err));
    text = json_dumps(set, JSON_COMPACT | JSON_SORT_KEYS);
    CLP_REQUIRE_ALLOC(text, err);
    if (json_object_get(b->seen, text))
        goto fail;
    json_object_set_new(b->seen, text, json_true());
    bool taken;
    CLP_TRY(accepted(b, set, &taken, why, err));
    if (!taken) {
        sp->refused++;
        goto fail;
    }
    if (sp->n == b->room) {
        b->room = b->room ? 2 * b->room : 64;
        int *at_grown = realloc(sp->at, b->room * (sp->n_axes ? sp->n_axes : 1) * sizeof *at_grown);
        if (at_grown)
            sp->at = at_grown;
        json_t **grown = realloc(sp->options, b->room * sizeof *grown);
        if (grown)
            sp->options = grown;
        CLP_REQUIRE(at_grown && grown, err, CLP_NOMEM, "out of host memory");
    }
    memcpy(sp->at + sp->n * sp->n_axes, at, sp->n_axes * sizeof *at);
    sp->options[sp->n++] = set;
    set = NULL;
fail:
    free(text);
    json_decref(set);
    return st;
}

clp_status tune_space_build(tune_space *sp, const cli_case *c, const tune_list *lists,
                            size_t n_lists, const clp_device_info *dev, clp_error *err) {
    clp_status st = CLP_OK;
    *sp = (tune_space){0};
    builder b = {.sp = sp, .c = c, .dev = dev, .seen = json_object()};
    CLP_REQUIRE_ALLOC(b.seen, err);
    CLP_TRY(clp_model_find(clp_options_model(c->options), &b.model, err));
    CLP_REQUIRE(b.model->run && b.model->source, err, CLP_CASE, "model %s is run by %s, not tuned",
                b.model->name, b.model->runner);
    for (size_t l = 0; l < n_lists; l++) {
        const long i = clp_schema_find(c->schema, lists[l].name);
        CLP_REQUIRE(i >= 0, err, CLP_OPTION_UNKNOWN, "-s %s: no such option", lists[l].name);
        CLP_TRY(cli_option_applies(c->schema, b.model->name, lists[l].name, err));
        CLP_TRY(add_axis(&b, i, lists[l].values, lists[l].n, err));
    }
    for (size_t i = 0; i < clp_schema_count(c->schema); i++) {
        const clp__option_def *def = clp__schema_option(c->schema, i);
        bool listed = false;
        for (size_t l = 0; l < n_lists; l++)
            listed |= !strcmp(lists[l].name, def->name);
        if (def->performance && of_model(b.model, def) && !listed &&
            (def->type == CLP_OPT_ENUM || def->type == CLP_OPT_BOOL) &&
            !clp_option_set_by_user(clp__options_value_at(c->options, i)))
            CLP_TRY(add_performance_axis(&b, (long)i, err));
    }
    size_t product = 1;
    for (size_t a = 0; a < sp->n_axes; a++) {
        product *= sp->axes[a].n;
        CLP_REQUIRE(product <= MAX_COMBINATIONS, err, CLP_USAGE,
                    "the space holds more than %d combinations: give fewer values with -s",
                    MAX_COMBINATIONS);
    }
    clp_error why = CLP_ERROR_INIT;
    CLP_TRY(add_combination(&b, b.base, &why, err)); /* the case as it is, first */
    CLP_REQUIRE(sp->n == 1, err, CLP_CASE, "%s: the case as it is cannot be tuned: %s",
                c->case_path, why.message);
    for (size_t p = 0; p < product; p++) {
        int at[TUNE_MAX_AXES];
        size_t rest = p;
        for (size_t a = 0; a < sp->n_axes; a++) {
            at[a] = (int)(rest % sp->axes[a].n);
            rest /= sp->axes[a].n;
        }
        clp_error refusal = CLP_ERROR_INIT;
        CLP_TRY(add_combination(&b, at, &refusal, err));
    }
fail:
    json_decref(b.seen);
    if (st != CLP_OK)
        tune_space_free(sp);
    return st;
}

json_t *tune_space_json(const tune_space *sp) {
    json_t *axes = json_array(), *combinations = json_array();
    for (size_t a = 0; a < sp->n_axes; a++) {
        json_t *values = json_array();
        for (size_t v = 0; v < sp->axes[a].n; v++)
            json_array_append_new(values, json_string(sp->axes[a].values[v]));
        json_array_append_new(axes,
                              json_pack("{s:s, s:o}", "name", sp->axes[a].name, "values", values));
    }
    for (size_t k = 0; k < sp->n; k++) {
        json_t *at = json_array();
        for (size_t a = 0; a < sp->n_axes; a++)
            json_array_append_new(at, json_integer(sp->at[k * sp->n_axes + a]));
        json_array_append_new(combinations,
                              json_pack("{s:o, s:O}", "at", at, "options", sp->options[k]));
    }
    return json_pack("{s:o, s:o, s:I}", "axes", axes, "combinations", combinations, "refused",
                     (json_int_t)sp->refused);
}

clp_status tune_space_from_json(const json_t *j, const char *where, tune_space *sp,
                                clp_error *err) {
    clp_status st = CLP_OK;
    *sp = (tune_space){0};
    const json_t *axes = json_object_get(j, "axes"), *list = json_object_get(j, "combinations");
    CLP_REQUIRE(json_is_array(axes) && json_array_size(axes) <= TUNE_MAX_AXES &&
                    json_is_array(list) && json_array_size(list) > 0,
                err, CLP_CASE,
                "%s: a space holds an array \"axes\" (at most %d) and a non-empty array "
                "\"combinations\"",
                where, TUNE_MAX_AXES);
    size_t a, k;
    const json_t *axis, *entry;
    json_array_foreach(axes, a, axis) {
        const json_t *name = json_object_get(axis, "name"),
                     *values = json_object_get(axis, "values");
        CLP_REQUIRE(json_is_string(name) && json_is_array(values) &&
                        json_array_size(values) <= TUNE_MAX_VALUES,
                    err, CLP_CASE, "%s: axis %zu lacks its name or values", where, a + 1);
        CLP_REQUIRE_ALLOC(sp->axes[a].name = strdup(json_string_value(name)), err);
        sp->n_axes = a + 1;
        for (size_t v = 0; v < json_array_size(values); v++) {
            const char *text = json_string_value(json_array_get(values, v));
            CLP_REQUIRE(text, err, CLP_CASE, "%s: axis %s: a value is not a string", where,
                        sp->axes[a].name);
            CLP_REQUIRE_ALLOC(sp->axes[a].values[v] = strdup(text), err);
            sp->axes[a].n = v + 1;
        }
    }
    const size_t n = json_array_size(list);
    sp->at = malloc(n * (sp->n_axes ? sp->n_axes : 1) * sizeof *sp->at);
    sp->options = calloc(n, sizeof *sp->options);
    CLP_REQUIRE(sp->at && sp->options, err, CLP_NOMEM, "out of host memory");
    json_array_foreach(list, k, entry) {
        const json_t *at = json_object_get(entry, "at"),
                     *options = json_object_get(entry, "options");
        CLP_REQUIRE(json_is_array(at) && json_array_size(at) == sp->n_axes &&
                        json_is_object(options),
                    err, CLP_CASE, "%s: combination %zu lacks its values or options", where, k + 1);
        for (a = 0; a < sp->n_axes; a++) {
            const json_int_t v = json_integer_value(json_array_get(at, a));
            CLP_REQUIRE(
                json_is_integer(json_array_get(at, a)) && v >= -1 && v < (json_int_t)sp->axes[a].n,
                err, CLP_CASE, "%s: combination %zu: a value is out of its axis", where, k + 1);
            sp->at[k * sp->n_axes + a] = (int)v;
        }
        sp->options[k] = json_incref((json_t *)options);
        sp->n = k + 1;
    }
    sp->refused = (size_t)json_integer_value(json_object_get(j, "refused"));
fail:
    if (st != CLP_OK)
        tune_space_free(sp);
    return st;
}

void tune_space_grid(const tune_space *sp, tune_grid *grid) {
    *grid = (tune_grid){.n = sp->n, .n_axes = sp->n_axes, .at = sp->at};
    for (size_t a = 0; a < sp->n_axes; a++)
        grid->n_values[a] = sp->axes[a].n;
}

void tune_space_free(tune_space *sp) {
    for (size_t a = 0; a < sp->n_axes; a++) {
        free(sp->axes[a].name);
        for (size_t v = 0; v < sp->axes[a].n; v++)
            free(sp->axes[a].values[v]);
    }
    for (size_t k = 0; k < sp->n; k++)
        json_decref(sp->options[k]);
    free(sp->options);
    free(sp->at);
    *sp = (tune_space){0};
}
