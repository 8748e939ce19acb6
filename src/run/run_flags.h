/* What clpart run's flags ask of the models (restarts, timings and limits they do not take),
 * and the result a run hands back. Internal to the library. */
#ifndef CLPART_RUN_FLAGS_H
#define CLPART_RUN_FLAGS_H

#include "internal.h"

/* CLP_USAGE when `config` asks for a restart or for timings, naming `model`; `rate_note` says
 * where the speed is seen instead ("the progress line gives the rate"). */
clp_status clp__run_refuse_restart_timing(const clp_run_config *config, const char *model,
                                          const char *rate_note, clp_error *err);

/* CLP_USAGE when `config` limits the simulated time of a model whose runs have none, naming
 * `model` and what its steps are ("iterations"). */
clp_status clp__run_refuse_time(const clp_run_config *config, const char *model, const char *steps,
                                clp_error *err);
/* The case's step count, or config->max_steps when that is smaller (and not 0). */
uint64_t clp__run_steps(const clp_run_config *config, uint64_t case_steps);
/* Fills config->result, when asked for: the time loop's seconds (outputs excluded), the work
 * done, the steps taken, and `n` diagnostics by name. */
void clp__run_result_set(const clp_run_config *config, double seconds, double work, uint64_t steps,
                         const char *const *names, const double *values, size_t n);

/* Adds to config->result, when asked for, the least bytes and the flops of its steps. */
void clp__run_result_cost(const clp_run_config *config, double bytes, double flops);

#endif
