/* Unit tests of the particle swarm case file, without a device: the defaults, every range,
 * unknown keys with suggestions, the user objective only under pso.objective=user, its three
 * forms (expression, function as a string, function as an array of lines), the case-file
 * line where its code begins, and errors that name the file and the key. */
#include "test.h"

#include "models/pso/pso_case.h"

#include <unistd.h>

static char dir[] = "/tmp/clpart-test-pso-case-XXXXXX";

/* Writes `json` to a case file and returns its path (static storage). */
static const char *write_case(const char *json) {
    return clp_test_write_case(dir, json);
}

/* A case with the required keys, `extra` added to "pso" and `top` at the top level. */
static const char *write_swarm(const char *extra, const char *top) {
    static char json[4096];
    snprintf(json, sizeof json,
             "{\"model\": \"pso\", \"pso\": {\"particles\": 20, \"dimensions\": 3, \"iterations\": "
             "50, \"bounds\": [-2, 3]%s%s}%s%s}",
             *extra ? ", " : "", extra, *top ? ", " : "", top);
    return write_case(json);
}

/* Loading `path` under the option pso.objective=`objective` must fail with `status` and a
 * message holding `expected` and the path. */
static void refused_as(const char *path, clp__pso_objective objective, clp_status status,
                       const char *expected) {
    clp_error err = CLP_ERROR_INIT;
    clp__pso_case c;
    clp_test_case_refused(clp__pso_case_load(path, objective, &c, &err), &err, status, path,
                          expected);
}

static void refused(const char *extra, const char *top, const char *expected) {
    refused_as(write_swarm(extra, top), CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE, expected);
}

static void test_defaults(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__pso_case c;
    const char *path = write_swarm("", "");
    CLP_ASSERT_OK(clp__pso_case_load(path, CLP_PSO_OBJECTIVE_SPHERE, &c, &err), &err);
    CLP_ASSERT_EQ(c.params.particles, 20);
    CLP_ASSERT_EQ(c.params.dim, 3);
    CLP_ASSERT_EQ(c.iterations, 50);
    CLP_ASSERT_NEAR(c.params.lower, -2, 0);
    CLP_ASSERT_NEAR(c.params.upper, 3, 0);
    /* Clerc's constriction, vmax the box's width, seed 1, a row chunk of 100 */
    CLP_ASSERT_NEAR(c.params.inertia, 0.7298, 0);
    CLP_ASSERT_NEAR(c.params.cognitive, 1.49618, 0);
    CLP_ASSERT_NEAR(c.params.social, 1.49618, 0);
    CLP_ASSERT_NEAR(c.params.vmax, 5, 0);
    CLP_ASSERT_EQ(c.params.seed, 1);
    CLP_ASSERT_EQ(c.output_every, 100);
    CLP_ASSERT(c.code == NULL && c.params.user_code == NULL);
    clp__pso_case_free(&c);
}

static void test_values(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__pso_case c;
    const char *path = write_swarm("\"inertia\": 0.5, \"cognitive\": 2, \"social\": 0, "
                                   "\"vmax\": 0.25, \"seed\": 9223372036854775807",
                                   "\"output_every\": 7, \"options\": {}");
    CLP_ASSERT_OK(clp__pso_case_load(path, CLP_PSO_OBJECTIVE_RASTRIGIN, &c, &err), &err);
    CLP_ASSERT_NEAR(c.params.inertia, 0.5, 0);
    CLP_ASSERT_NEAR(c.params.cognitive, 2, 0);
    CLP_ASSERT_NEAR(c.params.social, 0, 0);
    CLP_ASSERT_NEAR(c.params.vmax, 0.25, 0);
    CLP_ASSERT(c.params.seed == UINT64_C(9223372036854775807));
    CLP_ASSERT_EQ(c.output_every, 7);
    clp__pso_case_free(&c);
    /* the largest swarm and dimension */
    path = write_case("{\"pso\": {\"particles\": 2147483647, \"dimensions\": 100000, "
                      "\"iterations\": 1, \"bounds\": [0, 1e30]}}");
    CLP_ASSERT_OK(clp__pso_case_load(path, CLP_PSO_OBJECTIVE_SPHERE, &c, &err), &err);
    CLP_ASSERT_EQ(c.params.particles, 2147483647);
    CLP_ASSERT_EQ(c.params.dim, 100000);
    clp__pso_case_free(&c);
}

static void test_errors(void) {
    refused_as(write_case("{\"model\": \"pso\", \"output_every\": 3}"), CLP_PSO_OBJECTIVE_SPHERE,
               CLP_CASE, "a particle swarm case needs an object 'pso'");
    refused_as(write_case("[1, 2]"), CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE,
               "the top level must be an object");
    refused_as(write_case("{\"pso\": {\"particles\": 1,}}"), CLP_PSO_OBJECTIVE_SPHERE, CLP_JSON,
               "malformed JSON");
    refused_as(write_case("{\"pso\": {\"dimensions\": 2, \"iterations\": 5, \"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE, "'pso.particles' is required");
    refused_as(write_case("{\"pso\": {\"particles\": 2, \"iterations\": 5, \"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE, "'pso.dimensions' is required");
    refused_as(write_case("{\"pso\": {\"particles\": 2, \"dimensions\": 5, \"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE, "'pso.iterations' is required");
    refused_as(write_case("{\"pso\": {\"particles\": 2, \"dimensions\": 5, \"iterations\": 5}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE, "'pso.bounds' is required");
    refused_as(write_case("{\"pso\": {\"particles\": 0, \"dimensions\": 5, \"iterations\": 5, "
                          "\"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE,
               "'pso.particles' must be an integer in [1, 2147483647]");
    refused_as(write_case("{\"pso\": {\"particles\": 2147483648, \"dimensions\": 5, "
                          "\"iterations\": 5, \"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE,
               "'pso.particles' must be an integer in [1, 2147483647]");
    refused_as(write_case("{\"pso\": {\"particles\": 2.5, \"dimensions\": 5, \"iterations\": 5, "
                          "\"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE, "'pso.particles' must be an integer");
    refused_as(write_case("{\"pso\": {\"particles\": 2, \"dimensions\": 100001, \"iterations\": "
                          "5, \"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE,
               "'pso.dimensions' must be an integer in [1, 100000]");
    refused_as(write_case("{\"pso\": {\"particles\": 2, \"dimensions\": 0, \"iterations\": 5, "
                          "\"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE,
               "'pso.dimensions' must be an integer in [1, 100000]");
    refused_as(write_case("{\"pso\": {\"particles\": 2, \"dimensions\": 2, \"iterations\": 0, "
                          "\"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE,
               "'pso.iterations' must be an integer in [1, 100000000]");
    refused_as(write_case("{\"pso\": {\"particles\": 2, \"dimensions\": 1, \"iterations\": 5, "
                          "\"bounds\": [0, 1]}}"),
               CLP_PSO_OBJECTIVE_ROSENBROCK, CLP_CASE,
               "'pso.dimensions' is 1, and the option pso.objective=rosenbrock needs at least 2");
    refused("\"inertia\": 1.5", "", "'pso.inertia' must be a number in [0, 1]");
    refused("\"inertia\": \"high\"", "", "'pso.inertia' must be a number in [0, 1]");
    refused("\"cognitive\": -1", "", "'pso.cognitive' must be a number in [0, 10]");
    refused("\"social\": 11", "", "'pso.social' must be a number in [0, 10]");
    refused("\"vmax\": 0", "", "'pso.vmax' must be a number in (0, 1e+30]");
    refused("\"seed\": -1", "",
            "'pso.seed' must be an integer in [0, 9223372036854775807] (JSON integers are "
            "signed 64-bit");
    refused("\"seed\": 1.5", "", "'pso.seed' must be an integer");
    refused("\"particle\": 3", "", "unknown key 'pso.particle'; did you mean 'particles'?");
    refused("\"topology\": \"ring\"", "", "unknown key 'pso.topology'");
    refused("", "\"output_evry\": 10", "unknown key 'output_evry'; did you mean 'output_every'?");
    refused("", "\"output_every\": 0", "'output_every' must be an integer in [1, ");
    /* bounds: replaced by the later key would be a duplicate, so each case writes its own */
    static const struct {
        const char *bounds, *expected;
    } bad_bounds[] = {
        {"[3, -2]", "'pso.bounds' is [3, -2]; the lower bound must be below the upper one"},
        {"[1, 1]", "'pso.bounds' is [1, 1]; the lower bound must be below"},
        {"[1, 1.00000001]", "also in single precision"},
        {"[0, 1e31]", "'pso.bounds' must be an array of 2 numbers [lower, upper] of magnitude"},
        {"[0]", "'pso.bounds' must be an array of 2 numbers"},
        {"[0, 1, 2]", "'pso.bounds' must be an array of 2 numbers"},
        {"[0, \"1\"]", "'pso.bounds' must be an array of 2 numbers"},
        {"5", "'pso.bounds' must be an array of 2 numbers"},
    };
    for (size_t i = 0; i < sizeof bad_bounds / sizeof bad_bounds[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"pso\": {\"particles\": 2, \"dimensions\": 2, \"iterations\": 5, "
                 "\"bounds\": %s}}",
                 bad_bounds[i].bounds);
        refused_as(write_case(json), CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE, bad_bounds[i].expected);
    }
}

/* The user objective: allowed and required only with pso.objective=user. */
static void test_objective_option(void) {
    const char *path = write_swarm("\"objective\": {\"expression\": \"X(0)\"}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_SPHERE, CLP_CASE,
               "'pso.objective' is user code, which only the option pso.objective=user takes, "
               "and the option is \"sphere\"");
    refused_as(write_swarm("", ""), CLP_PSO_OBJECTIVE_USER, CLP_CASE,
               "the option pso.objective=user needs the objective in the case");
    clp_error err = CLP_ERROR_INIT;
    clp__pso_case c;
    path = write_swarm("\"objective\": {\"expression\": \"X(0)\"}", "");
    CLP_ASSERT_OK(clp__pso_case_load(path, CLP_PSO_OBJECTIVE_USER, &c, &err), &err);
    clp__pso_case_free(&c);
}

static void test_objective_errors(void) {
    const char *path = write_swarm("\"objective\": \"X(0)\"", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE,
               "'pso.objective' must be an object with one key");
    path =
        write_swarm("\"objective\": {\"expression\": \"X(0)\", \"function\": \"return 1;\"}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE,
               "'pso.objective' holds both \"expression\" and \"function\"");
    path = write_swarm("\"objective\": {}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE, "'pso.objective' needs \"expression\"");
    path = write_swarm("\"objective\": {\"expresion\": \"X(0)\"}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE,
               "unknown key 'pso.objective.expresion'; did you mean 'expression'?");
    path = write_swarm("\"objective\": {\"expression\": \"\"}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE,
               "'pso.objective.expression' must be a non-empty string");
    path = write_swarm("\"objective\": {\"expression\": 2}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE,
               "'pso.objective.expression' must be a non-empty string");
    path = write_swarm("\"objective\": {\"function\": []}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE,
               "'pso.objective.function' must be a string or a non-empty array of strings");
    path = write_swarm("\"objective\": {\"function\": [\"return 1.0f;\", 3]}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE,
               "'pso.objective.function[1]' must be a string");
    path = write_swarm("\"objective\": {\"function\": \"\"}", "");
    refused_as(path, CLP_PSO_OBJECTIVE_USER, CLP_CASE, "'pso.objective.function' is empty");
}

/* Loads `json` under pso.objective=user; the code, its form, origin and line must match. */
static void check_code(const char *json, const char *code, bool expression, int line) {
    clp_error err = CLP_ERROR_INIT;
    clp__pso_case c;
    const char *path = write_case(json);
    CLP_ASSERT_OK(clp__pso_case_load(path, CLP_PSO_OBJECTIVE_USER, &c, &err), &err);
    CLP_ASSERT_STR_EQ(c.params.user_code, code);
    CLP_ASSERT(c.params.user_code == c.code);
    CLP_ASSERT_EQ(c.params.user_is_expression, expression);
    CLP_ASSERT(c.params.user_origin == path);
    CLP_ASSERT_EQ(c.params.user_line, line);
    clp__pso_case_free(&c);
}

static void test_code_forms(void) {
    /* an expression on line 7, after decoys: the option's name, a preset with a "pso" key
     * whose objective has an expression, and strings holding quotes and braces */
    check_code("{\n"
               "  \"model\": \"pso\",\n"
               "  \"options\": { \"pso.objective\": \"user\" },\n"
               "  \"presets\": { \"pso\": { \"objective\": { \"expression\": \"1\" } } },\n"
               "  \"pso\": { \"particles\": 4, \"dimensions\": 2, \"iterations\": 3,\n"
               "    \"bounds\": [-1, 1], \"objective\": {\n"
               "      \"expression\": \"X(0) * X(0) + fabs(X(1))\" } }\n"
               "}\n",
               "X(0) * X(0) + fabs(X(1))", true, 7);
    /* the value on the line after its key */
    check_code("{\"pso\": {\"particles\": 4, \"dimensions\": 2, \"iterations\": 3,\n"
               " \"bounds\": [-1, 1], \"objective\": {\"expression\":\n"
               "\n"
               "   \"X(1)\"}}}",
               "X(1)", true, 4);
    /* a function as one string, escapes in it and before it */
    check_code("{\"options\": {\"x\": \"a \\\" { [ \\\\\"},\n"
               "\"pso\": {\"particles\": 4, \"dimensions\": 2, \"iterations\": 3,\n"
               "\"bounds\": [-1, 1],\n"
               "\"objective\": {\"function\": \"float a = X(0);\\nreturn a * a;\"}}}",
               "float a = X(0);\nreturn a * a;", false, 4);
    /* a function as lines: joined by "\n", the line of the first element */
    check_code("{\n"
               "  \"pso\": {\n"
               "    \"particles\": 4, \"dimensions\": 2, \"iterations\": 3, \"bounds\": [-1, 1],\n"
               "    \"objective\": {\n"
               "      \"function\": [\n"
               "        \"float s = 0.0f;\",\n"
               "        \"for (int i = 0; i < PSO_DIM; i++)\",\n"
               "        \"    s += X(i) * X(i);\",\n"
               "        \"return s;\"\n"
               "      ]\n"
               "    }\n"
               "  }\n"
               "}\n",
               "float s = 0.0f;\nfor (int i = 0; i < PSO_DIM; i++)\n    s += X(i) * X(i);\n"
               "return s;",
               false, 6);
}

/* The scanner alone: keys it must not take, and texts that hold none. */
static void test_code_line(void) {
    CLP_ASSERT_EQ(
        clp__pso_code_line("{\"pso\": {\"objective\": {\"function\": \"x\"}}}", "function"), 1);
    CLP_ASSERT_EQ(
        clp__pso_code_line("{\"pso\": {\"objective\": {\"function\": \"x\"}}}", "expression"), -1);
    CLP_ASSERT_EQ(clp__pso_code_line("{\"objective\": {\"expression\": \"x\"}}", "expression"), -1);
    CLP_ASSERT_EQ(clp__pso_code_line("{\"a\": [1, {\"pso\": 2}, null, true],\n\"pso\": {\"x\": "
                                     "-1.5e3, \"objective\":\n{\"expression\": \"x\"}}}",
                                     "expression"),
                  3);
    CLP_ASSERT_EQ(clp__pso_code_line("", "expression"), -1);
    CLP_ASSERT_EQ(clp__pso_code_line("{\"pso\": {\"objective\": {\"function\": [2]}}}", "function"),
                  -1);
}

int main(void) {
    CLP_ASSERT(mkdtemp(dir));
    test_defaults();
    test_values();
    test_errors();
    test_objective_option();
    test_objective_errors();
    test_code_forms();
    test_code_line();
    char path[256];
    snprintf(path, sizeof path, "%s/case.json", dir);
    unlink(path);
    rmdir(dir);
    printf("pso case: all checks passed\n");
    return 0;
}
