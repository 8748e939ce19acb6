/* What clpart run's flags ask of the models whose runs write no checkpoints and profile no
 * phases (all but SPH). Internal to the library. */
#ifndef CLPART_RUN_FLAGS_H
#define CLPART_RUN_FLAGS_H

#include "internal.h"

/* CLP_USAGE when `config` asks for a restart or for timings, naming `model`; `rate_note` says
 * where the speed is seen instead ("the progress line gives the rate"). */
clp_status clp__run_refuse_restart_timing(const clp_run_config *config, const char *model,
                                          const char *rate_note, clp_error *err);

#endif
