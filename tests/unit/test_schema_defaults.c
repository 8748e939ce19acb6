/* unit/schema-defaults: every "#ifndef DEFINE / #define DEFINE value" block under
 * $CLPART_DATA_DIR/cl/ that names an option's define must repeat the schema's default as it
 * is emitted (bool 0/1, enum index or its CLP_X_VALUE name, int, float by value). */
#include "test.h"
#include "options/options_schema.h"

#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>

static size_t n_checked;

/* The text after optional spaces and `directive` ("ifndef") following '#', or NULL. */
static const char *after_directive(const char *line, const char *directive) {
    while (isspace((unsigned char)*line))
        line++;
    if (*line++ != '#')
        return NULL;
    while (isspace((unsigned char)*line))
        line++;
    size_t n = strlen(directive);
    if (strncmp(line, directive, n) != 0 || !isspace((unsigned char)line[n]))
        return NULL;
    line += n;
    while (isspace((unsigned char)*line))
        line++;
    return line;
}

/* Copies the identifier at the start of text into out; returns its length. */
static size_t identifier(const char *text, char *out, size_t size) {
    size_t n = 0;
    while ((isalnum((unsigned char)text[n]) || text[n] == '_') && n + 1 < size) {
        out[n] = text[n];
        n++;
    }
    out[n] = '\0';
    return n;
}

/* The value text: comments cut, spaces and one pair of parentheses trimmed. */
static void value_text(const char *text, char *out, size_t size) {
    snprintf(out, size, "%s", text);
    out[strcspn(out, "\r\n")] = '\0';
    char *comment = strstr(out, "/*");
    if (comment)
        *comment = '\0';
    comment = strstr(out, "//");
    if (comment)
        *comment = '\0';
    size_t len = strlen(out);
    while (len && isspace((unsigned char)out[len - 1]))
        out[--len] = '\0';
    char *start = out;
    while (isspace((unsigned char)*start))
        start++;
    if (*start == '(' && len && out[len - 1] == ')') {
        out[--len] = '\0';
        start++;
    }
    memmove(out, start, strlen(start) + 1);
}

/* Whether `text` is the default of `def` as the prelude would emit it. */
static bool matches_default(const clp__option_def *def, const char *text) {
    const clp_option_value *v = &def->default_value;
    char *end;
    if (def->type == CLP_OPT_FLOAT) {
        double x = strtod(text, &end);
        if (end == text || strspn(end, "fF") != strlen(end) || strlen(end) > 1)
            return false;
        return def->is_double ? x == v->f : (float)x == (float)v->f;
    }
    if (def->type == CLP_OPT_ENUM && isalpha((unsigned char)*text)) {
        /* CLP_CORE_SUMMATION_KAHAN stands for the index of "kahan". */
        char name[256];
        snprintf(name, sizeof name, "%s_%s", def->define, def->values[v->i]);
        for (char *c = name; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        return strcmp(text, name) == 0;
    }
    long long x = strtoll(text, &end, 0);
    if (end == text || strspn(end, "uUlL") != strlen(end))
        return false;
    switch (def->type) {
    case CLP_OPT_BOOL:
        return x == (v->b ? 1 : 0);
    case CLP_OPT_INT:
    case CLP_OPT_ENUM:
        return x == v->i;
    case CLP_OPT_FLOAT:
        break;
    }
    return false;
}

/* Checks `#define name value` at path:line_no against the option whose define is `name`. */
static void check_define(const char *path, int line_no, const char *name, const char *rest,
                         const clp_schema *schema) {
    for (size_t i = 0; i < clp_schema_count(schema); i++) {
        const clp__option_def *def = clp__schema_option(schema, i);
        if (!def->define || strcmp(def->define, name) != 0)
            continue;
        char value[512], expected[64];
        value_text(rest, value, sizeof value);
        if (!matches_default(def, value))
            CLP_TEST_FAIL("%s:%d: #define %s %s, but the schema's default for %s is %s", path,
                          line_no, name, value, def->name,
                          clp__value_format(def, &def->default_value, expected, sizeof expected));
        n_checked++;
    }
}

static void check_file(const char *path, const clp_schema *schema) {
    FILE *f = fopen(path, "r");
    CLP_ASSERT(f != NULL);
    char line[1024], pending[256] = "", defined[256];
    int line_no = 0;
    while (fgets(line, sizeof line, f)) {
        line_no++;
        /* Blank lines keep a pending #ifndef; any other line ends it. */
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        const char *rest = after_directive(line, "define");
        if (pending[0] && rest) {
            size_t n = identifier(rest, defined, sizeof defined);
            if (strcmp(defined, pending) == 0)
                check_define(path, line_no, pending, rest + n, schema);
        }
        pending[0] = '\0';
        rest = after_directive(line, "ifndef");
        if (rest)
            identifier(rest, pending, sizeof pending);
    }
    fclose(f);
}

static void walk(const char *dir, const clp_schema *schema) {
    struct dirent **entries = NULL;
    int n = scandir(dir, &entries, NULL, alphasort);
    CLP_ASSERT(n >= 0);
    for (int k = 0; k < n; k++) {
        char path[4096];
        struct stat sb;
        int len = snprintf(path, sizeof path, "%s/%s", dir, entries[k]->d_name);
        CLP_ASSERT(len < (int)sizeof path);
        if (entries[k]->d_name[0] != '.' && stat(path, &sb) == 0) {
            if (S_ISDIR(sb.st_mode))
                walk(path, schema);
            else if (S_ISREG(sb.st_mode))
                check_file(path, schema);
        }
        free(entries[k]);
    }
    free(entries);
}

int main(void) {
    char path[1024];
    clp_error err = CLP_ERROR_INIT;
    clp_schema *schema = NULL;
    snprintf(path, sizeof path, "%s/options", clp_data_dir());
    CLP_ASSERT_OK(clp_schema_load(path, &schema, &err), &err);
    snprintf(path, sizeof path, "%s/cl", clp_data_dir());
    walk(path, schema);
    /* Not vacuous: cl/common/summation.cl repeats at least CLP_CORE_SUMMATION. */
    if (n_checked == 0)
        CLP_TEST_FAIL("no #ifndef/#define block under %s names an option's define", path);
    printf("%zu #ifndef defaults match the schema\n", n_checked);
    clp_schema_destroy(schema);
    return 0;
}
