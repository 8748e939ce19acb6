/* clpart options [--json]: every option of the schema with its type, default, allowed values
 * or range, dependencies, define and description; a table, or a JSON array. No device needed. */
#include "cli.h"
#include "options/options_schema.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
    COL_NAME,
    COL_TYPE,
    COL_DEFAULT,
    COL_ALLOWED,
    COL_DEPENDS,
    COL_DEFINE,
    COL_DESCRIPTION,
    COL_COUNT
};
static const char *const headers[COL_COUNT] = {"NAME",    "TYPE",   "DEFAULT",    "ALLOWED",
                                               "DEPENDS", "DEFINE", "DESCRIPTION"};

/* "core.summation=kbn" conditions joined by " | " (any) or " & " (all); "-" when none. */
static void depends_text(const clp_schema *schema, const clp__option_def *def, char *buf,
                         size_t size) {
    size_t used = 0;
    snprintf(buf, size, "-");
    for (size_t k = 0; k < def->n_depends && used < size; k++) {
        const clp__option_def *target = clp__schema_option(schema, def->depends[k].option);
        char value[64];
        used += (size_t)snprintf(
            buf + used, size - used, "%s%s=%s",
            k ? (def->depends_kind == CLP_DEPENDS_ANY ? " | " : " & ") : "", target->name,
            clp__value_format(target, &def->depends[k].value, value, sizeof value));
    }
}

/* "naive|kahan|kbn", the range, or "-". */
static void allowed_text(const clp__option_def *def, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < def->n_values && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? "|" : "", def->values[k]);
    if (!def->n_values)
        clp__range_format(def, buf, size);
    if (!buf[0])
        snprintf(buf, size, "-");
}

static bool print_table(const clp_schema *schema) {
    size_t n = clp_schema_count(schema);
    char(*cells)[COL_COUNT - 1][160] = calloc(n ? n : 1, sizeof *cells);
    if (!cells)
        return false;
    int width[COL_COUNT];
    for (int c = 0; c < COL_COUNT; c++)
        width[c] = (int)strlen(headers[c]);
    for (size_t i = 0; i < n; i++) {
        const clp__option_def *def = clp__schema_option(schema, i);
        snprintf(cells[i][COL_NAME], sizeof cells[i][COL_NAME], "%s", def->name);
        snprintf(cells[i][COL_TYPE], sizeof cells[i][COL_TYPE], "%s",
                 clp__option_type_name(def->type));
        clp__value_format(def, &def->default_value, cells[i][COL_DEFAULT],
                          sizeof cells[i][COL_DEFAULT]);
        allowed_text(def, cells[i][COL_ALLOWED], sizeof cells[i][COL_ALLOWED]);
        depends_text(schema, def, cells[i][COL_DEPENDS], sizeof cells[i][COL_DEPENDS]);
        snprintf(cells[i][COL_DEFINE], sizeof cells[i][COL_DEFINE], "%s",
                 def->define ? def->define : "(host only)");
        for (int c = 0; c < COL_DESCRIPTION; c++) {
            int len = (int)strlen(cells[i][c]);
            width[c] = len > width[c] ? len : width[c];
        }
    }
    for (int c = 0; c < COL_DESCRIPTION; c++)
        printf("%-*s  ", width[c], headers[c]);
    printf("%s\n", headers[COL_DESCRIPTION]);
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < COL_DESCRIPTION; c++)
            printf("%-*s  ", width[c], cells[i][c]);
        printf("%s\n", clp__schema_option(schema, i)->description);
    }
    free(cells);
    return true;
}

static json_t *value_json(const clp__option_def *def, const clp_option_value *v) {
    switch (def->type) {
    case CLP_OPT_BOOL:
        return json_boolean(v->b);
    case CLP_OPT_INT:
        return json_integer(v->i);
    case CLP_OPT_FLOAT:
        return json_real(v->f);
    case CLP_OPT_ENUM:
        return json_string(def->values[v->i]);
    }
    return NULL;
}

/* {"all": [{"core.summation": "kbn"}]} or null. */
static json_t *depends_json(const clp_schema *schema, const clp__option_def *def) {
    if (def->depends_kind == CLP_DEPENDS_NONE)
        return json_null();
    json_t *list = json_array();
    for (size_t k = 0; k < def->n_depends; k++) {
        const clp__option_def *target = clp__schema_option(schema, def->depends[k].option);
        json_array_append_new(
            list, json_pack("{s:o}", target->name, value_json(target, &def->depends[k].value)));
    }
    return json_pack("{s:o}", def->depends_kind == CLP_DEPENDS_ANY ? "any" : "all", list);
}

static json_t *option_json(const clp_schema *schema, const clp__option_def *def) {
    json_t *obj = json_pack(
        "{s:s, s:s, s:o, s:o, s:o, s:s}", "name", def->name, "type",
        clp__option_type_name(def->type), "default", value_json(def, &def->default_value),
        "depends", depends_json(schema, def), "define",
        def->define ? json_string(def->define) : json_null(), "description", def->description);
    if (def->type == CLP_OPT_FLOAT)
        json_object_set_new(obj, "ctype", json_string(def->is_double ? "double" : "float"));
    if (def->n_values) {
        json_t *values = json_array();
        for (size_t k = 0; k < def->n_values; k++)
            json_array_append_new(values, json_string(def->values[k]));
        json_object_set_new(obj, "values", values);
    }
    if (def->has_min)
        json_object_set_new(obj, "min",
                            def->type == CLP_OPT_INT ? json_integer((json_int_t)def->min)
                                                     : json_real(def->min));
    if (def->has_max)
        json_object_set_new(obj, "max",
                            def->type == CLP_OPT_INT ? json_integer((json_int_t)def->max)
                                                     : json_real(def->max));
    if (def->flag)
        json_object_set_new(obj, "flag", json_string(def->flag));
    if (def->performance)
        json_object_set_new(obj, "performance", json_true());
    if (def->flag_extension)
        json_object_set_new(obj, "flag_extension", json_string(def->flag_extension));
    return obj;
}

static bool print_json(const clp_schema *schema) {
    json_t *list = json_array();
    bool ok = list != NULL;
    for (size_t i = 0; ok && i < clp_schema_count(schema); i++)
        ok = json_array_append_new(list, option_json(schema, clp__schema_option(schema, i))) == 0;
    ok = ok && json_dumpf(list, stdout, JSON_INDENT(2)) == 0;
    json_decref(list);
    if (ok)
        putchar('\n');
    return ok;
}

int cmd_options(int argc, char **argv, const clp_cli *cli) {
    (void)cli;
    bool as_json;
    const int usage = cli_json_flag(argc, argv, &as_json);
    if (usage != CLP_EXIT_OK)
        return usage;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    clp_error err = CLP_ERROR_INIT;
    clp_schema *schema = NULL;
    if (clp_schema_load(dir, &schema, &err) != CLP_OK)
        return cli_report(&err);
    int rc = CLP_EXIT_OK;
    if (!(as_json ? print_json(schema) : print_table(schema))) {
        CLP_FAIL(&err, CLP_IO, "cannot write the option list (out of memory or stdout failed)");
        rc = cli_report(&err);
    }
    clp_schema_destroy(schema);
    return rc;
}
