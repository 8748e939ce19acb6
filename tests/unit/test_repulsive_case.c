/* Unit tests of the repulsive-particle case file, without a device: the defaults (q = D + 1,
 * dt and damping left to the start design), explicit values, dt "auto" against a number, the
 * damping terms and their checks, unknown keys with suggestions, every range, the start
 * designs, the automatic dt and damping, and errors that name the file and the key. */
#include "test.h"

#include "models/repulsive/repulsive_case.h"

#include <math.h>
#include <unistd.h>

static char dir[] = "/tmp/clpart-test-repulsive-case-XXXXXX";

/* Writes `json` to a case file and returns its path (static storage). */
static const char *write_case(const char *json) {
    return clp_test_write_case(dir, json);
}

/* A case with the required keys, `extra` added to "repulsive" and `top` at the top level. */
static const char *write_design(const char *extra, const char *top) {
    static char json[4096];
    snprintf(
        json, sizeof json,
        "{\"model\": \"repulsive\", \"repulsive\": {\"points\": 24, \"dimensions\": 2%s%s}%s%s}",
        *extra ? ", " : "", extra, *top ? ", " : "", top);
    return write_case(json);
}

/* Loading `path` must fail with `status` and a message holding `expected` and the path. */
static void refused_at(const char *path, clp_status status, const char *expected) {
    clp_error err = CLP_ERROR_INIT;
    clp__rep_case c;
    clp_test_case_refused(clp__rep_case_load(path, &c, &err), &err, status, path, expected);
}

static void refused(const char *extra, const char *top, const char *expected) {
    refused_at(write_design(extra, top), CLP_CASE, expected);
}

static clp__rep_case loaded(const char *path) {
    clp_error err = CLP_ERROR_INIT;
    clp__rep_case c;
    CLP_ASSERT_OK(clp__rep_case_load(path, &c, &err), &err);
    return c;
}

static void test_defaults(void) {
    clp__rep_case c = loaded(write_design("", ""));
    CLP_ASSERT_EQ(c.points, 24);
    CLP_ASSERT_EQ(c.dim, 2);
    CLP_ASSERT_EQ(c.start, CLP__REP_START_LATIN);
    CLP_ASSERT_EQ(c.seed, 1);
    CLP_ASSERT_EQ(c.params.q, 3); /* D + 1 */
    CLP_ASSERT(c.dt_auto && c.params.dt == 0);
    /* one linear term, its c left to the step */
    CLP_ASSERT(c.damping_auto);
    CLP_ASSERT_EQ(c.params.n_damping, 1);
    CLP_ASSERT_EQ(c.params.damping_p[0], 1);
    CLP_ASSERT_EQ(c.steps, 100000);
    CLP_ASSERT_NEAR(c.tolerance, 1e-6, 0);
    CLP_ASSERT_EQ(c.check_every, 100);
    /* q follows the dimension */
    c = loaded(write_case("{\"repulsive\": {\"points\": 2, \"dimensions\": 7}}"));
    CLP_ASSERT_EQ(c.params.q, 8);
}

static void test_values(void) {
    clp__rep_case c =
        loaded(write_design("\"start\": \"random\", \"seed\": 9223372036854775807, \"q\": 5, "
                            "\"dt\": 0.001, \"damping\": [{\"c\": 20, \"p\": 1}, {\"c\": 0.5, "
                            "\"p\": 3}, {\"c\": 0}], \"steps\": 7, \"tolerance\": 0, "
                            "\"check_every\": 3",
                            "\"options\": {\"repulsive.impl\": \"global\"}"));
    CLP_ASSERT_EQ(c.start, CLP__REP_START_RANDOM);
    CLP_ASSERT(c.seed == UINT64_C(9223372036854775807));
    CLP_ASSERT_EQ(c.params.q, 5);
    CLP_ASSERT(!c.dt_auto);
    CLP_ASSERT_NEAR(c.params.dt, 0.001, 0);
    CLP_ASSERT(!c.damping_auto);
    CLP_ASSERT_EQ(c.params.n_damping, 3);
    CLP_ASSERT_NEAR(c.params.damping_c[0], 20, 0);
    CLP_ASSERT_EQ(c.params.damping_p[0], 1);
    CLP_ASSERT_NEAR(c.params.damping_c[1], 0.5, 0);
    CLP_ASSERT_EQ(c.params.damping_p[1], 3);
    CLP_ASSERT_NEAR(c.params.damping_c[2], 0, 0);
    CLP_ASSERT_EQ(c.params.damping_p[2], 1); /* p defaults to 1 */
    CLP_ASSERT_EQ(c.steps, 7);
    CLP_ASSERT_NEAR(c.tolerance, 0, 0);
    CLP_ASSERT_EQ(c.check_every, 3);
    /* "auto" spelled out; no damping at all; four terms; the largest sizes */
    c = loaded(write_design("\"dt\": \"auto\", \"damping\": []", ""));
    CLP_ASSERT(c.dt_auto && !c.damping_auto);
    CLP_ASSERT_EQ(c.params.n_damping, 0);
    c = loaded(write_design("\"damping\": [{\"c\": 1}, {\"c\": 2}, {\"c\": 3}, {\"c\": 4, \"p\": "
                            "16}]",
                            ""));
    CLP_ASSERT_EQ(c.params.n_damping, 4);
    CLP_ASSERT_EQ(c.params.damping_p[3], 16);
    c = loaded(write_case("{\"repulsive\": {\"points\": 2147483647, \"dimensions\": 1}}"));
    CLP_ASSERT_EQ(c.points, 2147483647);
    c = loaded(write_case("{\"repulsive\": {\"points\": 2, \"dimensions\": 4096, \"q\": 64}}"));
    CLP_ASSERT_EQ(c.dim, 4096);
    CLP_ASSERT_EQ(c.params.q, 64);
}

static void test_errors(void) {
    refused_at(write_case("{\"model\": \"repulsive\"}"), CLP_CASE,
               "a repulsive-particle case needs an object 'repulsive'");
    refused_at(write_case("[1]"), CLP_CASE, "the top level must be an object");
    refused_at(write_case("{\"repulsive\": {\"points\": 2,}}"), CLP_JSON, "malformed JSON");
    refused_at(write_case("{\"repulsive\": {\"dimensions\": 2}}"), CLP_CASE,
               "'repulsive.points' is required");
    refused_at(write_case("{\"repulsive\": {\"points\": 2}}"), CLP_CASE,
               "'repulsive.dimensions' is required");
    refused_at(write_case("{\"repulsive\": {\"points\": 1, \"dimensions\": 2}}"), CLP_CASE,
               "'repulsive.points' must be an integer in [2, 2147483647]");
    refused_at(write_case("{\"repulsive\": {\"points\": 2147483648, \"dimensions\": 2}}"), CLP_CASE,
               "'repulsive.points' must be an integer in [2, 2147483647]");
    refused_at(write_case("{\"repulsive\": {\"points\": 24.5, \"dimensions\": 2}}"), CLP_CASE,
               "'repulsive.points' must be an integer");
    refused_at(write_case("{\"repulsive\": {\"points\": 24, \"dimensions\": 0}}"), CLP_CASE,
               "'repulsive.dimensions' must be an integer in [1, 4096]");
    refused_at(write_case("{\"repulsive\": {\"points\": 24, \"dimensions\": 4097}}"), CLP_CASE,
               "'repulsive.dimensions' must be an integer in [1, 4096]");
    refused_at(write_case("{\"repulsive\": {\"points\": 1000000, \"dimensions\": 4096}}"), CLP_CASE,
               "'repulsive.points' x 'repulsive.dimensions' is 1000000 x 4096 = 4096000000 "
               "coordinates; the device indexes them with 32-bit integers, so at most "
               "2147483647");
    refused("\"start\": \"sobol\"", "",
            "'repulsive.start' must be \"latin\" (a Latin hypercube) or \"random\" (uniform)");
    refused("\"start\": 1", "", "'repulsive.start' must be \"latin\"");
    refused("\"seed\": -1", "",
            "'repulsive.seed' must be an integer in [0, 9223372036854775807] (JSON integers are "
            "signed 64-bit");
    refused("\"q\": 0", "", "'repulsive.q' must be an integer in [1, 64]");
    refused("\"q\": 65", "", "'repulsive.q' must be an integer in [1, 64]");
    refused("\"q\": 3.5", "", "'repulsive.q' must be an integer in [1, 64]");
    refused("\"dt\": 0", "",
            "'repulsive.dt' must be \"auto\" (a twentieth of the stiffest pair's "
            "period at the start) or a number in (0, 1]");
    refused("\"dt\": -1e-3", "", "'repulsive.dt' must be \"auto\"");
    refused("\"dt\": 2", "", "'repulsive.dt' must be \"auto\"");
    refused("\"dt\": \"automatic\"", "", "'repulsive.dt' must be \"auto\"");
    refused("\"steps\": 0", "", "'repulsive.steps' must be an integer in [1, 1000000000000]");
    refused("\"tolerance\": -1", "", "'repulsive.tolerance' must be a number in [0, 1e+30]");
    refused("\"tolerance\": \"small\"", "", "'repulsive.tolerance' must be a number in [0, 1e+30]");
    refused("\"check_every\": 0", "",
            "'repulsive.check_every' must be an integer in [1, 1000000000]");
    refused("\"point\": 3", "", "unknown key 'repulsive.point'; did you mean 'points'?");
    refused("\"check_evry\": 3", "",
            "unknown key 'repulsive.check_evry'; did you mean 'check_every'?");
    refused("\"exponent\": 3", "", "unknown key 'repulsive.exponent'");
    refused("", "\"repulsiv\": {}", "unknown key 'repulsiv'; did you mean 'repulsive'?");
    refused("", "\"output_every\": 10", "unknown key 'output_every'");
}

static void test_damping_errors(void) {
    refused("\"damping\": {\"c\": 20, \"p\": 1}", "",
            "'repulsive.damping' must be an array of at most 4 terms {\"c\": c, \"p\": p}, each "
            "adding c |v|^(p-1) v against the motion");
    refused("\"damping\": [{\"c\": 1}, {\"c\": 1}, {\"c\": 1}, {\"c\": 1}, {\"c\": 1}]", "",
            "'repulsive.damping' must be an array of at most 4 terms");
    refused("\"damping\": [20]", "",
            "'repulsive.damping[0]' must be an object {\"c\": c, \"p\": p}");
    refused("\"damping\": [{\"p\": 1}]", "", "'repulsive.damping[0].c' is required");
    refused("\"damping\": [{\"c\": 20, \"p\": 1}, {\"c\": -1, \"p\": 2}]", "",
            "'repulsive.damping[1].c' must be a number in [0, 1e+30]");
    refused("\"damping\": [{\"c\": \"strong\"}]", "",
            "'repulsive.damping[0].c' must be a number in [0, 1e+30]");
    refused("\"damping\": [{\"c\": 20, \"p\": 0}]", "",
            "'repulsive.damping[0].p' must be an integer in [1, 16]");
    refused("\"damping\": [{\"c\": 20, \"p\": 1.5}]", "",
            "'repulsive.damping[0].p' must be an integer in [1, 16]");
    refused("\"damping\": [{\"c\": 20, \"p\": 17}]", "",
            "'repulsive.damping[0].p' must be an integer in [1, 16]");
    refused("\"damping\": [{\"c\": 20, \"power\": 2}]", "",
            "unknown key 'repulsive.damping[0].power'");
    refused("\"damping\": [{\"c\": 20, \"pp\": 2}]", "",
            "unknown key 'repulsive.damping[0].pp'; did you mean 'p'?");
}

/* The automatic step and damping: a twentieth of 2 pi sqrt(L^(q+2) / (q (q+1))), and c dt =
 * 0.01; given values are kept. */
static void test_resolve(void) {
    clp__rep_case c = loaded(write_design("", ""));
    clp__rep_case_resolve(&c, 0.1);
    const double dt = 2 * M_PI * sqrt(pow(0.1, 5) / 12) / 20;
    CLP_ASSERT_NEAR(c.params.dt, dt, 1e-15 * dt);
    CLP_ASSERT_NEAR(c.params.damping_c[0] * c.params.dt, 0.01, 1e-15);
    c = loaded(write_design("\"q\": 4, \"dt\": 0.002", ""));
    clp__rep_case_resolve(&c, 0.1);
    CLP_ASSERT_NEAR(c.params.dt, 0.002, 0);
    CLP_ASSERT_NEAR(c.params.damping_c[0], 5, 1e-12);
    c = loaded(write_design("\"damping\": [{\"c\": 3, \"p\": 2}]", ""));
    clp__rep_case_resolve(&c, 0.2);
    CLP_ASSERT_NEAR(c.params.dt, 2 * M_PI * sqrt(pow(0.2, 5) / 12) / 20, 1e-15);
    CLP_ASSERT_NEAR(c.params.damping_c[0], 3, 0);
    CLP_ASSERT_EQ(c.params.damping_p[0], 2);
}

/* The start designs: a Latin hypercube has one point in each of the N strata of every axis; a
 * random start differs from it; both repeat for the same seed and change with it. */
static void test_designs(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__rep_case c = loaded(write_design("\"seed\": 5", ""));
    clp__rep_design latin, again, random, other;
    CLP_ASSERT_OK(clp__rep_case_design(&c, &latin, &err), &err);
    CLP_ASSERT_OK(clp__rep_case_design(&c, &again, &err), &err);
    CLP_ASSERT_EQ(latin.n, 24);
    CLP_ASSERT_EQ(latin.dim, 2);
    for (int v = 0; v < 2; v++) {
        int count[24] = {0};
        for (size_t i = 0; i < 24; i++) {
            const double x = latin.x[2 * i + (size_t)v];
            CLP_ASSERT(x >= 0 && x < 1);
            count[(int)(x * 24)]++;
        }
        for (int k = 0; k < 24; k++)
            CLP_ASSERT_EQ(count[k], 1);
    }
    CLP_ASSERT(memcmp(latin.x, again.x, 48 * sizeof(double)) == 0);
    c.start = CLP__REP_START_RANDOM;
    CLP_ASSERT_OK(clp__rep_case_design(&c, &random, &err), &err);
    CLP_ASSERT(memcmp(latin.x, random.x, 48 * sizeof(double)) != 0);
    c.seed = 6;
    CLP_ASSERT_OK(clp__rep_case_design(&c, &other, &err), &err);
    CLP_ASSERT(memcmp(random.x, other.x, 48 * sizeof(double)) != 0);
    clp__rep_design_free(&latin);
    clp__rep_design_free(&again);
    clp__rep_design_free(&random);
    clp__rep_design_free(&other);
}

int main(void) {
    CLP_ASSERT(mkdtemp(dir));
    test_defaults();
    test_values();
    test_errors();
    test_damping_errors();
    test_resolve();
    test_designs();
    char path[256];
    snprintf(path, sizeof path, "%s/case.json", dir);
    unlink(path);
    rmdir(dir);
    printf("repulsive case: all checks passed\n");
    return 0;
}
