/* unit/options: the real schema's defaults; case, preset and command-line precedence with
 * origins; every value type; depends checks; a run's typed decisions; locale independence;
 * "did you mean". */
#include "option_enums.h"
#include "test.h"

#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_dir[] = "/tmp/clp-test-options-XXXXXX";

/* Writes `text` to tmp_dir/name; path receives the file's path. */
static const char *write_tmp(const char *name, const char *text, char path[512]) {
    snprintf(path, 512, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "w");
    CLP_ASSERT(f != NULL);
    fputs(text, f);
    CLP_ASSERT(fclose(f) == 0);
    return path;
}

static clp_options *fresh(const clp_schema *schema) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = NULL;
    CLP_ASSERT_OK(clp_options_create(schema, &opts, &err), &err);
    return opts;
}

/* Applies one assignment to fresh options and returns the status; err gets the error. */
static clp_status assign(const clp_schema *schema, const char *text, clp_error *err) {
    clp_options *opts = fresh(schema);
    clp_error_clear(err);
    clp_status st = clp_options_apply_assignment(opts, text, err);
    clp_options_destroy(opts);
    return st;
}

static void test_defaults(const clp_schema *schema) {
    clp_options *opts = fresh(schema);
    CLP_ASSERT(clp_schema_find(schema, "core.summation") >= 0);
    CLP_ASSERT_EQ(clp_schema_find(schema, "core.nonexistent"), -1);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "core.summation"), "kahan");
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "core.kbn_form"), "branch");
    CLP_ASSERT(!clp_options_bool(opts, "core.fast_math"));
    CLP_ASSERT(!clp_options_bool(opts, "core.mad"));
    CLP_ASSERT(clp_options_bool(opts, "core.denorms_are_zero"));
    CLP_ASSERT_EQ(clp_options_int(opts, "core.nv_maxrregcount"), 0);
    CLP_ASSERT_EQ(clp_options_int(opts, "selftest.n"), 65536);
    CLP_ASSERT_EQ(clp_options_int(opts, "selftest.terms"), 4096);
    CLP_ASSERT(clp_options_float(opts, "selftest.alpha") == 0.3333333333333333);
    CLP_ASSERT(clp_options_model(opts) == NULL);
    CLP_ASSERT(clp_options_get(opts, "core.nonexistent") == NULL);
    /* Every option starts at its default, and the schema names round-trip. */
    for (size_t i = 0; i < clp_schema_count(schema); i++) {
        const char *name = clp_schema_option_name(schema, i);
        CLP_ASSERT_EQ(clp_schema_find(schema, name), (long)i);
        const clp_option_value *v = clp_options_get(opts, name);
        CLP_ASSERT(v != NULL);
        CLP_ASSERT_EQ(v->origin, CLP_ORIGIN_DEFAULT);
        CLP_ASSERT_STR_EQ(v->origin_text, "default");
    }
    /* The index of an enum value is its position in the schema's list. */
    CLP_ASSERT_EQ(clp_options_get(opts, "core.summation")->i, 1);
    clp_options_destroy(opts);
}

static void test_precedence(const clp_schema *schema) {
    char path[512], origin[600];
    write_tmp(
        "case.json",
        "{ \"model\": \"selftest\", \"domain\": {\"anything\": [1, 2]},\n"
        "  \"options\": { \"core.summation\": \"kbn\", \"selftest.n\": 1024,\n"
        "               \"selftest.terms\": 32.0, \"selftest.alpha\": 2 },\n"
        "  \"presets\": { \"fast\": { \"core.mad\": true, \"selftest.n\": 2048 },\n"
        "               \"exact\": { \"core.mad\": false, \"core.kbn_form\": \"select\" } } }\n",
        path);
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = fresh(schema);
    const char *presets[] = {"fast", "exact"};
    CLP_ASSERT_OK(clp_options_apply_case(opts, path, presets, 2, &err), &err);
    CLP_ASSERT_STR_EQ(clp_options_model(opts), "selftest");

    const clp_option_value *v = clp_options_get(opts, "core.summation");
    CLP_ASSERT_EQ(v->i, 2);
    CLP_ASSERT_EQ(v->origin, CLP_ORIGIN_CASE);
    CLP_ASSERT_STR_EQ(v->origin_text, path);
    CLP_ASSERT_EQ(clp_options_int(opts, "selftest.terms"), 32);   /* 32.0 is an int */
    CLP_ASSERT(clp_options_float(opts, "selftest.alpha") == 2.0); /* an integer is a number */

    /* fast set n and mad; exact, applied after it, set mad back to false. */
    v = clp_options_get(opts, "selftest.n");
    CLP_ASSERT_EQ(v->i, 2048);
    CLP_ASSERT_EQ(v->origin, CLP_ORIGIN_PRESET);
    snprintf(origin, sizeof origin, "%s preset \"fast\"", path);
    CLP_ASSERT_STR_EQ(v->origin_text, origin);
    v = clp_options_get(opts, "core.mad");
    CLP_ASSERT(!v->b);
    snprintf(origin, sizeof origin, "%s preset \"exact\"", path);
    CLP_ASSERT_STR_EQ(v->origin_text, origin);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "core.kbn_form"), "select");

    /* The command line comes last and wins. */
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "selftest.n=4096", &err), &err);
    v = clp_options_get(opts, "selftest.n");
    CLP_ASSERT_EQ(v->i, 4096);
    CLP_ASSERT_EQ(v->origin, CLP_ORIGIN_COMMAND_LINE);
    CLP_ASSERT_STR_EQ(v->origin_text, "-s selftest.n=4096");
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);

    /* A copy has every value, origin and the model; changing it leaves the original. */
    clp_options *copy = NULL;
    CLP_ASSERT_OK(clp_options_dup(opts, &copy, &err), &err);
    CLP_ASSERT(clp_options_schema(copy) == schema);
    CLP_ASSERT_STR_EQ(clp_options_model(copy), "selftest");
    for (size_t i = 0; i < clp_schema_count(schema); i++) {
        const clp_option_value *a = clp_options_get(opts, clp_schema_option_name(schema, i));
        const clp_option_value *b = clp_options_get(copy, clp_schema_option_name(schema, i));
        CLP_ASSERT(a != b && memcmp(a, b, sizeof *a) == 0);
    }
    CLP_ASSERT_OK(clp_options_apply_assignment(copy, "core.kbn_form=branch", &err), &err);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "core.kbn_form"), "select");
    clp_options_destroy(copy);

    /* A failing case changes nothing: the good "options" part is not half-applied. */
    write_tmp("bad.json", "{ \"options\": { \"core.summation\": \"naive\", \"selftest.n\": 1 } }",
              path);
    CLP_ASSERT_STATUS(clp_options_apply_case(opts, path, NULL, 0, &err), CLP_OPTION_RANGE, &err);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "core.summation"), "kbn");
    CLP_ASSERT_STR_EQ(clp_options_model(opts), "selftest");

    /* Missing files are CLP_IO naming the file, for a case and for a schema folder. */
    snprintf(path, sizeof path, "%s/missing.json", tmp_dir);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp_options_apply_case(opts, path, NULL, 0, &err), CLP_IO, &err);
    CLP_ASSERT_STR_EQ(err.source, path);
    CLP_ASSERT_CONTAINS(err.message, "cannot open");
    clp_schema *none = NULL;
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp_schema_load(path, &none, &err), CLP_IO, &err);
    CLP_ASSERT_STR_EQ(err.source, path);
    CLP_ASSERT(none == NULL);
    clp_options_destroy(opts);
}

static void test_types(const clp_schema *schema) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = fresh(schema);
    static const struct {
        const char *text;
        bool value;
    } bools[] = {{"true", true}, {"false", false}, {"1", true},   {"0", false},  {"on", true},
                 {"off", false}, {"yes", true},    {"no", false}, {"TRUE", true}};
    for (size_t k = 0; k < sizeof bools / sizeof bools[0]; k++) {
        char text[64];
        snprintf(text, sizeof text, "core.mad=%s", bools[k].text);
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, text, &err), &err);
        CLP_ASSERT_EQ(clp_options_bool(opts, "core.mad"), bools[k].value);
    }
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.nv_maxrregcount=+64", &err), &err);
    CLP_ASSERT_EQ(clp_options_int(opts, "core.nv_maxrregcount"), 64);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "selftest.n=64", &err), &err); /* min */
    CLP_ASSERT_EQ(clp_options_int(opts, "selftest.n"), 64);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "selftest.n=16777216", &err), &err);
    CLP_ASSERT_EQ(clp_options_int(opts, "selftest.n"), 16777216);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "selftest.alpha=-0.25", &err), &err);
    CLP_ASSERT(clp_options_float(opts, "selftest.alpha") == -0.25);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "selftest.alpha=0x1p-3", &err), &err);
    CLP_ASSERT(clp_options_float(opts, "selftest.alpha") == 0.125);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "selftest.alpha=1e6", &err), &err);
    CLP_ASSERT(clp_options_float(opts, "selftest.alpha") == 1e6);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.summation=naive", &err), &err);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "core.summation"), "naive");
    CLP_ASSERT_EQ(clp_options_get(opts, "core.summation")->i, 0);
    /* Asking with the wrong type gives a neutral value, not another option's bits. */
    CLP_ASSERT_EQ(clp_options_int(opts, "core.mad"), 0);
    CLP_ASSERT(clp_options_enum(opts, "selftest.n") == NULL);
    clp_options_destroy(opts);

    static const struct {
        const char *text;
        clp_status st;
    } bad[] = {
        {"core.mad=maybe", CLP_OPTION_TYPE},
        {"core.mad=", CLP_OPTION_TYPE},
        {"selftest.n=12abc", CLP_OPTION_TYPE},
        {"selftest.n=", CLP_OPTION_TYPE},
        {"selftest.n= 128", CLP_OPTION_TYPE},
        {"selftest.n=128.0", CLP_OPTION_TYPE},
        {"selftest.n=0x100", CLP_OPTION_TYPE},
        {"selftest.n=63", CLP_OPTION_RANGE},
        {"selftest.n=16777217", CLP_OPTION_RANGE},
        {"selftest.n=-99999999999999999999", CLP_OPTION_RANGE},
        {"selftest.alpha=abc", CLP_OPTION_TYPE},
        {"selftest.alpha=0.5x", CLP_OPTION_TYPE},
        {"selftest.alpha=nan", CLP_OPTION_RANGE},
        {"selftest.alpha=-inf", CLP_OPTION_RANGE},
        {"selftest.alpha=1e999", CLP_OPTION_RANGE},
        {"selftest.alpha=1000000.5", CLP_OPTION_RANGE},
        {"core.summation=KBN", CLP_OPTION_VALUE},
        {"core.nosuch=1", CLP_OPTION_UNKNOWN},
        {"core.summation", CLP_USAGE},
        {"=kbn", CLP_USAGE},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        clp_status st = assign(schema, bad[k].text, &err);
        if (st != bad[k].st)
            CLP_TEST_FAIL("-s %s gave %s, expected %s: %s", bad[k].text, clp_status_name(st),
                          clp_status_name(bad[k].st), err.message);
        CLP_ASSERT_STR_EQ(err.source, "command line");
        CLP_ASSERT_EQ(err.line, -1);
        CLP_ASSERT_CONTAINS(err.message, bad[k].text);
    }
    assign(schema, "selftest.n=63", &err);
    CLP_ASSERT_CONTAINS(err.message, "[64, 16777216]");
    assign(schema, "core.summation=KBN", &err);
    CLP_ASSERT_CONTAINS(err.message, "naive, kahan, kbn");
    CLP_ASSERT_CONTAINS(err.message, "did you mean 'kbn'?");
}

static void test_depends(const clp_schema *schema) {
    clp_error err = CLP_ERROR_INIT;
    /* Left at its default, an option with an unmet dependency is fine. */
    clp_options *opts = fresh(schema);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.summation=naive", &err), &err);
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);
    clp_options_destroy(opts);

    opts = fresh(schema);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.kbn_form=select", &err), &err);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.summation=kbn", &err), &err);
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);
    clp_options_destroy(opts);

    /* Set explicitly, even to its default value, it needs its dependency. */
    opts = fresh(schema);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.kbn_form=select", &err), &err);
    CLP_ASSERT_STATUS(clp_options_check(opts, &err), CLP_OPTION_DEPENDS, &err);
    CLP_ASSERT_STR_EQ(err.message,
                      "option 'core.kbn_form' = select (from -s core.kbn_form=select) needs "
                      "core.summation = kbn, but it is kahan (from default)");
    CLP_ASSERT_STR_EQ(err.source, "command line");
    clp_options_destroy(opts);
}

/* A run's decision through the generated setters: typed, checked as a user's value would be,
 * with its own origin, which a depends message names. */
static void test_decisions(const clp_schema *schema) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = fresh(schema);
    CLP_ASSERT_OK(clp__neighbors_every_set(opts, 3, &err), &err);
    CLP_ASSERT(clp__neighbors_every_of(opts) == 3);
    CLP_ASSERT(clp_options_get(opts, "neighbors.every")->origin == CLP_ORIGIN_DECIDED);
    CLP_ASSERT_STR_EQ(clp_options_get(opts, "neighbors.every")->origin_text, "the run's decision");
    CLP_ASSERT_OK(clp__core_summation_set(opts, CLP_CORE_SUMMATION_NAIVE, &err), &err);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "core.summation"), "naive");

    /* Out of range, a value the enum does not have, a float that is not finite: refused, and
     * the option keeps its value. */
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__neighbors_every_set(opts, 0, &err), CLP_OPTION_RANGE, &err);
    CLP_ASSERT(strstr(err.message, "'neighbors.every' = 0 is out of range") != NULL);
    CLP_ASSERT(strstr(err.message, "the run's decision") != NULL);
    CLP_ASSERT(clp__neighbors_every_of(opts) == 3);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(
        clp__core_summation_set(opts, (clp__core_summation)CLP_CORE_SUMMATION_COUNT, &err),
        CLP_OPTION_VALUE, &err);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "core.summation"), "naive");
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__neighbors_skin_set(opts, NAN, &err), CLP_OPTION_RANGE, &err);
    clp_options_destroy(opts);

    /* A decision that leaves a dependency unmet is named as the run's in the message. */
    opts = fresh(schema);
    CLP_ASSERT_OK(clp__core_kbn_form_set(opts, CLP_CORE_KBN_FORM_SELECT, &err), &err);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp_options_check(opts, &err), CLP_OPTION_DEPENDS, &err);
    CLP_ASSERT_STR_EQ(err.message,
                      "option 'core.kbn_form' = select (from the run's decision) needs "
                      "core.summation = kbn, but it is kahan (from default)");
    clp_options_destroy(opts);
}

/* depends_any and depends_all over several conditions, on a schema written here. */
static void test_depends_any_all(void) {
    char path[512];
    write_tmp("opt/m.json",
              "{ \"module\": \"m\", \"description\": \"test\", \"options\": [\n"
              " {\"name\": \"m.a\", \"type\": \"enum\", \"values\": [\"x\", \"y\", \"z\"],\n"
              "  \"default\": \"x\", \"define\": \"M_A\", \"description\": \"a\"},\n"
              " {\"name\": \"m.b\", \"type\": \"bool\", \"default\": false, \"define\": \"M_B\",\n"
              "  \"description\": \"b\"},\n"
              " {\"name\": \"m.any\", \"type\": \"int\", \"default\": 0, \"define\": \"M_ANY\",\n"
              "  \"description\": \"any\", \"depends_any\": [{\"m.a\": \"y\"}, {\"m.b\": true}]},\n"
              " {\"name\": \"m.all\", \"type\": \"float\", \"default\": 0, \"define\": \"M_ALL\",\n"
              "  \"description\": \"all\", \"depends_all\": [{\"m.a\": \"z\", \"m.b\": true}]}\n"
              "] }\n",
              path);
    /* a.json loads first and depends on an option of m.json, which loads after it. */
    write_tmp("opt/a.json",
              "{ \"module\": \"a\", \"description\": \"test\", \"options\": [\n"
              " {\"name\": \"a.x\", \"type\": \"bool\", \"default\": false, \"define\": \"A_X\",\n"
              "  \"description\": \"x\", \"depends_all\": [{\"m.b\": true}]}\n"
              "] }\n",
              path);
    clp_error err = CLP_ERROR_INIT;
    clp_schema *schema = NULL;
    snprintf(path, sizeof path, "%s/opt", tmp_dir);
    CLP_ASSERT_OK(clp_schema_load(path, &schema, &err), &err);
    CLP_ASSERT_EQ(clp_schema_count(schema), 5);
    CLP_ASSERT_STR_EQ(clp_schema_option_name(schema, 0), "a.x");
    CLP_ASSERT_STR_EQ(clp_schema_option_name(schema, 1), "m.a");
    CLP_ASSERT(clp_schema_option_name(schema, 5) == NULL);
    static const struct {
        const char *a, *b, *set;
        clp_status st;
    } rows[] = {
        {"m.a=x", "m.b=false", "m.any=1", CLP_OPTION_DEPENDS},
        {"m.a=y", "m.b=false", "m.any=1", CLP_OK},
        {"m.a=x", "m.b=true", "m.any=1", CLP_OK},
        {"m.a=z", "m.b=false", "m.all=1", CLP_OPTION_DEPENDS},
        {"m.a=y", "m.b=true", "m.all=1", CLP_OPTION_DEPENDS},
        {"m.a=z", "m.b=true", "m.all=1", CLP_OK},
        {"m.a=x", "m.b=false", "a.x=true", CLP_OPTION_DEPENDS},
        {"m.a=x", "m.b=true", "a.x=true", CLP_OK},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        clp_options *opts = fresh(schema);
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, rows[k].a, &err), &err);
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, rows[k].b, &err), &err);
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, rows[k].set, &err), &err);
        clp_error_clear(&err);
        CLP_ASSERT_STATUS(clp_options_check(opts, &err), rows[k].st, &err);
        clp_options_destroy(opts);
    }
    /* The any-message lists both conditions and both current values. */
    clp_options *opts = fresh(schema);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "m.any=1", &err), &err);
    CLP_ASSERT_STATUS(clp_options_check(opts, &err), CLP_OPTION_DEPENDS, &err);
    CLP_ASSERT_STR_EQ(err.message, "option 'm.any' = 1 (from -s m.any=1) needs m.a = y or "
                                   "m.b = true, but m.a is x (from default) and m.b is false "
                                   "(from default)");
    clp_options_destroy(opts);
    clp_schema_destroy(schema);
}

static void test_locale(const clp_schema *schema) {
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE"};
    const char *found = NULL;
    for (size_t k = 0; k < sizeof names / sizeof names[0] && !found; k++)
        found = setlocale(LC_NUMERIC, names[k]);
    if (!found || localeconv()->decimal_point[0] != ',') {
        fprintf(stderr, "note: no locale with a decimal comma; locale sub-check skipped\n");
        setlocale(LC_NUMERIC, "C");
        return;
    }
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = fresh(schema);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "selftest.alpha=0.5", &err), &err);
    CLP_ASSERT(clp_options_float(opts, "selftest.alpha") == 0.5);
    CLP_ASSERT_STATUS(clp_options_apply_assignment(opts, "selftest.alpha=0,5", &err),
                      CLP_OPTION_TYPE, &err);
    /* Values from JSON are printed with a decimal point in messages too. */
    char path[512];
    write_tmp("locale.json", "{ \"options\": { \"selftest.alpha\": 1000000.5 } }", path);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp_options_apply_case(opts, path, NULL, 0, &err), CLP_OPTION_RANGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "= 1000000.5 is out of range");
    setlocale(LC_NUMERIC, "C");
    clp_options_destroy(opts);
}

static void test_suggestion(const clp_schema *schema) {
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_STATUS(assign(schema, "core.sumation=kbn", &err), CLP_OPTION_UNKNOWN, &err);
    CLP_ASSERT_STR_EQ(err.message, "unknown option 'core.sumation' in -s core.sumation=kbn; "
                                   "did you mean 'core.summation'?");
    CLP_ASSERT_STATUS(assign(schema, "selftest.trems=20", &err), CLP_OPTION_UNKNOWN, &err);
    CLP_ASSERT_CONTAINS(err.message, "did you mean 'selftest.terms'?");
    /* Nothing close: no hint. */
    CLP_ASSERT_STATUS(assign(schema, "gravity=9.81", &err), CLP_OPTION_UNKNOWN, &err);
    CLP_ASSERT(strstr(err.message, "did you mean") == NULL);
}

int main(void) {
    CLP_ASSERT(mkdtemp(tmp_dir) != NULL);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/opt", tmp_dir);
    CLP_ASSERT(mkdir(dir, 0700) == 0);
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    clp_error err = CLP_ERROR_INIT;
    clp_schema *schema = NULL;
    CLP_ASSERT_OK(clp_schema_load(dir, &schema, &err), &err);

    test_defaults(schema);
    test_precedence(schema);
    test_types(schema);
    test_depends(schema);
    test_depends_any_all();
    test_decisions(schema);
    test_locale(schema);
    test_suggestion(schema);

    clp_schema_destroy(schema);
    const char *files[] = {"case.json",  "bad.json",   "locale.json",
                           "opt/a.json", "opt/m.json", "opt"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(dir, sizeof dir, "%s/%s", tmp_dir, files[k]);
        remove(dir);
    }
    CLP_ASSERT(rmdir(tmp_dir) == 0);
    return 0;
}
