/* The space that clpart tune searches: the combinations of option values a case may run
 * with, shaped by the schema before any is measured, as ATF shapes its spaces. An option
 * whose dependency a combination leaves unmet is left out of it (it would change nothing),
 * combinations that are then the same are one, and a combination that the options or the
 * model's source refuse is not in the space. */
#ifndef CLPART_TUNE_SPACE_H
#define CLPART_TUNE_SPACE_H

#include "cli_case.h"
#include "tune_search.h"

#include <jansson.h>

/* One searched option and its values, as -s takes them ("simd", "true"). */
typedef struct tune_axis {
    char *name;
    char *values[TUNE_MAX_VALUES];
    size_t n;
} tune_axis;

/* A list given after -s NAME=V1,V2,...: that option's axis, in place of its schema values. */
typedef struct tune_list {
    const char *name;
    char *const *values;
    size_t n;
} tune_list;

typedef struct tune_space {
    tune_axis axes[TUNE_MAX_AXES];
    size_t n_axes;
    size_t n;         /* combinations; the first is the case's own options */
    int *at;          /* n x n_axes: each one's value on each axis, -1 where it is left out */
    json_t **options; /* each one's option set: NAME: value text where it is not the case's */
    size_t refused;   /* combinations the options or the model's source refused */
} tune_space;

/* The space of case `c` (its options with any single -s values in) on device `dev`: an axis for
 * each list of `lists`, and one for each performance option of the model's modules that the
 * case, its presets and -s leave at its default, with every value but the one under which the
 * run chooses its program itself (lj.strategy=auto: tuning is that choice). The case's own
 * value of an axis is one of its values even where a list leaves it out: the first combination
 * is always the case as it is. */
clp_status tune_space_build(tune_space *sp, const cli_case *c, const tune_list *lists,
                            size_t n_lists, const clp_device_info *dev, clp_error *err);
/* The space as tune.json holds it: {"axes": [{"name", "values"}], "combinations": [{"at",
 * "options"}], "refused"} (new), and back; `where` names it in errors. */
json_t *tune_space_json(const tune_space *sp);
clp_status tune_space_from_json(const json_t *j, const char *where, tune_space *sp, clp_error *err);
/* The space as the strategies see it. */
void tune_space_grid(const tune_space *sp, tune_grid *grid);
void tune_space_free(tune_space *sp);

#endif
