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
    cli_session s = {0};
    clp_selftest_result rows[16];
    clp_build_report reports[3] = {0};
    size_t n = 0;
    clp_status st = cli_session_open(cli, &s, &err);
    if (st == CLP_OK) {
        const clp_device_info *d = clp_worker_device(s.worker);
        printf("device %zu: %s / %s (%s)\n", d->index, d->platform_name, d->name,
               d->driver_version);
        st = clp_selftest_run(s.worker, c.options, s.cache, rows, 16, &n, reports, &err);
    }
    if (n)
        print_rows(rows, n);
    if (cli->verbose)
        for (size_t i = 0; i < 3 && reports[i].key[0]; i++)
            printf("program %zu: %s %s in %.3f s\n", i,
                   reports[i].cache_hit ? "cache hit" : "built", reports[i].key,
                   reports[i].seconds);
    if (st == CLP_OK)
        printf("selftest passed: %zu checks\n", n);
    int rc = cli_finish(st, &err, &s, cli);
    cli_session_close(&s);
    cli_case_free(&c);
    return rc;
}
