/* The clpart command line: global flags (anywhere on the line), then a subcommand from the
 * table below, which also gives --help its text. */
#include "cli.h"
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct command {
    const char *name;
    const char *summary;
    const char *usage;
    clp_cmd_fn run;
} command;

static const command commands[] = {
    {"devices", "list every OpenCL device of every platform", "devices [--json]", cmd_devices},
    {"options", "list every option with its type, default, values and description",
     "options [--json]", cmd_options},
    {"models", "list every model: its options, the stages of its step, buffers and outputs",
     "models [--json]", cmd_models},
    {"source", "print the assembled device source of a case",
     "source CASE [-s NAME=VALUE]... [-p PRESET]...", cmd_source},
    {"build", "build (or load from the cache) the program of a case and report how",
     "build CASE [-s NAME=VALUE]... [-p PRESET]...", cmd_build},
    {"run", "run a case of a model that clpart models lists to its end",
     "run CASE [-s NAME=VALUE]... [-p PRESET]... [--out DIR] [--restart FILE] [--timing] "
     "[--steps N] [--time T] [--devices SEL,...|all[:NAME] [--weights W,...|auto]]",
     cmd_run},
    {"sweep", "run a case under every combination of listed option values, and compare them",
     "sweep CASE [-s NAME=V1,V2,...]... [-p P1,P2,...]... [-c KEY=V1,V2,...]... [--combos FILE] "
     "[--fraction F | --max N] [--seed S] [--devices SEL,...|all[:NAME]] [--serial | --parallel] "
     "[--steps N | --time T] [--repeat R] [--spread F] [--budget SECONDS] [--out DIR]",
     cmd_sweep},
    {"bench", "the portability benchmark: probes and standard workloads on each device",
     "bench [--devices SEL,...|all[:NAME]] [--suite quick|standard|FILE] [--out DIR]", cmd_bench},
    {"tune", "search the performance options for the fastest on each device, and save them",
     "tune CASE [-s NAME=V1,V2,...]... [--strategy exhaustive|random|anneal|tpe] "
     "[--evaluations N] [--seconds S] [--seed S] [--devices SEL,...|all[:NAME]] [--steps N | "
     "--time T] [--repeat R] [--spread F] [--budget SECONDS] [--out DIR] [--save]; tune "
     "--replay DIR [--strategy S,...|all] [--seeds N] [--target F] [--evaluations N] [--out DIR]",
     cmd_tune},
    {"compare", "compare two runs of a case, quantity by quantity, within tolerances",
     "compare A B [--tol QUANTITY=REL[,ABS]]... [--tolerances FILE] [--model NAME] [--all] "
     "[--json]",
     cmd_compare},
    {"report", "merge bench results of several machines into one portability table",
     "report BENCH.json... [--out DIR] [--split]", cmd_report},
    {"selftest", "build, run and check the self-test kernels on a device",
     "selftest [CASE] [-s NAME=VALUE]... [-p PRESET]...", cmd_selftest},
    {"cache", "list, summarise or clear the program binary cache",
     "cache list|stats|clear [--json]", cmd_cache},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void print_help(FILE *out) {
    fprintf(out, "clpart %s: particle simulations on any OpenCL device\n\n", clp_version());
    fprintf(out, "usage: clpart [global flags] COMMAND [arguments]\n\ncommands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nglobal flags (anywhere on the line):\n"
                 "  --device SEL     index, gpu, cpu, an implementation (pocl, nvidia, amd or\n"
                 "                   rocm, intel, neo, oclgrind, rusticl, clover), or part of a\n"
                 "                   platform/vendor/device name (also CLPART_DEVICE;\n"
                 "                   default: first GPU, else first CPU)\n"
                 "  --cache-dir DIR  program binary cache (default $CLPART_CACHE_DIR,\n"
                 "                   $XDG_CACHE_HOME/clpart or ~/.cache/clpart)\n"
                 "  --no-cache       build every program from source (also CLPART_NO_CACHE=1)\n"
                 "  --no-tuning      performance options at their defaults, not the tuning\n"
                 "                   database's (also CLPART_NO_TUNING=1)\n"
                 "  -v               report builds, cache hits and build logs\n"
                 "  --log CATS       debug output for device,options,build,cache,buffer,run,all\n"
                 "  --help, --version\n");
    fprintf(out, "\nusage of each command:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  clpart %s\n", commands[i].usage);
}

/* `clpart COMMAND --help`: what a user types before reading any manual */
static bool asks_for_help(int argc, char **argv) {
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    return false;
}

static int print_command_help(const command *c) {
    printf("usage: clpart %s\n\n%s.\nGlobal flags: clpart --help; every flag: docs/cli.md.\n",
           c->usage, c->summary);
    return CLP_EXIT_OK;
}

int cli_report(const clp_error *err) {
    fprintf(stderr, "clpart: error: %s\n",
            err->message[0] ? err->message : clp_status_str(err->status));
    if (err->source[0] && err->line > 0)
        fprintf(stderr, "  at %s:%d:%d\n", err->source, err->line,
                err->column > 0 ? err->column : 1);
    else if (err->source[0])
        fprintf(stderr, "  in %s\n", err->source);
    return err->status == CLP_USAGE ? CLP_EXIT_USAGE : CLP_EXIT_RUNTIME;
}

int cli_usage_error(const char *name, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "clpart: error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(commands[i].name, name) == 0)
            fprintf(stderr, "usage: clpart %s\n", commands[i].usage);
    return CLP_EXIT_USAGE;
}

int cli_json_flag(int argc, char **argv, bool *as_json) {
    *as_json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            *as_json = true;
        else
            return cli_usage_error(argv[0], "unknown argument '%s'", argv[i]);
    }
    return CLP_EXIT_OK;
}

clp_status cli_open_cache(const clp_cli *cli, clp_cache **out, clp_error *err) {
    *out = NULL;
    if (cli->no_cache)
        return CLP_OK;
    return clp_cache_open(cli->cache_dir, out, err);
}

/* Takes the global flags out of argv wherever they stand; the rest stays in order. */
static int parse_global_flags(int *argc, char **argv, clp_cli *cli) {
    int kept = 1;
    unsigned debug_categories = 0;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        bool takes_value =
            !strcmp(a, "--device") || !strcmp(a, "--cache-dir") || !strcmp(a, "--log");
        if (takes_value && i + 1 >= *argc) {
            fprintf(stderr, "clpart: error: %s needs a value\n", a);
            return CLP_EXIT_USAGE;
        }
        if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            cli->verbose++;
        } else if (!strcmp(a, "--no-cache")) {
            cli->no_cache = true;
        } else if (!strcmp(a, "--no-tuning")) {
            cli->no_tuning = true;
        } else if (!strcmp(a, "--device")) {
            cli->device = argv[++i];
        } else if (!strcmp(a, "--cache-dir")) {
            cli->cache_dir = argv[++i];
        } else if (!strcmp(a, "--log")) {
            clp_error err = CLP_ERROR_INIT;
            if (clp_log_parse_categories(argv[++i], &debug_categories, &err) != CLP_OK)
                return cli_report(&err);
        } else {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    argv[kept] = NULL;
    clp_log_configure(cli->verbose ? CLP_LOG_INFO : CLP_LOG_WARN, debug_categories);
    return CLP_EXIT_OK;
}

static int dispatch(int argc, char **argv, clp_cli *cli) {
    cli->device = getenv("CLPART_DEVICE");
    const char *no_cache = getenv("CLPART_NO_CACHE");
    cli->no_cache = no_cache && *no_cache && strcmp(no_cache, "0") != 0;
    const char *no_tuning = getenv("CLPART_NO_TUNING");
    cli->no_tuning = no_tuning && *no_tuning && strcmp(no_tuning, "0") != 0;
    const char *log = getenv("CLPART_LOG");
    if (log && *log) {
        unsigned categories;
        clp_error err = CLP_ERROR_INIT;
        if (clp_log_parse_categories(log, &categories, &err) != CLP_OK)
            return cli_report(&err);
        clp_log_configure(CLP_LOG_WARN, categories);
    }
    int rc = parse_global_flags(&argc, argv, cli);
    if (rc != CLP_EXIT_OK)
        return rc;
    if (argc < 2) {
        print_help(stderr);
        return CLP_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_help(stdout);
        return CLP_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("clpart %s\n", clp_version());
        return CLP_EXIT_OK;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(argv[1], commands[i].name))
            return asks_for_help(argc, argv) ? print_command_help(&commands[i])
                                             : commands[i].run(argc - 1, argv + 1, cli);
    fprintf(stderr, "clpart: error: unknown command '%s' (see clpart --help)\n", argv[1]);
    return CLP_EXIT_USAGE;
}

int main(int argc, char **argv) {
    /* the global flags are taken out of argv before the command sees it: a copy as given */
    char **given = malloc((size_t)(argc + 1) * sizeof *given);
    if (!given) {
        fprintf(stderr, "clpart: error: out of host memory\n");
        return CLP_EXIT_RUNTIME;
    }
    memcpy(given, argv, (size_t)(argc + 1) * sizeof *given);
    clp_cli cli = {.argc = argc, .argv = given};
    int rc = dispatch(argc, argv, &cli);
    free(given);
    /* what went to standard output reached it: a full disk or a closed pipe is an error, not
       a truncated file passed off as complete */
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        fprintf(stderr, "clpart: error: cannot write standard output: %s\n", strerror(errno));
        if (rc == CLP_EXIT_OK)
            rc = CLP_EXIT_RUNTIME;
    }
    return rc;
}
