/* The search strategies of clpart tune, over a space of combinations given as value indices on
 * each axis, and measured through a callback: live on a device, or from recorded results (a
 * replay, which compares strategies without a device). Each strategy measures the first
 * combination (the case as it is) first and never measures one twice. */
#ifndef CLPART_TUNE_SEARCH_H
#define CLPART_TUNE_SEARCH_H

#include "clpart.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TUNE_MAX_AXES = 16, TUNE_MAX_VALUES = 64 };

typedef enum tune_strategy {
    TUNE_EXHAUSTIVE, /* every combination in order */
    TUNE_RANDOM,     /* every combination in a random order */
    TUNE_ANNEAL,     /* simulated annealing: a walk to the nearest combinations not yet measured */
    TUNE_TPE,        /* a tree-structured Parzen estimator over the categorical axes */
    TUNE_STRATEGY_COUNT
} tune_strategy;

const char *tune_strategy_name(tune_strategy s);
/* The strategy named `text`; false when there is none of that name. */
bool tune_strategy_parse(const char *text, tune_strategy *out);

/* n combinations on n_axes axes: at[k * n_axes + a] is combination k's value on axis a (from
 * 0 below n_values[a]), or -1 where it leaves that option out. */
typedef struct tune_grid {
    size_t n, n_axes;
    const int *at;
    size_t n_values[TUNE_MAX_AXES];
} tune_grid;

/* Measures combination k: its rate (0 when it failed to build or run, or was not timed) and the
 * seconds the measurement took. An error ends the search with it (a signal: CLP_INTERRUPTED). */
typedef clp_status (*tune_measure)(void *ctx, size_t k, double *rate, double *seconds,
                                   clp_error *err);

/* When a search stops: after `evaluations` combinations or once `seconds` of measurements are
 * spent (0: no such limit), or when every combination is measured. */
typedef struct tune_budget {
    size_t evaluations;
    double seconds;
} tune_budget;

/* The combinations measured, in order, and their rates. */
typedef struct tune_trace {
    size_t *order;
    double *rates;
    size_t n;
    double seconds;
} tune_trace;

clp_status tune_search(const tune_grid *g, tune_strategy strategy, uint64_t seed,
                       tune_budget budget, tune_measure measure, void *ctx, tune_trace *trace,
                       clp_error *err);
/* The position in the trace of its fastest combination (the first of equals). */
size_t tune_trace_best(const tune_trace *t);
/* How many measurements it took to reach `fraction` of rate `best`: 0 when none did. */
size_t tune_trace_reach(const tune_trace *t, double best, double fraction);
void tune_trace_free(tune_trace *t);

#endif
