/* clpart source CASE: prints the exact assembled device source of a case (for a repulsive
 * case under repulsive.impl=tiled, sized for the selected device), with the tuning
 * database's options for the selected device, as a run there takes them. */
#include "cli_case.h"

#include <stdlib.h>

int cmd_source(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    cli_case c;
    char *source = NULL;
    if (cli_case_load(argc, argv, true, &c, &err) != CLP_OK)
        return cli_report(&err);
    int rc = CLP_EXIT_OK;
    if (cli_case_tune_selected(&c, cli, &err) != CLP_OK ||
        cli_case_source(&c, cli, &source, &err) != CLP_OK)
        rc = cli_report(&err);
    else
        fputs(source, stdout);
    free(source);
    cli_case_free(&c);
    return rc;
}
