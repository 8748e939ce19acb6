/* clpart selftest: builds, runs and checks the self-test kernels on the selected device and
 * prints one row per check (measured error against the bound it must meet). */
#include "cli_case.h"

#include <stdlib.h>

static void print_rows(const clp_selftest_result *rows, size_t n) {
    printf("%-28s %12s %12s  %s\n", "check", "rel. error", "bound", "result");
    for (size_t i = 0; i < n; i++)
        printf("%-28s %12.3g %12.3g  %s\n", rows[i].name, rows[i].error, rows[i].tolerance,
               !rows[i].passed       ? "FAIL"
               : rows[i].expect_loss ? "ok (loses digits, as expected)"
                                     : "ok");
}

int cmd_selftest(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    cli_case c;
    if (cli_case_load(argc, argv, false, &c, &err) != CLP_OK)
        return cli_report(&err);
    clp_device_list *list = NULL;
    clp_worker *worker = NULL;
    clp_cache *cache = NULL;
    clp_selftest_result rows[16];
    clp_build_report reports[3] = {0};
    size_t n = 0;
    clp_status st = cli_worker_open(cli, &list, &worker, &err);
    if (st == CLP_OK)
        st = cli_open_cache(cli, &cache, &err);
    if (st == CLP_OK) {
        const clp_device_info *d = clp_worker_device(worker);
        printf("device %zu: %s / %s (%s)\n", d->index, d->platform_name, d->name,
               d->driver_version);
        st = clp_selftest_run(worker, c.options, cache, rows, 16, &n, reports, &err);
    }
    if (n)
        print_rows(rows, n);
    if (cli->verbose)
        for (size_t i = 0; i < 3 && reports[i].key[0]; i++)
            printf("program %zu: %s %s in %.3f s\n", i,
                   reports[i].cache_hit ? "cache hit" : "built", reports[i].key,
                   reports[i].seconds);
    int rc = CLP_EXIT_OK;
    if (st != CLP_OK) {
        if (st == CLP_BUILD && cli->verbose && worker)
            fprintf(stderr, "%s\n", clp_worker_build_log(worker));
        rc = cli_report(&err);
    } else {
        printf("selftest passed: %zu checks\n", n);
    }
    clp_cache_close(cache);
    clp_worker_destroy(worker);
    clp_device_list_destroy(list);
    cli_case_free(&c);
    return rc;
}
