/* One timed build of the self-test program through the cache at --cache-dir, on one device:
 * prints "<seconds> hit" or "<seconds> miss". bench/cache.sh runs it in fresh processes to
 * compare cold builds (driver caches off) with cache hits, as a user's next run would see.
 * usage: bench-cache --cache-dir DIR [--device SEL] */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int fail(const clp_error *err) {
    fprintf(stderr, "bench-cache: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv) {
    const char *selector = NULL, *cache_dir = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            selector = argv[i + 1];
        else if (!strcmp(argv[i], "--cache-dir"))
            cache_dir = argv[i + 1];
    }
    if (!cache_dir || argc % 2 == 0) {
        fprintf(stderr, "usage: bench-cache --cache-dir DIR [--device SEL]\n");
        return 2;
    }
    clp_error err = CLP_ERROR_INIT;
    clp_device_list *list;
    const clp_device_info *dev;
    clp_schema *schema;
    clp_options *opts;
    clp_worker *worker;
    clp_cache *cache;
    clp_model_storage storage;
    clp_program_spec spec;
    char *source, *flags, dir[1024];
    clp_build_report report;
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    if (clp_device_list_create(&list, &err) || clp_device_select(list, selector, &dev, &err) ||
        clp_schema_load(dir, &schema, &err) || clp_options_create(schema, &opts, &err) ||
        clp_worker_create(dev, &worker, &err) || clp_selftest_spec(opts, &storage, &spec, &err) ||
        clp_source_assemble(opts, clp_data_dir(), &spec, &source, &err) ||
        clp_build_flags(dev, opts, &flags, &err) || clp_cache_open(cache_dir, &cache, &err) ||
        clp_worker_build(worker, source, flags, cache, &report, &err))
        return fail(&err);
    printf("%.6f %s\n", report.seconds, report.cache_hit ? "hit" : "miss");
    clp_cache_close(cache);
    free(source);
    free(flags);
    clp_worker_destroy(worker);
    clp_options_destroy(opts);
    clp_schema_destroy(schema);
    clp_device_list_destroy(list);
    return 0;
}
