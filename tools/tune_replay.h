/* clpart tune --replay DIR: each strategy run again on the measurements a tune recorded, with
 * no device, to compare how many measurements each needs to come near the best. */
#ifndef CLPART_TUNE_REPLAY_H
#define CLPART_TUNE_REPLAY_H

#include "tune_search.h"

/* For each device of DIR/tune.json, whose space DIR/results.jsonl must hold a record of every
 * combination of (an exhaustive tune's), each strategy of `strategies` (comma-separated; NULL
 * or "all": every one) is run with seeds 1 to `seeds` under `budget`: how many measurements it
 * took to reach `target` times the best rate, their median, quartiles and most, and how many
 * seeds reached it. The table goes to stdout and OUT/replay.md, the figures to OUT/replay.json
 * (`out` NULL: DIR). */
clp_status tune_replay(const char *dir, const char *out, const char *strategies, uint64_t seeds,
                       double target, tune_budget budget, clp_error *err);

#endif
