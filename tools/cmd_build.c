/* clpart build CASE: builds the case's program on the selected device, through the binary
 * cache, and says whether it was a cache hit, with the key, flags and time. */
#include "cli_case.h"

#include <stdlib.h>

int cmd_build(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    cli_case c;
    if (cli_case_load(argc, argv, true, &c, &err) != CLP_OK)
        return cli_report(&err);
    cli_session s = {0};
    char *source = NULL;
    clp_build_report report;
    clp_status st = cli_session_open(cli, &s, &err);
    if (st == CLP_OK) /* the program a run on this device builds */
        st = cli_case_tune(&c, cli, clp_worker_device(s.worker), &err);
    if (st == CLP_OK)
        st = cli_case_source(&c, cli, &source, &err);
    if (st == CLP_OK)
        st = clp_worker_build_for(s.worker, source, c.options, s.cache, &report, &err);
    if (st == CLP_OK) {
        const clp_device_info *d = clp_worker_device(s.worker);
        printf("%s %s on device %zu (%s) in %.3f s\nflags: %s\n",
               report.cache_hit ? "cache hit" : "built", report.key, d->index, d->name,
               report.seconds, report.flags);
    }
    int rc = cli_finish(st, &err, &s, cli);
    free(source);
    cli_session_close(&s);
    cli_case_free(&c);
    return rc;
}
