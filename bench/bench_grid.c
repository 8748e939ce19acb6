/* The neighbour search per step at SPH density, run by the model `search` through the registry
 * (cases/neighbour_search.json resized to about N particles): per step a small displacement of
 * every particle, one update (keys, sort, reorder, list) and one pass over every neighbour, as
 * an interaction kernel makes. Device times per step are means over the steps (the start's
 * sort and list sizing come before them); the device's copy bandwidth is measured in the same
 * run, and the least bytes a step must move (the model's count) give its fraction of it.
 * usage: bench-grid [--device SEL] [--particles N] [--steps S] [-s NAME=VALUE]... */
#include "internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const clp_error *err) {
    fprintf(stderr, "bench-grid: %s\n", err->message);
    return 1;
}

/* The example case with `side` particles per axis and `steps` steps, as a temporary file. */
static clp_status write_case(size_t side, long steps, char *path, size_t size, clp_error *err) {
    char source[1024];
    snprintf(source, sizeof source, "%s/cases/neighbour_search.json", clp_data_dir());
    json_error_t e;
    json_t *c = json_load_file(source, 0, &e);
    if (!c)
        return CLP_FAIL_AT(err, CLP_CASE, source, e.line, e.column, "%s", e.text);
    json_t *search = json_object_get(c, "search");
    json_object_set_new(search, "side", json_integer((json_int_t)side));
    json_object_set_new(search, "steps", json_integer(steps));
    snprintf(path, size, "/tmp/bench-grid-XXXXXX");
    const int fd = mkstemp(path);
    const bool written = fd >= 0 && json_dumpfd(c, fd, 0) == 0;
    if (fd >= 0)
        close(fd);
    json_decref(c);
    return written ? CLP_OK : CLP_FAIL(err, CLP_IO, "cannot write the case %s", path);
}

/* The result's value called `name`, or NaN. */
static double value_of(const clp_run_result *r, const char *name) {
    for (size_t i = 0; i < r->n_values; i++)
        if (!strcmp(r->values[i].name, name))
            return r->values[i].value;
    return NAN;
}

int main(int argc, char **argv) {
    const char *selector = NULL;
    size_t particles = 1000000;
    long steps = 5;
    clp_error err = CLP_ERROR_INIT;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            selector = argv[i + 1];
        else if (!strcmp(argv[i], "--particles"))
            particles = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--steps"))
            steps = atol(argv[i + 1]);
    }
    steps = steps < 1 ? 1 : steps;
    const size_t side = (size_t)llround(cbrt((double)particles));
    char case_path[64], dir[1024];
    if (write_case(side, steps, case_path, sizeof case_path, &err))
        return fail(&err);
    clp_schema *schema;
    clp_options *opts;
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    if (clp_schema_load(dir, &schema, &err) || clp_options_create(schema, &opts, &err) ||
        clp_options_apply_case(opts, case_path, NULL, 0, &err))
        return fail(&err);
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "-s") && clp_options_apply_assignment(opts, argv[i + 1], &err))
            return fail(&err);
    const clp_model *model;
    clp_device_list *list;
    const clp_device_info *dev;
    clp_worker *w;
    double bandwidth;
    if (clp_options_check(opts, &err) || clp_model_find(clp_options_model(opts), &model, &err) ||
        clp_device_list_create(&list, &err) || clp_device_select(list, selector, &dev, &err) ||
        clp_worker_create(dev, &w, &err) ||
        clp__copy_bandwidth(w, (size_t)1 << 28, &bandwidth, &err))
        return fail(&err);

    clp_run_timing t = {0};
    clp_run_result result = {0};
    const clp_run_config config = {.timing = &t, .result = &result};
    const clp_status st = model->run(w, opts, case_path, &config, &err);
    remove(case_path);
    if (st != CLP_OK)
        return fail(&err);
    const double n = (double)t.steps, per_step = 1e3 / n; /* ms per step */
    const double rebuild = t.keys + t.sort + t.reorder + t.list;
    const double step = (t.integration + rebuild + t.forces) / n, bytes = result.bytes / n;
    printf("| %-32.32s | %9zu | %-6s | %-8s | %-4s | %-6s | %5.1f | %7.2f | %7.2f | %7.2f | "
           "%8.2f | %7.2f | %10.2f | %7.2f | %7.2f | %8.3g | %6.3f | %6.1f | %4.0f%% |\n",
           dev->name, (size_t)t.particles, clp_options_enum(opts, "grid.key"),
           clp_options_enum(opts, "grid.sort"), clp_options_enum(opts, "neighbors.mode"),
           clp_options_enum(opts, "grid.positions"), value_of(&result, "mean_neighbours"),
           per_step * t.integration, per_step * t.keys, per_step * t.sort, per_step * t.reorder,
           per_step * t.list, per_step * rebuild, per_step * t.forces, 1e3 * step,
           (double)t.particles / step, bytes / 1e9, bytes / step / 1e9,
           100 * bytes / step / bandwidth);
    fprintf(stderr, "copy bandwidth %.1f GB/s, %llu steps\n", bandwidth / 1e9,
            (unsigned long long)t.steps);
    clp_worker_destroy(w);
    clp_device_list_destroy(list);
    clp_options_destroy(opts);
    clp_schema_destroy(schema);
    return 0;
}
