/* The repulsive particles' all-pairs force evaluation (Masek and Vorechovsky
 * 2018, Figures 4 and 5): interactions per second, N (N - 1) over the time of one
 * evaluation, for each implementation, dimension and number of points. Each evaluation is
 * timed with launches queued back to back, then a wait; the median of the rounds. A tiled
 * evaluation's GFLOP/s counts 10 D + floor(q / 2) + 9 (+ 2 for odd q) floating-point
 * operations per interaction: per dimension the periodic difference (3), its square into L^2
 * (2), the difference again (3) and its term of the acceleration (2); then L^-q, the force
 * factor, the energy and the stress. One tab-separated line per measurement:
 *   impl DEVICE dim points seconds interactions/s GFLOP/s tile
 * usage: bench-repulsive [--device SEL] [--impl tiled|global] [--dims 2,5,10]
 *        [--points 1000,2000,...] [--budget SECONDS] */
#include "models/repulsive/repulsive.h"

#include <stdlib.h>
#include <string.h>

static int fail(const clp_error *err) {
    fprintf(stderr, "bench-repulsive: %s\n", err->message);
    return 1;
}

/* Comma-separated numbers into `out`; how many. */
static int parse_list(const char *text, long *out, int most) {
    int n = 0;
    for (char *end; *text && n < most; text = *end ? end + 1 : end)
        out[n++] = strtol(text, &end, 10);
    return n;
}

int main(int argc, char **argv) {
    const char *selector = NULL, *impl = "tiled";
    long dims[8] = {2, 5, 10}, points[16] = {1000, 2000, 5000, 10000, 20000, 50000, 100000};
    int n_dims = 3, n_points = 7;
    double budget = 2; /* seconds of timed evaluations per measurement, about */
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            selector = argv[i + 1];
        else if (!strcmp(argv[i], "--impl"))
            impl = argv[i + 1];
        else if (!strcmp(argv[i], "--dims"))
            n_dims = parse_list(argv[i + 1], dims, 8);
        else if (!strcmp(argv[i], "--points"))
            n_points = parse_list(argv[i + 1], points, 16);
        else if (!strcmp(argv[i], "--budget"))
            budget = atof(argv[i + 1]);
    }
    clp_error err = CLP_ERROR_INIT;
    char dir[1024], assignment[64];
    clp_schema *schema;
    clp_device_list *list;
    const clp_device_info *dev;
    clp_worker *w;
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    snprintf(assignment, sizeof assignment, "repulsive.impl=%s", impl);
    if (clp_schema_load(dir, &schema, &err) || clp_device_list_create(&list, &err) ||
        clp_device_select(list, selector, &dev, &err) || clp_worker_create(dev, &w, &err))
        return fail(&err);
    for (int a = 0; a < n_dims; a++)
        for (int b = 0; b < n_points; b++) {
            const int dim = (int)dims[a];
            const size_t n = (size_t)points[b];
            const clp__rep_params p = {.q = dim + 1, .dt = 1e-6};
            clp__rep_design d;
            clp_options *opts;
            clp__rep_system *sys;
            double one, seconds;
            if (clp__rep_latin(n, dim, 7, &d, &err) || clp_options_create(schema, &opts, &err) ||
                clp_options_apply_assignment(opts, assignment, &err))
                return fail(&err);
            clp_status st = clp__rep_system_open(w, opts, NULL, &d, &p, &sys, &err);
            if (st == CLP_CASE) { /* this implementation cannot take the size: say why */
                printf("%s\t%s\t%d\t%zu\t-\t-\t-\t%s\n", impl, dev->name, dim, n, err.message);
                err = (clp_error)CLP_ERROR_INIT;
                clp_options_destroy(opts);
                clp__rep_design_free(&d);
                continue;
            }
            if (st || clp__rep_system_time_forces(sys, 1, 1, &one, &err))
                return fail(&err);
            const int launches = one > 0 ? (int)(0.2 * budget / one) : 100;
            const int rounds = one * 5 > budget ? 1 : 5;
            if (clp__rep_system_time_forces(sys,
                                            launches < 1     ? 1
                                            : launches > 200 ? 200
                                                             : launches,
                                            rounds, &seconds, &err))
                return fail(&err);
            const double interactions = (double)n * (double)(n - 1) / seconds;
            const double flops = 10.0 * dim + p.q / 2 + 9 + (p.q % 2 ? 2 : 0);
            printf("%s\t%s\t%d\t%zu\t%.4e\t%.4e\t%.1f\t%zu\n", impl, dev->name, dim, n, seconds,
                   interactions, interactions * flops / 1e9, clp__rep_system_tile(sys));
            fflush(stdout);
            clp__rep_system_close(sys);
            clp_options_destroy(opts);
            clp__rep_design_free(&d);
        }
    clp_worker_destroy(w);
    clp_device_list_destroy(list);
    clp_schema_destroy(schema);
    return 0;
}
