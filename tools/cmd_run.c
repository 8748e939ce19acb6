/* clpart run CASE: runs a simulation case on the selected device to its end time, writing
 * diagnostics, snapshots and checkpoints to --out DIR (default: out/<case name>); --restart
 * FILE continues from a checkpoint; SIGUSR1 asks for a checkpoint at the next step. */
#include "cli_case.h"

#include <libgen.h>
#include <signal.h>
#include <string.h>

/* SIGUSR1 asks the run for a checkpoint at its next step. */
static volatile int checkpoint_requested;

static void request_checkpoint(int signal) {
    (void)signal;
    checkpoint_requested = 1;
}

int cmd_run(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    const char *out_dir = NULL, *restart = NULL;
    /* --out DIR and --restart FILE are this command's own; the rest is the case and options */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out_dir = argv[++i];
        else if (!strcmp(argv[i], "--restart") && i + 1 < argc)
            restart = argv[++i];
        else
            argv[kept++] = argv[i];
    }
    cli_case c;
    if (cli_case_load(kept, argv, true, &c, &err) != CLP_OK)
        return cli_report(&err);
    cli_session s = {0};
    clp_status st = cli_session_open(cli, &s, &err);
    char default_dir[512], name[256];
    if (!out_dir) { /* out/<case file name without .json> */
        snprintf(name, sizeof name, "%s", c.case_path);
        char *base = basename(name), *dot = strrchr(base, '.');
        if (dot)
            *dot = '\0';
        snprintf(default_dir, sizeof default_dir, "out/%s", base);
        out_dir = default_dir;
    }
    clp_run_config config = {out_dir, stderr, restart, s.cache, &checkpoint_requested};
    signal(SIGUSR1, request_checkpoint);
    if (st == CLP_OK)
        st = clp_sph_run(s.worker, c.options, c.case_path, &config, &err);
    if (st == CLP_OK)
        printf("done: %s/diagnostics.csv, %s/particles.pvd\n", out_dir, out_dir);
    int rc = cli_finish(st, &err, &s, cli);
    cli_session_close(&s);
    cli_case_free(&c);
    return rc;
}
