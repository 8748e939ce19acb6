/* What clpart run's flags ask of the models (restarts, timings and limits they do not take),
 * and the result a run hands back. Internal to the library. */
#ifndef CLPART_RUN_FLAGS_H
#define CLPART_RUN_FLAGS_H

#include "internal.h"

/* CLP_USAGE, naming the model, when `config` asks of the model `name` what its registry entry
 * says it cannot do: a restart (no checkpoint), timings (not profiled), a simulated-time limit
 * (no simulated time). */
clp_status clp__run_check_flags(const clp_run_config *config, const char *name, clp_error *err);
/* The case's step count, or config->max_steps when that is smaller (and not 0). */
uint64_t clp__run_steps(const clp_run_config *config, uint64_t case_steps);
/* Fills config->result, when asked for: the time loop's seconds (outputs excluded), the work
 * done, the steps taken, and `n` diagnostics by name. */
void clp__run_result_set(const clp_run_config *config, double seconds, double work, uint64_t steps,
                         const char *const *names, const double *values, size_t n);

/* CLP_INTERRUPTED when a stop was asked for: a run on one device checks it once its set-up
 * (particles, program, buffers) is done, before its first step and first output. */
clp_status clp__run_stop_check(const clp_run_config *config, clp_error *err);
/* Adds to config->result, when asked for, the least bytes and the flops of its steps. */
void clp__run_result_cost(const clp_run_config *config, double bytes, double flops);
/* Adds to config->result, when asked for, what a run that chooses its program chose, as
 * option assignments. */
void clp__run_result_chosen(const clp_run_config *config, const char *chosen);

#endif
