/* The PSO position update (pso_move) in every memory layout, as the seed's Tables 1 and 2
 * (Bilotta et al. 2018, 4.1, 4.2): the 3-dimensional swarm in pso.layout's four
 * layouts, and the 128-dimensional one in pso.wide_layout's six. Each layout's kernel is
 * timed with `launches` queued back to back, then a wait; the median of the rounds. The bytes
 * it must move (position, velocity and best read, position and velocity written, in the
 * layout's floats) over that time, against the device's copy bandwidth measured in the same
 * run, give the fraction of the bandwidth it reaches. One tab-separated line per layout:
 *   table DEVICE layout particles dim seconds bytes GB/s copy-GB/s fraction
 * usage: bench-pso table1|table2 [--device SEL] [--particles N] [--launches L] [--rounds R] */
#include "models/pso/pso.h"

#include <stdlib.h>
#include <string.h>

static int fail(const clp_error *err) {
    fprintf(stderr, "bench-pso: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv) {
    const char *table = argc > 1 ? argv[1] : "", *selector = NULL;
    size_t particles = 0;
    int launches = 20, rounds = 5;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            selector = argv[i + 1];
        else if (!strcmp(argv[i], "--particles"))
            particles = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--launches"))
            launches = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
    }
    const bool wide = !strcmp(table, "table2");
    if (!wide && strcmp(table, "table1") != 0) {
        fprintf(stderr, "usage: bench-pso table1|table2 [--device SEL] [--particles N] "
                        "[--launches L] [--rounds R]\n");
        return 2;
    }
    static const char *const layouts[] = {"aos", "aos_selective", "soa", "soa_padded"};
    static const char *const wide_layouts[] = {"naive",  "transposed", "chunk2",
                                               "chunk4", "chunk8",     "chunk16"};
    const char *const *names = wide ? wide_layouts : layouts;
    const int count = wide ? 6 : 4, dim = wide ? 128 : 3;
    particles = particles ? particles : wide ? (size_t)1 << 16 : (size_t)1 << 22;
    launches = launches < 1 ? 1 : launches;

    clp_error err = CLP_ERROR_INIT;
    char dir[1024];
    clp_schema *schema;
    clp_device_list *list;
    const clp_device_info *dev;
    clp_worker *w;
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    if (clp_schema_load(dir, &schema, &err) || clp_device_list_create(&list, &err) ||
        clp_device_select(list, selector, &dev, &err) || clp_worker_create(dev, &w, &err))
        return fail(&err);
    double copy;
    if (clp__copy_bandwidth(w, (size_t)1 << 28, &copy, &err))
        return fail(&err);
    const clp__pso_params p = {.particles = particles,
                               .dim = dim,
                               .inertia = 0.7298,
                               .cognitive = 1.49618,
                               .social = 1.49618,
                               .lower = -5.12,
                               .upper = 5.12,
                               .vmax = 10.24,
                               .seed = 1};
    for (int k = 0; k < count; k++) {
        char assignment[64];
        snprintf(assignment, sizeof assignment, "%s=%s", wide ? "pso.wide_layout" : "pso.layout",
                 names[k]);
        clp_options *opts;
        clp__pso_system *sys;
        double seconds;
        if (clp_options_create(schema, &opts, &err) ||
            clp_options_apply_assignment(opts, "pso.objective=rastrigin", &err) ||
            clp_options_apply_assignment(opts, assignment, &err) ||
            clp__pso_system_open(w, opts, NULL, &p, 1, &sys, &err) ||
            clp__pso_system_time_move(sys, 1, 1, &seconds, &err) || /* warm up */
            clp__pso_system_time_move(sys, launches, rounds, &seconds, &err))
            return fail(&err);
        const double bytes = clp__pso_move_bytes(sys);
        printf("%s\t%s\t%s\t%zu\t%d\t%.4e\t%.0f\t%.1f\t%.1f\t%.3f\n", table, dev->name, names[k],
               particles, dim, seconds, bytes, bytes / seconds / 1e9, copy / 1e9,
               bytes / seconds / copy);
        fflush(stdout);
        clp__pso_system_close(sys);
        clp_options_destroy(opts);
    }
    clp_worker_destroy(w);
    clp_device_list_destroy(list);
    clp_schema_destroy(schema);
    return 0;
}
