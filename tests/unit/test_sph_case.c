/* Unit tests of the SPH case file and set-up, without a device (src/models/sph/sph_case.c,
 * sph.c, sph_gauges.c): the reader's defaults and values, particle counts and lattices of
 * fluid boxes, tank shells and wall boxes counted by hand from dp and the box sizes, the
 * physics values and constants from their formulas (docs/models/sph.md, src/models/sph/sph.h),
 * the start lattice's neighbour count and a list of bits' words per cell, mDBC's ghost nodes,
 * the stored density, the outliers' phrase, the gauges' sample points, and cases refused with
 * CLP_CASE and a message that names the file and the key or box at fault. */
#include "test.h"

#include "models/sph/sph.h"
#include "models/sph/sph_checkpoint.h"
#include "models/sph/sph_gauges.h"

#include <math.h>
#include <unistd.h>

static char dir[] = "/tmp/clpart-test-sph-case-XXXXXX";
static clp_schema *schema;

/* Writes a case whose JSON is `text` with ' for " (so that the cases read as JSON here) and
 * returns its path (static storage). */
static const char *write_case(const char *text) {
    static char json[8192];
    snprintf(json, sizeof json, "%s", text);
    for (char *c = json; *c; c++)
        if (*c == '\'')
            *c = '"';
    return clp_test_write_case(dir, json);
}

/* The 2D case most checks start from: a domain 0.5 m by 0.3 m from (-0.05, -0.05), dp 1 cm,
 * a fluid column 0.1 by 0.2 m in an open tank 0.4 by 0.25 m with 3 layers, and a wall box
 * 4 by 5 spacings on its floor. `sph` and `top` are added to the "sph" object and the top
 * level; `fluid`, `tank` and `walls` replace those keys' values where not NULL, and "" leaves
 * the key out. */
static const char *write_2d(const char *sph, const char *top, const char *fluid, const char *tank,
                            const char *walls) {
    static char text[8192], parts[3][1024];
    const char *const values[3] = {fluid ? fluid : "[{'min': [0, 0], 'max': [0.1, 0.2]}]",
                                   tank ? tank : "{'min': [0, 0], 'max': [0.4, 0.25], 'layers': 3}",
                                   walls ? walls : "[{'min': [0.2, 0], 'max': [0.24, 0.05]}]"};
    static const char *const keys[3] = {"fluid", "tank", "walls"};
    for (int k = 0; k < 3; k++)
        snprintf(parts[k], sizeof parts[k], *values[k] ? ", '%s': %s" : "", keys[k], values[k]);
    snprintf(text, sizeof text,
             "{'model': 'sph', 'options': {'core.dim': 2},"
             " 'domain': {'origin': [-0.05, -0.05], 'size': [0.5, 0.3]},"
             " 'sph': {'dp': 0.01%s%s}%s%s%s%s%s}",
             *sph ? ", " : "", sph, parts[0], parts[1], parts[2], *top ? ", " : "", top);
    return write_case(text);
}

static clp_sph_case loaded(const char *path, int dim) {
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c;
    CLP_ASSERT_OK(clp__sph_case_load(path, dim, &c, &err), &err);
    return c;
}

/* Loading `path` in `dim` dimensions must fail with `status` and a message holding `expected`
 * and the path. */
static void refused_at(const char *path, int dim, clp_status status, const char *expected) {
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c;
    clp_test_case_refused(clp__sph_case_load(path, dim, &c, &err), &err, status, path, expected);
}

static void refused(const char *path, const char *expected) {
    refused_at(path, 2, CLP_CASE, expected);
}

static clp_options *default_options(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts;
    CLP_ASSERT_OK(clp_options_create(schema, &opts, &err), &err);
    return opts;
}

static const double G = 9.81;

/* The defaults of docs/models/sph.md: h = 1.3 dp, rho0 1000, gravity -9.81 on the last axis,
 * alpha 0.02, nu 1e-6, cfl 0.1, c0 from the fluid, end time 1 s, output every 0.05 s, a tank
 * open at the top with 3 layers; and the values read as given. */
static void test_values(void) {
    clp_sph_case c = loaded(write_2d("", "", NULL, NULL, NULL), 2);
    CLP_ASSERT_EQ(c.dim, 2);
    CLP_ASSERT_NEAR(c.origin[0], -0.05, 0);
    CLP_ASSERT_NEAR(c.size[1], 0.3, 0);
    CLP_ASSERT_NEAR(c.dp, 0.01, 0);
    CLP_ASSERT_NEAR(c.h_over_dp, 1.3, 0);
    CLP_ASSERT_NEAR(c.rho0, 1000, 0);
    CLP_ASSERT_NEAR(c.c0, 0, 0); /* 0: from the fluid's height */
    CLP_ASSERT(c.gravity[0] == 0 && c.gravity[1] == -G && c.gravity[2] == 0);
    CLP_ASSERT_NEAR(c.alpha, 0.02, 0);
    CLP_ASSERT_NEAR(c.nu, 1e-6, 0);
    CLP_ASSERT_NEAR(c.cfl, 0.1, 0);
    CLP_ASSERT_EQ(c.n_fluid, 1);
    CLP_ASSERT(c.fluid[0].max[0] == 0.1 && c.fluid[0].max[1] == 0.2);
    CLP_ASSERT_EQ(c.n_walls, 1);
    CLP_ASSERT(c.has_tank && c.open_top);
    CLP_ASSERT_EQ(c.layers, 3);
    CLP_ASSERT_NEAR(c.end_time, 1.0, 0);
    CLP_ASSERT_NEAR(c.output_interval, 0.05, 0);
    CLP_ASSERT_NEAR(c.checkpoint_interval, 0, 0);
    CLP_ASSERT_NEAR(c.gauges.interval, 0, 0);

    c = loaded(write_2d("'h_over_dp': 1.5, 'rho0': 998, 'c0': 15, 'gravity': [1, -2], "
                        "'alpha': 0.1, 'nu': 0.001, 'cfl': 0.2",
                        "'end_time': 0.3, 'output_interval': 0.01, 'checkpoint_interval': 0.1, "
                        "'gauges': {'interval': 0.02, 'heights': [[0.05]], "
                        "'points': [[0.05, 0.05], [0.3, 0.1]], 'walls': [0]}",
                        NULL, "{'min': [0, 0], 'max': [0.4, 0.22], 'layers': 2, 'open_top': false}",
                        NULL),
               2);
    CLP_ASSERT(c.h_over_dp == 1.5 && c.rho0 == 998 && c.c0 == 15);
    CLP_ASSERT(c.gravity[0] == 1 && c.gravity[1] == -2);
    CLP_ASSERT(c.alpha == 0.1 && c.nu == 0.001 && c.cfl == 0.2);
    CLP_ASSERT(c.end_time == 0.3 && c.output_interval == 0.01 && c.checkpoint_interval == 0.1);
    CLP_ASSERT(!c.open_top);
    CLP_ASSERT_EQ(c.layers, 2);
    CLP_ASSERT_NEAR(c.gauges.interval, 0.02, 0);
    CLP_ASSERT_EQ(c.gauges.n_heights, 1);
    CLP_ASSERT_NEAR(c.gauges.heights[0][0], 0.05, 0);
    CLP_ASSERT_EQ(c.gauges.n_points, 2);
    CLP_ASSERT(c.gauges.points[1][0] == 0.3 && c.gauges.points[1][1] == 0.1);
    CLP_ASSERT_EQ(c.gauges.n_walls, 1);
    CLP_ASSERT_EQ(c.gauges.walls[0], 0);

    /* no tank and no walls: both optional; gravity on z in 3D */
    c = loaded(write_case("{'domain': {'origin': [0, 0, 0], 'size': [1, 1, 1]}, 'sph': {'dp': "
                          "0.1}, 'fluid': [{'min': [0, 0, 0], 'max': [0.5, 0.5, 0.5]}]}"),
               3);
    CLP_ASSERT(!c.has_tank);
    CLP_ASSERT_EQ(c.n_walls, 0);
    CLP_ASSERT(c.gravity[0] == 0 && c.gravity[1] == 0 && c.gravity[2] == -G);
    printf("ok case values and defaults\n");
}

/* Counts by hand. 2D: the fluid 0.1 / 0.01 by 0.2 / 0.01 = 10 x 20 = 200 points; the open
 * tank's shell from x = -0.03 to 0.43 (46 points) and y = -0.03 to 0.25 (28) less its inner
 * 40 x 25: 1288 - 1000 = 288 (a floor 46 x 3 and two walls 3 x 25 each: 138 + 150); the wall
 * box 4 x 5 = 20. */
static void test_counts_2d(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c = loaded(write_2d("", "", NULL, NULL, NULL), 2);
    size_t n, n_fluid;
    CLP_ASSERT_OK(clp__sph_count(&c, &n, &n_fluid, &err), &err);
    CLP_ASSERT_EQ(n_fluid, 200);
    CLP_ASSERT_EQ(n, 200 + 288 + 20);
    size_t first[CLP_CASE_MAX_BOXES], end[CLP_CASE_MAX_BOXES];
    clp__sph_wall_ids(&c, first, end);
    CLP_ASSERT_EQ(first[0], 488);
    CLP_ASSERT_EQ(end[0], 508);

    double *xyz;
    uint32_t *types;
    CLP_ASSERT_OK(clp__sph_particles(&c, n, &xyz, &types, &err), &err);
    /* the fluid: x fastest, half a spacing in (docs/models/sph.md, 'id') */
    for (size_t j = 0; j < 20; j++)
        for (size_t i = 0; i < 10; i++) {
            const size_t k = i + 10 * j;
            CLP_ASSERT_EQ(types[k], 0);
            CLP_ASSERT_NEAR(xyz[3 * k], (i + 0.5) * 0.01, 1e-15);
            CLP_ASSERT_NEAR(xyz[3 * k + 1], (j + 0.5) * 0.01, 1e-15);
            CLP_ASSERT_NEAR(xyz[3 * k + 2], 0, 0);
        }
    /* the tank: every point of the shell's lattice once, none inside the inner box */
    int seen[46][28] = {{0}};
    for (size_t k = 200; k < 488; k++) {
        CLP_ASSERT_EQ(types[k], 1);
        const double u = (xyz[3 * k] + 0.03) / 0.01 - 0.5, v = (xyz[3 * k + 1] + 0.03) / 0.01 - 0.5;
        const long i = lround(u), j = lround(v);
        CLP_ASSERT(fabs(u - i) < 1e-9 && fabs(v - j) < 1e-9);
        CLP_ASSERT(i >= 0 && i < 46 && j >= 0 && j < 28);
        CLP_ASSERT(i < 3 || i >= 43 || j < 3); /* outside the inner box */
        seen[i][j]++;
    }
    for (int i = 0; i < 46; i++)
        for (int j = 0; j < 28; j++)
            CLP_ASSERT_EQ(seen[i][j], i < 3 || i >= 43 || j < 3);
    /* the wall box: 4 x 5 points inside it */
    for (size_t k = 488; k < 508; k++) {
        CLP_ASSERT_EQ(types[k], 1);
        const size_t at = k - 488;
        CLP_ASSERT_NEAR(xyz[3 * k], 0.2 + (at % 4 + 0.5) * 0.01, 1e-15);
        CLP_ASSERT_NEAR(xyz[3 * k + 1], (at / 4 + 0.5) * 0.01, 1e-15);
    }
    free(xyz);
    free(types);

    /* a closed top adds the lid, (40 + 6) x 3 (its shell would reach y = 0.28, past the
       domain, which the reader refuses: set here for the count only); 2 layers, open:
       44 x 27 - 40 x 25 = 188 */
    c.open_top = false;
    CLP_ASSERT_OK(clp__sph_count(&c, &n, &n_fluid, &err), &err);
    CLP_ASSERT_EQ(n, 200 + 288 + 46 * 3 + 20);
    c.open_top = true;
    c.layers = 2;
    CLP_ASSERT_OK(clp__sph_count(&c, &n, &n_fluid, &err), &err);
    CLP_ASSERT_EQ(n, 200 + 188 + 20);
    /* two fluid boxes, a box not a multiple of dp (0.055 / 0.01: 5 points), and no tank */
    c = loaded(write_2d("", "",
                        "[{'min': [0, 0], 'max': [0.055, 0.1]}, {'min': [0.1, 0], 'max': [0.13, "
                        "0.02]}]",
                        "", ""),
               2);
    CLP_ASSERT_OK(clp__sph_count(&c, &n, &n_fluid, &err), &err);
    CLP_ASSERT_EQ(n_fluid, 5 * 10 + 3 * 2);
    CLP_ASSERT_EQ(n, n_fluid);
    printf("ok 2D counts and lattices: 200 fluid, 288 tank, 20 wall particles\n");
}

/* 3D, dp 2 cm: the fluid 5 x 3 x 4 = 60; a closed tank 0.2 x 0.2 x 0.16 with 2 layers:
 * 14 x 14 x 12 - 10 x 10 x 8 = 1552; open: 14 x 14 x 10 - 800 = 1160. */
static void test_counts_3d(void) {
    clp_error err = CLP_ERROR_INIT;
    const char *path =
        write_case("{'domain': {'origin': [-0.05, -0.05, -0.05], 'size': [0.3, 0.3, 0.3]}, "
                   "'sph': {'dp': 0.02}, 'fluid': [{'min': [0, 0, 0], 'max': [0.1, 0.06, 0.08]}],"
                   " 'tank': {'min': [0, 0, 0], 'max': [0.2, 0.2, 0.16], 'layers': 2, "
                   "'open_top': false}}");
    clp_sph_case c = loaded(path, 3);
    size_t n, n_fluid;
    CLP_ASSERT_OK(clp__sph_count(&c, &n, &n_fluid, &err), &err);
    CLP_ASSERT_EQ(n_fluid, 60);
    CLP_ASSERT_EQ(n, 60 + 1552);
    double *xyz;
    uint32_t *types;
    CLP_ASSERT_OK(clp__sph_particles(&c, n, &xyz, &types, &err), &err);
    /* the 60th fluid point, the last: (4.5, 2.5, 3.5) spacings */
    CLP_ASSERT_NEAR(xyz[3 * 59], 0.09, 1e-15);
    CLP_ASSERT_NEAR(xyz[3 * 59 + 1], 0.05, 1e-15);
    CLP_ASSERT_NEAR(xyz[3 * 59 + 2], 0.07, 1e-15);
    size_t below = 0, above = 0;
    for (size_t k = 60; k < n; k++) {
        CLP_ASSERT_EQ(types[k], 1);
        const double *x = xyz + 3 * k;
        bool inside = true;
        for (int a = 0; a < 3; a++) {
            CLP_ASSERT(x[a] > c.tank.min[a] - 0.04 && x[a] < c.tank.max[a] + 0.04);
            inside = inside && x[a] > c.tank.min[a] && x[a] < c.tank.max[a];
        }
        CLP_ASSERT(!inside);
        below += x[2] < 0;
        above += x[2] > 0.16;
    }
    CLP_ASSERT_EQ(below, 14 * 14 * 2); /* the floor and the lid, each 2 layers of 14 x 14 */
    CLP_ASSERT_EQ(above, 14 * 14 * 2);
    free(xyz);
    free(types);
    c.open_top = true;
    CLP_ASSERT_OK(clp__sph_count(&c, &n, &n_fluid, &err), &err);
    CLP_ASSERT_EQ(n, 60 + 1160);
    printf("ok 3D counts: 60 fluid, 1552 closed-tank and 1160 open-tank particles\n");
}

/* Walls meet at their boxes' edges whatever the spacing: a tank 39.6 spacings long lays its
 * floor as 40 points 0.396 / 40 apart, so that the gap to the far wall is under a spacing
 * (floor's last point at 0.39 - 0.004875, far wall's first at 0.396 + 0.005), and a wall box
 * 4.6 by 5 spacings holds 5 by 5 points 0.0092 by 0.01 apart, up to half a step from its far
 * faces. The fluid keeps the spacing, and the open top's side walls the fluid's lattice. */
static void test_walls_meet(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c = loaded(write_2d("", "", NULL, "{'min': [0, 0], 'max': [0.396, 0.25]}",
                                     "[{'min': [0.2, 0], 'max': [0.246, 0.05]}]"),
                            2);
    size_t n, n_fluid;
    CLP_ASSERT_OK(clp__sph_count(&c, &n, &n_fluid, &err), &err);
    double *xyz;
    uint32_t *types;
    CLP_ASSERT_OK(clp__sph_particles(&c, n, &xyz, &types, &err), &err);
    const double step = 0.396 / 40;
    size_t floor_points = 0, box_points = 0, side_points = 0;
    double floor_last = -1, far_first = 1;
    for (size_t k = n_fluid; k < n; k++) {
        const double x = xyz[3 * k], y = xyz[3 * k + 1];
        if (y < 0 && x > 0 && x < 0.396) { /* the floor's points between the side walls */
            const double u = x / step - 0.5;
            CLP_ASSERT_NEAR(u, lround(u), 1e-9);
            floor_points++;
            floor_last = fmax(floor_last, x);
        }
        if (x > 0.396 && y > 0) {
            far_first = fmin(far_first, x);
            const double v = y / 0.01 - 0.5; /* the open side wall: the fluid's rows */
            CLP_ASSERT_NEAR(v, lround(v), 1e-9);
            side_points++;
        }
        if (x > 0.2 && x < 0.246 && y > 0 && y < 0.05) {
            CLP_ASSERT_NEAR((x - 0.2) / 0.0092 - 0.5, lround((x - 0.2) / 0.0092 - 0.5), 1e-9);
            box_points++;
        }
    }
    CLP_ASSERT_EQ(floor_points, 3 * 40);
    CLP_ASSERT_NEAR(floor_last, 0.396 - step / 2, 1e-12);
    CLP_ASSERT_NEAR(far_first, 0.396 + 0.005, 1e-12);
    CLP_ASSERT(far_first - floor_last < 0.01);
    CLP_ASSERT_EQ(side_points, 3 * 25);
    CLP_ASSERT_EQ(box_points, 25);
    for (size_t k = 0; k < n_fluid; k++) /* the fluid column: spacing 0.01 */
        CLP_ASSERT_NEAR(xyz[3 * k] / 0.01 - 0.5, lround(xyz[3 * k] / 0.01 - 0.5), 1e-9);
    free(xyz);
    free(types);
    printf("ok walls meet: a floor of 40 points 0.0099 apart, a box of 5 x 5\n");
}

/* A fluid box thinner than a spacing holds no particle; a spacing giving 2^31 or more
 * particles is refused before anything is allocated. */
static void test_count_errors(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c =
        loaded(write_2d("", "", "[{'min': [0, 0], 'max': [0.1, 0.005]}]", NULL, NULL), 2);
    size_t n, n_fluid;
    CLP_ASSERT_STATUS(clp__sph_count(&c, &n, &n_fluid, &err), CLP_CASE, &err);
    CLP_ASSERT_CONTAINS(err.message, "the fluid boxes hold no particle at spacing 0.01");
    err = (clp_error)CLP_ERROR_INIT;
    c = loaded(write_case("{'domain': {'origin': [0, 0, 0], 'size': [1, 1, 1]}, 'sph': {'dp': "
                          "0.0007}, 'fluid': [{'min': [0, 0, 0], 'max': [1, 1, 1]}]}"),
               3);
    /* 1428^3 = 2.9e9 lattice points */
    CLP_ASSERT_STATUS(clp__sph_count(&c, &n, &n_fluid, &err), CLP_CASE, &err);
    CLP_ASSERT_CONTAINS(err.message, "clpart handles fewer than 2^31");
    printf("ok empty and oversized lattices refused\n");
}

/* h = h_over_dp dp, m = rho0 dp^d, c0 = 10 sqrt(2 |g| H) over the fluid's height H unless
 * given, dt = min(cfl h / c0, 0.125 h^2 / nu) (src/models/sph/sph.h, docs/models/sph.md). */
static void test_physics(void) {
    clp_sph_case c = loaded(write_2d("", "", NULL, NULL, NULL), 2);
    clp__sph_physics_values p;
    clp__sph_physics(&c, &p);
    const double c0 = 10.0 * sqrt(2.0 * G * 0.2);
    CLP_ASSERT_NEAR(p.h, 0.013, 1e-15);
    CLP_ASSERT_NEAR(p.mass, 1000 * 0.01 * 0.01, 1e-15);
    CLP_ASSERT_NEAR(p.c0, c0, 1e-12);
    CLP_ASSERT_NEAR(p.dt, 0.1 * 0.013 / c0, 1e-17);
    /* the fluid's height from the lowest bottom to the highest top of several boxes */
    c = loaded(write_2d("", "",
                        "[{'min': [0, 0.05], 'max': [0.05, 0.1]}, {'min': [0.1, 0], 'max': [0.2, "
                        "0.02]}]",
                        NULL, NULL),
               2);
    clp__sph_physics(&c, &p);
    CLP_ASSERT_NEAR(p.c0, 10.0 * sqrt(2.0 * G * 0.1), 1e-12);
    /* a given c0, a slanted gravity's magnitude (it sets no c0 then), and the viscous bound:
       0.125 h^2 / nu = 0.125 (0.015)^2 / 0.5 = 5.625e-5 s below cfl h / c0 = 1e-4 s */
    c = loaded(write_2d("'h_over_dp': 1.5, 'c0': 30, 'cfl': 0.2, 'nu': 0.5, 'gravity': [3, -4]", "",
                        NULL, NULL, NULL),
               2);
    clp__sph_physics(&c, &p);
    CLP_ASSERT_NEAR(p.h, 0.015, 1e-15);
    CLP_ASSERT_NEAR(p.c0, 30, 0);
    CLP_ASSERT_NEAR(p.dt, 0.125 * 0.015 * 0.015 / 0.5, 1e-17);
    /* gravity (3, -4): |g| = 5 gives c0 = 10 sqrt(2 5 0.2) */
    c.c0 = 0;
    clp__sph_physics(&c, &p);
    CLP_ASSERT_NEAR(p.c0, 10.0 * sqrt(2.0), 1e-12);
    /* nu 0: no viscous bound */
    c = loaded(write_2d("'c0': 20, 'nu': 0", "", NULL, NULL, NULL), 2);
    clp__sph_physics(&c, &p);
    CLP_ASSERT_NEAR(p.dt, 0.1 * 0.013 / 20, 1e-17);
    /* 3D: m = rho0 dp^3 */
    c = loaded(write_case("{'domain': {'origin': [0, 0, 0], 'size': [1, 1, 1]}, 'sph': {'dp': "
                          "0.02, 'rho0': 1025}, 'fluid': [{'min': [0, 0, 0], 'max': [0.5, 0.5, "
                          "0.3]}]}"),
               3);
    clp__sph_physics(&c, &p);
    CLP_ASSERT_NEAR(p.mass, 1025 * 8e-6, 1e-15);
    CLP_ASSERT_NEAR(p.c0, 10.0 * sqrt(2.0 * G * 0.3), 1e-12);
    printf("ok physics: h, mass, c0 and dt from their formulas\n");
}

/* The value of constant `name` among `n`, which must be there. */
static const clp_constant *constant(const clp_constant *k, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    CLP_TEST_FAIL("no constant %s", name);
}

static void check_constant(const clp_constant *k, size_t n, const char *name, double value) {
    const clp_constant *c = constant(k, n, name);
    CLP_ASSERT(c->type == CLP_CONST_FLOAT && c->argument);
    if (!(fabs(c->value - value) <= 1e-12 * fabs(value)))
        CLP_TEST_FAIL("%s = %.17g, expected %.17g", name, c->value, value);
}

/* The inlined constants: kernel normalisations (Wendland C2: 7 / (4 pi h^2) in 2D,
 * 21 / (16 pi h^3) in 3D; cubic spline: 10 / (7 pi h^2), 1 / (pi h^3)), Tait's
 * B = c0^2 rho0 / 7, eta^2 = 0.01 h^2, the support (2h)^2, the free-surface divergence 1.5
 * and 2.75 (DualSPHysics), and the gauges' sample points. */
static void test_constants(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c =
        loaded(write_2d("'c0': 20, 'gravity': [0.5, -9]",
                        "'gauges': {'interval': 0.01, 'points': [[0.05, 0.05]]}", NULL, NULL, NULL),
               2);
    clp__sph_physics_values p;
    clp__sph_physics(&c, &p);
    clp_constant k[CLP_SPH_MAX_CONSTANTS];
    for (int kernel = 0; kernel < 2; kernel++) {
        clp_options *opts = default_options();
        if (kernel == 1)
            CLP_ASSERT_OK(clp_options_apply_assignment(opts, "sph.kernel=cubic", &err), &err);
        const size_t n = clp__sph_constants(&c, opts, &p, k);
        CLP_ASSERT(n <= CLP_SPH_MAX_CONSTANTS);
        const double h = 0.013, sigma = (kernel == 0 ? 7.0 / 4.0 : 10.0 / 7.0) / (M_PI * h * h);
        check_constant(k, n, "CLP_SPH_H", h);
        check_constant(k, n, "CLP_SPH_RHO0", 1000);
        check_constant(k, n, "CLP_SPH_C0", 20);
        check_constant(k, n, "CLP_SPH_MASS", 0.1);
        check_constant(k, n, "CLP_SPH_VOLUME", 1e-4);
        check_constant(k, n, "CLP_SPH_ALPHA", 0.02);
        check_constant(k, n, "CLP_SPH_NU", 1e-6);
        check_constant(k, n, "CLP_SPH_GX", 0.5);
        check_constant(k, n, "CLP_SPH_GY", -9);
        CLP_ASSERT_NEAR(constant(k, n, "CLP_SPH_GZ")->value, 0, 0);
        check_constant(k, n, "CLP_SPH_DT", 0.1 * h / 20);
        check_constant(k, n, "CLP_SPH_CFL", 0.1);
        check_constant(k, n, "CLP_SPH_SIGMA", sigma);
        check_constant(k, n, "CLP_SPH_GRAD_SCALE", sigma / (h * h));
        check_constant(k, n, "CLP_SPH_TAIT_B", 20.0 * 20.0 * 1000 / 7);
        check_constant(k, n, "CLP_SPH_ETA2", 0.01 * h * h);
        check_constant(k, n, "CLP_SPH_SUPPORT2", 4 * h * h);
        check_constant(k, n, "CLP_SPH_DP", 0.01);
        check_constant(k, n, "CLP_SPH_SURFACE_DIVERGENCE", 1.5);
        const clp_constant points = clp__sph_gauge_constant(&c);
        CLP_ASSERT(points.type == CLP_CONST_INT && !points.argument);
        CLP_ASSERT_EQ(points.int_value, 1);
        clp_options_destroy(opts);
    }
    c = loaded(write_case("{'domain': {'origin': [0, 0, 0], 'size': [1, 1, 1]}, 'sph': {'dp': "
                          "0.02, 'h_over_dp': 2, 'c0': 10}, 'fluid': [{'min': [0, 0, 0], 'max': "
                          "[0.5, 0.5, 0.3]}]}"),
               3);
    clp__sph_physics(&c, &p);
    for (int kernel = 0; kernel < 2; kernel++) {
        clp_options *opts = default_options();
        if (kernel == 1)
            CLP_ASSERT_OK(clp_options_apply_assignment(opts, "sph.kernel=cubic", &err), &err);
        const size_t n = clp__sph_constants(&c, opts, &p, k);
        const double h = 0.04, sigma = (kernel == 0 ? 21.0 / 16.0 : 1.0) / (M_PI * h * h * h);
        check_constant(k, n, "CLP_SPH_SIGMA", sigma);
        check_constant(k, n, "CLP_SPH_GRAD_SCALE", sigma / (h * h));
        check_constant(k, n, "CLP_SPH_MASS", 1000 * 8e-6);
        check_constant(k, n, "CLP_SPH_VOLUME", 8e-6);
        check_constant(k, n, "CLP_SPH_GZ", -G);
        check_constant(k, n, "CLP_SPH_TAIT_B", 100.0 * 1000 / 7);
        check_constant(k, n, "CLP_SPH_SURFACE_DIVERGENCE", 2.75);
        CLP_ASSERT_EQ(clp__sph_gauge_constant(&c).int_value, 0);
        clp_options_destroy(opts);
    }
    printf("ok constants: kernel normalisations, Tait's B, eta^2, the support\n");
}

/* The lattice points within a radius, counted by hand: 2.6 dp in 2D takes the 5 x 5 square
 * but its corners (|(2, 2)| = 2.83), 21 points, 20 besides the particle itself; 1.5 dp in 3D
 * takes the faces' 6 and the edges' 12 neighbours (sqrt 2 = 1.41), not the corners' 8
 * (sqrt 3 = 1.73). A list of bits' words a cell: room for the most lattice points a cell
 * holds, (floor(cell / dp) + 1)^d, and a tenth more, 32 to a word, at most 31 words. */
static void test_lattice(void) {
    clp_sph_case c = loaded(write_2d("", "", NULL, NULL, NULL), 2);
    CLP_ASSERT_EQ(clp__sph_lattice_neighbours(&c, 0.026), 20);
    CLP_ASSERT_EQ(clp__sph_lattice_neighbours(&c, 0.0095), 0);
    clp_grid_geometry geo = {.dim = 2, .cell_size = {0.0286, 0.03, 1}};
    CLP_ASSERT_EQ(clp__sph_cell_words(&c, &geo), 1); /* 3 x 4 = 12: 13.2 / 32 */
    geo.cell_size[0] = geo.cell_size[1] = 0.06;      /* 7 x 7 = 49: 53.9 / 32 */
    CLP_ASSERT_EQ(clp__sph_cell_words(&c, &geo), 2);
    c.dim = 3;
    CLP_ASSERT_EQ(clp__sph_lattice_neighbours(&c, 0.015), 18);
    geo.dim = 3;
    geo.cell_size[0] = geo.cell_size[1] = geo.cell_size[2] = 0.1; /* 11^3 = 1331: 46 words */
    CLP_ASSERT_EQ(clp__sph_cell_words(&c, &geo), CLP_GRID_BITS_MOST_CELL_WORDS);
    printf("ok lattice neighbours and words of a list of bits\n");
}

static void check_ghost(const clp_sph_case *c, double x, double y, bool has, double gx, double gy) {
    const double at[3] = {x, y, 0};
    double to[3];
    const bool got = clp__sph_ghost(c, at, to);
    if (got != has || fabs(to[0] - gx) > 1e-12 || fabs(to[1] - gy) > 1e-12 || to[2] != 0)
        CLP_TEST_FAIL("ghost of (%g, %g): %d (%g, %g), expected %d (%g, %g)", x, y, got, to[0],
                      to[1], has, gx, gy);
}

/* mDBC's ghost nodes (src/models/sph/sph.h): a tank particle mirrored through the closest
 * point of the tank's inside (diagonal at a corner); a wall box's across its nearest face
 * with fluid space behind it (in the tank, outside every wall box); none for fluid. */
static void test_ghosts(void) {
    clp_sph_case c = loaded(write_2d("", "", NULL, NULL, NULL), 2);
    check_ghost(&c, -0.005, -0.005, true, 0.01, 0.01); /* corner: to (0, 0) and beyond */
    check_ghost(&c, 0.105, -0.015, true, 0, 0.03);     /* floor */
    check_ghost(&c, -0.025, 0.105, true, 0.05, 0);     /* left wall */
    check_ghost(&c, 0.415, 0.135, true, -0.03, 0);     /* right wall */
    check_ghost(&c, 0.205, 0.025, true, -0.01, 0);     /* wall box: its face x = 0.2 */
    check_ghost(&c, 0.235, 0.025, true, 0.01, 0);      /* its face x = 0.24 */
    check_ghost(&c, 0.215, 0.045, true, 0, 0.01);      /* its top */
    /* its floor (0.005 away) has the tank's wall behind it: the face x = 0.2, 0.015 away */
    check_ghost(&c, 0.215, 0.005, true, -0.03, 0);
    check_ghost(&c, 0.05, 0.05, false, 0, 0); /* fluid */
    /* a wall box without a tank: its floor has fluid space behind it now */
    c.has_tank = false;
    check_ghost(&c, 0.215, 0.005, true, 0, -0.01);
    printf("ok mDBC ghost nodes of the tank and of a wall box\n");
}

/* rho[] holds rho, or rho / rho0 - 1 with sph.centred_density; gauge points: each height
 * gauge's column from the tank's floor to the domain's top every half spacing
 * (0.25 / 0.005 + 1 = 51 points, x the gauge's), then the pressure points. */
static void test_density_and_gauges(void) {
    clp_sph_case c = loaded(write_2d("'rho0': 1025", "", NULL, NULL, NULL), 2);
    CLP_ASSERT_NEAR(clp__sph_stored_density(&c, false, 1030), 1030, 0);
    CLP_ASSERT_NEAR(clp__sph_stored_density(&c, true, 1030), 5.0 / 1025, 1e-16);
    CLP_ASSERT_NEAR(clp__sph_density_from_stored(&c, true, 5.0 / 1025), 1030, 1e-12);
    CLP_ASSERT_NEAR(clp__sph_density_from_stored(&c, false, 1030), 1030, 0);
    c = loaded(write_2d("", "", NULL, NULL, NULL), 2);
    CLP_ASSERT_EQ(clp__sph_gauge_points(&c, NULL), 0);
    CLP_ASSERT_EQ(clp__sph_gauge_need(&c, 10).total, 0);
    c = loaded(write_2d("",
                        "'gauges': {'interval': 0.01, 'heights': [[0.05], [0.3]], 'points': "
                        "[[0.05, 0.05], [0.3, 0.1]], 'walls': [0]}",
                        NULL, NULL, NULL),
               2);
    CLP_ASSERT_EQ(clp__sph_gauge_points(&c, NULL), 2 * 51 + 2);
    cl_float4 points[2 * 51 + 2];
    clp__sph_gauge_points(&c, points);
    CLP_ASSERT_NEAR(points[0].s[0], 0.05f, 0);
    CLP_ASSERT_NEAR(points[0].s[1], 0, 0);
    CLP_ASSERT_NEAR(points[50].s[1], 0.25f, 0);
    CLP_ASSERT_NEAR(points[51].s[0], 0.3f, 0);
    CLP_ASSERT_NEAR(points[52].s[1], 0.005f, 0);
    CLP_ASSERT_NEAR(points[103].s[0], 0.3f, 0);
    CLP_ASSERT_NEAR(points[103].s[1], 0.1f, 0);
    /* the points, two samples each and, with a wall box, a force per particle */
    const clp_memory_need need = clp__sph_gauge_need(&c, 10);
    CLP_ASSERT_EQ(need.total, (104 + 208 + 10) * sizeof(cl_float4));
    CLP_ASSERT_EQ(need.largest, 208 * sizeof(cl_float4));
    CLP_ASSERT_STR_EQ(need.largest_name, "sph.gauge_samples");
    printf("ok stored density and gauge points\n");
}

/* Gauge points on a wall move along the nearest face's normal to the offset into the fluid
 * (docs/models/sph.md, 'gauges'): on the far wall 3 mm above the floor, to 1.5 cm before it at
 * the same height; on the wall box's top, and inside the box 5 mm under its top, to 1.5 cm
 * above it; behind the far wall, out through it. A point in the fluid, 2 cm from the far wall
 * and over half a spacing from any face, stays. With `refuse` the first point on a wall is an
 * error naming it and the face. */
static void test_gauge_place(void) {
    clp_error err = CLP_ERROR_INIT;
    const char *path = write_2d("",
                                "'gauges': {'interval': 0.01, 'points': [[0.4, 0.003], [0.22, "
                                "0.05], [0.23, 0.045], [0.405, 0.1], [0.38, 0.1]]}",
                                NULL, NULL, NULL);
    clp_sph_case c = loaded(path, 2);
    size_t moved;
    CLP_ASSERT_OK(clp__sph_gauges_place(&c, 0.015, false, path, &moved, &err), &err);
    CLP_ASSERT_EQ(moved, 4);
    const double want[5][2] = {{0.385, 0.015}, {0.22, 0.065}, {0.23, 0.065}, {0.385, 0.1},
                               {0.38, 0.1}};
    for (int k = 0; k < 5; k++) {
        CLP_ASSERT_NEAR(c.gauges.points[k][0], want[k][0], 1e-15);
        CLP_ASSERT_NEAR(c.gauges.points[k][1], want[k][1], 1e-15);
    }
    c = loaded(path, 2);
    CLP_ASSERT_STATUS(clp__sph_gauges_place(&c, 0.015, true, path, &moved, &err), CLP_CASE, &err);
    CLP_ASSERT_CONTAINS(err.message, "'gauges'.points[0] (0.4, 0.003) lies on the tank's wall "
                                     "x = 0.4");
    CLP_ASSERT_CONTAINS(err.message, "sph.gauge_wall=move");
    CLP_ASSERT_CONTAINS(err.message, path);
    clp_error_clear(&err);
    printf("ok gauge points on walls: moved 1.5 cm into the fluid, or refused\n");
}

/* The outliers' phrase names each reason with its bound: c0 times sph.speed_limit, rho0
 * times sph.density_min and sph.density_max. */
static void test_outlier_reasons(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c = loaded(write_2d("'c0': 20", "", NULL, NULL, NULL), 2);
    clp__sph_physics_values p;
    clp__sph_physics(&c, &p);
    clp_options *opts = default_options();
    char why[256];
    clp__sph_outlier_reasons(&c, opts, &p, CLP_SPH_OUT_DOMAIN, why, sizeof why);
    CLP_ASSERT_STR_EQ(why, "left the domain");
    clp__sph_outlier_reasons(&c, opts, &p, CLP_SPH_OUT_SPEED | CLP_SPH_OUT_DENSITY, why,
                             sizeof why);
    CLP_ASSERT_STR_EQ(why, "moved faster than 20 m/s (sph.speed_limit), had a density outside "
                           "[700, 1300] kg/m^3 (sph.density_min, sph.density_max)");
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "sph.speed_limit=0.5", &err), &err);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "sph.density_min=0.9", &err), &err);
    clp__sph_outlier_reasons(&c, opts, &p, 7, why, sizeof why);
    CLP_ASSERT_STR_EQ(why, "left the domain, moved faster than 10 m/s (sph.speed_limit), had a "
                           "density outside [900, 1300] kg/m^3 (sph.density_min, "
                           "sph.density_max)");
    clp_options_destroy(opts);
    printf("ok outliers' reasons\n");
}

/* Cases refused with CLP_CASE, each message naming the file and the key, box or bound. */
static void test_errors(void) {
    refused(write_case("{'model': 'sph', 'domain': {'origin': [0, 0], 'size': [1, 1]}}"),
            "an SPH case needs an object 'sph'");
    refused_at(write_case("{'sph': {'dp': 0.01,}}"), 2, CLP_JSON, "");
    refused(write_case("[1]"), "the top level must be an object");
    /* misspelt keys, with the closest name */
    refused(write_2d("", "'fluids': []", NULL, NULL, NULL),
            "unknown key 'fluids'; did you mean 'fluid'?");
    refused(write_2d("'h_over_d': 1.3", "", NULL, NULL, NULL),
            "unknown key 'sph.h_over_d'; did you mean 'h_over_dp'?");
    refused(write_2d("", "", NULL, "{'min': [0, 0], 'max': [0.4, 0.25], 'layer': 3}", NULL),
            "unknown key 'tank.layer'; did you mean 'layers'?");
    refused(write_2d("", "", "[{'min': [0, 0], 'mxa': [0.1, 0.2]}]", NULL, NULL),
            "unknown key 'fluid[0].mxa'");
    refused(write_2d("", "'gauges': {'interval': 0.01, 'point': []}", NULL, NULL, NULL),
            "unknown key 'gauges.point'; did you mean 'points'?");
    /* the domain */
    refused(write_case("{'sph': {'dp': 0.01}, 'fluid': [{'min': [0, 0], 'max': [1, 1]}]}"),
            "'domain' must be an object with origin and size");
    refused(write_case("{'domain': {'origin': [0, 0], 'size': [1, 1, 1]}, 'sph': {'dp': 0.01}}"),
            "'size' must be an array of 2 numbers");
    refused(write_case("{'domain': {'origin': [0, 'a'], 'size': [1, 1]}, 'sph': {'dp': 0.01}}"),
            "'origin'[1] must be a number");
    /* the physics and its ranges */
    refused(write_case("{'domain': {'origin': [0, 0], 'size': [1, 1]}, 'sph': {'rho0': 1000}}"),
            "'dp' must be a number in [1e-09, 1e+09]");
    refused(write_case("{'domain': {'origin': [0, 0], 'size': [1, 1]}, 'sph': {'dp': 0}}"),
            "'dp' must be a number in [1e-09, 1e+09]");
    refused(write_2d("'h_over_dp': 4.5", "", NULL, NULL, NULL),
            "'h_over_dp' must be a number in [0.5, 4]");
    refused(write_2d("'rho0': -1", "", NULL, NULL, NULL), "'rho0' must be a number in [1e-09");
    refused(write_2d("'c0': 'fast'", "", NULL, NULL, NULL), "'c0' must be a number in [1e-09");
    refused(write_2d("'alpha': -0.1", "", NULL, NULL, NULL), "'alpha' must be a number in [0, 10]");
    refused(write_2d("'nu': -1", "", NULL, NULL, NULL), "'nu' must be a number in [0, 1e+09]");
    refused(write_2d("'cfl': 0", "", NULL, NULL, NULL), "'cfl' must be a number in [1e-06, 1]");
    refused(write_2d("'cfl': 1.5", "", NULL, NULL, NULL), "'cfl' must be a number in [1e-06, 1]");
    refused(write_2d("'gravity': [0, 0, -9.81]", "", NULL, NULL, NULL),
            "'gravity' must be an array of 2 numbers");
    refused(write_2d("'gravity': [0, null]", "", NULL, NULL, NULL),
            "'gravity'[1] must be a number");
    refused(write_2d("", "'end_time': -1", NULL, NULL, NULL),
            "'end_time' must be a number in [0, 1e+09]");
    refused(write_2d("", "'output_interval': 0", NULL, NULL, NULL),
            "'output_interval' must be a number in [1e-12, 1e+09]");
    refused(write_2d("", "'checkpoint_interval': -1", NULL, NULL, NULL),
            "'checkpoint_interval' must be a number in [0, 1e+09]");
    /* the boxes */
    refused(write_2d("", "", "", NULL, NULL), "'fluid' must be a list of 1 to 16 boxes");
    refused(write_2d("", "", "[]", NULL, NULL), "'fluid' must be a list of 1 to 16 boxes");
    char many[2048] = "[";
    for (int b = 0; b < 17; b++)
        snprintf(many + strlen(many), sizeof many - strlen(many),
                 "%s{'min': [%g, 0], 'max': [%g, 0.1]}", b ? ", " : "", 0.02 * b, 0.02 * b + 0.01);
    strcat(many, "]");
    refused(write_2d("", "", many, "", ""), "'fluid' must be a list of 1 to 16 boxes");
    refused(write_2d("", "", "[[0, 0, 1, 1]]", NULL, NULL),
            "'fluid'[0] must be an object with min and max");
    refused(write_2d("", "", "[{'min': [0, 0.2], 'max': [0.1, 0.2]}]", NULL, NULL),
            "'fluid'[0] has max <= min on axis 1");
    refused(write_2d("", "", "[{'min': [0, 0]}]", NULL, NULL),
            "'max' must be an array of 2 numbers");
    refused(write_2d("", "", NULL, NULL, "{'min': [0.2, 0], 'max': [0.24, 0.05]}"),
            "'walls' must be a list of 0 to 16 boxes");
    refused(write_2d("", "", NULL, NULL, "[{'min': [0.2, 0], 'max': [0.19, 0.05]}]"),
            "'walls'[0] has max <= min on axis 0");
    /* where the boxes lie */
    refused(write_2d("", "", "[{'min': [0, 0], 'max': [0.6, 0.2]}]", NULL, NULL),
            "'fluid'[0] reaches x = 0.6, beyond the tank's inner box, which ends at x = 0.4");
    refused(write_2d("", "", "[{'min': [-0.01, 0], 'max': [0.1, 0.2]}]", NULL, NULL),
            "'fluid'[0] reaches x = -0.01, beyond the tank's inner box, which begins at x = 0");
    /* above the open top the fluid may stand higher, but not past the domain */
    const char *high = write_2d("", "", "[{'min': [0, 0], 'max': [0.1, 0.26]}]", NULL, NULL);
    refused(high, "'fluid'[0] reaches y = 0.26, beyond the domain, which ends at y = 0.25");
    refused(write_2d("", "", "[{'min': [0, 0], 'max': [0.5, 0.1]}]", "", ""),
            "'fluid'[0] reaches x = 0.5, beyond the domain, which ends at x = 0.45");
    refused(write_2d("", "", NULL, "{'min': [0, 0], 'max': [0.43, 0.25]}", NULL),
            "the tank with its wall layers reaches x = 0.46, beyond the domain, which ends at "
            "x = 0.45");
    refused(write_2d("", "", NULL, NULL, "[{'min': [0.05, 0.1], 'max': [0.15, 0.12]}]"),
            "'fluid'[0] and 'walls'[0] share space: fluid particles would sit inside the wall");
    refused(write_2d("", "", NULL, NULL, "[{'min': [0.2, 0], 'max': [0.5, 0.05]}]"),
            "'walls'[0] reaches x = 0.5, beyond the domain, which ends at x = 0.45");
    refused(write_2d("", "",
                     "[{'min': [0, 0], 'max': [0.1, 0.2]}, {'min': [0.09, 0], 'max': [0.2, 0.1]}]",
                     NULL, NULL),
            "'fluid'[0] and 'fluid'[1] share space");
    refused(write_2d("", "", NULL, NULL,
                     "[{'min': [0.2, 0], 'max': [0.24, 0.05]}, {'min': [0.23, 0], 'max': [0.3, "
                     "0.02]}]"),
            "'walls'[0] and 'walls'[1] share space");
    /* boxes that only touch are apart */
    loaded(write_2d("", "",
                    "[{'min': [0, 0], 'max': [0.1, 0.2]}, {'min': [0.1, 0], 'max': [0.2, 0.1]}]",
                    NULL, "[{'min': [0.2, 0], 'max': [0.24, 0.05]}]"),
           2);
    /* the tank */
    refused(write_2d("", "", NULL, "{'min': [0, 0], 'max': [0.4, 0.25], 'layers': 9}", NULL),
            "'layers' must be a number in [1, 8]");
    refused(write_2d("", "", NULL, "{'min': [0, 0], 'max': [0.4, 0.25], 'open_top': 1}", NULL),
            "'tank.open_top' must be true or false");
    refused(write_2d("", "", NULL, "{'min': [0, 0]}", NULL), "'max' must be an array of 2 numbers");
    /* the gauges */
    refused(write_2d("", "'gauges': {'heights': [[0.05]]}", NULL, NULL, NULL),
            "'interval' must be a number in [1e-12, 1e+09]");
    refused(write_2d("", "'gauges': {'interval': 0.01, 'heights': [[0.5]]}", NULL, NULL, NULL),
            "'gauges.heights'[0] must be 1 numbers inside the domain (axis 0 from -0.05 to 0.45)");
    refused(write_2d("", "'gauges': {'interval': 0.01, 'points': [[0.1]]}", NULL, NULL, NULL),
            "'gauges.points'[0] must be 2 numbers inside the domain");
    refused(write_2d("", "'gauges': {'interval': 0.01, 'points': [[0.1, 0.3]]}", NULL, NULL, NULL),
            "'gauges.points'[0] must be 2 numbers inside the domain (axis 1 from -0.05 to 0.25)");
    refused(write_2d("", "'gauges': {'interval': 0.01, 'walls': [1]}", NULL, NULL, NULL),
            "'gauges.walls'[0] must be the index of a box of 'walls', and the case has 1");
    refused(write_2d("", "'gauges': {'interval': 0.01, 'walls': [-1]}", NULL, NULL, NULL),
            "'gauges.walls'[0] must be the index of a box of 'walls'");
    /* a missing file */
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c;
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no-such-case.json", dir);
    CLP_ASSERT(clp__sph_case_load(missing, 2, &c, &err) != CLP_OK);
    CLP_ASSERT_CONTAINS(err.message, "no-such-case.json");
    printf("ok refused cases name the key or box\n");
}

/* A checkpoint's identity lists the options of SPH's modules only, so that another model's
 * options do not change it; an identity of an older build, which listed every option of the
 * schema, reads as the same once the other modules' lines are dropped. */
static void test_identity(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_sph_case c = loaded(write_case("{'domain': {'origin': [0, 0], 'size': [1, 1]}, 'sph': "
                                       "{'dp': 0.1}, 'fluid': [{'min': [0, 0], 'max': [0.5, "
                                       "0.5]}]}"),
                            2);
    clp__sph_physics_values p;
    clp__sph_physics(&c, &p);
    clp_options *opts = default_options();
    char *identity = NULL;
    CLP_ASSERT_OK(clp__sph_identity(&c, &p, opts, NULL, 100, &identity, &err), &err);
    CLP_ASSERT(strstr(identity, "\noption sph.kernel=wendland\n"));
    CLP_ASSERT(strstr(identity, "\noption neighbors.mode=list\n"));
    CLP_ASSERT(strstr(identity, "\noption core.summation="));
    CLP_ASSERT(!strstr(identity, "option lj.") && !strstr(identity, "option pso."));
    /* an older identity: the same lines with other modules' options among them */
    char older[16384];
    const char *dp = strstr(identity, "option ");
    CLP_ASSERT(dp);
    snprintf(older, sizeof older, "%.*soption lj.strategy=par_part\n%soption pso.topology=global\n",
             (int)(dp - identity), identity, dp);
    char *own = clp__sph_identity_own(older);
    CLP_ASSERT_STR_EQ(own, identity);
    free(own);
    free(identity);
    clp_options_destroy(opts);
    printf("ok identity: SPH's modules' options only, an older identity read as the same\n");
}

int main(void) {
    CLP_ASSERT(mkdtemp(dir));
    clp_error err = CLP_ERROR_INIT;
    char options[1024];
    snprintf(options, sizeof options, "%s/options", clp_data_dir());
    CLP_ASSERT_OK(clp_schema_load(options, &schema, &err), &err);
    test_values();
    test_counts_2d();
    test_counts_3d();
    test_walls_meet();
    test_gauge_place();
    test_count_errors();
    test_physics();
    test_constants();
    test_lattice();
    test_ghosts();
    test_density_and_gauges();
    test_outlier_reasons();
    test_errors();
    test_identity();
    clp_schema_destroy(schema);
    char path[256];
    snprintf(path, sizeof path, "%s/case.json", dir);
    unlink(path);
    rmdir(dir);
    printf("sph case: all checks passed\n");
    return 0;
}
