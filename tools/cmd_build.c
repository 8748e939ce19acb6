/* clpart build CASE: builds the case's program on the selected device, through the binary
 * cache, and says whether it was a cache hit, with the key, flags and time. */
#include "cli_case.h"

#include <stdlib.h>

int cmd_build(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    cli_case c;
    if (cli_case_load(argc, argv, true, &c, &err) != CLP_OK)
        return cli_report(&err);
    clp_device_list *list = NULL;
    clp_worker *worker = NULL;
    clp_cache *cache = NULL;
    char *source = NULL, *flags = NULL;
    clp_build_report report;
    clp_status st = cli_case_source(&c, &source, &err);
    if (st == CLP_OK)
        st = cli_worker_open(cli, &list, &worker, &err);
    if (st == CLP_OK)
        st = clp_build_flags(clp_worker_device(worker), c.options, &flags, &err);
    if (st == CLP_OK)
        st = cli_open_cache(cli, &cache, &err);
    if (st == CLP_OK)
        st = clp_worker_build(worker, source, flags, cache, &report, &err);
    int rc = CLP_EXIT_OK;
    if (st != CLP_OK) {
        if (st == CLP_BUILD && cli->verbose && worker)
            fprintf(stderr, "%s\n", clp_worker_build_log(worker));
        rc = cli_report(&err);
    } else {
        printf("%s %s on device %zu (%s) in %.3f s\nflags: %s\n",
               report.cache_hit ? "cache hit" : "built", report.key,
               clp_worker_device(worker)->index, clp_worker_device(worker)->name, report.seconds,
               report.flags);
    }
    free(source);
    free(flags);
    clp_cache_close(cache);
    clp_worker_destroy(worker);
    clp_device_list_destroy(list);
    cli_case_free(&c);
    return rc;
}
