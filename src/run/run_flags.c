/* What a run takes of clpart run's flags (--restart, --timing, --steps, --time), and the result it
 * hands back. */
#include "run/run_flags.h"

#include <stdio.h>

clp_status clp__run_refuse_restart_timing(const clp_run_config *config, const char *model,
                                          const char *rate_note, clp_error *err) {
    if (config->restart)
        return CLP_FAIL(err, CLP_USAGE,
                        "--restart is not supported for model %s: its runs write no checkpoints",
                        model);
    if (config->timing)
        return CLP_FAIL(err, CLP_USAGE,
                        "--timing is not supported for model %s: its steps are not profiled; %s",
                        model, rate_note);
    return CLP_OK;
}

clp_status clp__run_refuse_time(const clp_run_config *config, const char *model, const char *steps,
                                clp_error *err) {
    if (config->max_time > 0)
        return CLP_FAIL(err, CLP_USAGE,
                        "--time is not supported for model %s: it has no simulated time; limit "
                        "its %s with --steps",
                        model, steps);
    return CLP_OK;
}

uint64_t clp__run_steps(const clp_run_config *config, uint64_t case_steps) {
    return config->max_steps && config->max_steps < case_steps ? config->max_steps : case_steps;
}

void clp__run_result_set(const clp_run_config *config, double seconds, double work, uint64_t steps,
                         const char *const *names, const double *values, size_t n) {
    clp_run_result *r = config->result;
    if (!r)
        return;
    *r = (clp_run_result){.seconds = seconds, .work = work, .steps = steps};
    for (size_t i = 0; i < n && i < CLP_RUN_MAX_VALUES; i++) {
        snprintf(r->values[i].name, sizeof r->values[i].name, "%s", names[i]);
        r->values[i].value = values[i];
    }
    r->n_values = n < CLP_RUN_MAX_VALUES ? n : CLP_RUN_MAX_VALUES;
}

void clp__run_result_cost(const clp_run_config *config, double bytes, double flops) {
    if (config->result) {
        config->result->bytes = bytes;
        config->result->flops = flops;
    }
}
