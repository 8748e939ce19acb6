/* Unit tests of the Lennard-Jones case file and diagnostics, without a device: the defaults
 * and the derived atom count and box of both inits, errors that name the file and the key,
 * the diagnostics row against values worked out by hand, and the non-finite stop. */
#include "test.h"

#include "models/lj/lj_case.h"

#include <unistd.h>

static char dir[] = "/tmp/clpart-test-lj-run-XXXXXX";

/* Writes `json` to a case file and returns its path (static storage). */
static const char *write_case(const char *json) {
    return clp_test_write_case(dir, json);
}

/* Loads `json`, which must fail with CLP_CASE and a message holding `expected`. */
static void refused(const char *json, const char *expected) {
    clp_error err = CLP_ERROR_INIT;
    clp__lj_case c;
    const char *path = write_case(json);
    clp_test_case_refused(clp__lj_case_load(path, &c, &err), &err, CLP_CASE, path, expected);
}

static void test_fcc(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__lj_case c;
    const char *path =
        write_case("{\"model\": \"lj\", \"lj\": {\"init\": \"fcc\", \"fcc_cells\": 6, "
                   "\"density\": 0.8442}, \"steps\": 10}");
    CLP_ASSERT_OK(clp__lj_case_load(path, &c, &err), &err);
    CLP_ASSERT_EQ(c.init, CLP__LJ_INIT_FCC);
    CLP_ASSERT_EQ(c.n, 864);
    CLP_ASSERT_NEAR(c.box * c.box * c.box, 864 / 0.8442, 1e-9);
    /* the defaults */
    CLP_ASSERT_NEAR(c.rc, 2.5, 0);
    CLP_ASSERT_NEAR(c.softening, 0, 0);
    CLP_ASSERT_NEAR(c.dt, 0.005, 0);
    CLP_ASSERT_NEAR(c.temperature, 0, 0);
    CLP_ASSERT_EQ(c.seed, 1);
    CLP_ASSERT_EQ(c.steps, 10);
    CLP_ASSERT_EQ(c.output_every, 100);
}

/* 8 cells of rc 2 and a hair per side, 2.5 atoms per cell: 1280 atoms. */
static void test_random(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__lj_case c;
    const char *path = write_case("{\"lj\": {\"init\": \"random\", \"cells_per_side\": 8, "
                                  "\"particles_per_cell\": 2.5, \"rc\": 2, \"temperature\": 0.5, "
                                  "\"seed\": 7}, \"steps\": 0, \"output_every\": 3}");
    CLP_ASSERT_OK(clp__lj_case_load(path, &c, &err), &err);
    CLP_ASSERT_EQ(c.init, CLP__LJ_INIT_RANDOM);
    CLP_ASSERT_EQ(c.n, 1280);
    CLP_ASSERT_NEAR(c.box, 16.00016, 1e-12);
    /* the grid's cells with no skin: floor(box / (rc (1 + 1e-6))) */
    CLP_ASSERT_EQ((long long)floor(c.box / (c.rc * (1 + 1e-6))), 8);
    CLP_ASSERT_NEAR(c.temperature, 0.5, 0);
    CLP_ASSERT_EQ(c.seed, 7);
    CLP_ASSERT_EQ(c.steps, 0);
    CLP_ASSERT_EQ(c.output_every, 3);
}

static void test_errors(void) {
    refused("{\"steps\": 1}", "a Lennard-Jones case needs an object 'lj'");
    refused("{\"lj\": {\"fcc_cells\": 3, \"density\": 1}, \"steps\": 1}", "'lj.init' is required");
    refused("{\"lj\": {\"init\": \"hexagonal\"}, \"steps\": 1}",
            "'lj.init' is \"hexagonal\"; it must be \"fcc\" or \"random\"");
    refused("{\"lj\": {\"init\": 3}, \"steps\": 1}", "'lj.init' must be the string");
    refused("{\"lj\": {\"init\": \"fcc\", \"density\": 1}, \"steps\": 1}",
            "'lj.fcc_cells' is required");
    refused("{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 2.5, \"density\": 1}, \"steps\": 1}",
            "'lj.fcc_cells' must be an integer in [1, 512]");
    refused("{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 3, \"density\": -1}, \"steps\": 1}",
            "'lj.density' must be a number in (0, 10]");
    refused("{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 3, \"density\": 1, \"dt\": 0}, "
            "\"steps\": 1}",
            "'lj.dt' must be a number in (0, 1]");
    refused("{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 3, \"density\": 1, \"softening\": -1}, "
            "\"steps\": 1}",
            "'lj.softening' must be a number in [0, 10]");
    refused("{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 3, \"density\": 1, \"temprature\": 1}, "
            "\"steps\": 1}",
            "unknown key 'lj.temprature'; did you mean 'temperature'?");
    refused(
        "{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 3, \"density\": 1, \"particles_per_cell\": "
        "1}, \"steps\": 1}",
        "'lj.particles_per_cell' belongs to init \"random\", not \"fcc\"");
    refused("{\"lj\": {\"init\": \"random\", \"cells_per_side\": 2, \"particles_per_cell\": 1}, "
            "\"steps\": 1}",
            "'lj.cells_per_side' must be an integer in [3, 1024]");
    refused("{\"lj\": {\"init\": \"random\", \"cells_per_side\": 3, \"particles_per_cell\": "
            "0.01}, \"steps\": 1}",
            "gives 0 atoms");
    refused("{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 3, \"density\": 1}}",
            "'steps' is required");
    refused("{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 3, \"density\": 1}, \"steps\": 1, "
            "\"output_every\": 0}",
            "'output_every' must be an integer in [1, ");
    refused("{\"lj\": {\"init\": \"fcc\", \"fcc_cells\": 3, \"density\": 1}, \"steps\": 1, "
            "\"end_time\": 2}",
            "unknown key 'end_time'");
}

/* Two atoms in a box of side 10: v = (1, 2, 2) and (0, 0, -1), so KE = 9/2 + 1/2 = 5,
 * T = 2 KE / (3N - 3) = 10/3, P = ((N - 1) T + W/3) / V = (10/3 + 1) / 1000 with W = 3, and the
 * momentum is |(1, 2, 1)| = sqrt 6. */
static void test_diagnostics(void) {
    clp_error err = CLP_ERROR_INIT;
    double force[6] = {1, 0, 0, -1, 0, 0}, energy[2] = {-0.5, -0.25};
    double velocity[6] = {1, 2, 2, 0, 0, -1};
    const clp__lj_sample s = {2, force, energy, velocity, 3.0};
    const clp__lj_case c = {.box = 10, .dt = 0.01, .output_every = 7};
    double row[8];
    CLP_ASSERT_OK(clp__lj_diagnostics(&s, &c, 7, row, &err), &err);
    const double expected[8] = {7,        0.07, 5, -0.75, 4.25, 10.0 / 3, (10.0 / 3 + 1) / 1000,
                                sqrt(6.0)};
    for (int k = 0; k < 8; k++)
        CLP_ASSERT_NEAR(row[k], expected[k], 1e-15 * fmax(1, fabs(expected[k])));

    energy[1] = NAN;
    CLP_ASSERT_EQ(clp__lj_diagnostics(&s, &c, 21, row, &err), CLP_CHECK);
    CLP_ASSERT_CONTAINS(err.message, "atom 1 has a non-finite potential energy at step 21");
    energy[1] = -0.25;
    velocity[2] = INFINITY;
    clp_error_clear(&err);
    CLP_ASSERT_EQ(clp__lj_diagnostics(&s, &c, 14, row, &err), CLP_CHECK);
    CLP_ASSERT_CONTAINS(err.message, "atom 0 has a non-finite velocity at step 14");
}

int main(void) {
    CLP_ASSERT(mkdtemp(dir));
    test_fcc();
    test_random();
    test_errors();
    test_diagnostics();
    char path[256];
    snprintf(path, sizeof path, "%s/case.json", dir);
    unlink(path);
    rmdir(dir);
    printf("ok\n");
    return 0;
}
