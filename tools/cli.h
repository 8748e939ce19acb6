/* Shared by the clpart command line's files: global settings and the subcommand signature. */
#ifndef CLPART_CLI_H
#define CLPART_CLI_H

#include "clpart.h"

/* Global flags, parsed before the subcommand. */
typedef struct clp_cli {
    int verbose;           /* -v: build times, cache hits, build logs */
    const char *device;    /* --device SEL, else $CLPART_DEVICE, else NULL (default device) */
    const char *cache_dir; /* --cache-dir DIR, else NULL (the library's default) */
    bool no_cache;         /* --no-cache or CLPART_NO_CACHE=1 */
    bool no_tuning;        /* --no-tuning or CLPART_NO_TUNING=1: the schema's defaults */
    /* the command line as given, global flags included (run.json records it) */
    int argc;
    char *const *argv;
} clp_cli;

/* Each subcommand: argv[0] is its name; returns the process exit code. */
typedef int (*clp_cmd_fn)(int argc, char **argv, const clp_cli *cli);

int cmd_devices(int argc, char **argv, const clp_cli *cli);
int cmd_options(int argc, char **argv, const clp_cli *cli);
int cmd_models(int argc, char **argv, const clp_cli *cli);
int cmd_source(int argc, char **argv, const clp_cli *cli);
int cmd_build(int argc, char **argv, const clp_cli *cli);
int cmd_selftest(int argc, char **argv, const clp_cli *cli);
int cmd_cache(int argc, char **argv, const clp_cli *cli);
int cmd_run(int argc, char **argv, const clp_cli *cli);
int cmd_sweep(int argc, char **argv, const clp_cli *cli);
int cmd_bench(int argc, char **argv, const clp_cli *cli);
int cmd_tune(int argc, char **argv, const clp_cli *cli);
int cmd_report(int argc, char **argv, const clp_cli *cli);
int cmd_compare(int argc, char **argv, const clp_cli *cli);

enum { CLP_EXIT_OK = 0, CLP_EXIT_RUNTIME = 1, CLP_EXIT_USAGE = 2 };

/* Prints the error once as "clpart: error: <message>" plus "  at <source>:<line>:<column>"
 * and returns the exit code for it (2 for usage errors, 1 otherwise). */
int cli_report(const clp_error *err);
/* Prints "clpart: error: <text>" and the subcommand's usage; returns CLP_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...);
/* For a command whose one argument is an optional --json: *as_json, and CLP_EXIT_OK or, after
 * a usage error naming any other argument, CLP_EXIT_USAGE. */
int cli_json_flag(int argc, char **argv, bool *as_json);

/* Opens the cache as the global flags say: NULL when --no-cache. */
clp_status cli_open_cache(const clp_cli *cli, clp_cache **out, clp_error *err);

/* Set by the first SIGINT or SIGTERM (to its number), which asks a run to stop after its
 * current step; a second one ends the process at once, and so does the first when the process
 * has not ended CLI_STOP_GRACE_SECONDS (or $CLPART_STOP_GRACE) after it: a kernel that never
 * returns. */
#define CLI_STOP_GRACE_SECONDS 60
extern volatile sig_atomic_t cli_stop_signal;
/* Set by SIGUSR1, which asks an SPH run for a checkpoint at its next step. */
extern volatile sig_atomic_t cli_checkpoint_requested;
/* Installs the handlers that set them. */
void cli_handle_signals(void);
/* SIGUSR1's handler again, once the devices are listed: LLVM, inside PoCL, takes SIGUSR1 for
 * itself then (llvm::sys::RemoveFileOnSignal) and does not pass it on. */
void cli_keep_checkpoint_signal(void);

#endif
