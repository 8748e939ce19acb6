/* What a run takes of clpart run's flags (--restart, --timing, --steps, --time), and the result it
 * hands back. */
#include "run/run_flags.h"

#include <stdio.h>

clp_status clp__run_check_flags(const clp_run_config *config, const char *name, clp_error *err) {
    const clp_model *model;
    clp_status st = clp_model_find(name, &model, err);
    if (st != CLP_OK)
        return st;
    if (config->restart && !model->checkpoint)
        return CLP_FAIL(err, CLP_USAGE,
                        "--restart is not supported for model %s: its runs write no checkpoints",
                        name);
    if (config->timing && !model->profiled)
        return CLP_FAIL(err, CLP_USAGE,
                        "--timing is not supported for model %s: its steps are not profiled; the "
                        "rate line at the end gives its speed",
                        name);
    if (config->max_time > 0 && !model->simulated_time)
        return CLP_FAIL(err, CLP_USAGE,
                        "--time is not supported for model %s: it has no simulated time; limit "
                        "its %s with --steps",
                        name, model->steps_name);
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

void clp__run_result_chosen(const clp_run_config *config, const char *chosen) {
    if (config->result)
        snprintf(config->result->chosen, sizeof config->result->chosen, "%s", chosen);
}

clp_status clp__run_stop_check(const clp_run_config *config, clp_error *err) {
    if (!config->stop_requested || !*config->stop_requested)
        return CLP_OK;
    return CLP_FAIL(err, CLP_INTERRUPTED,
                    "stopped while setting up, before the first step: no output");
}
