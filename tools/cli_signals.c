/* Signals as events for the commands that run cases: SIGINT and SIGTERM ask for a stop,
 * SIGUSR1 for a checkpoint. */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* SIGUSR1 asks the run for a checkpoint at its next step. */
volatile sig_atomic_t cli_checkpoint_requested;

static void request_checkpoint(int signal) {
    (void)signal;
    cli_checkpoint_requested = 1;
}

/* The first SIGINT or SIGTERM asks the run to stop, as a batch scheduler's time limit or a
 * Ctrl-C expects; the second, sent when even that takes too long, ends the process as the
 * signal would have without a handler. So does the first, when the process has not ended
 * CLI_STOP_GRACE_SECONDS after it: a kernel that never returns (a user objective's endless
 * loop) keeps the host from ever reaching the step where it would stop. */
volatile sig_atomic_t cli_stop_signal;

/* The grace: CLPART_STOP_GRACE seconds (a whole number from 1), else the default; read
 * before any signal, since a handler may not parse. */
static unsigned grace_seconds = CLI_STOP_GRACE_SECONDS;

static void stop_overdue(int alarm_signal) {
    (void)alarm_signal;
    static const char note[] = "\nclpart: still not stopped after the grace of CLPART_STOP_GRACE "
                               "seconds (a kernel that does not return?): stopping at once, "
                               "without writing more\n";
    if (write(STDERR_FILENO, note, sizeof note - 1) < 0) {
        /* nothing more can be said from a handler */
    }
    _exit(128 + cli_stop_signal);
}

static void request_stop(int signal) {
    if (cli_stop_signal) {
        static const char note[] = "\nclpart: second signal: stopping at once\n";
        if (write(STDERR_FILENO, note, sizeof note - 1) < 0) {
            /* nothing more can be said from a handler */
        }
        sigaction(signal, &(struct sigaction){.sa_handler = SIG_DFL}, NULL);
        raise(signal);
        return;
    }
    cli_stop_signal = signal;
    alarm(grace_seconds);
}

void cli_handle_signals(void) {
    struct sigaction stop = {.sa_handler = request_stop, .sa_flags = SA_RESTART},
                     overdue = {.sa_handler = stop_overdue};
    sigemptyset(&stop.sa_mask);
    sigemptyset(&overdue.sa_mask);
    sigaction(SIGINT, &stop, NULL);
    sigaction(SIGTERM, &stop, NULL);
    sigaction(SIGALRM, &overdue, NULL);
    const char *grace = getenv("CLPART_STOP_GRACE");
    char *end;
    const unsigned long seconds = grace ? strtoul(grace, &end, 10) : 0;
    if (grace && *grace && !*end && seconds >= 1 && seconds <= 86400)
        grace_seconds = (unsigned)seconds;
    else if (grace)
        fprintf(stderr,
                "clpart: warning: CLPART_STOP_GRACE=\"%s\" is not a whole number of "
                "seconds from 1 to 86400; the grace after a stop stays %d s\n",
                grace, CLI_STOP_GRACE_SECONDS);
    cli_keep_checkpoint_signal();
}

void cli_keep_checkpoint_signal(void) {
    struct sigaction checkpoint = {.sa_handler = request_checkpoint, .sa_flags = SA_RESTART};
    sigemptyset(&checkpoint.sa_mask);
    sigaction(SIGUSR1, &checkpoint, NULL);
}
