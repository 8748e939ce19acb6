/* The option schema: loads and validates every options/<module>.json (modules in file-name
 * order, options in file order) into clp__option_def records; lookups by name. */
#include "options_private.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct clp_schema {
    clp__option_def *defs;
    size_t count;
};

static const char *const option_keys[] = {
    "name",        "type",       "default",        "values",
    "min",         "max",        "ctype",          "define",
    "description", "flag",       "flag_extension", "depends_any",
    "depends_all", "performance"};
static const char *const module_keys[] = {"module", "description", "options"};

static clp_status schema_fail(clp_error *err, const char *path, const char *fmt, ...)
    CLP_PRINTF(3, 4);
static clp_status schema_fail(clp_error *err, const char *path, const char *fmt, ...) {
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return CLP_FAIL_AT(err, CLP_SCHEMA, path, -1, -1, "%s", msg);
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define DIGIT "0123456789"

/* Whether s is one character of `first` followed by characters of `rest` (locale-free). */
static bool is_name(const char *s, const char *first, const char *rest) {
    return *s && strchr(first, *s) && strspn(s + 1, rest) == strlen(s + 1);
}

static clp_status check_keys(const json_t *obj, const char *const *known, size_t n_known,
                             const char *path, const char *what, clp_error *err) {
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)obj, key, value) {
        clp__suggestion s = {.word = key};
        bool found = false;
        for (size_t k = 0; k < n_known && !found; k++) {
            found = strcmp(key, known[k]) == 0;
            clp__suggest_consider(&s, known[k]);
        }
        char hint[96];
        if (!found)
            return schema_fail(err, path, "%s: unknown key '%s'%s", what, key,
                               clp__suggest_hint(&s, hint, sizeof hint));
    }
    return CLP_OK;
}

/* A required (or optional, when `required` is false) string member; *out NULL when absent. */
static clp_status get_string(const json_t *obj, const char *key, bool required, const char *path,
                             const char *what, const char **out, clp_error *err) {
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v && !required)
        return CLP_OK;
    if (!v || !json_is_string(v) || json_string_length(v) == 0)
        return schema_fail(err, path, "%s: \"%s\" must be a non-empty string", what, key);
    *out = json_string_value(v);
    return CLP_OK;
}

static clp_status dup_string(const char *s, char **out, clp_error *err) {
    if (!s)
        return CLP_OK;
    *out = strdup(s);
    return *out ? CLP_OK : CLP_FAIL(err, CLP_NOMEM, "out of host memory");
}

static clp_status parse_type(const json_t *opt, const char *path, clp__option_def *def,
                             clp_error *err) {
    static const clp_option_type types[] = {CLP_OPT_BOOL, CLP_OPT_INT, CLP_OPT_FLOAT, CLP_OPT_ENUM};
    const char *type;
    clp_status st = get_string(opt, "type", true, path, def->name, &type, err);
    if (st != CLP_OK)
        return st;
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        if (strcmp(type, clp__option_type_name(types[k])) == 0) {
            def->type = types[k];
            return CLP_OK;
        }
    }
    return schema_fail(err, path, "%s: unknown type \"%s\" (known: bool, int, float, enum)",
                       def->name, type);
}

static clp_status parse_values(const json_t *opt, const char *path, clp__option_def *def,
                               clp_error *err) {
    const json_t *values = json_object_get(opt, "values");
    if (def->type != CLP_OPT_ENUM)
        return values ? schema_fail(err, path, "%s: \"values\" is only for enum options", def->name)
                      : CLP_OK;
    if (!json_is_array(values) || json_array_size(values) == 0)
        return schema_fail(err, path, "%s: an enum needs \"values\", a non-empty array", def->name);
    def->values = calloc(json_array_size(values), sizeof *def->values);
    if (!def->values)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    size_t k;
    const json_t *v;
    json_array_foreach(values, k, v) {
        const char *name = json_string_value(v);
        if (!name || !is_name(name, UPPER LOWER DIGIT "_", UPPER LOWER DIGIT "_"))
            return schema_fail(err, path,
                               "%s: values[%zu] must be a string of letters, digits "
                               "and _",
                               def->name, k);
        for (size_t j = 0; j < def->n_values; j++)
            if (strcmp(def->values[j], name) == 0)
                return schema_fail(err, path, "%s: value \"%s\" is listed twice", def->name, name);
        clp_status st = dup_string(name, &def->values[def->n_values], err);
        if (st != CLP_OK)
            return st;
        def->n_values++;
    }
    return CLP_OK;
}

static clp_status parse_bound(const json_t *opt, const char *key, const char *path,
                              clp__option_def *def, bool *has, double *out, clp_error *err) {
    const json_t *v = json_object_get(opt, key);
    *has = v != NULL;
    if (!v)
        return CLP_OK;
    if (def->type != CLP_OPT_INT && def->type != CLP_OPT_FLOAT)
        return schema_fail(err, path, "%s: \"%s\" is only for int and float options", def->name,
                           key);
    if (!json_is_number(v) || (def->type == CLP_OPT_INT && !json_is_integer(v)))
        return schema_fail(err, path, "%s: \"%s\" must be %s", def->name, key,
                           def->type == CLP_OPT_INT ? "an integer" : "a number");
    *out = json_number_value(v);
    return CLP_OK;
}

static clp_status parse_ctype(const json_t *opt, const char *path, clp__option_def *def,
                              clp_error *err) {
    const char *ctype;
    clp_status st = get_string(opt, "ctype", false, path, def->name, &ctype, err);
    if (st != CLP_OK || !ctype)
        return st;
    if (def->type != CLP_OPT_FLOAT)
        return schema_fail(err, path, "%s: \"ctype\" is only for float options", def->name);
    if (strcmp(ctype, "float") != 0 && strcmp(ctype, "double") != 0)
        return schema_fail(err, path, "%s: ctype \"%s\" must be \"float\" or \"double\"", def->name,
                           ctype);
    def->is_double = strcmp(ctype, "double") == 0;
    return CLP_OK;
}

/* Bools add the flag as it is; ints format it with exactly one %lld. */
static clp_status parse_flag(const json_t *opt, const char *path, clp__option_def *def,
                             clp_error *err) {
    const char *flag, *extension;
    clp_status st = get_string(opt, "flag", false, path, def->name, &flag, err);
    if (st == CLP_OK)
        st = get_string(opt, "flag_extension", false, path, def->name, &extension, err);
    if (st != CLP_OK)
        return st;
    if (extension && !flag)
        return schema_fail(err, path, "%s: \"flag_extension\" without \"flag\"", def->name);
    if (!flag)
        return CLP_OK;
    const char *conv = strchr(flag, '%');
    if (def->type == CLP_OPT_BOOL && conv)
        return schema_fail(err, path, "%s: a bool's flag \"%s\" takes no %% conversion", def->name,
                           flag);
    if (def->type == CLP_OPT_INT &&
        (!conv || strncmp(conv, "%lld", 4) != 0 || strchr(conv + 1, '%')))
        return schema_fail(err, path, "%s: an int's flag \"%s\" needs exactly one %%lld", def->name,
                           flag);
    if (def->type != CLP_OPT_BOOL && def->type != CLP_OPT_INT)
        return schema_fail(err, path, "%s: \"flag\" is only for bool and int options", def->name);
    st = dup_string(flag, &def->flag, err);
    return st == CLP_OK ? dup_string(extension, &def->flag_extension, err) : st;
}

/* Re-raises a value error found while reading the schema as CLP_SCHEMA. */
static clp_status value_in_schema(const clp__option_def *def, const json_t *json, const char *path,
                                  const char *json_path, clp_option_value *out, clp_error *err) {
    clp__where where = {path, json_path};
    clp_error sub = CLP_ERROR_INIT;
    if (clp__value_from_json(def, json, &where, out, &sub) != CLP_OK)
        return schema_fail(err, path, "%s", sub.message);
    return CLP_OK;
}

static clp_status parse_names(const json_t *opt, const clp_schema *schema, const char *module,
                              const char *path, size_t k, clp__option_def *def, clp_error *err) {
    char what[32];
    snprintf(what, sizeof what, "options[%zu]", k);
    const char *name, *define, *description;
    clp_status st = get_string(opt, "name", true, path, what, &name, err);
    if (st != CLP_OK)
        return st;
    size_t prefix = strlen(module);
    if (strncmp(name, module, prefix) != 0 || name[prefix] != '.' ||
        !is_name(name + prefix + 1, LOWER, LOWER DIGIT "_"))
        return schema_fail(err, path, "%s: name \"%s\" must be \"%s.<lower_snake_case>\"", what,
                           name, module);
    if (clp_schema_find(schema, name) >= 0)
        return schema_fail(err, path, "option '%s' is defined twice", name);
    CLP_TRY(dup_string(name, &def->name, err));
    CLP_TRY(dup_string(module, &def->module, err));
    /* without a define the option is the host's alone: no program depends on it */
    CLP_TRY(get_string(opt, "define", false, path, name, &define, err));
    if (define && !is_name(define, UPPER LOWER "_", UPPER LOWER DIGIT "_"))
        return schema_fail(err, path, "%s: define \"%s\" is not a C macro name", name, define);
    for (size_t i = 0; define && i < schema->count; i++)
        if (schema->defs[i].define && strcmp(schema->defs[i].define, define) == 0)
            return schema_fail(err, path, "%s: define %s is also used by '%s'", name, define,
                               schema->defs[i].name);
    CLP_TRY(dup_string(define, &def->define, err));
    CLP_TRY(get_string(opt, "description", true, path, name, &description, err));
    CLP_TRY(dup_string(description, &def->description, err));
fail:
    return st;
}

static clp_status parse_option(clp_schema *schema, const char *module, const json_t *opt,
                               const char *path, size_t k, clp_error *err) {
    clp_status st = CLP_OK;
    if (!json_is_object(opt))
        return schema_fail(err, path, "options[%zu] must be an object", k);
    /* Grown first, so clp_schema_destroy frees a half-filled definition too. */
    clp__option_def *defs = realloc(schema->defs, (schema->count + 1) * sizeof *defs);
    if (!defs)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    schema->defs = defs;
    clp__option_def *def = &defs[schema->count];
    memset(def, 0, sizeof *def);
    st = parse_names(opt, schema, module, path, k, def, err);
    schema->count++;
    if (st != CLP_OK)
        return st;
    CLP_TRY(check_keys(opt, option_keys, sizeof option_keys / sizeof option_keys[0], path,
                       def->name, err));
    CLP_TRY(parse_type(opt, path, def, err));
    CLP_TRY(parse_values(opt, path, def, err));
    CLP_TRY(parse_bound(opt, "min", path, def, &def->has_min, &def->min, err));
    CLP_TRY(parse_bound(opt, "max", path, def, &def->has_max, &def->max, err));
    char range[96];
    if (def->has_min && def->has_max && def->min > def->max)
        return schema_fail(err, path, "%s: min is above max in %s", def->name,
                           clp__range_format(def, range, sizeof range));
    CLP_TRY(parse_ctype(opt, path, def, err));
    CLP_TRY(parse_flag(opt, path, def, err));
    const json_t *performance = json_object_get(opt, "performance");
    if (performance &&
        (!json_is_boolean(performance) || def->type == CLP_OPT_INT || def->type == CLP_OPT_FLOAT))
        return schema_fail(err, path,
                           "%s: \"performance\" is true or false, on a bool or enum "
                           "option",
                           def->name);
    def->performance = json_is_true(performance);
    const json_t *dflt = json_object_get(opt, "default");
    if (!dflt)
        return schema_fail(err, path, "%s: \"default\" is missing", def->name);
    char json_path[160];
    snprintf(json_path, sizeof json_path, "%s.default", def->name);
    CLP_TRY(value_in_schema(def, dflt, path, json_path, &def->default_value, err));
    def->default_value.origin = CLP_ORIGIN_DEFAULT;
    snprintf(def->default_value.origin_text, sizeof def->default_value.origin_text, "default");
    if (json_object_get(opt, "depends_any") && json_object_get(opt, "depends_all"))
        return schema_fail(err, path, "%s: \"depends_any\" and \"depends_all\" are exclusive",
                           def->name);
fail:
    return st;
}

/* Loads one module file; the document stays alive in *doc for the depends pass. */
static clp_status load_module(clp_schema *schema, const char *path, const char *file_name,
                              json_t **doc, clp_error *err) {
    json_t *root;
    clp_status st = clp__json_load(path, CLP_SCHEMA, &root, err);
    if (st != CLP_OK)
        return st;
    *doc = root;
    if (!json_is_object(root))
        return schema_fail(err, path, "the top level must be an object");
    st = check_keys(root, module_keys, sizeof module_keys / sizeof module_keys[0], path, "module",
                    err);
    const char *module, *description;
    if (st == CLP_OK)
        st = get_string(root, "module", true, path, "module", &module, err);
    if (st == CLP_OK)
        st = get_string(root, "description", true, path, "module", &description, err);
    if (st != CLP_OK)
        return st;
    size_t len = strlen(module);
    if (!is_name(module, LOWER, LOWER DIGIT "_") || strncmp(file_name, module, len) != 0 ||
        strcmp(file_name + len, ".json") != 0)
        return schema_fail(err, path,
                           "module \"%s\" must be lower_snake_case and match the "
                           "file name \"%s\"",
                           module, file_name);
    const json_t *options = json_object_get(root, "options");
    if (!json_is_array(options))
        return schema_fail(err, path, "module %s: \"options\" must be an array", module);
    size_t k;
    const json_t *opt;
    json_array_foreach(options, k, opt) {
        st = parse_option(schema, module, opt, path, k, err);
        if (st != CLP_OK)
            return st;
    }
    return CLP_OK;
}

/* Resolves the depends_any/depends_all of one module's options, once every module is in. */
static clp_status resolve_depends(clp_schema *schema, const json_t *doc, size_t first,
                                  const char *path, clp_error *err) {
    size_t k;
    const json_t *opt;
    json_array_foreach(json_object_get(doc, "options"), k, opt) {
        clp__option_def *def = &schema->defs[first + k];
        const char *key = json_object_get(opt, "depends_any") ? "depends_any" : "depends_all";
        const json_t *list = json_object_get(opt, key);
        if (!list)
            continue;
        def->depends_kind = strcmp(key, "depends_any") == 0 ? CLP_DEPENDS_ANY : CLP_DEPENDS_ALL;
        size_t n = 0, j;
        const json_t *cond;
        json_array_foreach(list, j, cond) {
            if (!json_is_object(cond) || json_object_size(cond) == 0)
                return schema_fail(err, path, "%s: %s[%zu] must be a non-empty object", def->name,
                                   key, j);
            n += json_object_size(cond);
        }
        if (n == 0)
            return schema_fail(err, path, "%s: %s must be a non-empty array of objects", def->name,
                               key);
        def->depends = calloc(n, sizeof *def->depends);
        if (!def->depends)
            return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
        json_array_foreach(list, j, cond) {
            const char *name;
            json_t *value;
            json_object_foreach((json_t *)cond, name, value) {
                char json_path[160];
                snprintf(json_path, sizeof json_path, "%s.%s[%zu].%s", def->name, key, j, name);
                clp__where where = {path, json_path};
                clp_error sub = CLP_ERROR_INIT;
                clp__condition *c = &def->depends[def->n_depends];
                if (clp__schema_lookup(schema, name, &where, &c->option, &sub) != CLP_OK)
                    return schema_fail(err, path, "%s", sub.message);
                if (c->option == first + k)
                    return schema_fail(err, path, "%s: depends on itself", def->name);
                clp_status st = value_in_schema(&schema->defs[c->option], value, path, json_path,
                                                &c->value, err);
                if (st != CLP_OK)
                    return st;
                def->n_depends++;
            }
        }
    }
    return CLP_OK;
}

static int is_json_file(const struct dirent *e) {
    size_t len = strlen(e->d_name);
    return e->d_name[0] != '.' && len > 5 && strcmp(e->d_name + len - 5, ".json") == 0;
}

/* Byte order, not the locale's collation: the schema order must not depend on setlocale. */
static int by_name(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* One options/<module>.json while the schema loads. */
typedef struct module_file {
    char path[4096];
    json_t *doc;
    size_t first; /* schema index of its first option */
} module_file;

clp_status clp_schema_load(const char *options_dir, clp_schema **out, clp_error *err) {
    clp_status st = CLP_OK;
    struct dirent **files = NULL;
    module_file *modules = NULL;
    int n = scandir(options_dir, &files, is_json_file, by_name);
    clp_schema *schema = calloc(1, sizeof *schema);
    if (n < 0) {
        st = CLP_FAIL_AT(err, CLP_IO, options_dir, -1, -1,
                         "cannot read the option schema folder %s: %s", options_dir,
                         strerror(errno));
        goto fail;
    }
    CLP_REQUIRE_ALLOC(schema, err);
    if (n == 0) {
        st = schema_fail(err, options_dir, "no option schema files (*.json) in %s", options_dir);
        goto fail;
    }
    modules = calloc((size_t)n, sizeof *modules);
    CLP_REQUIRE_ALLOC(modules, err);
    for (int m = 0; m < n; m++) {
        int len = snprintf(modules[m].path, sizeof modules[m].path, "%s/%s", options_dir,
                           files[m]->d_name);
        CLP_REQUIRE(len < (int)sizeof modules[m].path, err, CLP_IO, "path too long: %s/%s",
                    options_dir, files[m]->d_name);
        modules[m].first = schema->count;
        CLP_TRY(load_module(schema, modules[m].path, files[m]->d_name, &modules[m].doc, err));
    }
    for (int m = 0; m < n; m++)
        CLP_TRY(resolve_depends(schema, modules[m].doc, modules[m].first, modules[m].path, err));
    CLP_DEBUG(CLP_LOG_OPTIONS, "option schema: %zu options from %d modules in %s", schema->count, n,
              options_dir);
    *out = schema;
    schema = NULL;
fail:
    for (int m = 0; modules && m < n; m++)
        json_decref(modules[m].doc);
    free(modules);
    for (int m = 0; m < n; m++)
        free(files[m]);
    free(files);
    clp_schema_destroy(schema);
    return st;
}

void clp_schema_destroy(clp_schema *schema) {
    if (!schema)
        return;
    for (size_t i = 0; i < schema->count; i++) {
        clp__option_def *def = &schema->defs[i];
        free(def->name);
        free(def->module);
        free(def->define);
        free(def->description);
        for (size_t k = 0; k < def->n_values; k++)
            free(def->values[k]);
        free(def->values);
        free(def->flag);
        free(def->flag_extension);
        free(def->depends);
    }
    free(schema->defs);
    free(schema);
}

size_t clp_schema_count(const clp_schema *schema) {
    return schema->count;
}

long clp_schema_find(const clp_schema *schema, const char *name) {
    for (size_t i = 0; i < schema->count; i++)
        if (strcmp(schema->defs[i].name, name) == 0)
            return (long)i;
    return -1;
}

const char *clp_schema_option_name(const clp_schema *schema, size_t i) {
    return i < schema->count ? schema->defs[i].name : NULL;
}

const clp__option_def *clp__schema_option(const clp_schema *schema, size_t i) {
    return i < schema->count ? &schema->defs[i] : NULL;
}

clp_status clp__schema_lookup(const clp_schema *schema, const char *name, const clp__where *where,
                              size_t *index, clp_error *err) {
    long found = clp_schema_find(schema, name);
    if (found >= 0) {
        *index = (size_t)found;
        return CLP_OK;
    }
    clp__suggestion s = {.word = name};
    for (size_t i = 0; i < schema->count; i++)
        clp__suggest_consider(&s, schema->defs[i].name);
    char hint[160];
    return CLP_FAIL_AT(err, CLP_OPTION_UNKNOWN, where->source, -1, -1,
                       "unknown option '%s' in %s%s", name, where->text,
                       clp__suggest_hint(&s, hint, sizeof hint));
}
