/* Shared set-up for the device tests: the default device (PoCL in CI), its worker, the schema
 * and fresh options, and a temporary cache folder. */
#ifndef CLPART_TEST_CL_COMMON_H
#define CLPART_TEST_CL_COMMON_H

#include "internal.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct test_env {
    clp_device_list *devices;
    const clp_device_info *device;
    clp_worker *worker;
    clp_schema *schema;
    char cache_dir[256];
} test_env;

static void test_env_open(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    clp_status st = clp_device_list_create(&t->devices, &err);
    if (st == CLP_NO_PLATFORM)
        CLP_SKIP("%s", err.message);
    CLP_ASSERT_OK(st, &err);
    CLP_ASSERT_OK(clp_device_select(t->devices, getenv("CLPART_DEVICE"), &t->device, &err), &err);
    CLP_ASSERT_OK(clp_worker_create(t->device, &t->worker, &err), &err);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    CLP_ASSERT_OK(clp_schema_load(dir, &t->schema, &err), &err);
    snprintf(t->cache_dir, sizeof t->cache_dir, "/tmp/clpart-test-XXXXXX");
    CLP_ASSERT(mkdtemp(t->cache_dir) != NULL);
}

/* Whether the test takes its small sizes: asked with --small (Oclgrind), or on rusticl, which
 * runs the kernels about ten times slower than PoCL (docs/benchmarks/implementations.md):
 * the full sizes would outlast the test's timeout there. */
static inline bool test_small_sizes(const test_env *t, int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--small") == 0)
        return true;
    if (!strstr(t->device->platform_name, "rusticl"))
        return false;
    printf("note: rusticl: the small sizes, as under Oclgrind\n");
    return true;
}

static void test_env_close(test_env *t) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->cache_dir);
    CLP_ASSERT(system(cmd) == 0);
    clp_schema_destroy(t->schema);
    clp_worker_destroy(t->worker);
    clp_device_list_destroy(t->devices);
}

/* Fresh options at their defaults, then each "name=value" of the NULL-terminated list. */
static clp_options *test_options(const test_env *t, const char *const *assignments) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts;
    CLP_ASSERT_OK(clp_options_create(t->schema, &opts, &err), &err);
    for (size_t i = 0; assignments && assignments[i]; i++)
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, assignments[i], &err), &err);
    return opts;
}

#endif
