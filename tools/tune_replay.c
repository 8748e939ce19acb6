/* clpart tune --replay (see tune_replay.h). */
#include "tune_replay.h"
#include "base/json_file.h"
#include "io/io.h"
#include "sweep_engine.h"
#include "tune_space.h"

#include <stdlib.h>
#include <string.h>

/* The recorded rate and seconds of each combination of one device's space. */
typedef struct recorded {
    double *rate, *seconds;
} recorded;

static clp_status measure_recorded(void *ctx, size_t k, double *rate, double *seconds,
                                   clp_error *err) {
    (void)err;
    const recorded *r = ctx;
    *rate = r->rate[k];
    *seconds = r->seconds[k];
    return CLP_OK;
}

/* The record of combination k: the device's key parts, the fixed -s values and its options. */
static clp_status lookup(const json_t *device, const tune_space *sp, size_t k, const json_t *done,
                         const char *results, const json_t **out, clp_error *err) {
    clp_status st = CLP_OK;
    json_t *key_parts = json_deep_copy(json_object_get(device, "record_key"));
    json_t *options = json_deep_copy(json_object_get(device, "fixed"));
    CLP_REQUIRE(json_is_object(key_parts) && json_is_object(options), err, CLP_CASE,
                "tune.json: a device lacks its \"record_key\" or \"fixed\"");
    json_object_update(options, sp->options[k]);
    json_object_set(key_parts, "options", options);
    char *key = sweep_record_key(key_parts);
    CLP_REQUIRE_ALLOC(key, err);
    *out = json_object_get(done, key);
    free(key);
    if (!*out) {
        char *text = sweep_options_text(options);
        st = CLP_FAIL_AT(err, CLP_CASE, results, -1, -1,
                         "%s holds no measurement of combination %zu (%s): a replay needs every "
                         "combination measured (clpart tune --strategy exhaustive)",
                         results, k + 1, text && *text ? text : "the case's options");
        free(text);
    }
fail:
    json_decref(key_parts);
    json_decref(options);
    return st;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of n sorted values, linear between order statistics. */
static double quantile(const double *sorted, size_t n, double q) {
    const double at = q * (double)(n - 1);
    const size_t low = (size_t)at;
    return low + 1 < n ? sorted[low] + (at - (double)low) * (sorted[low + 1] - sorted[low])
                       : sorted[n - 1];
}

/* One strategy over every seed: its line of the table and its figures. */
static clp_status replay_strategy(const tune_space *sp, const recorded *r, double best,
                                  tune_strategy s, uint64_t seeds, double target,
                                  tune_budget budget, clp_strbuf *table, json_t *figures,
                                  clp_error *err) {
    clp_status st = CLP_OK;
    double *reach = malloc(seeds * sizeof *reach);
    tune_trace trace = {0};
    size_t reached = 0;
    CLP_REQUIRE_ALLOC(reach, err);
    tune_grid grid;
    tune_space_grid(sp, &grid);
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        CLP_TRY(tune_search(&grid, s, seed, budget, measure_recorded, (void *)r, &trace, err));
        const size_t n = tune_trace_reach(&trace, best, target);
        if (n)
            reach[reached++] = (double)n;
        tune_trace_free(&trace);
    }
    qsort(reach, reached, sizeof *reach, by_value);
    json_t *line = json_pack("{s:s, s:I, s:I}", "strategy", tune_strategy_name(s), "seeds",
                             (json_int_t)seeds, "reached", (json_int_t)reached);
    if (reached) {
        const double median = quantile(reach, reached, 0.5), q1 = quantile(reach, reached, 0.25),
                     q3 = quantile(reach, reached, 0.75), most = reach[reached - 1];
        json_object_set_new(line, "median", json_real(median));
        json_object_set_new(line, "quartiles", json_pack("[f, f]", q1, q3));
        json_object_set_new(line, "most", json_real(most));
        clp__sb_appendf(table, "| %s | %g | %g to %g | %g | %zu of %llu |\n", tune_strategy_name(s),
                        median, q1, q3, most, reached, (unsigned long long)seeds);
    } else
        clp__sb_appendf(table, "| %s | - | - | - | 0 of %llu |\n", tune_strategy_name(s),
                        (unsigned long long)seeds);
    json_array_append_new(figures, line);
fail:
    tune_trace_free(&trace);
    free(reach);
    return st;
}

/* One device of tune.json: its table and figures. */
static clp_status replay_device(const json_t *device, const json_t *done, const char *results,
                                const bool *chosen, uint64_t seeds, double target,
                                tune_budget budget, clp_strbuf *table, json_t *out,
                                clp_error *err) {
    clp_status st = CLP_OK;
    tune_space sp = {0};
    recorded r = {0};
    CLP_TRY(tune_space_from_json(json_object_get(device, "space"), "tune.json", &sp, err));
    r.rate = calloc(sp.n, sizeof *r.rate);
    r.seconds = calloc(sp.n, sizeof *r.seconds);
    CLP_REQUIRE(r.rate && r.seconds, err, CLP_NOMEM, "out of host memory");
    size_t best = 0;
    for (size_t k = 0; k < sp.n; k++) {
        const json_t *record = NULL;
        CLP_TRY(lookup(device, &sp, k, done, results, &record, err));
        const char *status = json_string_value(json_object_get(record, "status"));
        r.rate[k] = status && !strcmp(status, "ok")
                        ? json_real_value(json_object_get(record, "throughput"))
                        : 0;
        r.seconds[k] = json_real_value(json_object_get(record, "seconds"));
        if (r.rate[k] > r.rate[best])
            best = k;
    }
    const json_t *identity = json_object_get(device, "device");
    const char *unit = json_string_value(json_object_get(device, "unit"));
    char *options = sweep_options_text(sp.options[best]);
    clp__sb_appendf(table,
                    "\ndevice %lld (%s): %zu combinations; the best %.4g %s (%s); measurements "
                    "to reach %g of it, over seeds 1 to %llu:\n\n"
                    "| strategy | median | quartiles | most | seeds that reached it |\n"
                    "| --- | --- | --- | --- | --- |\n",
                    (long long)json_integer_value(json_object_get(identity, "index")),
                    json_string_value(json_object_get(identity, "name")), sp.n, r.rate[best],
                    unit ? unit : "", options && *options ? options : "the case's options", target,
                    (unsigned long long)seeds);
    free(options);
    json_t *figures = json_array();
    json_array_append_new(out, json_pack("{s:O, s:I, s:f, s:O, s:o}", "device", identity,
                                         "combinations", (json_int_t)sp.n, "best", r.rate[best],
                                         "best_options", sp.options[best], "strategies", figures));
    for (int s = 0; s < TUNE_STRATEGY_COUNT; s++)
        if (chosen[s])
            CLP_TRY(replay_strategy(&sp, &r, r.rate[best], (tune_strategy)s, seeds, target, budget,
                                    table, figures, err));
fail:
    free(r.rate);
    free(r.seconds);
    tune_space_free(&sp);
    return st;
}

static clp_status choose(const char *strategies, bool *chosen, clp_error *err) {
    clp_status st = CLP_OK;
    const bool all = !strategies || !strcmp(strategies, "all");
    for (int s = 0; s < TUNE_STRATEGY_COUNT; s++)
        chosen[s] = all;
    if (all)
        return CLP_OK;
    char *list = strdup(strategies), *save = NULL;
    CLP_REQUIRE_ALLOC(list, err);
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        tune_strategy s;
        CLP_REQUIRE(tune_strategy_parse(name, &s), err, CLP_USAGE,
                    "--strategy takes all or some of exhaustive, random, anneal and tpe, not "
                    "'%s'",
                    name);
        chosen[s] = true;
    }
fail:
    free(list);
    return st;
}

clp_status tune_replay(const char *dir, const char *out_dir, const char *strategies, uint64_t seeds,
                       double target, tune_budget budget, clp_error *err) {
    clp_status st = CLP_OK;
    bool chosen[TUNE_STRATEGY_COUNT];
    json_t *doc = NULL, *done = NULL, *out = json_array();
    clp_strbuf table = {0};
    char path[1100], results[1100];
    CLP_TRY(choose(strategies, chosen, err));
    snprintf(path, sizeof path, "%s/tune.json", dir);
    snprintf(results, sizeof results, "%s/results.jsonl", dir);
    CLP_TRY(clp__json_load(path, CLP_CASE, &doc, err));
    CLP_REQUIRE_FILE(path, json_is_array(json_object_get(doc, "devices")), err,
                     "%s is not what clpart tune writes (it has no array \"devices\")", path);
    CLP_TRY(sweep_results_load(results, true, &done, err)); /* measurements, whichever wrote them */
    clp__sb_appendf(&table, "clpart tune --replay %s: case %s, %s\n", dir,
                    json_string_value(json_object_get(doc, "case")),
                    budget.evaluations || budget.seconds > 0 ? "under the budget given"
                                                             : "no budget");
    size_t d;
    const json_t *device;
    json_array_foreach(json_object_get(doc, "devices"), d, device) {
        CLP_TRY(
            replay_device(device, done, results, chosen, seeds, target, budget, &table, out, err));
    }
    char *text = clp__sb_take(&table);
    CLP_REQUIRE_ALLOC(text, err);
    fputs(text, stdout);
    const char *into = out_dir ? out_dir : dir;
    char folder[1024], why[256];
    snprintf(folder, sizeof folder, "%s", into);
    if (!clp__make_dirs(folder, why, sizeof why))
        st = CLP_FAIL_AT(err, CLP_IO, into, -1, -1, "cannot make %s: %s", into, why);
    snprintf(path, sizeof path, "%s/replay.md", into);
    if (st == CLP_OK)
        st = clp__atomic_write_file(path, text, strlen(text), err);
    free(text);
    CLP_TRY(st);
    CLP_TRY(clp__json_write(
        into, "replay.json",
        json_pack("{s:f, s:I, s:O}", "target", target, "seeds", (json_int_t)seeds, "devices", out),
        JSON_INDENT(1), err));
fail:
    clp__sb_free(&table);
    json_decref(doc);
    json_decref(done);
    json_decref(out);
    return st;
}
