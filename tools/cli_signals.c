/* Signals as events for the commands that run cases: SIGINT and SIGTERM ask for a stop,
 * SIGUSR1 for a checkpoint. */
#include "cli.h"

#include <signal.h>
#include <unistd.h>

/* SIGUSR1 asks the run for a checkpoint at its next step. */
volatile sig_atomic_t cli_checkpoint_requested;

static void request_checkpoint(int signal) {
    (void)signal;
    cli_checkpoint_requested = 1;
}

/* The first SIGINT or SIGTERM asks the run to stop, as a batch scheduler's time limit or a
 * Ctrl-C expects; the second, sent when even that takes too long, ends the process as the
 * signal would have without a handler. */
volatile sig_atomic_t cli_stop_signal;

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
}

void cli_handle_signals(void) {
    struct sigaction stop = {.sa_handler = request_stop, .sa_flags = SA_RESTART};
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, NULL);
    sigaction(SIGTERM, &stop, NULL);
    cli_keep_checkpoint_signal();
}

void cli_keep_checkpoint_signal(void) {
    struct sigaction checkpoint = {.sa_handler = request_checkpoint, .sa_flags = SA_RESTART};
    sigemptyset(&checkpoint.sa_mask);
    sigaction(SIGUSR1, &checkpoint, NULL);
}
