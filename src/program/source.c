/* Source assembly: a generated prelude (banner, version, one #define per option of the
 * model's modules in schema order, one per constant), then each cl/ file behind a
 * #line directive so build errors point at the real file and line. */
#include "options/options_schema.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool module_wanted(const clp_program_spec *spec, const char *module) {
    for (size_t i = 0; i < spec->n_modules; i++)
        if (strcmp(spec->modules[i], module) == 0)
            return true;
    return false;
}

/* CLP_CORE_SUMMATION + "kbn" -> CLP_CORE_SUMMATION_KBN */
static void enum_value_macro(clp_strbuf *sb, const char *define, const char *value) {
    clp__sb_appendf(sb, "%s_", define);
    for (const char *c = value; *c; c++) {
        char up = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
        clp__sb_append_n(sb, &up, 1);
    }
}

static void emit_option(clp_strbuf *sb, const clp__option_def *def, const clp_option_value *v) {
    char num[64];
    clp__sb_appendf(sb, "/* %s: %s */\n", def->name, def->description);
    switch (def->type) {
    case CLP_OPT_BOOL:
        clp__sb_appendf(sb, "#define %s %d\n", def->define, v->b ? 1 : 0);
        break;
    case CLP_OPT_INT:
        clp__sb_appendf(sb, "#define %s %lld\n", def->define, v->i);
        break;
    case CLP_OPT_FLOAT:
        clp__sb_appendf(sb, "#define %s %s\n", def->define,
                        def->is_double ? clp_format_double(v->f, num)
                                       : clp_format_float((float)v->f, num));
        break;
    case CLP_OPT_ENUM:
        for (size_t k = 0; k < def->n_values; k++) {
            clp__sb_append(sb, "#define ");
            enum_value_macro(sb, def->define, def->values[k]);
            clp__sb_appendf(sb, " %zu\n", k);
        }
        clp__sb_appendf(sb, "#define %s %lld /* %s */\n", def->define, v->i, def->values[v->i]);
        break;
    }
}

/* Whether constant c is read from the kernel argument rather than inlined. */
static bool passed_as_argument(const clp_options *opts, const clp_constant *c) {
    return c->argument && c->type == CLP_CONST_FLOAT && !clp__core_inline_constants_of(opts);
}

size_t clp_constant_arguments(const clp_options *opts, const clp_program_spec *spec,
                              cl_float *values) {
    size_t k = 0;
    for (size_t i = 0; i < spec->n_constants; i++)
        if (passed_as_argument(opts, &spec->constants[i]))
            values[k++] = (cl_float)spec->constants[i].value;
    return k;
}

static void emit_constant(clp_strbuf *sb, const clp_constant *c, long argument_index) {
    char num[64];
    if (argument_index >= 0) {
        /* no value here: the source, and so the cached binary, serves every value */
        clp__sb_appendf(sb, "#define %s (clp_constants[%ld])\n", c->name, argument_index);
        return;
    }
    switch (c->type) {
    case CLP_CONST_INT:
        clp__sb_appendf(sb, "#define %s %lld\n", c->name, c->int_value);
        break;
    case CLP_CONST_FLOAT:
        clp__sb_appendf(sb, "#define %s %s\n", c->name, clp_format_float((float)c->value, num));
        break;
    case CLP_CONST_DOUBLE:
        clp__sb_appendf(sb, "#define %s %s\n", c->name, clp_format_double(c->value, num));
        break;
    }
}

clp_status clp_source_assemble(const clp_options *opts, const char *data_dir,
                               const clp_program_spec *spec, char **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_strbuf sb = {0};
    char *file_text = NULL;
    const clp_schema *schema = clp_options_schema(opts);

    clp__sb_appendf(&sb,
                    "/* clpart %s: device program for model \"%s\", generated from the "
                    "options below and the cl/ files. */\n",
                    clp_version(), spec->model);
    clp__sb_appendf(&sb, "#define CLP_VERSION \"%s\"\n", clp_version());
    clp__sb_append(&sb, "\n/* ---- Options */\n");
    for (size_t i = 0; i < clp_schema_count(schema); i++) {
        const clp__option_def *def = clp__schema_option(schema, i);
        if (def->define && module_wanted(spec, def->module))
            emit_option(&sb, def, clp__options_value_at(opts, i));
    }
    clp__sb_append(&sb, "\n/* ---- Constants */\n");
    long arguments = 0;
    for (size_t i = 0; i < spec->n_constants; i++) {
        const clp_constant *c = &spec->constants[i];
        emit_constant(&sb, c, passed_as_argument(opts, c) ? arguments++ : -1);
    }

    for (size_t i = 0; i < spec->n_files; i++) {
        char path[1024];
        size_t size;
        snprintf(path, sizeof path, "%s/cl/%s", data_dir, spec->cl_files[i]);
        CLP_TRY(clp__file_read(path, &file_text, &size, err));
        clp__sb_appendf(&sb, "\n#line 1 \"cl/%s\"\n", spec->cl_files[i]);
        clp__sb_append_n(&sb, file_text, size);
        if (size == 0 || file_text[size - 1] != '\n')
            clp__sb_append(&sb, "\n");
        free(file_text);
        file_text = NULL;
    }
    char *text = clp__sb_take(&sb);
    CLP_REQUIRE_ALLOC(text, err);
    *out = text;
    return CLP_OK;
fail:
    free(file_text);
    clp__sb_free(&sb);
    return st;
}

clp_status clp__source_redefine(const char *source, const char *name, long long value, char **out,
                                clp_error *err) {
    clp_status st = CLP_OK;
    char key[128];
    snprintf(key, sizeof key, "\n#define %s ", name);
    const char *prelude_end = strstr(source, "\n#line ");
    const char *at = strstr(source, key);
    CLP_REQUIRE(at && (!prelude_end || at < prelude_end), err, CLP_USAGE,
                "the program's prelude defines no %s to change", name);
    const char *rest = strchr(at + 1, '\n');
    clp_strbuf sb = {0};
    clp__sb_append_n(&sb, source, (size_t)(at - source));
    clp__sb_appendf(&sb, "%s%lld", key, value);
    clp__sb_append(&sb, rest ? rest : "");
    *out = clp__sb_take(&sb);
    CLP_REQUIRE_ALLOC(*out, err);
fail:
    return st;
}

bool clp__source_names_file(const char *source, const char *file) {
    const size_t len = strlen(file);
    for (const char *p = source; p && *p;) {
        const char *name = strncmp(p, "#line ", 6) == 0 ? strchr(p, '"') : NULL;
        const char *eol = strchr(p, '\n');
        if (name && (!eol || name < eol) && strncmp(name + 1, file, len) == 0 &&
            name[1 + len] == '"')
            return true;
        p = eol ? eol + 1 : NULL;
    }
    return false;
}

/* Maps a line of the whole assembled source to the cl/ file and line named by the last
 * #line directive before it: some drivers (NVIDIA) ignore #line and count from the top.
 * Lines of the generated prelude stay as they are, under a name that says so. */
void clp__source_map_line(const char *source, int line, char file[256], int *mapped) {
    int current = 1, directive_at = 0, base = 0;
    snprintf(file, 256, "generated prelude (see 'clpart source')");
    *mapped = line;
    for (const char *p = source; p && *p && current < line; current++) {
        char name[256];
        int n;
        if (sscanf(p, "#line %d \"%255[^\"]\"", &n, name) == 2) {
            base = n;
            directive_at = current;
            snprintf(file, 256, "%s", name);
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    if (directive_at)
        *mapped = base + (line - directive_at - 1);
}
