/* The neighbour search per step at SPH density: a jittered lattice in a periodic cube (spacing
 * dp, search radius 2.3 dp: 32 to 56 neighbours, about 50 on average), timed over repeated
 * updates (keys, sort, reorder, list) plus one pass over every neighbour, as an interaction
 * kernel makes. Medians of the repeats; the device's copy bandwidth is measured in the same
 * run, and the bytes each phase must move at least give its fraction of it.
 * usage: bench-grid [--device SEL] [--particles N] [--repeat R] [-s NAME=VALUE]... */
#include "run/worker_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int fail(const clp_error *err) {
    fprintf(stderr, "bench-grid: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv) {
    const char *selector = NULL;
    size_t particles = 1000000;
    int repeat = 5;
    clp_error err = CLP_ERROR_INIT;
    clp_schema *schema;
    clp_options *opts;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    if (clp_schema_load(dir, &schema, &err) || clp_options_create(schema, &opts, &err))
        return fail(&err);
    const char *periodic[] = {"grid.periodic_x=true", "grid.periodic_y=true",
                              "grid.periodic_z=true"};
    for (size_t i = 0; i < 3; i++)
        if (clp_options_apply_assignment(opts, periodic[i], &err))
            return fail(&err);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            selector = argv[i + 1];
        else if (!strcmp(argv[i], "--particles"))
            particles = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s") && clp_options_apply_assignment(opts, argv[i + 1], &err))
            return fail(&err);
    }
    if (clp_options_check(opts, &err))
        return fail(&err);
    repeat = repeat < 1 ? 1 : repeat > 50 ? 50 : repeat;

    /* A cube of side^3 particles on a lattice of spacing 1, each moved by up to 0.05. */
    size_t side = (size_t)llround(cbrt((double)particles));
    particles = side * side * side;
    double *xyz = malloc(3 * particles * sizeof(double));
    if (!xyz)
        return 1;
    uint64_t state = 7;
    for (size_t i = 0; i < particles; i++) {
        size_t c[3] = {i % side, i / side % side, i / (side * side)};
        for (int a = 0; a < 3; a++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            double jitter = 0.1 * ((double)(state >> 11) * 0x1p-53 - 0.5);
            xyz[3 * i + a] = (double)c[a] + 0.5 + jitter;
        }
    }
    clp_grid_desc desc = {{0, 0, 0}, {(double)side, (double)side, (double)side}, 2.3};
    clp_grid_geometry geo;
    clp_device_list *list;
    const clp_device_info *dev;
    clp_worker *w;
    if (clp_grid_geometry_make(opts, &desc, &geo, &err) || clp_device_list_create(&list, &err) ||
        clp_device_select(list, selector, &dev, &err) || clp_worker_create(dev, &w, &err))
        return fail(&err);

    clp_constant constants[40];
    size_t nc = clp_grid_constants(&geo, particles, constants, 40);
    const char *files[8];
    size_t nf = 0;
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        files[nf++] = *f;
    files[nf++] = "grid/collect.cl";
    const char *modules[] = {"core", "grid", "neighbors"};
    clp_program_spec spec = {"bench-grid", modules, 3, files, nf, constants, nc};
    char *source, *flags;
    clp_grid *grid;
    if (clp_source_assemble(opts, clp_data_dir(), &spec, &source, &err) ||
        clp_build_flags(dev, opts, &flags, &err) ||
        clp_worker_build(w, source, flags, NULL, NULL, &err) ||
        clp_grid_create(w, opts, &geo, particles, &grid, &err) ||
        clp_grid_set_particles(grid, xyz, NULL, &err))
        return fail(&err);
    clp_buffer_counts counts = {.particles = particles};
    if (clp_worker_alloc(w, CLP_BUF_COLLECT_COUNT, opts, &counts, &err))
        return fail(&err);
    double bandwidth;
    if (clp__copy_bandwidth(w, (size_t)1 << 28, &bandwidth, &err))
        return fail(&err);

    clp_worker_set_profiling(w, true);
    double keys[50], sort[50], reorder[50], build[50], total[50], pass[50];
    const clp_step count = {"grid_count_neighbors",
                            clp_grid_iteration_buffers(opts) | CLP_BUF_ID | CLP_BUF_COLLECT_COUNT,
                            particles, 0};
    for (int r = -1; r < repeat; r++) { /* r = -1 warms up */
        if (clp_grid_update(grid, &err) || clp_worker_run_step(w, &count, NULL, &err) ||
            clFinish(clp_worker_queue(w)) != CL_SUCCESS)
            return fail(&err);
        double start = clp__now();
        if (clp_worker_run_step(w, &count, NULL, &err) ||
            clFinish(clp_worker_queue(w)) != CL_SUCCESS)
            return fail(&err);
        if (r < 0)
            continue;
        clp_grid_timing t = clp_grid_last_timing(grid);
        keys[r] = t.keys, sort[r] = t.sort, reorder[r] = t.reorder, build[r] = t.list;
        total[r] = t.keys + t.sort + t.reorder + t.list;
        pass[r] = clp__now() - start;
    }
    uint32_t *n_neighbours = malloc(particles * sizeof(uint32_t));
    if (clp_worker_read(w, CLP_BUF_COLLECT_COUNT, n_neighbours, &err))
        return fail(&err);
    double mean = 0;
    for (size_t i = 0; i < particles; i++)
        mean += n_neighbours[i];
    mean /= (double)particles;
    double step = clp__median(total, (size_t)repeat);
    double bytes = clp_grid_update_bytes(opts, &geo, particles, mean);
    printf("| %-32.32s | %9zu | %-8s | %-6s | %-6s | %5.1f | %8.2f | %8.2f | %8.2f | %8.2f | "
           "%8.2f | %8.3g | %7.2f | %6.1f | %4.0f%% | %8.2f |\n",
           dev->name, particles, clp_options_enum(opts, "grid.sort"),
           clp_options_enum(opts, "neighbors.mode"), clp_options_enum(opts, "grid.positions"), mean,
           1e3 * clp__median(keys, (size_t)repeat), 1e3 * clp__median(sort, (size_t)repeat),
           1e3 * clp__median(reorder, (size_t)repeat), 1e3 * clp__median(build, (size_t)repeat),
           1e3 * step, (double)particles / step, bytes / 1e9, bytes / step / 1e9,
           100 * bytes / step / bandwidth, 1e3 * clp__median(pass, (size_t)repeat));
    fprintf(stderr, "copy bandwidth %.1f GB/s, %d repeats, %u cells\n", bandwidth / 1e9, repeat,
            geo.key_count);
    free(n_neighbours);
    free(xyz);
    free(source);
    free(flags);
    clp_grid_destroy(grid);
    clp_worker_destroy(w);
    clp_device_list_destroy(list);
    clp_options_destroy(opts);
    clp_schema_destroy(schema);
    return 0;
}
