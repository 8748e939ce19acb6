/* The summaries of clpart sweep: per device its combinations fastest first, with the interval
 * of their rates and their physics against the reference combination (clpart compare's
 * engine); the devices side by side, each combination against itself on the reference device;
 * and the chart. */
#ifndef CLPART_SWEEP_SUMMARY_H
#define CLPART_SWEEP_SUMMARY_H

#include "compare.h"
#include "sweep_engine.h"

/* What the summaries are written from. */
typedef struct sweep_table {
    const char *dir, *case_path;
    const sweep_plan *plan;
    const sweep_devices *dev;
    size_t combinations;
    const json_t **records; /* combination k on device d at k * dev->n + d, borrowed; NULL
                               where results.jsonl has none */
    char **labels;          /* each combination as sweep_combination_text says it */
    bool with_case;         /* -c swept case keys: a column of their own */
    const compare_tolerances *tolerances; /* the model's, NULL when no record ran */
} sweep_table;

/* DIR/summary.md and DIR/summary.csv. */
clp_status sweep_summary_write(const sweep_table *t, clp_error *err);
/* DIR/summary.png (from summary.dat and summary.gp, kept beside it): the median rate of every
 * combination with its interval as error bars, a bar per device. Without gnuplot there is no
 * chart, and a note says so; *drawn says which. */
clp_status sweep_summary_chart(const sweep_table *t, bool *drawn, clp_error *err);

/* What a record ran, as one text: its case parameters, then its options (new). */
char *sweep_combination_text(const json_t *record);
/* ", unstable: ..." in `out` when the record's timing did not reach its target, else "". */
void sweep_unstable_note(const json_t *record, char *out, size_t size);
/* Whether a record ran (status ok). */
bool sweep_record_ok(const json_t *record);

#endif
