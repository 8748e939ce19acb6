/* Cold build versus cache hit for the self-test program, per device: medians of repeated
 * runs, measured side by side. The drivers' own caches are disabled (CUDA_CACHE_DISABLE=1,
 * POCL_KERNEL_CACHE=0) before OpenCL starts, so "cold" is a real compile.
 * usage: bench-cache [--device SEL | --all] [--repeat N] */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int fail(const clp_error *err) {
    fprintf(stderr, "bench-cache: %s\n", err->message);
    return 1;
}

/* One device: R cold builds (each into an empty cache folder) and R hits. */
static int bench_device(const clp_device_info *dev, const clp_options *opts, int repeat) {
    clp_error err = CLP_ERROR_INIT;
    clp_worker *w;
    char *source = NULL, *flags = NULL;
    clp_model_storage storage;
    clp_program_spec spec;
    if (clp_worker_create(dev, &w, &err) ||
        clp_model_spec("selftest", opts, &storage, &spec, &err) ||
        clp_source_assemble(opts, clp_data_dir(), &spec, &source, &err) ||
        clp_build_flags(dev, opts, &flags, &err))
        return fail(&err);
    double cold[64], hit[64];
    for (int r = 0; r < repeat; r++) {
        char dir[] = "/tmp/clpart-bench-XXXXXX";
        if (!mkdtemp(dir))
            return 1;
        clp_cache *cache;
        clp_build_report a, b;
        if (clp_cache_open(dir, &cache, &err) ||
            clp_worker_build(w, source, flags, cache, &a, &err) ||
            clp_worker_build(w, source, flags, cache, &b, &err))
            return fail(&err);
        if (a.cache_hit || !b.cache_hit) {
            fprintf(stderr, "bench-cache: expected a miss then a hit\n");
            return 1;
        }
        cold[r] = a.seconds;
        hit[r] = b.seconds;
        clp_cache_clear(cache, &err);
        clp_cache_close(cache);
        rmdir(dir);
    }
    double c = median(cold, repeat), h = median(hit, repeat);
    printf("| %-44.44s | %9.4f | %9.5f | %7.1f | %2d |\n", dev->name, c, h, c / h, repeat);
    free(source);
    free(flags);
    clp_worker_destroy(w);
    return 0;
}

int main(int argc, char **argv) {
    const char *selector = NULL;
    bool all = false;
    int repeat = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            selector = argv[++i];
        else if (!strcmp(argv[i], "--all"))
            all = true;
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench-cache [--device SEL | --all] [--repeat N]\n");
            return 2;
        }
    }
    if (repeat < 1 || repeat > 64)
        repeat = 5;
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    setenv("POCL_KERNEL_CACHE", "0", 1);

    clp_error err = CLP_ERROR_INIT;
    clp_device_list *list;
    clp_schema *schema;
    clp_options *opts;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    if (clp_device_list_create(&list, &err) || clp_schema_load(dir, &schema, &err) ||
        clp_options_create(schema, &opts, &err))
        return fail(&err);
    printf("clpart %s: self-test program, cold build (driver caches off) vs clpart cache hit\n",
           clp_version());
    printf("| %-44s | %9s | %9s | %7s | %2s |\n", "device", "cold (s)", "hit (s)", "ratio", "n");
    printf("|%s|%s|%s|%s|%s|\n", "----------------------------------------------", "-----------",
           "-----------", "---------", "----");
    int rc = 0;
    if (all) {
        for (size_t i = 0; i < clp_device_list_count(list); i++)
            rc |= bench_device(clp_device_list_get(list, i), opts, repeat);
    } else {
        const clp_device_info *dev;
        if (clp_device_select(list, selector, &dev, &err))
            return fail(&err);
        rc = bench_device(dev, opts, repeat);
    }
    clp_options_destroy(opts);
    clp_schema_destroy(schema);
    clp_device_list_destroy(list);
    return rc;
}
