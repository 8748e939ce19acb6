/* The neighbour search against a brute-force host search in double precision: random,
 * clustered and lattice particles, periodic and walled, 2D and 3D, every key, sort, position
 * and list mode (each pair of their values) give exactly the same neighbour sets (pairs
 * within a relative 1e-5 of the radius, where float and double may disagree, are not
 * judged). Also: the sort is a stable permutation, a list with skin stays right after
 * particles move, overflow and particles outside a walled domain are reported, excluded
 * particles sort last in order, local positions keep the digits of a spacing that global
 * float positions lose in a domain 1e5 spacings long. With --small, sizes and combinations
 * fit a run under Oclgrind (no precision check: its domain has 50000 cells).
 * CLPART_TEST_ONLY=<part of a label> runs only matching cases. */
#include "common.h"

#include <math.h>

enum { COLLECT_MAX = 512 };
static const double band = 1e-5; /* relative: pairs this close to the radius are not judged */

typedef enum { RANDOM, CLUSTERED, LATTICE } distribution;
static const char *const distribution_names[] = {"random", "clustered", "lattice"};

typedef struct scene {
    int dim;
    size_t n;
    double origin[3], size[3], radius;
    bool periodic[3];
    double *xyz;     /* n x 3 */
    uint32_t *types; /* n */
} scene;

static uint64_t rng_state = 42;

static double uniform(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * 0x1p-53;
}

/* About `neighbours` neighbours per particle on average for the uniform case. */
static scene make_scene(int dim, size_t n, distribution dist, bool periodic, double neighbours) {
    scene s = {.dim = dim, .n = n};
    double volume = 1.0;
    for (int a = 0; a < 3; a++) {
        s.origin[a] = a < dim ? -0.5 + 0.25 * a : 0.0;
        s.size[a] = a < dim ? 1.0 + 0.2 * a : 1.0;
        s.periodic[a] = periodic && a < dim;
        volume *= a < dim ? s.size[a] : 1.0;
    }
    double ball = dim == 3 ? 4.0 / 3.0 * M_PI : M_PI;
    s.radius = pow(neighbours * volume / ((double)n * ball), 1.0 / dim);
    s.xyz = calloc(3 * n, sizeof(double));
    s.types = calloc(n, sizeof(uint32_t));
    size_t side = (size_t)ceil(pow((double)n, 1.0 / dim));
    for (size_t i = 0; i < n; i++) {
        s.types[i] = uniform() < 0.3;
        for (int a = 0; a < dim; a++) {
            double u;
            if (dist == RANDOM) {
                u = uniform();
            } else if (dist == CLUSTERED) { /* four tight blobs */
                double centre = 0.2 + 0.2 * (double)(i % 4);
                u = centre + 0.03 * (uniform() + uniform() + uniform() - 1.5);
            } else { /* lattice of spacing size/side, off the cell edges by a third */
                size_t k = i;
                for (int b = 0; b < a; b++)
                    k /= side;
                u = ((double)(k % side) + 1.0 / 3.0) / (double)side;
            }
            s.xyz[3 * i + a] = s.origin[a] + u * s.size[a] * (1 - 1e-9);
        }
    }
    return s;
}

static void free_scene(scene *s) {
    free(s->xyz);
    free(s->types);
}

static double distance(const scene *s, size_t i, size_t j) {
    double d2 = 0;
    for (int a = 0; a < s->dim; a++) {
        double d = s->xyz[3 * j + a] - s->xyz[3 * i + a];
        if (s->periodic[a])
            d -= s->size[a] * round(d / s->size[a]);
        d2 += d * d;
    }
    return sqrt(d2);
}

/* The program for a scene and a set of options (NULL-terminated "name=value"). */
typedef struct run {
    clp_options *opts;
    clp_grid_geometry geo;
    clp_grid *grid;
} run;

/* Whether a build log has a warning other than a loop the compiler could not unroll as the
 * iteration's hint asks (cl/grid/iterate.cl): Intel's CPU compiler says so from its backend,
 * where no pragma of the source silences it. */
static bool has_warning(const char *log) {
    while (*log) {
        const size_t length = strcspn(log, "\n");
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(length < sizeof line ? length : sizeof line - 1),
                 log);
        if (strstr(line, "warning") && !strstr(line, "loop not unrolled"))
            return true;
        log += length + (log[length] == '\n');
    }
    return false;
}

static run open_run(test_env *t, const scene *s, const char *const *assignments) {
    clp_error err = CLP_ERROR_INIT;
    run r = {0};
    char dim[32];
    snprintf(dim, sizeof dim, "core.dim=%d", s->dim);
    const char *base[] = {dim, NULL};
    r.opts = test_options(t, base);
    for (size_t i = 0; assignments[i]; i++)
        CLP_ASSERT_OK(clp_options_apply_assignment(r.opts, assignments[i], &err), &err);
    static const char *const axes[3] = {"grid.periodic_x=%s", "grid.periodic_y=%s",
                                        "grid.periodic_z=%s"};
    for (int a = 0; a < 3; a++) {
        char p[64];
        snprintf(p, sizeof p, axes[a], s->periodic[a] ? "true" : "false");
        CLP_ASSERT_OK(clp_options_apply_assignment(r.opts, p, &err), &err);
    }
    CLP_ASSERT_OK(clp_options_check(r.opts, &err), &err);
    clp_grid_desc desc = {.radius = s->radius};
    memcpy(desc.origin, s->origin, sizeof desc.origin);
    memcpy(desc.size, s->size, sizeof desc.size);
    CLP_ASSERT_OK(clp_grid_geometry_make(r.opts, &desc, &r.geo, &err), &err);

    clp_constant constants[40];
    size_t n = clp_grid_constants(&r.geo, s->n, constants, 39);
    constants[n++] = (clp_constant){"CLP_GRID_COLLECT_MAX", CLP_CONST_INT, 0, COLLECT_MAX, false};
    const char *files[CLP_GRID_CL_FILES + 1];
    size_t n_files = 0;
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        files[n_files++] = *f;
    files[n_files++] = "grid/collect.cl";
    const char *modules[] = {"core", "grid", "neighbors"};
    clp_program_spec spec = {"grid-test", modules, 3, files, n_files, constants, n};
    char *source, *flags;
    CLP_ASSERT_OK(clp_source_assemble(r.opts, clp_data_dir(), &spec, &source, &err), &err);
    CLP_ASSERT_OK(clp_build_flags(t->device, r.opts, &flags, &err), &err);
    /* No binary cache: each scene's sizes are in its source, so nothing would hit, and PoCL
     * compiles every kernel to hand out a binary (seconds a build). */
    CLP_ASSERT_OK(clp_worker_build(t->worker, source, flags, NULL, NULL, &err), &err);
    if (has_warning(clp_worker_build_log(t->worker))) /* every variant builds cleanly */
        CLP_TEST_FAIL("build warnings:\n%s", clp_worker_build_log(t->worker));
    free(source);
    free(flags);
    CLP_ASSERT_OK(clp_grid_create(t->worker, r.opts, &r.geo, s->n, &r.grid, &err), &err);
    CLP_ASSERT_OK(clp_grid_set_particles(r.grid, s->xyz, s->types, &err), &err);
    return r;
}

static void close_run(run *r) {
    clp_grid_destroy(r->grid);
    clp_options_destroy(r->opts);
}

/* Runs a collect kernel; ids[id * COLLECT_MAX + k], count[id]. */
static void collect(test_env *t, const run *r, const scene *s, const char *kernel, uint32_t *ids,
                    float *r2, uint32_t *count) {
    clp_error err = CLP_ERROR_INIT;
    const char *const names[] = {"collect.ids", "collect.r2", "collect.count"};
    const size_t bytes[] = {s->n * COLLECT_MAX * 4, s->n * COLLECT_MAX * 4, s->n * 4};
    clp_buffer *out[3]; /* made zeroed, again at every call */
    CLP_ASSERT_OK(clp_worker_buffers_create(t->worker, names, bytes, 3, out, &err), &err);
    clp_step step = {kernel, clp_grid_iteration_buffers(r->opts) | CLP_BUF_ID, s->n, 0};
    CLP_ASSERT_OK(clp_worker_set_step_buffers(t->worker, &step, out, 3, &err), &err);
    CLP_ASSERT_OK(clp_worker_run_step(t->worker, &step, NULL, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read(t->worker, out[0], ids, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read(t->worker, out[1], r2, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read(t->worker, out[2], count, &err), &err);
}

/* Device neighbours of every particle against the brute force: within (1 - band) radius
 * must be there, beyond (1 + band) must not; reported distances match. With by_type, the
 * type-0 neighbours must come first and the others carry bit 31. Returns the number of
 * neighbour pairs checked (those within (1 - band) radius). */
static size_t compare(const scene *s, const uint32_t *ids, const float *r2, const uint32_t *count,
                      bool by_type, const char *label) {
    size_t judged = 0;
    char *seen = calloc(s->n, 1);
    for (size_t i = 0; i < s->n; i++) {
        if (count[i] == UINT32_MAX) /* grid_collect's mark */
            CLP_TEST_FAIL("%s: particle %zu: a neighbour's carried position is not its pos[]",
                          label, i);
        if (count[i] > COLLECT_MAX)
            CLP_TEST_FAIL("%s: particle %zu has %u neighbours, more than %d", label, i, count[i],
                          COLLECT_MAX);
        memset(seen, 0, s->n);
        bool others = false;
        for (uint32_t k = 0; k < count[i]; k++) {
            uint32_t raw = ids[i * COLLECT_MAX + k], j = raw & 0x7fffffffu;
            bool marked = raw >> 31;
            if (j >= s->n || j == i || seen[j])
                CLP_TEST_FAIL("%s: particle %zu: bad or repeated neighbour %u", label, i, j);
            seen[j] = 1;
            double d = distance(s, i, j);
            if (d > s->radius * (1 + band))
                CLP_TEST_FAIL("%s: particle %zu lists %u at distance %.9g > radius %.9g", label, i,
                              j, d, s->radius);
            if (fabs(sqrt(r2[i * COLLECT_MAX + k]) - d) > 1e-5 * s->radius)
                CLP_TEST_FAIL("%s: particle %zu, neighbour %u: distance %.9g, expected %.9g", label,
                              i, j, sqrt(r2[i * COLLECT_MAX + k]), d);
            if (by_type) {
                if (marked != (s->types[j] != 0) || (others && !marked))
                    CLP_TEST_FAIL("%s: particle %zu: neighbour %u of type %u in the wrong part",
                                  label, i, j, s->types[j]);
                others = others || marked;
            }
        }
        for (size_t j = 0; j < s->n; j++) {
            if (j == i)
                continue;
            double d = distance(s, i, j);
            if (d < s->radius * (1 - band) && !seen[j])
                CLP_TEST_FAIL("%s: particle %zu misses neighbour %zu at distance %.9g < %.9g",
                              label, i, j, d, s->radius);
            judged += d < s->radius * (1 - band);
        }
    }
    free(seen);
    return judged;
}

/* Keys non-decreasing, IDs a permutation, equal keys in ascending previous slot. */
static void check_sorted(test_env *t, const run *r, size_t n, const uint32_t *previous_slot,
                         const char *label) {
    clp_error err = CLP_ERROR_INIT;
    uint32_t *key = malloc(n * 4), *id = malloc(n * 4);
    char *seen = calloc(n, 1);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, key, &err), &err);
    CLP_ASSERT_OK(clp_grid_read_particles(r->grid, NULL, id, &err), &err);
    for (size_t i = 0; i < n; i++) {
        if (id[i] >= n || seen[id[i]])
            CLP_TEST_FAIL("%s: IDs after the sort are not a permutation", label);
        seen[id[i]] = 1;
        if (i > 0 && key[i] < key[i - 1])
            CLP_TEST_FAIL("%s: keys not sorted at %zu", label, i);
        if (i > 0 && key[i] == key[i - 1] && previous_slot[id[i]] < previous_slot[id[i - 1]])
            CLP_TEST_FAIL("%s: not stable at %zu (key %u)", label, i, key[i]);
    }
    free(key);
    free(id);
    free(seen);
}

/* Two of a model's own buffers that the sort carries (clp_grid_carry), of 4 and 16 bytes a
 * particle, holding each particle's index at set-up; one of another size is refused. */
static void carry_indices(test_env *t, const run *r, size_t n, clp_buffer *own[2]) {
    clp_error err = CLP_ERROR_INIT;
    static const char *const names[] = {"test.carried", "test.carried4"};
    const size_t bytes[] = {4 * n, 16 * n};
    CLP_ASSERT_OK(clp_worker_buffers_create(t->worker, names, bytes, 2, own, &err), &err);
    cl_uint *index = malloc(20 * n); /* i for the first, then i four times for the second */
    for (size_t i = 0; i < n; i++)
        index[i] = index[n + 4 * i] = index[n + 4 * i + 1] = index[n + 4 * i + 2] =
            index[n + 4 * i + 3] = (cl_uint)i;
    CLP_ASSERT_OK(clp_worker_buffer_write(t->worker, own[0], index, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_write(t->worker, own[1], index + n, &err), &err);
    for (int k = 0; k < 2; k++)
        CLP_ASSERT_OK(clp_grid_carry(r->grid, own[k], &err), &err);
    clp_buffer *odd;
    CLP_ASSERT_OK(clp_worker_buffer_create(t->worker, "test.odd", 8 * n, &odd, &err), &err);
    CLP_ASSERT_STATUS(clp_grid_carry(r->grid, odd, &err), CLP_USAGE, &err);
    clp_worker_buffer_free(t->worker, odd);
    free(index);
}

/* The carried buffers followed the sort: each slot holds its particle's ID. */
static void check_carried(test_env *t, const run *r, size_t n, clp_buffer *own[2],
                          const char *label) {
    clp_error err = CLP_ERROR_INIT;
    cl_uint *id = malloc(4 * n), *got = malloc(20 * n); /* the first, then the second */
    CLP_ASSERT_OK(clp_grid_read_particles(r->grid, NULL, id, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read(t->worker, own[0], got, &err), &err);
    CLP_ASSERT_OK(clp_worker_buffer_read(t->worker, own[1], got + n, &err), &err);
    for (size_t i = 0; i < n; i++)
        if (got[i] != id[i] || got[n + 4 * i] != id[i] || got[n + 4 * i + 3] != id[i])
            CLP_TEST_FAIL("%s: a carried buffer holds %u and %u in slot %zu, not its ID %u", label,
                          got[i], got[n + 4 * i], i, id[i]);
    for (int k = 0; k < 2; k++)
        clp_worker_buffer_free(t->worker, own[k]);
    free(id);
    free(got);
}

static void check_run(test_env *t, const scene *s, const char *const *assignments,
                      const char *label) {
    const char *only = getenv("CLPART_TEST_ONLY"); /* a part of the labels to run, for debugging */
    if (only && !strstr(label, only))
        return;
    clp_error err = CLP_ERROR_INIT;
    run r = open_run(t, s, assignments);
    clp_buffer *carried[2];
    carry_indices(t, &r, s->n, carried);
    CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
    uint32_t *identity = malloc(s->n * 4);
    for (size_t i = 0; i < s->n; i++)
        identity[i] = (uint32_t)i;
    check_sorted(t, &r, s->n, identity, label);
    check_carried(t, &r, s->n, carried, label);
    uint32_t *ids = malloc(s->n * COLLECT_MAX * 4), *count = malloc(s->n * 4);
    float *r2 = malloc(s->n * COLLECT_MAX * 4);
    collect(t, &r, s, "grid_collect", ids, r2, count);
    size_t judged = compare(s, ids, r2, count, false, label);
    CLP_ASSERT(judged > 0);
    if (clp_options_bool(r.opts, "neighbors.split")) {
        collect(t, &r, s, "grid_collect_by_type", ids, r2, count);
        compare(s, ids, r2, count, true, label);
    }
    /* The positions read back are the ones set, to float precision of the offsets. */
    double *back = malloc(s->n * 3 * sizeof(double));
    uint32_t *id = malloc(s->n * 4);
    CLP_ASSERT_OK(clp_grid_read_particles(r.grid, back, id, &err), &err);
    for (size_t i = 0; i < s->n; i++)
        for (int a = 0; a < s->dim; a++) {
            double expected = s->xyz[3 * id[i] + a], got = back[3 * i + a];
            if (s->periodic[a])
                got -= s->size[a] * round((got - expected) / s->size[a]);
            CLP_ASSERT_NEAR(got, expected, 1e-6);
        }
    free(back);
    free(id);
    free(identity);
    free(ids);
    free(count);
    free(r2);
    close_run(&r);
    printf("ok %-60s %zu neighbour pairs\n", label, judged);
}

/* A second update after every particle moved a little (global positions, written back in
 * the current order): the sort stays stable against the previous slots, and a list with
 * skin built before the move still finds every neighbour after it. `mode` is "jit", "list"
 * or "bits" (a list of bits). */
static void check_move(test_env *t, const scene *s0, const char *mode) {
    clp_error err = CLP_ERROR_INIT;
    scene s = *s0;
    const bool bits = strcmp(mode, "bits") == 0, listed = bits || strcmp(mode, "list") == 0;
    char mode_opt[64];
    snprintf(mode_opt, sizeof mode_opt, "neighbors.mode=%s", listed ? "list" : mode);
    const char *opts[] = {mode_opt, "neighbors.skin=0.2", "neighbors.every=5",
                          bits ? "neighbors.format=bits" : NULL, NULL};
    run r = open_run(t, &s, opts);
    CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
    CLP_ASSERT(clp_grid_rebuilds_at(r.grid, 0) && clp_grid_rebuilds_at(r.grid, 5));
    CLP_ASSERT(!clp_grid_rebuilds_at(r.grid, 4));
    /* Move by less than half the skin: the list (built at 1.2 r) still holds every pair. */
    double *xyz = malloc(s.n * 3 * sizeof(double));
    uint32_t *id = malloc(s.n * 4), *slot = malloc(s.n * 4);
    CLP_ASSERT_OK(clp_grid_read_particles(r.grid, xyz, id, &err), &err);
    cl_float4 *pos = malloc(s.n * sizeof *pos);
    double *moved = malloc(s.n * 3 * sizeof(double));
    for (size_t i = 0; i < s.n; i++) {
        slot[id[i]] = (uint32_t)i;
        for (int a = 0; a < 3; a++) {
            double step = a < s.dim ? 0.09 * s.radius * (2 * uniform() - 1) / sqrt(s.dim) : 0;
            double x = xyz[3 * i + a] + step;
            pos[i].s[a] = (float)x;
            moved[3 * id[i] + a] = x;
        }
        pos[i].s[3] = 0;
    }
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_POS, pos, &err), &err);
    s.xyz = moved;
    uint32_t *ids = malloc(s.n * COLLECT_MAX * 4), *count = malloc(s.n * 4);
    float *r2 = malloc(s.n * COLLECT_MAX * 4);
    char label[96];
    snprintf(label, sizeof label, "%s: moved, no rebuild", mode);
    if (listed) {
        collect(t, &r, &s, "grid_collect", ids, r2, count);
        compare(&s, ids, r2, count, false, label);
    }
    CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
    snprintf(label, sizeof label, "%s: moved, rebuilt", mode);
    check_sorted(t, &r, s.n, slot, label);
    collect(t, &r, &s, "grid_collect", ids, r2, count);
    compare(&s, ids, r2, count, false, label);
    printf("ok %s\n", label);
    free(xyz);
    free(id);
    free(slot);
    free(pos);
    free(moved);
    free(ids);
    free(count);
    free(r2);
    close_run(&r);
}

/* The brute-force largest neighbour count within the search radius. */
static size_t max_count(const scene *s, double radius) {
    size_t best = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < s->n; j++)
            c += j != i && distance(s, i, j) <= radius;
        best = c > best ? c : best;
    }
    return best;
}

/* A list sized from the counts (neighbors.max 0): the first build fits it to the brute-force
 * largest count and a quarter more; when particles crowd together a rebuild grows it and the
 * neighbour sets stay exact. */
static void check_list_sizing(test_env *t, const scene *s0, bool split) {
    clp_error err = CLP_ERROR_INIT;
    scene s = *s0;
    const char *opts[] = {"neighbors.max=0",
                          split ? "neighbors.split=true" : "neighbors.split=false", NULL};
    run r = open_run(t, &s, opts);
    CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
    const uint32_t largest = (uint32_t)max_count(&s, s.radius);
    CLP_ASSERT_EQ(clp_grid_max_neighbors_seen(r.grid), largest);
    const uint32_t first = clp_grid_list_capacity(r.grid);
    CLP_ASSERT(first >= largest && first <= largest + largest / 4 + 4);
    /* Two particles in five gather in a ball of half the radius around one point. */
    double *xyz = malloc(s.n * 3 * sizeof(double)), *crowded = malloc(s.n * 3 * sizeof(double));
    uint32_t *id = malloc(s.n * 4);
    cl_float4 *pos = malloc(s.n * sizeof *pos);
    CLP_ASSERT_OK(clp_grid_read_particles(r.grid, xyz, id, &err), &err);
    for (size_t i = 0; i < s.n; i++) {
        const bool gather = id[i] % 5 < 2;
        for (int a = 0; a < 3; a++) {
            double x = xyz[3 * i + a];
            if (gather && a < s.dim)
                x = s.origin[a] + 0.5 * s.size[a] + 0.25 * s.radius * (2 * uniform() - 1) / s.dim;
            pos[i].s[a] = (float)x;
            crowded[3 * id[i] + a] = x;
        }
        pos[i].s[3] = 0;
    }
    CLP_ASSERT_OK(clp_worker_write(t->worker, CLP_BUF_POS, pos, &err), &err);
    s.xyz = crowded;
    CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
    const uint32_t crowd = (uint32_t)max_count(&s, s.radius);
    CLP_ASSERT(crowd > first);
    CLP_ASSERT_EQ(clp_grid_max_neighbors_seen(r.grid), crowd);
    CLP_ASSERT(clp_grid_list_capacity(r.grid) >= crowd);
    uint32_t *ids = malloc(s.n * COLLECT_MAX * 4), *count = malloc(s.n * 4);
    float *r2 = malloc(s.n * COLLECT_MAX * 4);
    char label[96];
    snprintf(label, sizeof label, "list sized from the counts%s", split ? ", split" : "");
    collect(t, &r, &s, "grid_collect", ids, r2, count);
    compare(&s, ids, r2, count, false, label);
    if (split) {
        collect(t, &r, &s, "grid_collect_by_type", ids, r2, count);
        compare(&s, ids, r2, count, true, label);
    }
    printf("ok %s: %u for a largest count of %u, grown to %u for %u\n", label, first, largest,
           clp_grid_list_capacity(r.grid), crowd);
    free(xyz);
    free(crowded);
    free(id);
    free(pos);
    free(ids);
    free(count);
    free(r2);
    close_run(&r);
}

/* A list sized from the counts that the device cannot hold is refused at the build that
 * measures it, with the figures: every particle in one small ball, so each has all the
 * others as neighbours, in numbers that need 1.3 times the device's largest allocation. */
static void check_list_too_large(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const double bytes = 1.3 * (double)t->device->max_mem_alloc_size;
    scene s = make_scene(3, (size_t)sqrt(bytes / (4 * 1.25)), RANDOM, false, 8);
    for (size_t i = 0; i < s.n; i++)
        for (int a = 0; a < 3; a++)
            s.xyz[3 * i + a] = s.origin[a] + 0.5 * s.size[a] + 0.1 * s.radius * (uniform() - 0.5);
    const char *opts[] = {"neighbors.max=0", NULL};
    run r = open_run(t, &s, opts);
    CLP_ASSERT_STATUS(clp_grid_update(r.grid, &err), CLP_DEVICE_MEMORY, &err);
    char expected[96];
    snprintf(expected, sizeof expected, "the neighbour list of %zu particles with room for %u", s.n,
             clp_grid_list_room((uint32_t)s.n - 1));
    CLP_ASSERT_CONTAINS(err.message, expected);
    CLP_ASSERT_CONTAINS(err.message, "allows");
    close_run(&r);
    free_scene(&s);
    printf("ok a list too large for the device refused: %s\n", err.message);
}

static void check_errors(test_env *t, const scene *s) {
    clp_error err = CLP_ERROR_INIT;
    /* Overflow: reported with the largest count, never silently cut. */
    const char *small[] = {"neighbors.max=8", NULL};
    run r = open_run(t, s, small);
    CLP_ASSERT_STATUS(clp_grid_update(r.grid, &err), CLP_NEIGHBORS, &err);
    char expected[64];
    snprintf(expected, sizeof expected, "largest count %zu", max_count(s, s->radius));
    CLP_ASSERT_CONTAINS(err.message, expected);
    CLP_ASSERT_CONTAINS(err.message, "neighbors.max");
    close_run(&r);

    /* Particles outside a walled domain: counted, the first by index. */
    scene out = *s;
    out.xyz = malloc(s->n * 3 * sizeof(double));
    memcpy(out.xyz, s->xyz, s->n * 3 * sizeof(double));
    out.xyz[3 * 7] = s->origin[0] - 0.01;
    out.xyz[3 * 11 + 1] = s->origin[1] + s->size[1] + 0.3;
    const char *local[] = {"grid.positions=local", NULL};
    const char *global[] = {"grid.positions=global", NULL};
    const char *const *variants[] = {global, local};
    for (int v = 0; v < 2; v++) {
        clp_error_clear(&err);
        r = open_run(t, &out, variants[v]);
        CLP_ASSERT_STATUS(clp_grid_update(r.grid, &err), CLP_DOMAIN, &err);
        CLP_ASSERT_CONTAINS(err.message, "2 particles left the walled domain (first: particle 7)");
        close_run(&r);
    }
    free(out.xyz);
    printf("ok overflow and outside particles reported\n");
}

/* Excluded particles, three in four here as in a split run's spare slots, all take the outside
 * key, last, in their previous order: more of them than one block of the scan that ranks them,
 * through a second update that starts from the first one's order. */
static void check_excluded(test_env *t, scene *s, const char *sort) {
    clp_error err = CLP_ERROR_INIT;
    size_t excluded = 0;
    for (size_t i = 0; i < s->n; i++) {
        s->types[i] = uniform() < 0.75 ? CLP_GRID_EXCLUDED : 0;
        excluded += s->types[i] == CLP_GRID_EXCLUDED;
    }
    const char *opts[] = {sort, NULL};
    run r = open_run(t, s, opts);
    uint32_t *slot = malloc(s->n * 4), *id = malloc(s->n * 4), *key = malloc(s->n * 4);
    for (size_t i = 0; i < s->n; i++)
        slot[i] = (uint32_t)i;
    for (int update = 0; update < 2; update++) {
        CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
        check_sorted(t, &r, s->n, slot, sort);
        CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, key, &err), &err);
        CLP_ASSERT_OK(clp_grid_read_particles(r.grid, NULL, id, &err), &err);
        for (size_t i = 0; i < s->n; i++) {
            const bool outside = key[i] == r.geo.key_count;
            CLP_ASSERT(outside == (s->types[id[i]] == CLP_GRID_EXCLUDED));
            CLP_ASSERT(outside == (i >= s->n - excluded));
            slot[id[i]] = (uint32_t)i;
        }
    }
    free(slot);
    free(id);
    free(key);
    close_run(&r);
    printf("ok %s: %zu of %zu particles excluded, last and in order\n", sort + 10, excluded, s->n);
}

/* Positions on and a rounding step outside the periodic domain's edges, with the same x and
 * y: their neighbours across the edge are found, the sort wraps each position into
 * [origin, origin + size) and puts it in the cell of where it lands, and a second sort
 * leaves every position and key as they are (the split run's ranks wrap a position more
 * than once and must find it in one cell). Along z the origin is 0 and the domain 1.4 long:
 * -1e-9 + 1.4 rounds onto the upper edge, which is the origin. It has 41 cells, a count whose
 * float 41 / 41 NVIDIA's driver rounds below 1 (the search missed the cells across). */
static void check_periodic_edges(test_env *t, scene *s) {
    clp_error err = CLP_ERROR_INIT;
    const float end = (float)s->size[2], inside = nextafterf(end, 0.0f);
    const double z[] = {-1e-9, end, inside, (double)end + 1e-6, 0.0};
    const int nz = (int)(sizeof z / sizeof z[0]);
    for (int i = 0; i < nz; i++) {
        s->xyz[3 * i + 0] = s->xyz[0];
        s->xyz[3 * i + 1] = s->xyz[1];
        s->xyz[3 * i + 2] = z[i];
    }
    s->radius = s->size[2] / 41.5;
    const char *opts[] = {"grid.key=linear", "grid.axis_order=xyz", NULL};
    check_run(t, s, opts, "3D periodic, 41 cells along z: pairs across its edge");
    run r = open_run(t, s, opts);
    CLP_ASSERT_EQ(r.geo.cells[2], 41);
    const size_t n = s->n;
    double *xyz[2] = {malloc(3 * n * sizeof(double)), malloc(3 * n * sizeof(double))};
    uint32_t *key[2] = {malloc(n * 4), malloc(n * 4)}, *id = malloc(n * 4);
    for (int update = 0; update < 2; update++) {
        CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
        CLP_ASSERT_OK(clp_grid_read_particles(r.grid, xyz[update], id, &err), &err);
        CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_KEY, key[update], &err), &err);
    }
    const uint32_t layer = (uint32_t)(r.geo.cells[0] * r.geo.cells[1]);
    const int top = r.geo.cells[2] - 1;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            const double p = xyz[0][3 * i + a];
            CLP_ASSERT(p >= (float)s->origin[a] && p < (float)s->origin[a] + (float)s->size[a]);
        }
        CLP_ASSERT(!memcmp(&xyz[0][3 * i], &xyz[1][3 * i], 3 * sizeof(double)));
        CLP_ASSERT_EQ(key[0][i], key[1][i]);
        if (id[i] < (uint32_t)nz) { /* the edge cases' cells along z */
            const int want = id[i] == 2 ? top : 0;
            CLP_ASSERT_EQ((int)(key[0][i] / layer), want);
            if (id[i] == 2)
                CLP_ASSERT_EQ(xyz[0][3 * i + 2], (double)inside);
        }
    }
    for (int k = 0; k < 2; k++) {
        free(xyz[k]);
        free(key[k]);
    }
    free(id);
    close_run(&r);
    printf("ok periodic edges: positions wrap into the domain once, in the cells they land in\n");
}

/* clp_grid_list_only: an update builds the lists of the slots in the range as a full build
 * does (same positions, so the same sort), and leaves every other slot's list as it was. */
static void check_list_only(test_env *t, const scene *s, const char *build) {
    clp_error err = CLP_ERROR_INIT;
    const char *opts[] = {"neighbors.mode=list", "neighbors.max=64", build, NULL};
    run r = open_run(t, s, opts);
    CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
    const size_t bytes = clp_worker_buffer_bytes(t->worker, CLP_BUF_NEIB_LIST), n = s->n;
    const size_t slots = bytes / 4 / n, first = n / 4, count = n / 2;
    uint32_t *full = malloc(bytes), *part = malloc(bytes);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_NEIB_LIST, full, &err), &err);
    const cl_uint marker = 0xdeadbeefu;
    cl_command_queue q = clp_worker_queue(t->worker);
    CLP_ASSERT_EQ(clEnqueueFillBuffer(q, clp_worker_buffer(t->worker, CLP_BUF_NEIB_LIST), &marker,
                                      sizeof marker, 0, bytes, 0, NULL, NULL),
                  CL_SUCCESS);
    clp_grid_list_only(r.grid, first, count);
    CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_NEIB_LIST, part, &err), &err);
    size_t listed = 0;
    for (size_t i = 0; i < n; i++) { /* the list is interleaved: entry k of slot i at k*n + i */
        const bool in = i >= first && i < first + count;
        bool ended = false; /* a build writes a slot's entries up to its end marker */
        for (size_t k = 0; k < slots && !(in && ended); k++) {
            const uint32_t want = in ? full[k * n + i] : marker;
            if (part[k * n + i] != want)
                CLP_TEST_FAIL("list only slots %zu..%zu: slot %zu entry %zu is %u, not %u", first,
                              first + count - 1, i, k, part[k * n + i], want);
            ended = want == 0xffffffffu;
            listed += in && !ended;
        }
    }
    CLP_ASSERT(listed > 0);
    free(full);
    free(part);
    close_run(&r);
    printf("ok list for slots %zu..%zu only (%s): as a full build there, untouched elsewhere\n",
           first, first + count - 1, build + 16);
}

/* The list of every slot, to its end marker, after an update with `build`. */
static uint32_t *built_list(test_env *t, const scene *s, const char *const *opts, size_t *slots) {
    clp_error err = CLP_ERROR_INIT;
    run r = open_run(t, s, opts);
    CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
    const size_t bytes = clp_worker_buffer_bytes(t->worker, CLP_BUF_NEIB_LIST);
    uint32_t *list = malloc(bytes);
    CLP_ASSERT_OK(clp_worker_read(t->worker, CLP_BUF_NEIB_LIST, list, &err), &err);
    *slots = bytes / 4 / s->n;
    close_run(&r);
    return list;
}

/* The pencil and simd builds write the list the per-particle build writes: the same
 * neighbours of every particle in the same order, whatever the device's choice would be.
 * (simd may differ for a candidate at the search radius to the last bit, which the random
 * scenes do not hold.) */
static void check_builds_agree(test_env *t, const scene *s, const char *positions,
                               const char *build, const char *label) {
    const char *pencil[] = {"neighbors.mode=list", positions, build, NULL};
    const char *particle[] = {"neighbors.mode=list", positions, "neighbors.build=particle", NULL};
    size_t slots_a, slots_b, listed = 0;
    uint32_t *a = built_list(t, s, pencil, &slots_a), *b = built_list(t, s, particle, &slots_b);
    CLP_ASSERT_EQ(slots_a, slots_b);
    for (size_t i = 0; i < s->n; i++)
        for (size_t k = 0; k < slots_a; k++) {
            const uint32_t want = b[k * s->n + i];
            if (a[k * s->n + i] != want)
                CLP_TEST_FAIL("%s: slot %zu entry %zu is %u by %s, %u per particle", label, i, k,
                              a[k * s->n + i], build + 16, want);
            if (want == 0xffffffffu)
                break;
            listed++;
        }
    CLP_ASSERT(listed > 0);
    free(a);
    free(b);
    printf("ok %-60s the same %zu entries by %s and per particle\n", label, listed, build + 16);
}

/* Two particles 1.34 spacings apart near the end of a domain 1e5 spacings long: float
 * global positions keep about 2 of the spacing's digits, local positions all of them. */
static void check_local_precision(test_env *t) {
    scene s = {.dim = 3, .n = 2, .radius = 2.0};
    double xyz[6] = {1e5 - 2.71, 1.5, 1.5, 1e5 - 1.37, 1.5, 1.5};
    s.size[0] = 1e5;
    s.size[1] = s.size[2] = 3.0;
    s.xyz = xyz;
    uint32_t types[2] = {0, 0};
    s.types = types;
    const double exact = 1.34;
    double error[2];
    const char *modes[2] = {"grid.positions=global", "grid.positions=local"};
    for (int m = 0; m < 2; m++) {
        const char *opts[] = {modes[m], NULL};
        clp_error err = CLP_ERROR_INIT;
        run r = open_run(t, &s, opts);
        CLP_ASSERT_OK(clp_grid_update(r.grid, &err), &err);
        uint32_t ids[2 * COLLECT_MAX], count[2];
        float r2[2 * COLLECT_MAX];
        collect(t, &r, &s, "grid_collect", ids, r2, count);
        CLP_ASSERT_EQ(count[0], 1);
        error[m] = fabs(sqrt(r2[0]) - exact) / exact;
        close_run(&r);
    }
    printf("ok spacing 1.34 at x = 1e5: relative error global %.2e, local %.2e\n", error[0],
           error[1]);
    CLP_ASSERT(error[0] > 1e-4); /* float spacing at 1e5 is 2^-7 */
    CLP_ASSERT(error[1] < 1e-6);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows even if the run dies */
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    /* Every pair of option values, in 15 of the 60 combinations, on one 3D periodic random
     * scene: a build on PoCL costs seconds, and a fault shows in the pair that causes it.
     * --small (Oclgrind) takes every third: all five modes and all three key orders. */
    static const char *const keys[] = {"grid.key=linear", "grid.key=morton"};
    static const char *const orders[] = {"grid.axis_order=xyz", "grid.axis_order=zxy"};
    static const char *const sorts[] = {"grid.sort=counting", "grid.sort=radix"};
    static const char *const positions[] = {"grid.positions=global", "grid.positions=local"};
    static const char *const modes[][2] = {{"neighbors.mode=list", "neighbors.split=false"},
                                           {"neighbors.mode=list", "neighbors.split=true"},
                                           {"neighbors.mode=jit", "neighbors.skin=0"},
                                           {"neighbors.mode=list", "neighbors.build=pencil"},
                                           {"neighbors.mode=list", "neighbors.build=simd"}};
    size_t n3 = small ? 300 : 1500, n2 = small ? 100 : 800;
    double neighbours = small ? 8 : 20; /* periodic axes need 3 cells of the radius */
    scene full = make_scene(3, n3, RANDOM, true, neighbours);
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < 5; m++) {
            if (small && (5 * k + m) % 3 != 0 && !getenv("CLPART_TEST_ONLY"))
                continue;
            int so = (k + m) % 2, p = (m / 2 + k) % 2; /* with k and m, covers every pair */
            const char *opts[] = {k < 2 ? keys[0] : keys[1],
                                  k < 2 ? orders[k] : "neighbors.max=512",
                                  sorts[so],
                                  positions[p],
                                  modes[m][0],
                                  modes[m][1],
                                  p ? "neighbors.max=512" : "neighbors.max=0",
                                  NULL};
            if (m == 2) /* jit has no list capacity */
                opts[6] = opts[1] = k < 2 ? orders[k] : "neighbors.skin=0";
            char label[160];
            snprintf(label, sizeof label, "3D periodic random: %s %s %s %s %s",
                     k < 2 ? orders[k] + 10 : "morton", sorts[so] + 10, positions[p] + 15,
                     modes[m][0] + 15,
                     m == 1   ? "split"
                     : m == 3 ? "pencils"
                     : m == 4 ? "simd"
                              : "");
            check_run(&t, &full, opts, label);
        }
    /* lists of bits, with each sort and position mode (--small: the clustered scenes below) */
    for (int so = 0; so < (small ? 0 : 2); so++) {
        const char *opts[] = {"neighbors.mode=list", "neighbors.format=bits", sorts[so],
                              positions[1 - so], NULL};
        char label[160];
        snprintf(label, sizeof label, "3D periodic random: %s %s bits", sorts[so] + 10,
                 positions[1 - so] + 15);
        check_run(&t, &full, opts, label);
    }
    free_scene(&full);
    /* Every scene with a rotating choice of options. */
    int rotate = 0;
    for (int dim = 2; dim <= 3; dim++)
        for (int periodic = 0; periodic < 2; periodic++)
            for (int d = 0; d < 3; d++) {
                if (small && d != 1)
                    continue;
                scene s =
                    make_scene(dim, dim == 3 ? n3 : n2, (distribution)d, periodic, neighbours);
                for (int c = 0; c < (small ? 1 : 2); c++, rotate++) {
                    const char *opts[] = {rotate % 3 == 2 ? "grid.key=morton" : "grid.key=linear",
                                          sorts[rotate % 2],
                                          positions[rotate / 2 % 2],
                                          modes[rotate % 3][0],
                                          modes[rotate % 3][1],
                                          rotate % 3 == 2 ? "neighbors.skin=0.1"
                                                          : "neighbors.max=0",
                                          NULL};
                    char label[160];
                    snprintf(label, sizeof label, "%dD %s %s: %s %s %s %s", dim,
                             periodic ? "periodic" : "walled", distribution_names[d], opts[0] + 9,
                             opts[1] + 10, opts[2] + 15, opts[3] + 15);
                    check_run(&t, &s, opts, label);
                }
                free_scene(&s);
            }
    scene moving = make_scene(3, small ? 300 : 1000, RANDOM, true, neighbours);
    check_move(&t, &moving, "list");
    check_move(&t, &moving, "bits");
    check_move(&t, &moving, "jit");
    check_list_sizing(&t, &moving, false);
    check_list_sizing(&t, &moving, true);
    check_list_only(&t, &moving, "neighbors.build=particle");
    check_list_only(&t, &moving, "neighbors.build=pencil");
    check_list_only(&t, &moving, "neighbors.build=simd");
    free_scene(&moving);
    for (int dim = 2; dim <= 3; dim++)
        for (int periodic = 0; periodic < 2; periodic++) {
            scene s = make_scene(dim, dim == 3 ? n3 : n2, CLUSTERED, periodic, neighbours);
            char label[80];
            for (int b = 0; b < 2; b++)
                for (int local = 0; local < 2; local++) {
                    if (small && (dim + periodic + b + local) % 2) /* each in turn, for Oclgrind */
                        continue;
                    const char *build = b ? "neighbors.build=simd" : "neighbors.build=pencil";
                    snprintf(label, sizeof label, "%dD %s clustered, %s positions", dim,
                             periodic ? "periodic" : "walled", local ? "local" : "global");
                    check_builds_agree(&t, &s,
                                       local ? "grid.positions=local" : "grid.positions=global",
                                       build, label);
                }
            /* cells of far more than 32 particles: a list of bits grows its words a cell */
            if (!small || dim + periodic == 3) {
                const char *bits[] = {"neighbors.mode=list", "neighbors.format=bits", NULL};
                snprintf(label, sizeof label, "%dD %s clustered: bits", dim,
                         periodic ? "periodic" : "walled");
                check_run(&t, &s, bits, label);
            }
            free_scene(&s);
        }
    scene sparse = make_scene(3, small ? 1500 : 6000, RANDOM, true, neighbours);
    check_excluded(&t, &sparse, "grid.sort=counting");
    check_excluded(&t, &sparse, "grid.sort=radix");
    free_scene(&sparse);
    scene walled = make_scene(3, small ? 100 : 600, RANDOM, false, neighbours);
    check_errors(&t, &walled);
    free_scene(&walled);
    scene edges = make_scene(3, small ? 100 : 600, RANDOM, true, neighbours);
    check_periodic_edges(&t, &edges);
    free_scene(&edges);
    if (!small) { /* too many cells or particles for Oclgrind, which --small is for */
        check_local_precision(&t);
        check_list_too_large(&t);
    }
    test_env_close(&t);
    return 0;
}
