/* Grid geometry from options and domain, computed here by hand: cells at least the search
 * radius wide, Morton key space, the skin, and every refusal (periodic axis under 3 cells,
 * Morton beyond 1024 cells per axis in 3D, a bad radius or size) with its reason. */
#include "internal.h"
#include "test.h"

static clp_schema *schema;

static clp_options *options(const char *const *assignments) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts;
    CLP_ASSERT_OK(clp_options_create(schema, &opts, &err), &err);
    for (size_t i = 0; assignments[i]; i++)
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, assignments[i], &err), &err);
    return opts;
}

static clp_status geometry(const char *const *assignments, clp_grid_desc desc, clp_grid_geometry *g,
                           clp_error *err) {
    clp_options *opts = options(assignments);
    clp_status st = clp_grid_geometry_make(opts, &desc, g, err);
    clp_options_destroy(opts);
    return st;
}

int main(void) {
    clp_error err = CLP_ERROR_INIT;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/options", getenv("CLPART_DATA_DIR"));
    CLP_ASSERT_OK(clp_schema_load(dir, &schema, &err), &err);
    clp_grid_geometry g;
    const clp_grid_desc box = {{0, -1, 2}, {10, 3.5, 1}, 0.5};

    const char *plain[] = {NULL};
    CLP_ASSERT_OK(geometry(plain, box, &g, &err), &err);
    CLP_ASSERT_EQ(g.dim, 3);
    CLP_ASSERT_EQ(g.cells[0], 19); /* floor(10 / (0.5 * (1 + 1e-6))) */
    CLP_ASSERT_EQ(g.cells[1], 6);
    CLP_ASSERT_EQ(g.cells[2], 1);
    CLP_ASSERT_NEAR(g.cell_size[0], 10.0 / 19, 1e-15);
    CLP_ASSERT_EQ(g.key_count, 19 * 6 * 1);
    CLP_ASSERT_EQ(g.max_neighbors, 0); /* sized from the counts */

    const char *skin[] = {"neighbors.skin=0.5", "grid.key=morton", NULL};
    CLP_ASSERT_OK(geometry(skin, box, &g, &err), &err);
    CLP_ASSERT_NEAR(g.search_radius, 0.75, 1e-15);
    CLP_ASSERT_EQ(g.cells[0], 13);
    CLP_ASSERT_EQ(g.key_count, 1u << (4 * 3)); /* 13 cells need 4 bits per axis */

    const char *two_d[] = {"core.dim=2", "neighbors.mode=jit", NULL};
    CLP_ASSERT_OK(geometry(two_d, box, &g, &err), &err);
    CLP_ASSERT_EQ(g.cells[2], 1);
    CLP_ASSERT_EQ(g.key_count, 19 * 6);
    CLP_ASSERT_EQ(g.max_neighbors, 0);

    const char *periodic_z[] = {"grid.periodic_z=true", NULL};
    CLP_ASSERT_STATUS(geometry(periodic_z, box, &g, &err), CLP_CASE, &err);
    CLP_ASSERT_CONTAINS(err.message, "periodic z axis");
    CLP_ASSERT_CONTAINS(err.message, "at least 3 cells");

    clp_error_clear(&err);
    const clp_grid_desc long_box = {{0, 0, 0}, {2000, 2, 2}, 1};
    const char *morton[] = {"grid.key=morton", NULL};
    CLP_ASSERT_STATUS(geometry(morton, long_box, &g, &err), CLP_CASE, &err);
    CLP_ASSERT_CONTAINS(err.message, "grid.key=morton holds at most 1024 cells");

    const clp_grid_desc bad_radius = {{0, 0, 0}, {1, 1, 1}, -1};
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(geometry(plain, bad_radius, &g, &err), CLP_CASE, &err);
    CLP_ASSERT_CONTAINS(err.message, "radius");
    const clp_grid_desc flat = {{0, 0, 0}, {1, 0, 1}, 0.1};
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(geometry(plain, flat, &g, &err), CLP_CASE, &err);
    CLP_ASSERT_CONTAINS(err.message, "y axis");
    const clp_grid_desc tiny = {{0, 0, 0}, {1, 0.05, 1}, 0.1};
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(geometry(plain, tiny, &g, &err), CLP_CASE, &err);
    CLP_ASSERT_CONTAINS(err.message, "shorter than the search radius");

    /* The constants name every axis and the particle count. */
    CLP_ASSERT_OK(geometry(plain, box, &g, &err), &err);
    clp_constant c[40];
    size_t n = clp_grid_constants(&g, 1234, c, 40);
    CLP_ASSERT(n > 10 && n <= 40);
    CLP_ASSERT_STR_EQ(c[0].name, "CLP_GRID_PARTICLES");
    CLP_ASSERT_EQ(c[0].int_value, 1234);
    clp_schema_destroy(schema);
    return 0;
}
