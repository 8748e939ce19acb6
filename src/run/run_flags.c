/* --restart and --timing for the runs that have neither checkpoints nor profiled phases. */
#include "run/run_flags.h"

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
