/* Slabs against hand-made grids: the cut follows the particles and the ranks' speeds, keeps
 * 2 layers a slab, refuses too many ranks; neighbours and owners wrap on a periodic axis;
 * a rank's grid is its slab plus a halo layer on each side that has a neighbour; a rank's
 * share of a case's particles (dist/cut.c) and the options a split run refuses or sets. */
#include "test.h"

#include "dist/cut.h"
#include "dist/rank.h"

#include <stdlib.h>

static clp_grid_geometry grid(int nx, int ny, int nz, bool periodic_x) {
    clp_grid_geometry g = {.dim = 3, .radius = 0.1, .search_radius = 0.1};
    const int cells[3] = {nx, ny, nz};
    for (int a = 0; a < 3; a++) {
        g.cells[a] = cells[a];
        g.cell_size[a] = 0.125;
        g.origin[a] = -1.0 + a;
        g.size[a] = cells[a] * 0.125;
    }
    g.periodic[0] = periodic_x;
    g.key_count = (uint32_t)(nx * ny * nz);
    return g;
}

static void uniform_cut(void) {
    const clp_grid_geometry g = grid(12, 3, 4, false);
    double layers[12];
    for (int l = 0; l < 12; l++)
        layers[l] = 100;
    clp_slabs s;
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__slabs_cut(&g, 0, layers, 3, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.first[0], 0);
    CLP_ASSERT_EQ(s.first[1], 4);
    CLP_ASSERT_EQ(s.first[2], 8);
    CLP_ASSERT_EQ(s.first[3], 12);
    /* twice as fast a middle rank takes half the layers */
    CLP_ASSERT_OK(clp__slabs_cut(&g, 0, layers, 3, (const double[]){1, 2, 1}, &s, &err), &err);
    CLP_ASSERT_EQ(s.first[1], 3);
    CLP_ASSERT_EQ(s.first[2], 9);
}

/* a dam break's particles crowd the first layers: the first slabs are the narrow ones, and
 * the empty end still gets its 2 layers */
static void crowded_cut(void) {
    const clp_grid_geometry g = grid(10, 2, 2, false);
    const double layers[10] = {300, 300, 300, 300, 0, 0, 0, 0, 0, 0};
    clp_slabs s;
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__slabs_cut(&g, 0, layers, 2, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.first[1], 2);
    CLP_ASSERT_OK(clp__slabs_cut(&g, 0, layers, 4, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.first[1], 2);
    CLP_ASSERT_EQ(s.first[2], 4);
    CLP_ASSERT_EQ(s.first[3], 6);
    for (int r = 0; r < 4; r++)
        CLP_ASSERT(s.first[r + 1] - s.first[r] >= 2);
}

static void refusals(void) {
    const clp_grid_geometry g = grid(5, 2, 2, false);
    const double layers[5] = {1, 1, 1, 1, 1};
    clp_slabs s;
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT(clp__slabs_cut(&g, 0, layers, 3, NULL, &s, &err) == CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, "at most 2 devices, not 3");
    clp_error_clear(&err);
    CLP_ASSERT(clp__slabs_cut(&g, 0, layers, 0, NULL, &s, &err) == CLP_USAGE);
}

static void neighbours_and_owners(void) {
    const double layers[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    clp_slabs walled, periodic, one;
    clp_error err = CLP_ERROR_INIT;
    const clp_grid_geometry gw = grid(8, 3, 3, false), gp = grid(8, 3, 3, true);
    CLP_ASSERT_OK(clp__slabs_cut(&gw, 0, layers, 2, NULL, &walled, &err), &err);
    CLP_ASSERT_OK(clp__slabs_cut(&gp, 0, layers, 2, NULL, &periodic, &err), &err);
    CLP_ASSERT_OK(clp__slabs_cut(&gp, 0, layers, 1, NULL, &one, &err), &err);
    CLP_ASSERT_EQ(clp__slabs_neighbor(&walled, 0, 0), -1);
    CLP_ASSERT_EQ(clp__slabs_neighbor(&walled, 0, 1), 1);
    CLP_ASSERT_EQ(clp__slabs_neighbor(&walled, 1, 1), -1);
    CLP_ASSERT_EQ(clp__slabs_neighbor(&periodic, 0, 0), 1);
    CLP_ASSERT_EQ(clp__slabs_neighbor(&periodic, 1, 1), 0);
    CLP_ASSERT_EQ(clp__slabs_neighbor(&one, 0, 0), -1); /* one rank wraps onto itself */
    CLP_ASSERT_EQ(clp__slabs_owner(&periodic, 3), 0);
    CLP_ASSERT_EQ(clp__slabs_owner(&periodic, 4), 1);
    CLP_ASSERT_EQ(clp__slabs_owner(&periodic, -1), 1);
    CLP_ASSERT_EQ(clp__slabs_owner(&periodic, 8), 0);
}

static void local_grids(void) {
    const clp_grid_geometry g = grid(12, 3, 4, false);
    double layers[12];
    for (int l = 0; l < 12; l++)
        layers[l] = 1;
    clp_slabs s;
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__slabs_cut(&g, 0, layers, 3, NULL, &s, &err), &err);
    clp_grid_geometry local;
    bool halo[2];
    /* the middle rank: layers 4..7 and one halo layer each side, 3 and 8 */
    clp__slabs_local_geometry(&s, &g, 1, &local, halo);
    CLP_ASSERT(halo[0] && halo[1]);
    CLP_ASSERT_EQ(local.cells[0], 6);
    CLP_ASSERT_NEAR(local.origin[0], -1.0 + 3 * 0.125, 1e-15);
    CLP_ASSERT_NEAR(local.size[0], 6 * 0.125, 1e-15);
    CLP_ASSERT_EQ(local.key_count, 6 * 3 * 4);
    CLP_ASSERT_NEAR(local.origin[1], g.origin[1], 0); /* the other axes as they were */
    CLP_ASSERT_EQ(local.cells[2], 4);
    /* the first rank has no halo below: its grid starts where the domain does */
    clp__slabs_local_geometry(&s, &g, 0, &local, halo);
    CLP_ASSERT(!halo[0] && halo[1]);
    CLP_ASSERT_EQ(local.cells[0], 5);
    CLP_ASSERT_NEAR(local.origin[0], g.origin[0], 0);
    /* periodic: the halo below the first rank is the last rank's edge, and the axis is
     * walled in each rank's grid */
    const clp_grid_geometry gp = grid(12, 3, 4, true);
    CLP_ASSERT_OK(clp__slabs_cut(&gp, 0, layers, 3, NULL, &s, &err), &err);
    clp__slabs_local_geometry(&s, &gp, 0, &local, halo);
    CLP_ASSERT(halo[0] && halo[1]);
    CLP_ASSERT(!local.periodic[0]);
    CLP_ASSERT_NEAR(local.origin[0], gp.origin[0] - 0.125, 1e-15);
}

/* The halo of a cut, counted by hand, and the axis whose cut has the smallest. */
static void axis_choice(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_slabs s;
    /* 8 layers along x and y, 6 along z; a column of particles at low x: along x a cut
       splits the column, along y and z the cut crosses it */
    const clp_grid_geometry g = grid(8, 8, 6, false);
    const double x[8] = {40, 40, 40, 40, 1, 1, 1, 1}, y[8] = {21, 21, 21, 21, 21, 21, 21, 21},
                 z[6] = {28, 28, 28, 28, 28, 28};
    CLP_ASSERT_OK(clp__slabs_cut(&g, 0, x, 2, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.first[1], 2); /* 80 particles a side */
    CLP_ASSERT_NEAR(clp__slabs_halo(&s, x), 80, 0);
    const double *const counts[3] = {x, y, z};
    CLP_ASSERT_OK(clp__slabs_cut_best(&g, counts, NULL, NULL, 7, 2, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.axis, 1); /* 42 against 80 along x and 56 along z */
    CLP_ASSERT_EQ(s.first[1], 4);
    CLP_ASSERT_OK(clp__slabs_cut_best(&g, counts, NULL, NULL, 5, 2, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.axis, 2); /* y left out: z's 56 against x's 80 */
    /* the slabs share out the work, the halo counts the particles: with even work along x the
       cut falls at layer 4, where the halo holds 40 + 1 particles, fewer than y's 42 */
    const double even[8] = {10, 10, 10, 10, 10, 10, 10, 10}, *const work[3] = {even, y, z};
    CLP_ASSERT_OK(clp__slabs_cut_best(&g, work, counts, NULL, 7, 2, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.axis, 0);
    CLP_ASSERT_EQ(s.first[1], 4);
    /* of equal halos, the axis with more cells; on a periodic axis the wrap is a boundary */
    const double z8[8] = {21, 21, 21, 21, 21, 21, 21, 21};
    const clp_grid_geometry cube = grid(8, 8, 8, false);
    const double *const equal[3] = {y, y, z8};
    CLP_ASSERT_OK(clp__slabs_cut_best(&cube, equal, NULL, NULL, 7, 2, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.axis, 0);
    const clp_grid_geometry ring = grid(8, 3, 4, true);
    CLP_ASSERT_OK(clp__slabs_cut(&ring, 0, y, 2, NULL, &s, &err), &err);
    CLP_ASSERT_NEAR(clp__slabs_halo(&s, y), 4 * 21, 0);
    CLP_ASSERT_STR_EQ(clp__grid_axis_order_name(clp__slabs_axis_order(0)), "yzx");
    CLP_ASSERT_STR_EQ(clp__grid_axis_order_name(clp__slabs_axis_order(1)), "xzy");
    CLP_ASSERT_STR_EQ(clp__grid_axis_order_name(clp__slabs_axis_order(2)), "xyz");
}

static clp_schema *schema; /* the options borrow it */

static clp_options *options(const char *assignment) {
    clp_error err = CLP_ERROR_INIT;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/options", getenv("CLPART_DATA_DIR"));
    if (!schema)
        CLP_ASSERT_OK(clp_schema_load(dir, &schema, &err), &err);
    clp_options *opts;
    CLP_ASSERT_OK(clp_options_create(schema, &opts, &err), &err);
    if (assignment)
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, assignment, &err), &err);
    return opts;
}

/* 8 periodic layers along x, a particle in each layer at x = layer + 0.5 cells, cut along x
 * (the only axis allowed) between 2 ranks: rank 1 takes layers 4..7 (particles 4..7, in their
 * order), and slots for its 4, the 2 of its halo layers and dist.room more, the rest padding at its
 * grid's origin. */
static void rank_share(void) {
    const clp_grid_geometry g = grid(8, 3, 3, true);
    double xyz[3 * 8];
    for (int i = 0; i < 8; i++) {
        xyz[3 * i] = g.origin[0] + (i + 0.5) * 0.125;
        xyz[3 * i + 1] = g.origin[1];
        xyz[3 * i + 2] = g.origin[2];
    }
    clp_error err = CLP_ERROR_INIT;
    clp__comm *comms[2];
    CLP_ASSERT_OK(clp__comm_threads_create(2, 0, comms, &err), &err);
    clp_options *opts = options("dist.room=0.5");
    clp__dist_cut cut;
    CLP_ASSERT_OK(
        clp__dist_cut_make(comms[1], opts, &g, 1, xyz, NULL, 8, NULL, NULL, false, &cut, &err),
        &err);
    CLP_ASSERT_EQ(cut.slabs.first[1], 4);
    CLP_ASSERT_EQ(cut.owned, 4);
    CLP_ASSERT_EQ(cut.slots, 9 + 64); /* ceil((4 + 2) * 1.5) and 64 */
    for (size_t i = 0; i < cut.slots; i++)
        CLP_ASSERT_EQ(cut.ids[i], i < 4 ? 4 + (uint32_t)i : CLP_DIST_PADDING_ID);
    CLP_ASSERT_NEAR(cut.xyz[0], xyz[12], 0);
    CLP_ASSERT_NEAR(cut.xyz[3 * 4], cut.local.origin[0], 0);
    CLP_ASSERT_NEAR(cut.local.origin[0], g.origin[0] + 3 * 0.125, 1e-15);
    clp__dist_cut_free(&cut);
    clp_options_destroy(opts);
    for (int r = 0; r < 2; r++)
        clp__comm_destroy(comms[r]);
}

/* A rank whose thinnest slab would hold the others back is left out: 12 layers of a particle
 * each among speeds 10, 1 and 10 would give the slow rank 2 layers, 2 time units where the
 * others take 0.6 for all 12 without it; at speeds 2 and 1 the second takes its third; one
 * that takes less off the others than dist.split_cost is left out too. */
static void left_out(void) {
    const clp_grid_geometry g = grid(12, 3, 3, false);
    double xyz[3 * 12];
    for (int i = 0; i < 12; i++) {
        xyz[3 * i] = g.origin[0] + (i + 0.5) * g.cell_size[0];
        xyz[3 * i + 1] = g.origin[1];
        xyz[3 * i + 2] = g.origin[2];
    }
    clp_error err = CLP_ERROR_INIT;
    clp__comm *comms[3];
    CLP_ASSERT_OK(clp__comm_threads_create(3, 0, comms, &err), &err);
    clp_options *opts = options(NULL);
    const double speeds[3] = {10, 1, 10};
    clp__dist_cut cut;
    CLP_ASSERT_OK(
        clp__dist_cut_make(comms[1], opts, &g, 1, xyz, NULL, 12, NULL, speeds, true, &cut, &err),
        &err);
    CLP_ASSERT(cut.left_out && !cut.xyz);
    CLP_ASSERT_OK(
        clp__dist_cut_make(comms[2], opts, &g, 1, xyz, NULL, 12, NULL, speeds, true, &cut, &err),
        &err);
    CLP_ASSERT(!cut.left_out && cut.kept[0] && !cut.kept[1] && cut.kept[2]);
    CLP_ASSERT_EQ(cut.slabs.ranks, 2);
    CLP_ASSERT_EQ(cut.slabs.first[1], 6);
    CLP_ASSERT_EQ(cut.owned, 6);
    CLP_ASSERT_EQ(cut.ids[0], 6);
    clp__dist_cut_free(&cut);
    /* not asked to leave any out: the slow rank takes its 2 layers */
    CLP_ASSERT_OK(
        clp__dist_cut_make(comms[1], opts, &g, 1, xyz, NULL, 12, NULL, speeds, false, &cut, &err),
        &err);
    CLP_ASSERT(!cut.left_out && cut.kept[1]);
    CLP_ASSERT_EQ(cut.owned, 2);
    clp__dist_cut_free(&cut);
    clp__comm *pair[2];
    CLP_ASSERT_OK(clp__comm_threads_create(2, 0, pair, &err), &err);
    CLP_ASSERT_OK(clp__dist_cut_make(pair[1], opts, &g, 1, xyz, NULL, 12, NULL,
                                     (const double[]){2, 1}, true, &cut, &err),
                  &err);
    CLP_ASSERT(!cut.left_out);
    CLP_ASSERT_EQ(cut.owned, 4);
    clp__dist_cut_free(&cut);
    /* at speeds 4 and 1 the second's 2 layers leave the first 10, 2.5 units split against 3
     * alone: kept while the split costs 10 % (2.75), left out at 30 % (3.25) */
    const double four_to_one[2] = {4, 1};
    const char *const costs[2] = {"dist.split_cost=0.1", "dist.split_cost=0.3"};
    for (int c = 0; c < 2; c++) {
        clp_options *costed = options(costs[c]);
        CLP_ASSERT_OK(clp__dist_cut_make(pair[1], costed, &g, 1, xyz, NULL, 12, NULL, four_to_one,
                                         true, &cut, &err),
                      &err);
        CLP_ASSERT(cut.left_out == (c == 1));
        CLP_ASSERT_EQ(cut.owned, c == 1 ? 0 : 2);
        clp__dist_cut_free(&cut);
        clp_options_destroy(costed);
    }
    clp_options_destroy(opts);
    for (int r = 0; r < 3; r++)
        clp__comm_destroy(comms[r]);
    for (int r = 0; r < 2; r++)
        clp__comm_destroy(pair[r]);
}

/* A rank's options put the slab axis slowest in the key and make it periodic only for a slab
 * of the whole domain; local positions and Morton keys are refused, naming the option and
 * what to use. */
static void rank_options(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = options(NULL), *mine = NULL;
    CLP_ASSERT_OK(clp__dist_check_options(opts, &err), &err);
    CLP_ASSERT_OK(clp__dist_rank_options(opts, 1, false, &mine, &err), &err);
    CLP_ASSERT_STR_EQ(clp_options_enum(mine, "grid.axis_order"), "xzy");
    CLP_ASSERT(!clp_options_bool(mine, "grid.periodic_y")); /* the halos stand for the wrap */
    clp_options_destroy(mine);
    clp_options *wrapped = options("grid.periodic_y=true"), *whole = NULL;
    CLP_ASSERT_OK(clp__dist_rank_options(wrapped, 1, false, &mine, &err), &err);
    CLP_ASSERT(!clp_options_bool(mine, "grid.periodic_y"));
    CLP_ASSERT_OK(clp__dist_rank_options(wrapped, 1, true, &whole, &err), &err);
    CLP_ASSERT(clp_options_bool(whole, "grid.periodic_y")); /* one slab of all: it wraps */
    clp_options_destroy(whole);
    clp_options_destroy(wrapped);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "grid.axis_order"), "xyz"); /* a copy */
    clp_options_destroy(mine);
    clp_options_destroy(opts);
    opts = options("grid.key=morton");
    CLP_ASSERT(clp__dist_check_options(opts, &err) == CLP_USAGE);
    CLP_ASSERT_CONTAINS(err.message, "grid.key=morton is single-device only");
    CLP_ASSERT_CONTAINS(err.message, "use grid.key=linear");
    clp_options_destroy(opts);
}

/* Layers tied together: no slab begins between them, the boundary moves up past them, and a
 * cut with no room left is refused naming the reason. */
static void tied_layers(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_slabs s;
    const clp_grid_geometry g = grid(12, 3, 4, false);
    double layers[12];
    for (int l = 0; l < 12; l++)
        layers[l] = 10;
    unsigned char together[12] = {0};
    together[6] = together[7] = 1; /* layers 5 to 7 on one rank */
    CLP_ASSERT_OK(clp__slabs_cut_together(&g, 0, layers, together, 2, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.first[1], 8);
    const unsigned char *const per_axis[3] = {together, NULL, NULL};
    const double *const counts[3] = {layers, NULL, NULL};
    CLP_ASSERT_OK(clp__slabs_cut_best(&g, counts, NULL, per_axis, 1, 2, NULL, &s, &err), &err);
    CLP_ASSERT_EQ(s.first[1], 8);
    for (int l = 2; l < 12; l++)
        together[l] = 1;
    CLP_ASSERT(clp__slabs_cut_together(&g, 0, layers, together, 2, NULL, &s, &err) == CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, "mDBC's ghost nodes");
}

int main(void) {
    uniform_cut();
    crowded_cut();
    refusals();
    neighbours_and_owners();
    local_grids();
    axis_choice();
    tied_layers();
    rank_share();
    left_out();
    rank_options();
    clp_schema_destroy(schema);
    return 0;
}
