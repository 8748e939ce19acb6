/* A rank's device side (cl/dist/dist.cl) against the host: the lower bounds of layer keys
 * equal counts of the sorted keys read back, and a layer's particles are exactly those whose
 * position lies in it (in double, away from the boundaries); pinned particles that rounding
 * put a float step outside their cells move into them by a few steps, and one a whole layer
 * off is refused; on a periodic axis a position on the upper edge is in the first cell; the
 * rebuild's classes (what leaves, the edges) and keys match the layers by position, and listed
 * slots become padding. With --small, a size for Oclgrind. */
#include "common.h"

#include "dist/dist_device.h"

#include <math.h>

static uint64_t rng_state = 7;

static double uniform(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * 0x1p-53;
}

typedef struct rank_grid {
    clp_options *opts;
    clp_grid_geometry geo;
    clp_grid *grid;
    size_t n;
    int layer_keys; /* keys per layer of x, the slowest axis */
} rank_grid;

/* Where the test grid begins along x, unless a test says otherwise. */
#define GRID_X0 -0.3

/* A 3D grid of 7 x 3 x 4 cells, x slowest in the key, as a rank's grid is: walled, or periodic
 * along z (an axis across the slabs). */
static rank_grid open_grid(test_env *t, size_t n, const double *xyz, const uint32_t *types,
                           double origin_x, bool periodic_z) {
    clp_error err = CLP_ERROR_INIT;
    rank_grid g = {.n = n};
    const char *assignments[] = {"core.dim=3", "grid.axis_order=yzx",
                                 periodic_z ? "grid.periodic_z=true" : NULL, NULL};
    g.opts = test_options(t, assignments);
    const clp_grid_desc desc = {{origin_x, 0.1, 0.0}, {0.8, 0.3, 0.4}, 0.1};
    CLP_ASSERT_OK(clp_grid_geometry_make(g.opts, &desc, &g.geo, &err), &err);
    CLP_ASSERT_EQ(g.geo.cells[0], 7); /* 0.8 / (0.1 (1 + 1e-6)) */
    g.layer_keys = g.geo.cells[1] * g.geo.cells[2];
    clp_constant constants[40];
    const size_t nc = clp_grid_constants(&g.geo, n, constants, 40);
    const char *files[CLP_GRID_CL_FILES + 1];
    size_t nf = 0;
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        files[nf++] = *f;
    files[nf++] = "dist/dist.cl";
    const char *modules[] = {"core", "grid", "neighbors"};
    clp_program_spec spec = {"dist-test", modules, 3, files, nf, constants, nc};
    char *source, *flags;
    CLP_ASSERT_OK(clp_source_assemble(g.opts, clp_data_dir(), &spec, &source, &err), &err);
    CLP_ASSERT_OK(clp_build_flags(t->device, g.opts, &flags, &err), &err);
    CLP_ASSERT_OK(clp_worker_build(t->worker, source, flags, NULL, NULL, &err), &err);
    if (strstr(clp_worker_build_log(t->worker), "warning"))
        CLP_TEST_FAIL("build warnings:\n%s", clp_worker_build_log(t->worker));
    free(source);
    free(flags);
    CLP_ASSERT_OK(clp_grid_create(t->worker, g.opts, &g.geo, n, &g.grid, &err), &err);
    CLP_ASSERT_OK(clp_grid_set_particles(g.grid, xyz, types, &err), &err);
    CLP_ASSERT_OK(clp_grid_update(g.grid, &err), &err);
    return g;
}

static void close_grid(rank_grid *g) {
    clp_grid_destroy(g->grid);
    clp_options_destroy(g->opts);
}

/* Bounds of every layer's first key, against the sorted keys read back and the positions. */
static void test_lower_bounds(test_env *t, size_t n) {
    clp_error err = CLP_ERROR_INIT;
    double *xyz = malloc(3 * n * sizeof *xyz);
    uint32_t *types = calloc(n, sizeof *types), *keys = malloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        xyz[3 * i] = -0.3 + 0.8 * uniform() * (1 - 1e-9);
        xyz[3 * i + 1] = 0.1 + 0.3 * uniform() * (1 - 1e-9);
        xyz[3 * i + 2] = 0.4 * uniform() * (1 - 1e-9);
        types[i] = i % 17 == 0 ? 255u : 0u; /* excluded: sorted to the end, in no layer */
    }
    rank_grid g = open_grid(t, n, xyz, types, GRID_X0, false);
    clp__dist_device d;
    CLP_ASSERT_OK(clp__dist_device_create(t->worker, &d, &err), &err);
    const int layers = g.geo.cells[0];
    uint32_t queries[16], bounds[16];
    for (int l = 0; l <= layers; l++)
        queries[l] = (uint32_t)(l * g.layer_keys);
    CLP_ASSERT_OK(clp__dist_lower_bounds(&d, n, queries, bounds, (size_t)layers + 1, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, keys, &err), &err);
    for (int l = 0; l <= layers; l++) {
        size_t below = 0, in_layer_by_position = 0, unsure = 0;
        for (size_t i = 0; i < n; i++) {
            below += keys[i] < queries[l];
            const double u = (xyz[3 * i] + 0.3) / g.geo.cell_size[0];
            if (types[i] != 255u && u < l) {
                in_layer_by_position++;
                unsure += fabs(u - l) < 1e-5;
            }
        }
        if (bounds[l] != below)
            CLP_TEST_FAIL("layer %d: lower bound %u, %zu keys below it", l, bounds[l], below);
        if (unsure == 0 && bounds[l] != in_layer_by_position)
            CLP_TEST_FAIL("layer %d: lower bound %u, %zu particles below it by position", l,
                          bounds[l], in_layer_by_position);
    }
    clp__dist_device_destroy(&d);
    close_grid(&g);
    free(xyz);
    free(types);
    free(keys);
}

/* The classes of a rank's particles against their layers by position (in double, away from
 * the boundaries), as a rank with neighbours on both sides and 7 layers sees them: layer 0
 * leaves below, 1 is the lower edge, 5 the upper, 6 leaves above. Also the keys the classing
 * sets, the classed particles counted between the layers looked at, the excluded counted
 * outside, and the padding of listed slots. */
static void test_classify(test_env *t, size_t n) {
    clp_error err = CLP_ERROR_INIT;
    double *xyz = malloc(3 * n * sizeof *xyz);
    uint32_t *types = calloc(n, sizeof *types), *keys = malloc(n * sizeof *keys);
    uint32_t *ids = malloc(n * sizeof *ids);
    unsigned char *kinds = malloc(n);
    for (size_t i = 0; i < n; i++) {
        xyz[3 * i] = -0.3 + 0.8 * uniform() * (1 - 1e-9);
        xyz[3 * i + 1] = 0.1 + 0.3 * uniform() * (1 - 1e-9);
        xyz[3 * i + 2] = 0.4 * uniform() * (1 - 1e-9);
        types[i] = i % 13 == 0 ? 255u : 0u;
    }
    rank_grid g = open_grid(t, n, xyz, types, GRID_X0, false);
    clp__dist_device d;
    cl_mem kind;
    CLP_ASSERT_OK(clp__dist_device_create(t->worker, &d, &err), &err);
    CLP_ASSERT_OK(clp__buffer_create(t->worker, "test kinds", n, &kind, &err), &err);
    double read_xyz[3 * 4096];
    CLP_ASSERT(n <= 4096);
    CLP_ASSERT_OK(clp_grid_read_particles(g.grid, read_xyz, ids, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_TYPE, types, &err), &err);
    memset(keys, 0, n * sizeof *keys); /* the classing sets them anew */
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_KEY, keys, &err), &err);
    const uint32_t layer_keys = (uint32_t)g.layer_keys;
    uint32_t queries[2] = {layer_keys, 6 * layer_keys}, bounds[2];
    size_t far, outside;
    CLP_ASSERT_OK(
        clp__dist_classify(&d, kind, 0, n, layer_keys, 1, 5, 3u, n, n, &far, &outside, &err), &err);
    CLP_ASSERT_EQ(far, (size_t)0);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, keys, &err), &err);
    CLP_ASSERT(clEnqueueReadBuffer(t->worker->queue, kind, CL_TRUE, 0, n, kinds, 0, NULL, NULL) ==
               CL_SUCCESS);
    const int expected_kind[7] = {CLP_DIST_LEAVES_LO, CLP_DIST_EDGE_LO, CLP_DIST_STAYS,
                                  CLP_DIST_STAYS,     CLP_DIST_STAYS,   CLP_DIST_EDGE_HI,
                                  CLP_DIST_LEAVES_HI};
    size_t excluded = 0, edges = 0;
    for (size_t i = 0; i < n; i++) {
        if (types[i] == 255u) {
            excluded++;
            CLP_ASSERT_EQ(kinds[i], CLP_DIST_STAYS);
            CLP_ASSERT_EQ(keys[i], g.geo.key_count);
            continue;
        }
        const double u = (read_xyz[3 * i] + 0.3) / g.geo.cell_size[0];
        const int layer = (int)floor(u);
        edges += layer == 1 || layer == 5;
        if (fabs(u - floor(u + 0.5)) < 1e-5)
            continue; /* on a boundary: either side */
        if (kinds[i] != expected_kind[layer] || keys[i] / layer_keys != (uint32_t)layer)
            CLP_TEST_FAIL("slot %zu at x = %g (layer %d): class %d, key's layer %u", i,
                          read_xyz[3 * i], layer, kinds[i], keys[i] / layer_keys);
    }
    CLP_ASSERT_EQ(outside, excluded);
    /* looking only at the layers by each edge: the edges themselves now lie between */
    CLP_ASSERT_OK(clp__dist_lower_bounds(&d, n, queries, bounds, 2, &err), &err);
    CLP_ASSERT_OK(clp__dist_classify(&d, kind, 0, n, layer_keys, 1, 5, 3u, bounds[0], bounds[1],
                                     &far, &outside, &err),
                  &err);
    CLP_ASSERT_EQ(far, edges);
    /* two slots become padding, the rest stay as they were */
    const cl_uint slots[3] = {7, 2, 5};
    cl_mem listed;
    CLP_ASSERT_OK(clp__buffer_create(t->worker, "test slots", sizeof slots, &listed, &err), &err);
    CLP_ASSERT(clEnqueueWriteBuffer(t->worker->queue, listed, CL_TRUE, 0, sizeof slots, slots, 0,
                                    NULL, NULL) == CL_SUCCESS);
    CLP_ASSERT_OK(clp__dist_pad(&d, listed, 1, 2, &err), &err);
    uint32_t padded_types[4096], padded_ids[4096];
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_TYPE, padded_types, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_ID, padded_ids, &err), &err);
    for (size_t i = 0; i < n; i++) {
        const bool pad = i == 2 || i == 5;
        CLP_ASSERT_EQ(padded_types[i], pad ? 255u : types[i]);
        CLP_ASSERT_EQ(padded_ids[i], pad ? (uint32_t)CLP_DIST_PADDING_ID : ids[i]);
    }
    clp__buffer_release(listed);
    clp__buffer_release(kind);
    clp__dist_device_destroy(&d);
    close_grid(&g);
    free(xyz);
    free(types);
    free(keys);
    free(ids);
    free(kinds);
}

/* Particles a few float steps below layer 3's boundary are pinned into the layer-3 cells
 * their keys name; particles a whole layer off are refused. Distances moved are counted in float
 * steps. */
static void test_pin(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    enum { N = 40 };
    double xyz[3 * N];
    uint32_t types[N] = {0};
    for (size_t i = 0; i < N; i++) {
        xyz[3 * i] = -0.3 + 0.05 + 0.1 * (double)(i % 7);
        xyz[3 * i + 1] = 0.12 + 0.007 * (double)i;
        xyz[3 * i + 2] = 0.2;
    }
    rank_grid g = open_grid(t, N, xyz, types, GRID_X0, false);
    clp__dist_device d;
    CLP_ASSERT_OK(clp__dist_device_create(t->worker, &d, &err), &err);
    cl_float4 pos[N];
    uint32_t keys[N], ids[N], moved_ids[N];
    double read_xyz[3 * N];
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_POS, pos, &err), &err);
    CLP_ASSERT_OK(clp_grid_read_particles(g.grid, read_xyz, moved_ids, &err), &err);
    /* slots 10..19: just below the boundary of layer 3, 4 to 40 float steps */
    const float boundary = (float)(-0.3 + 3 * g.geo.cell_size[0]);
    for (int i = 10; i < 20; i++) {
        float x = boundary;
        for (int s = 0; s < 4 * (i - 9); s++)
            x = nextafterf(x, -INFINITY);
        pos[i].s[0] = x;
    }
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_POS, pos, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, keys, &err), &err);
    for (int i = 10; i < 20; i++) /* their senders found them in layer 3, same y and z cell */
        keys[i] = keys[i] % (uint32_t)g.layer_keys + 3u * (uint32_t)g.layer_keys;
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_KEY, keys, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin(&d, 10, 10, 0.0f, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin_check(&d, &err), &err);
    cl_float4 pinned[N];
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_POS, pinned, &err), &err);
    int moved_any = 0;
    for (int i = 0; i < N; i++) {
        if (i < 10 || i >= 20) {
            CLP_ASSERT(pinned[i].s[0] == pos[i].s[0]); /* outside the range: untouched */
            continue;
        }
        /* the device may already round a position this close into layer 3: no move then */
        const double moved = (double)pinned[i].s[0] - pos[i].s[0];
        const double step = (double)nextafterf(boundary, INFINITY) - boundary;
        if (!(moved >= 0 && moved <= (4 * (i - 9) + 1) * step + 1e-12))
            CLP_TEST_FAIL("slot %d moved by %g, %d float steps allowed", i, moved, 4 * (i - 9) + 1);
        moved_any += moved > 0;
        CLP_ASSERT(pinned[i].s[1] == pos[i].s[1] && pinned[i].s[2] == pos[i].s[2]);
    }
    CLP_ASSERT(moved_any > 0);
    /* the pinned particles sort into layer 3 */
    CLP_ASSERT_OK(clp_grid_update(g.grid, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, keys, &err), &err);
    CLP_ASSERT_OK(clp_grid_read_particles(g.grid, read_xyz, ids, &err), &err);
    for (int i = 0; i < N; i++)
        for (int m = 10; m < 20; m++)
            if (ids[i] == moved_ids[m] && keys[i] / (uint32_t)g.layer_keys != 3)
                CLP_TEST_FAIL("particle %u sorted into layer %u, not 3", ids[i],
                              keys[i] / (uint32_t)g.layer_keys);
    /* a whole layer off is not rounding */
    for (int i = 0; i < N; i++)
        keys[i] = keys[i] % (uint32_t)g.layer_keys + 5u * (uint32_t)g.layer_keys;
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_KEY, keys, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin(&d, 0, N, 0.0f, &err), &err);
    CLP_ASSERT_STATUS(clp__dist_pin_check(&d, &err), CLP_CHECK, &err);
    CLP_ASSERT_CONTAINS(err.message, "outside the cells their senders found them in");
    CLP_ASSERT_CONTAINS(err.message, "along x where its sender found cell 5)");
    clp__dist_device_destroy(&d);
    close_grid(&g);
}

/* A few particles of a pin test: a row along x (from x0, dx apart) or z (from z0, dz apart),
 * their grid (periodic along z or not), its device side, and the positions and keys sorted. */
typedef struct pin_row {
    rank_grid g;
    clp__dist_device d;
    size_t n;
    cl_float4 pos[8];
    uint32_t keys[8];
} pin_row;

static void open_row(test_env *t, pin_row *r, double origin_x, size_t n, double x0, double dx,
                     double z0, double dz, bool periodic_z) {
    clp_error err = CLP_ERROR_INIT;
    double xyz[3 * 8];
    uint32_t types[8] = {0};
    CLP_ASSERT(n <= 8);
    for (size_t i = 0; i < n; i++) {
        xyz[3 * i] = x0 + dx * (double)i;
        xyz[3 * i + 1] = 0.15;
        xyz[3 * i + 2] = z0 + dz * (double)i;
    }
    r->n = n;
    r->g = open_grid(t, n, xyz, types, origin_x, periodic_z);
    CLP_ASSERT_OK(clp__dist_device_create(t->worker, &r->d, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_POS, r->pos, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, r->keys, &err), &err);
}

static void close_row(pin_row *r) {
    clp__dist_device_destroy(&r->d);
    close_grid(&r->g);
}

/* A particle 1e-5 below layer 3 (about 2700 float steps there) is refused as a bug when its
 * sender's coordinates were as small; when they were of size 100 (a box length away, across
 * a periodic boundary: 64 steps there are 4.9e-4) it is rounding, and it moves into layer 3. */
static void test_pin_scale(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    pin_row r;
    open_row(t, &r, GRID_X0, 4, 0.05, 0, 0.05, 0.1, false);
    const float boundary = (float)(-0.3 + 3 * r.g.geo.cell_size[0]);
    cl_float4 pinned[8];
    for (size_t i = 0; i < r.n; i++) {
        r.pos[i].s[0] = boundary - 1e-5f;
        r.keys[i] = r.keys[i] % (uint32_t)r.g.layer_keys + 3u * (uint32_t)r.g.layer_keys;
    }
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_KEY, r.keys, &err), &err);
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_POS, r.pos, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin(&r.d, 0, r.n, 0.0f, &err), &err);
    CLP_ASSERT_STATUS(clp__dist_pin_check(&r.d, &err), CLP_CHECK, &err);
    CLP_ASSERT_OK(clp__dist_pin(&r.d, 0, r.n, 100.0f, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin_check(&r.d, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_POS, pinned, &err), &err);
    for (size_t i = 0; i < r.n; i++) {
        const double moved = (double)pinned[i].s[0] - r.pos[i].s[0];
        if (!(moved > 0 && moved < 2e-5 && pinned[i].s[0] >= boundary - 1e-6f))
            CLP_TEST_FAIL("slot %zu moved by %g from %.9g", i, moved, r.pos[i].s[0]);
    }
    close_row(&r);
}

/* A position a few float steps above the boundary of layer 3, placed at 0, is pinned into
 * layer 2: the steps that count are those of the grid's coordinates (up to 0.46), not of the
 * position, which are a thousand times smaller or none (the LJ liquid split in 4 met this at
 * x = 0). */
static void test_pin_near_zero(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    pin_row r;
    const double cell = 0.8 / 7;
    open_row(t, &r, -3 * cell, 4, 0.05, 0, 0.05, 0.1, false);
    const float step = nextafterf(0.46f, INFINITY) - 0.46f;
    cl_float4 pinned[8];
    for (size_t i = 0; i < r.n; i++) {
        r.pos[i].s[0] = 2 * step;
        r.keys[i] = r.keys[i] % (uint32_t)r.g.layer_keys + 2u * (uint32_t)r.g.layer_keys;
    }
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_KEY, r.keys, &err), &err);
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_POS, r.pos, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin(&r.d, 0, r.n, 0.0f, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin_check(&r.d, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_POS, pinned, &err), &err);
    for (size_t i = 0; i < r.n; i++) {
        const double moved = (double)r.pos[i].s[0] - pinned[i].s[0];
        if (!(moved > 0 && moved <= 8 * step))
            CLP_TEST_FAIL("slot %zu moved down by %g from %.9g", i, moved, r.pos[i].s[0]);
    }
    CLP_ASSERT_OK(clp_grid_update(r.g.grid, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, r.keys, &err), &err);
    for (size_t i = 0; i < r.n; i++)
        CLP_ASSERT_EQ(r.keys[i] / (uint32_t)r.g.layer_keys, 2u);
    close_row(&r);
}

/* On a periodic axis a sender's wrap may round a position onto the domain's upper edge, which
 * grid_keys puts in the first cell: received so, the particle is in its cell and stays put. */
static void test_pin_periodic(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    pin_row r;
    open_row(t, &r, GRID_X0, 7, -0.25, 0.1, 0.05, 0, true);
    cl_float4 pinned[8];
    for (size_t i = 0; i < r.n; i++) /* z on the upper edge, keys in the first z cell as sorted */
        r.pos[i].s[2] = 0.4f;
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_POS, r.pos, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin(&r.d, 0, r.n, 0.0f, &err), &err);
    CLP_ASSERT_OK(clp__dist_pin_check(&r.d, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_POS, pinned, &err), &err);
    for (size_t i = 0; i < r.n; i++)
        CLP_ASSERT(pinned[i].s[2] == r.pos[i].s[2] && pinned[i].s[0] == r.pos[i].s[0]);
    close_row(&r);
}

int main(int argc, char **argv) {
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    test_lower_bounds(&t, small ? 300 : 20000);
    test_classify(&t, small ? 300 : 4000);
    test_pin(&t);
    test_pin_scale(&t);
    test_pin_periodic(&t);
    test_pin_near_zero(&t);
    test_env_close(&t);
    return 0;
}
