/* clpart run CASE: runs a simulation case on the selected device to its end time. */
#include "cli_case.h"

#include <string.h>

int cmd_run(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    const char *csv = NULL;
    /* --csv FILE is this command's own; the rest is the case and its options */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else
            argv[kept++] = argv[i];
    }
    cli_case c;
    if (cli_case_load(kept, argv, true, &c, &err) != CLP_OK)
        return cli_report(&err);
    cli_session s = {0};
    clp_status st = cli_session_open(cli, &s, &err);
    if (st == CLP_OK)
        st = clp_sph_run(s.worker, c.options, c.case_path, csv, &err);
    int rc = cli_finish(st, &err, &s, cli);
    cli_session_close(&s);
    cli_case_free(&c);
    return rc;
}
