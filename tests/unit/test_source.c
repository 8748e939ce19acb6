/* Source assembly: option and constant defines in the prelude, each cl/ file verbatim behind
 * its #line directive, byte-identical output for equal inputs under any locale. */
#include "internal.h"
#include "test.h"

#include <locale.h>
#include <stdlib.h>

static const char *data_dir(void) {
    return getenv("CLPART_DATA_DIR");
}

static char *assemble(const clp_options *opts, const clp_program_spec *spec) {
    clp_error err = CLP_ERROR_INIT;
    char *text = NULL;
    CLP_ASSERT_OK(clp_source_assemble(opts, data_dir(), spec, &text, &err), &err);
    return text;
}

static char *read_text(const char *relative) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", data_dir(), relative);
    FILE *f = fopen(path, "rb");
    CLP_ASSERT(f != NULL);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

int main(void) {
    clp_error err = CLP_ERROR_INIT;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/options", data_dir());
    clp_schema *schema;
    clp_options *opts;
    CLP_ASSERT_OK(clp_schema_load(dir, &schema, &err), &err);
    CLP_ASSERT_OK(clp_options_create(schema, &opts, &err), &err);

    const char *modules[] = {"core", "selftest"};
    const char *files[] = {"common/summation.cl", "selftest/selftest.cl"};
    const clp_constant constants[] = {
        {"CLP_TEST_INT", CLP_CONST_INT, 0, 42, false},
        {"CLP_TEST_FLOAT", CLP_CONST_FLOAT, 0.1, 0, false},
        {"CLP_TEST_DOUBLE", CLP_CONST_DOUBLE, 0.1, 0, false},
    };
    clp_program_spec spec = {"test", modules, 2, files, 2, constants, 3};
    char *a = assemble(opts, &spec);

    /* Options: enums as integers plus named values, floats as exact hex literals. */
    CLP_ASSERT_CONTAINS(a, "\n#define CLP_CORE_SUMMATION_NAIVE 0\n");
    CLP_ASSERT_CONTAINS(a, "\n#define CLP_CORE_SUMMATION_KBN 2\n");
    CLP_ASSERT_CONTAINS(a, "\n#define CLP_CORE_SUMMATION 1 /* kahan */\n");
    CLP_ASSERT_CONTAINS(a, "\n#define CLP_CORE_FAST_MATH 0\n");
    CLP_ASSERT_CONTAINS(a, "\n#define CLP_SELFTEST_N 65536\n");
    const char *alpha = strstr(a, "#define CLP_SELFTEST_ALPHA ");
    CLP_ASSERT(alpha != NULL);
    CLP_ASSERT(strtof(alpha + strlen("#define CLP_SELFTEST_ALPHA "), NULL) ==
               (float)0.3333333333333333);
    /* Constants. */
    CLP_ASSERT_CONTAINS(a, "\n#define CLP_TEST_INT 42\n");
    CLP_ASSERT_CONTAINS(a, "\n#define CLP_TEST_FLOAT 0x1.99999ap-4f /* 0.100000001 */\n");
    CLP_ASSERT_CONTAINS(
        a, "\n#define CLP_TEST_DOUBLE 0x1.999999999999ap-4 /* 0.10000000000000001 */\n");
    /* Each file verbatim after its #line, in order. */
    for (size_t i = 0; i < 2; i++) {
        char marker[128];
        snprintf(marker, sizeof marker, "\n#line 1 \"cl/%s\"\n", files[i]);
        char *at = strstr(a, marker);
        CLP_ASSERT(at != NULL);
        char rel[256];
        snprintf(rel, sizeof rel, "cl/%s", files[i]);
        char *text = read_text(rel);
        CLP_ASSERT(strncmp(at + strlen(marker), text, strlen(text)) == 0);
        free(text);
    }
    CLP_ASSERT(strstr(a, "cl/common/summation.cl") < strstr(a, "cl/selftest/selftest.cl"));
    CLP_ASSERT(a[strlen(a) - 1] == '\n');

    /* Whole-source line numbers map back to cl/ file and line (drivers that ignore #line). */
    const char *needle = "__kernel void selftest_series";
    int absolute = 1;
    for (const char *c = a; c < strstr(a, needle); c++)
        absolute += *c == '\n';
    char *selftest_text = read_text("cl/selftest/selftest.cl");
    int in_file = 1;
    for (const char *c = selftest_text; c < strstr(selftest_text, needle); c++)
        in_file += *c == '\n';
    free(selftest_text);
    char file[256];
    int mapped;
    clp__source_map_line(a, absolute, file, &mapped);
    CLP_ASSERT_STR_EQ(file, "cl/selftest/selftest.cl");
    CLP_ASSERT_EQ(mapped, in_file);
    clp__source_map_line(a, 3, file, &mapped);
    CLP_ASSERT_CONTAINS(file, "generated prelude");
    CLP_ASSERT_EQ(mapped, 3);

    /* Deterministic, and locale-independent. */
    char *b = assemble(opts, &spec);
    CLP_ASSERT_STR_EQ(a, b);
    free(b);
    if (setlocale(LC_ALL, "de_DE.UTF-8") || setlocale(LC_ALL, "de_DE.utf8")) {
        b = assemble(opts, &spec);
        CLP_ASSERT_STR_EQ(a, b);
        free(b);
        setlocale(LC_ALL, "C");
    }

    /* One option changed: exactly its line changes. */
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.summation=kbn", &err), &err);
    b = assemble(opts, &spec);
    CLP_ASSERT_CONTAINS(b, "\n#define CLP_CORE_SUMMATION 2 /* kbn */\n");
    CLP_ASSERT_EQ(strlen(a), strlen(b) - strlen(" /* kbn */") + strlen(" /* kahan */"));
    free(b);

    /* A constant set anew: its line alone changes, and only in the prelude. */
    CLP_ASSERT_OK(clp__source_redefine(a, "CLP_TEST_INT", 7, &b, &err), &err);
    char *expected = strdup(a);
    char *line = strstr(expected, "\n#define CLP_TEST_INT 42\n");
    memmove(line + strlen("\n#define CLP_TEST_INT 7"), line + strlen("\n#define CLP_TEST_INT 42"),
            strlen(line + strlen("\n#define CLP_TEST_INT 42")) + 1);
    line[strlen("\n#define CLP_TEST_INT ")] = '7';
    CLP_ASSERT_STR_EQ(b, expected);
    free(expected);
    free(b);
    CLP_ASSERT_STATUS(clp__source_redefine(a, "CLP_NO_SUCH_CONSTANT", 1, &b, &err), CLP_USAGE,
                      &err);
    CLP_ASSERT_CONTAINS(err.message, "CLP_NO_SUCH_CONSTANT");
    clp_error_clear(&err);
    /* a define of a cl/ file is none of the prelude's */
    CLP_ASSERT_CONTAINS(a, "\n#define CLP_SUMMATION_COMPENSATED ");
    CLP_ASSERT_STATUS(clp__source_redefine(a, "CLP_SUMMATION_COMPENSATED", 1, &b, &err), CLP_USAGE,
                      &err);
    clp_error_clear(&err);

    /* Only the spec's modules are emitted. */
    clp_program_spec core_only = {"test", modules, 1, files, 1, NULL, 0};
    b = assemble(opts, &core_only);
    CLP_ASSERT(strstr(b, "CLP_SELFTEST_N") == NULL);
    CLP_ASSERT(strstr(b, "#line 1 \"cl/selftest/selftest.cl\"") == NULL);
    free(b);

    /* A missing file names its path. */
    const char *missing[] = {"common/no_such_file.cl"};
    clp_program_spec bad = {"test", modules, 1, missing, 1, NULL, 0};
    char *none = NULL;
    CLP_ASSERT_STATUS(clp_source_assemble(opts, data_dir(), &bad, &none, &err), CLP_IO, &err);
    CLP_ASSERT_CONTAINS(err.message, "cl/common/no_such_file.cl");
    CLP_ASSERT(none == NULL);

    free(a);
    clp_options_destroy(opts);
    clp_schema_destroy(schema);
    return 0;
}
