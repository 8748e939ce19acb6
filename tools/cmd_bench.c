/* clpart bench [--devices SEL,...|all[:NAME]] [--suite quick|standard|FILE] [--out DIR]: the
 * portability benchmark. On each device: the bandwidth and FMA probes, then each workload of
 * the suite (a case, resized by a patch, run for a few steps) with its default options and
 * with every variant of the performance options its model takes, the best kept. Results go
 * to DIR/results.jsonl as they come, so that a rerun goes on where an interrupted one
 * stopped; DIR/bench.json, bench.md and bench.png hold the efficiencies and Φ. */
#include "base/json_file.h"
#include "options/options_schema.h"
#include "host_info.h"
#include "json_list.h"
#include "portability.h"
#include "run/case_json.h"
#include "sweep_engine.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

enum { MAX_AXES = 8 };

typedef struct bench {
    const char *suite_arg, *out, *selectors;
    char suite_path[1024], dir[900], results[1024];
    json_t *suite;
    clp_schema *schema;
    sweep_devices dev;
    clp_cache *cache;
    json_t *done;
    sweep_timing timing;         /* the defaults' runs: "repeat", "spread", "budget_seconds" */
    sweep_timing variant_timing; /* the variants': "variant_repeat" and the same targets */
    double prune_factor; /* variants whose warm-up is this many times slower are not timed */
    json_t *doc;         /* bench.json as it grows */
    const clp_cli *cli;  /* the global flags: --no-tuning */
} bench;

static double suite_number(const json_t *o, const char *key, double fallback) {
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : fallback;
}

/* The timing key `key` of `o` (the suite, or workload `workload`) into *out, `fallback` when
 * it is absent: a whole number of runs from 1 to SWEEP_MAX_SAMPLES (`runs`), else a number of
 * at least `least` (above it when `above`). */
static clp_status timing_key(const bench *b, const json_t *o, const char *workload, const char *key,
                             bool runs, double least, bool above, double fallback, double *out,
                             clp_error *err) {
    const json_t *v = json_object_get(o, key);
    *out = fallback;
    if (!v)
        return CLP_OK;
    const double x = json_number_value(v);
    const bool fits = runs ? json_is_integer(v) && x >= 1 && x <= SWEEP_MAX_SAMPLES
                           : json_is_number(v) && isfinite(x) && (above ? x > least : x >= least);
    if (!fits) {
        char *text = json_dumps(v, JSON_ENCODE_ANY);
        const clp_status st =
            runs ? CLP_FAIL_AT(err, CLP_CASE, b->suite_path, -1, -1,
                               "%s: %s%s%s\"%s\" takes a whole number of runs from 1 to %d, not %s",
                               b->suite_path, workload ? "workload " : "", workload ? workload : "",
                               workload ? ": " : "", key, SWEEP_MAX_SAMPLES, text ? text : "?")
                 : CLP_FAIL_AT(err, CLP_CASE, b->suite_path, -1, -1,
                               "%s: \"%s\" takes a number %s %g, not %s", b->suite_path, key,
                               above ? "above" : "of at least", least, text ? text : "?");
        free(text);
        return st;
    }
    *out = x;
    return CLP_OK;
}

static const char *const suite_keys[] = {"description", "repeat",         "variant_repeat",
                                         "spread",      "budget_seconds", "prune_factor",
                                         "probe",       "workloads"};
static const char *const workload_keys[] = {"name",  "case",    "steps",       "note",
                                            "patch", "largest", "max_seconds", "best_from",
                                            "sweep", "repeat"};

/* Whether one of the workloads before workload w is named `name`. */
static bool named_before(const json_t *workloads, size_t w, const char *name) {
    for (size_t other = 0; other < w; other++)
        if (!strcmp(name,
                    json_string_value(json_object_get(json_array_get(workloads, other), "name"))))
            return true;
    return false;
}

/* Workload w's own keys, checked as a case file's are: known keys, their types and ranges, the
 * options it sweeps known to the schema, and "best_from" naming an earlier workload. */
static clp_status check_workload(const bench *b, json_t *workloads, size_t w, clp_error *err) {
    clp_status st = CLP_OK;
    clp_strbuf section = {0};
    json_t *workload = json_array_get(workloads, w);
    CLP_REQUIRE(json_is_object(workload), err, CLP_CASE, "%s: workload %zu must be an object",
                b->suite_path, w);
    const char *name = json_string_value(json_object_get(workload, "name"));
    CLP_REQUIRE(name && *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, ".."), err,
                CLP_CASE, "%s: workload %zu needs a \"name\" (not . or .., no '/')", b->suite_path,
                w);
    CLP_REQUIRE(!named_before(workloads, w, name), err, CLP_CASE, "%s: two workloads are named %s",
                b->suite_path, name);
    clp__sb_appendf(&section, "workloads/%s/", name); /* the name whole, however long */
    CLP_REQUIRE_ALLOC(section.data, err);
    CLP_TRY(clp__case_known_keys(workload, section.data, workload_keys,
                                 sizeof workload_keys / sizeof *workload_keys, b->suite_path, err));
    CLP_REQUIRE(json_is_string(json_object_get(workload, "case")), err, CLP_CASE,
                "%s: workload %s needs a \"case\" file", b->suite_path, name);
    const json_t *steps = json_object_get(workload, "steps");
    CLP_REQUIRE(json_is_integer(steps) && json_integer_value(steps) > 0 &&
                    json_integer_value(steps) <= 1000000000,
                err, CLP_CASE, "%s: workload %s needs \"steps\", a whole number from 1 to 1e9",
                b->suite_path, name);
    const json_t *note = json_object_get(workload, "note");
    CLP_REQUIRE(!note || json_is_string(note), err, CLP_CASE,
                "%s: workload %s: \"note\" must be a string", b->suite_path, name);
    const json_t *patch = json_object_get(workload, "patch");
    CLP_REQUIRE(!patch || json_is_object(patch), err, CLP_CASE,
                "%s: workload %s: \"patch\" must be an object of case keys", b->suite_path, name);
    const json_t *largest = json_object_get(workload, "largest"), *rung;
    size_t k;
    CLP_REQUIRE(!largest || json_array_size(largest) > 0, err, CLP_CASE,
                "%s: workload %s: \"largest\" must list patches, smallest first", b->suite_path,
                name);
    json_array_foreach(largest, k, rung)
        CLP_REQUIRE(json_is_object(rung), err, CLP_CASE,
                    "%s: workload %s: \"largest\" entry %zu must be an object of case keys",
                    b->suite_path, name, k);
    const json_t *max_seconds = json_object_get(workload, "max_seconds");
    CLP_REQUIRE(!max_seconds ||
                    (json_is_number(max_seconds) && json_number_value(max_seconds) > 0 &&
                     json_number_value(max_seconds) <= 86400),
                err, CLP_CASE, "%s: workload %s: \"max_seconds\" takes a number in (0, 86400]",
                b->suite_path, name);
    const json_t *sweep = json_object_get(workload, "sweep"), *option;
    CLP_REQUIRE(!sweep || json_is_array(sweep), err, CLP_CASE,
                "%s: workload %s: \"sweep\" must list option names", b->suite_path, name);
    json_array_foreach(sweep, k, option) CLP_REQUIRE(
        json_is_string(option) && clp_schema_find(b->schema, json_string_value(option)) >= 0, err,
        CLP_CASE, "%s: workload %s: \"sweep\" entry %zu is not an option name", b->suite_path, name,
        k);
    const char *from = json_string_value(json_object_get(workload, "best_from"));
    CLP_REQUIRE(!json_object_get(workload, "best_from") || from, err, CLP_CASE,
                "%s: workload %s: \"best_from\" must name a workload", b->suite_path, name);
    CLP_REQUIRE(!from || named_before(workloads, w, from), err, CLP_CASE,
                "%s: workload %s: \"best_from\" names %s, which is not a workload before it",
                b->suite_path, name, from);
    double repeat;
    CLP_TRY(timing_key(b, workload, name, "repeat", true, 1, false, 1, &repeat, err));
fail:
    clp__sb_free(&section);
    return st;
}

/* --suite NAME (suites/NAME.json of the data folder) or a file; checked as a case file is,
 * with the workload and the key at fault named. */
static clp_status load_suite(bench *b, clp_error *err) {
    clp_status st = CLP_OK;
    const char *arg = b->suite_arg ? b->suite_arg : "standard";
    if (strchr(arg, '/') || strstr(arg, ".json"))
        snprintf(b->suite_path, sizeof b->suite_path, "%s", arg);
    else
        snprintf(b->suite_path, sizeof b->suite_path, "%s/suites/%s.json", clp_data_dir(), arg);
    CLP_TRY(clp__json_load(b->suite_path, CLP_CASE, &b->suite, err));
    CLP_REQUIRE(json_is_object(b->suite), err, CLP_CASE, "%s: a suite is a JSON object",
                b->suite_path);
    CLP_TRY(clp__case_known_keys(b->suite, "", suite_keys, sizeof suite_keys / sizeof *suite_keys,
                                 b->suite_path, err));
    json_t *workloads = json_object_get(b->suite, "workloads");
    CLP_REQUIRE(json_is_array(workloads), err, CLP_CASE,
                "%s: \"workloads\" must be a list (an empty one runs the probes alone)",
                b->suite_path);
    for (size_t w = 0; w < json_array_size(workloads); w++)
        CLP_TRY(check_workload(b, workloads, w, err));
    double repeat, variant_repeat;
    CLP_TRY(timing_key(b, b->suite, NULL, "repeat", true, 1, false, 3, &repeat, err));
    CLP_TRY(
        timing_key(b, b->suite, NULL, "variant_repeat", true, 1, false, 3, &variant_repeat, err));
    CLP_TRY(timing_key(b, b->suite, NULL, "spread", false, 0, true, SWEEP_DEFAULT_SPREAD,
                       &b->timing.spread, err));
    CLP_TRY(timing_key(b, b->suite, NULL, "budget_seconds", false, 0, false, SWEEP_DEFAULT_BUDGET,
                       &b->timing.budget, err));
    b->timing.min_repeat = (int)repeat;
    b->variant_timing = b->timing;
    b->variant_timing.min_repeat = (int)variant_repeat;
    b->prune_factor = suite_number(b->suite, "prune_factor", 0);
    CLP_REQUIRE(b->prune_factor == 0 || b->prune_factor >= 1, err, CLP_CASE,
                "%s: \"prune_factor\" is 0 (time every variant) or at least 1", b->suite_path);
fail:
    return st;
}

/* The workload's case file: its "case", under the data folder unless absolute. */
static void case_source(const json_t *workload, char *out, size_t size) {
    const char *file = json_string_value(json_object_get(workload, "case"));
    if (file[0] == '/')
        snprintf(out, size, "%s", file);
    else
        snprintf(out, size, "%s/%s", clp_data_dir(), file);
}

/* The workload's case, `patch` merged into it, as DIR/cases/NAME.json. */
static clp_status write_case(const bench *b, const json_t *workload, const json_t *patch,
                             const char *name, char *path, size_t size, clp_error *err) {
    clp_status st = CLP_OK;
    char source[1024];
    case_source(workload, source, sizeof source);
    CLP_REQUIRE(!patch || json_is_object(patch), err, CLP_CASE,
                "%s: workload %s: its patch must be an object", b->suite_path, name);
    char *text = NULL;
    CLP_TRY(sweep_case_patch(source, patch, &text, err));
    snprintf(path, size, "%s/cases/%s.json", b->dir, name);
    st = sweep_write_text(path, text, err);
    free(text);
fail:
    return st;
}

/* Every combination of the values of the performance options of the case's model (those the
 * workload's "sweep" lists, when it lists some) other than the case's own: new objects in
 * `out`. */
static clp_status variants(const bench *b, const json_t *workload, const char *case_path,
                           json_t *out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *opts = NULL;
    const clp_model *model;
    CLP_TRY(clp_options_create(b->schema, &opts, err));
    CLP_TRY(clp_options_apply_case(opts, case_path, NULL, 0, err));
    CLP_TRY(clp_model_find(clp_options_model(opts), &model, err));
    const json_t *only = json_object_get(workload, "sweep"); /* [] sweeps none */
    if (json_is_array(only) && json_array_size(only) == 0)
        goto fail;
    size_t axes[MAX_AXES], n_axes = 0, product = 1;
    for (size_t i = 0; i < clp_schema_count(b->schema) && n_axes < MAX_AXES; i++) {
        const clp__option_def *def = clp__schema_option(b->schema, i);
        bool taken = false; /* a performance option of one of the model's modules */
        for (size_t m = 0; def->performance && model->modules[m]; m++)
            taken |= strcmp(def->module, model->modules[m]) == 0;
        taken = taken && (!json_array_size(only) || json_list_holds(only, def->name));
        if (taken) {
            axes[n_axes++] = i;
            product *= def->type == CLP_OPT_BOOL ? 2 : def->n_values;
        }
    }
    for (size_t k = 0; k < product; k++) {
        json_t *set = json_object();
        bool same = true;
        size_t rest = k;
        for (size_t a = 0; a < n_axes; a++) {
            const clp__option_def *def = clp__schema_option(b->schema, axes[a]);
            const size_t n = def->type == CLP_OPT_BOOL ? 2 : def->n_values;
            const char *value =
                def->type == CLP_OPT_BOOL ? (rest % n ? "true" : "false") : def->values[rest % n];
            rest /= n;
            char own[64];
            clp__value_format(def, clp__options_value_at(opts, axes[a]), own, sizeof own);
            same &= !strcmp(own, value);
            json_object_set_new(set, def->name, json_string(value));
        }
        if (same)
            json_decref(set); /* the case's own options: the defaults' run */
        else
            json_array_append_new(out, set);
    }
fail:
    clp_options_destroy(opts);
    return st;
}

/* The record of `options` of the case on device d: from results.jsonl, or run now and
 * appended; timed as `timing` says, and not timed when its warm-up runs slower than
 * prune_below. */
static clp_status measure(bench *b, size_t d, const cli_session *s, const char *case_path,
                          const char *name, uint64_t steps, json_t *options,
                          const sweep_timing *timing, double prune_below, json_t **out,
                          clp_error *err) {
    const sweep_plan plan = {.case_path = case_path,
                             .schema = b->schema,
                             .limits = {.max_steps = steps},
                             .timing = *timing,
                             .prune_below = prune_below};
    sweep_store store = {.done = b->done, .path = b->results};
    return sweep_measure(&plan, s, b->dev.devices[d], b->dev.identities[d], name, options, &store,
                         out, err);
}

static bool record_ok(const json_t *record) {
    const char *status = json_string_value(json_object_get(record, "status"));
    return status && !strcmp(status, "ok");
}

/* The faster of two records (either may be NULL or failed). */
static json_t *faster(json_t *a, json_t *b) {
    if (!record_ok(b))
        return a;
    if (!record_ok(a))
        return b;
    return json_real_value(json_object_get(b, "throughput")) >
                   json_real_value(json_object_get(a, "throughput"))
               ? b
               : a;
}

/* The options a run of the case takes from the tuning database on device d (cli_case_tune) that
 * differ from the case's own, a new object NAME: value text (empty: the run is the defaults'
 * run); *tuning what run.json records of it (new; NULL: none). */
static clp_status tuned_options(const bench *b, size_t d, const char *case_path, json_t **options,
                                json_t **tuning, clp_error *err) {
    clp_status st = CLP_OK;
    cli_case c = {.schema = b->schema, .case_path = case_path}; /* the schema borrowed */
    clp_options *own = NULL;
    *tuning = NULL;
    CLP_TRY(clp_options_create(b->schema, &own, err));
    CLP_TRY(clp_options_apply_case(own, case_path, NULL, 0, err));
    CLP_TRY(clp_options_dup(own, &c.options, err));
    CLP_TRY(cli_case_tune(&c, b->cli, b->dev.devices[d], err));
    *options = json_object();
    CLP_REQUIRE_ALLOC(*options, err);
    const char *name;
    json_t *value;
    json_object_foreach(json_object_get(c.tuning, "options"), name, value) {
        const long i = clp_schema_find(b->schema, name);
        char text[64];
        clp__value_format(clp__schema_option(b->schema, (size_t)i),
                          clp__options_value_at(own, (size_t)i), text, sizeof text);
        if (strcmp(text, json_string_value(value)) != 0)
            json_object_set(*options, name, value);
    }
    const char *entry = json_string_value(json_object_get(c.tuning, "entry"));
    const size_t data = strlen(clp_data_dir());
    if (entry && !strncmp(entry, clp_data_dir(), data) &&
        entry[data] == '/') /* no machine's path */
        json_object_set_new(c.tuning, "entry", json_string(entry + data + 1));
    *tuning = c.tuning;
    c.tuning = NULL;
fail:
    json_decref(c.tuning);
    clp_options_destroy(c.options);
    clp_options_destroy(own);
    return st;
}

/* The case's options with `set` (NAME: value text) applied, then the "NAME=VALUE ..." of
 * `chosen` (what a run that chooses its own program chose; NULL: none), into *out (new). */
static clp_status options_of(const bench *b, const char *case_path, const json_t *set,
                             const char *chosen, clp_options **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_strbuf text = {0};
    const char *name;
    json_t *value;
    CLP_TRY(clp_options_create(b->schema, out, err));
    CLP_TRY(clp_options_apply_case(*out, case_path, NULL, 0, err));
    json_object_foreach((json_t *)set, name, value)
        clp__sb_appendf(&text, "%s=%s ", name, json_string_value(value));
    clp__sb_appendf(&text, "%s", chosen ? chosen : "");
    char *assignments = clp__sb_take(&text);
    CLP_REQUIRE_ALLOC(assignments, err);
    char *save = NULL;
    for (char *at = strtok_r(assignments, " ", &save); at && st == CLP_OK;
         at = strtok_r(NULL, " ", &save))
        st = clp_options_apply_assignment(*out, at, err);
    free(assignments);
fail:
    return st;
}

/* Whether the tuned option set runs the very program that the best variant's run chose for
 * itself (lj.strategy=auto choosing the entry's strategy): then the two records measure one
 * program, and its rate is the better of them. */
static clp_status best_runs_tuned(const bench *b, const char *case_path, const json_t *tuned_set,
                                  const json_t *best, bool *same, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *tuned = NULL, *chose = NULL;
    const char *chosen = json_string_value(json_object_get(best, "chosen"));
    *same = false;
    if (!chosen || !record_ok(best))
        return CLP_OK;
    CLP_TRY(options_of(b, case_path, tuned_set, NULL, &tuned, err));
    CLP_TRY(options_of(b, case_path, json_object_get(best, "options"), chosen, &chose, err));
    *same = true;
    for (size_t i = 0; i < clp_schema_count(b->schema) && *same; i++) {
        const clp__option_def *def = clp__schema_option(b->schema, i);
        char one[64], other[64];
        clp__value_format(def, clp__options_value_at(tuned, i), one, sizeof one);
        clp__value_format(def, clp__options_value_at(chose, i), other, sizeof other);
        *same = !strcmp(one, other);
    }
fail:
    clp_options_destroy(tuned);
    clp_options_destroy(chose);
    return st;
}

/* The result of `workload` on device d, another of the devices' results in bench.json. A
 * workload with "largest" climbs its patches, smallest first, each timed from one run up after a
 * warm-up, and keeps the largest that ran within its "max_seconds"; it runs the defaults
 * and the best variant of the workload "best_from" names. */
static clp_status run_workload(bench *b, size_t d, const cli_session *s, const json_t *workload,
                               size_t w, clp_error *err) {
    clp_status st = CLP_OK;
    const char *name = json_string_value(json_object_get(workload, "name"));
    const uint64_t steps = (uint64_t)json_integer_value(json_object_get(workload, "steps"));
    const json_t *largest = json_object_get(workload, "largest");
    char case_path[1024], rung[256];
    json_t *defaults = json_object(), *chosen = NULL, *best = NULL, *list = json_array();
    json_t *tuned = NULL, *tuning = NULL;
    /* the defaults' timing, at least the workload's "repeat" runs; a climb's rungs and its
       best variant, which are large, at least one each */
    sweep_timing timing = b->timing;
    timing.min_repeat = (int)suite_number(workload, "repeat", largest ? 1 : timing.min_repeat);
    if (largest) {
        const double max_seconds = suite_number(workload, "max_seconds", 30);
        for (size_t k = 0; k < json_array_size(largest); k++) {
            snprintf(rung, sizeof rung, "%s-%zu", name, k);
            char path[1024];
            json_t *record = NULL;
            CLP_TRY(
                write_case(b, workload, json_array_get(largest, k), rung, path, sizeof path, err));
            CLP_TRY(measure(b, d, s, path, rung, steps, defaults, &timing, 0, &record, err));
            const bool fits =
                record_ok(record) &&
                json_real_value(json_object_get(record, "run_seconds")) <= max_seconds;
            if (fits || !chosen) {
                json_decref(chosen);
                chosen = json_incref(record);
                snprintf(case_path, sizeof case_path, "%s", path);
            }
            json_decref(record);
            if (!fits)
                break;
        }
        /* the best variant that the workload "best_from" found on this device */
        const char *from = json_string_value(json_object_get(workload, "best_from"));
        const json_t *options = NULL;
        size_t v, r;
        json_t *other, *result;
        json_array_foreach(json_object_get(b->doc, "workloads"), v, other) {
            if (!from || strcmp(json_string_value(json_object_get(other, "name")), from))
                continue;
            json_array_foreach(json_object_get(other, "results"), r, result) {
                if ((size_t)json_integer_value(json_object_get(result, "device")) == d)
                    options = json_object_get(json_object_get(result, "best"), "options");
            }
        }
        best = json_incref(chosen);
        if (json_object_size(options) && record_ok(chosen)) {
            json_t *record = NULL;
            CLP_TRY(measure(b, d, s, case_path,
                            json_string_value(json_object_get(chosen, "workload")), steps,
                            (json_t *)options, &timing, 0, &record, err));
            json_t *kept = json_incref(faster(best, record));
            json_decref(best);
            best = kept;
            json_decref(record);
        }
    } else {
        CLP_TRY(write_case(b, workload, json_object_get(workload, "patch"), name, case_path,
                           sizeof case_path, err));
        CLP_TRY(measure(b, d, s, case_path, name, steps, defaults, &timing, 0, &chosen, err));
        best = json_incref(chosen);
        /* a variant whose one step runs that far below the defaults' sustained rate cannot be
           the best: not timed. A single step flatters a stored list (no rebuild in it), so the
           comparison errs toward timing a variant, never toward dropping the best. */
        const double prune_below =
            b->prune_factor > 0
                ? json_real_value(json_object_get(chosen, "throughput")) / b->prune_factor
                : 0;
        CLP_TRY(variants(b, workload, case_path, list, err));
        size_t k;
        json_t *options;
        json_array_foreach(list, k, options) {
            json_t *record = NULL;
            CLP_TRY(measure(b, d, s, case_path, name, steps, options, &b->variant_timing,
                            prune_below, &record, err));
            json_t *kept = json_incref(faster(best, record));
            json_decref(best);
            best = kept;
            json_decref(record);
        }
    }
    /* what a run takes from the tuning database: measured where it sets something, and a
       variant like the others */
    json_t *tuned_set = NULL;
    CLP_TRY(tuned_options(b, d, case_path, &tuned_set, &tuning, err));
    if (json_object_size(tuned_set) && record_ok(chosen)) {
        st = measure(b, d, s, case_path, json_string_value(json_object_get(chosen, "workload")),
                     steps, tuned_set, &timing, 0, &tuned, err);
        bool same = false;
        if (st == CLP_OK)
            st = best_runs_tuned(b, case_path, tuned_set, best, &same, err);
        json_decref(tuned_set);
        CLP_TRY(st);
        json_t *kept = json_incref(faster(best, tuned));
        json_decref(best);
        best = kept;
        if (same) {
            json_decref(tuned);
            tuned = json_incref(best);
        }
    } else {
        json_decref(tuned_set);
        tuned = json_incref(chosen);
    }
    json_t *result = json_pack("{s:I, s:O}", "device", (json_int_t)d, "status",
                               json_object_get(chosen, "status"));
    if (json_object_get(chosen, "reason"))
        json_object_set(result, "reason", json_object_get(chosen, "reason"));
    json_object_set(result, "default", chosen);
    json_object_set(result, "best", record_ok(best) ? best : chosen);
    json_object_set(result, "tuned", record_ok(tuned) ? tuned : chosen);
    json_object_set(result, "tuning", tuning ? tuning : json_null());
    json_t *entry = json_array_get(json_object_get(b->doc, "workloads"), w);
    if (!json_object_get(entry, "unit") && json_object_get(chosen, "unit"))
        json_object_set(entry, "unit", json_object_get(chosen, "unit"));
    json_array_append_new(json_object_get(entry, "results"), result);
fail:
    json_decref(defaults);
    json_decref(chosen);
    json_decref(best);
    json_decref(tuned);
    json_decref(tuning);
    json_decref(list);
    return st;
}

/* The suite's probe settings, checked: "floats" per array (0 when absent: sized past the
 * device's cache) and "iterations" (0 when absent: by the arrays' size). */
static clp_status probe_settings(const bench *b, size_t *floats, int *iterations, clp_error *err) {
    const json_t *p = json_object_get(b->suite, "probe");
    *floats = 0;
    *iterations = 0;
    if (!p)
        return CLP_OK;
    if (!json_is_object(p))
        return CLP_FAIL_AT(err, CLP_CASE, b->suite_path, -1, -1, "\"probe\" must be an object");
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)p, key, value) {
        const json_int_t v = json_integer_value(value);
        if (!strcmp(key, "floats") && json_is_integer(value) && v >= 4 && v % 4 == 0)
            *floats = (size_t)v;
        else if (!strcmp(key, "iterations") && json_is_integer(value) && v >= 1 && v <= 1000)
            *iterations = (int)v;
        else
            return CLP_FAIL_AT(err, CLP_CASE, b->suite_path, -1, -1,
                               "probe: \"%s\" is not a setting or out of range (\"floats\": "
                               "floats per array, a multiple of 4, left out to size the arrays "
                               "past the device's cache; \"iterations\": 1 to 1000)",
                               key);
    }
    return CLP_OK;
}

static json_t *stat_json(clp_probe_stat s) {
    return json_pack("{s:f, s:f, s:f, s:f}", "min", s.min, "avg", s.avg, "max", s.max, "best",
                     s.best);
}

/* bench.json's "probe" object of a device (docs/cli.md lists its keys). */
static json_t *probe_json(const clp_probe_result *r) {
    json_t *p = json_pack("{s:I, s:I, s:b, s:I}", "array_bytes", (json_int_t)r->array_bytes,
                          "cache_bytes", (json_int_t)r->cache_bytes, "beyond_cache",
                          r->beyond_cache, "iterations", (json_int_t)r->iterations);
    json_t *unit = json_object();
    const struct {
        const char *name, *unit;
        const clp_probe_stat *stat;
    } stats[] = {{"copy", "bytes/s", &r->copy},
                 {"mul", "bytes/s", &r->mul},
                 {"add", "bytes/s", &r->add},
                 {"triad", "bytes/s", &r->triad},
                 {"dot", "bytes/s", &r->dot},
                 {"fp32", "flop/s", &r->fp32},
                 {"fp64", "flop/s", r->has_fp64 ? &r->fp64 : NULL},
                 {"h2d", "bytes/s", &r->h2d},
                 {"d2h", "bytes/s", &r->d2h},
                 {"launch_wall", "s", &r->launch_wall},
                 {"launch_device", "s", &r->launch_device}};
    for (size_t k = 0; k < sizeof stats / sizeof stats[0]; k++) {
        json_object_set_new(p, stats[k].name,
                            stats[k].stat ? stat_json(*stats[k].stat) : json_null());
        json_object_set_new(unit, stats[k].name, json_string(stats[k].unit));
    }
    json_object_set_new(p, "unit", unit);
    return p;
}

/* DIR/probes.json: the probes this folder measured, each under the key of its device and
 * settings (an empty object when there is no file yet). */
static clp_status probes_load(const char *path, json_t **out, clp_error *err) {
    json_error_t e;
    *out = json_load_file(path, 0, &e);
    if (json_is_object(*out))
        return CLP_OK;
    json_decref(*out);
    *out = NULL;
    if (access(path, F_OK) != 0) {
        *out = json_object();
        return CLP_OK;
    }
    return CLP_FAIL_AT(err, CLP_IO, path, e.line, e.column,
                       "%s: not the probes of a bench (%s); remove it to measure them again", path,
                       e.text);
}

/* The probes on device d: from DIR/probes.json when this clpart version measured them there
 * on this device with these settings (so that a rerun gives the same efficiencies), else
 * measured now and added to it. */
static clp_status probe(bench *b, size_t d, const cli_session *s, json_t *device, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *opts = NULL;
    json_t *stored = NULL, *settings = NULL, *given = NULL;
    char *key = NULL, path[1024], temp[1100];
    size_t floats;
    int iterations;
    CLP_TRY(probe_settings(b, &floats, &iterations, err));
    snprintf(path, sizeof path, "%s/probes.json", b->dir);
    CLP_TRY(probes_load(path, &stored, err));
    given = json_object_get(b->suite, "probe") ? json_incref(json_object_get(b->suite, "probe"))
                                               : json_object();
    settings = json_pack("[O, O]", b->dev.identities[d], given);
    key = json_dumps(settings, JSON_COMPACT | JSON_SORT_KEYS);
    CLP_REQUIRE_ALLOC(key, err);
    const json_t *entry = json_object_get(stored, key);
    const char *version = json_string_value(json_object_get(entry, "version"));
    const bool measured = !(version && !strcmp(version, clp_version()) &&
                            json_is_object(json_object_get(entry, "probe")));
    if (measured) {
        /* they take tens of seconds on a CPU: say what runs meanwhile */
        fprintf(stderr,
                "device %zu: measuring the probes (memory bandwidth, FP32, transfers, "
                "launch latency)\n",
                b->dev.devices[d]->index);
        CLP_TRY(clp_options_create(b->schema, &opts, err));
        clp_probe_result r;
        clp_worker_set_stop(s->worker, &cli_stop_signal); /* a stop ends the probes at a launch */
        st = clp_probe_run(s->worker, opts, b->cache, clp_probe_floats(b->dev.devices[d], floats),
                           iterations, &r, err);
        clp_worker_set_stop(s->worker, NULL);
        CLP_TRY(st);
        json_object_set_new(stored, key,
                            json_pack("{s:O, s:O, s:s, s:o}", "device", b->dev.identities[d],
                                      "settings", given, "version", clp_version(), "probe",
                                      probe_json(&r)));
        snprintf(temp, sizeof temp, "%s.part", path); /* whole or not at all */
        CLP_REQUIRE(json_dump_file(stored, temp, JSON_INDENT(1)) == 0 && rename(temp, path) == 0,
                    err, CLP_IO, "cannot write %s", path);
        entry = json_object_get(stored, key);
    }
    const json_t *result = json_object_get(entry, "probe");
    json_object_set(device, "probe", (json_t *)result);
    char arrays[128];
    portability_probe_arrays(result, arrays, sizeof arrays);
    fprintf(stderr, "device %zu: probes (%s %s): %s; ", b->dev.devices[d]->index,
            measured ? "measured, stored in" : "from", path, arrays);
    static const char *const shown[] = {"copy", "triad", "dot"};
    for (size_t k = 0; k < 3; k++) {
        const json_t *stat = json_object_get(result, shown[k]);
        fprintf(stderr, "%s %.1f GB/s (%.1f-%.1f), ", shown[k],
                json_number_value(json_object_get(stat, "best")) / 1e9,
                json_number_value(json_object_get(stat, "min")) / 1e9,
                json_number_value(json_object_get(stat, "max")) / 1e9);
    }
    fprintf(stderr, "FP32 %.0f GFLOP/s\n",
            json_number_value(json_object_get(json_object_get(result, "fp32"), "best")) / 1e9);
fail:
    clp_options_destroy(opts);
    json_decref(stored);
    json_decref(settings);
    json_decref(given);
    free(key);
    return st;
}

static clp_status run_device(bench *b, size_t d, clp_error *err) {
    clp_status st = CLP_OK;
    cli_session s = {.cache = b->cache};
    json_t *device = json_deep_copy(b->dev.identities[d]);
    json_object_set_new(device, "host", host_info_json());
    json_object_set_new(device, "version", json_string(clp_version()));
    json_object_set_new(device, "global_memory",
                        json_integer((json_int_t)b->dev.devices[d]->global_mem_size));
    json_array_append_new(json_object_get(b->doc, "devices"), device);
    CLP_TRY(clp_worker_create(b->dev.devices[d], &s.worker, err));
    CLP_TRY(probe(b, d, &s, device, err));
    size_t w;
    json_t *workload;
    json_array_foreach(json_object_get(b->suite, "workloads"), w, workload) {
        CLP_TRY(run_workload(b, d, &s, workload, w, err));
    }
fail:
    clp_worker_destroy(s.worker);
    return st;
}

/* 16 hex digits of XXH64 over `value` as canonical JSON (keys sorted, compact), then `extra`. */
static clp_status canonical_hash(const json_t *value, const char *extra, char out[17],
                                 clp_error *err) {
    char *text = json_dumps(value, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    XXH64_state_t *h = XXH64_createState();
    if (!h) {
        free(text);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    }
    XXH64_reset(h, 0);
    XXH64_update(h, text, strlen(text));
    XXH64_update(h, extra, strlen(extra));
    snprintf(out, 17, "%016llx", (unsigned long long)XXH64_digest(h));
    XXH64_freeState(h);
    free(text);
    return CLP_OK;
}

/* bench.json as it starts: what the bench measures, so that clpart report merges only benches
 * of one suite and one definition of each workload. The suite by the stem of its file and a
 * hash of its contents; each workload with its definition in the suite and a hash of that and
 * of its case file's bytes (an edited case is another workload). No path of this machine. */
static clp_status bench_document(bench *b, clp_error *err) {
    clp_status st = CLP_OK;
    char hash[17], case_hash[17], source[1024];
    const char *base =
        strrchr(b->suite_path, '/') ? strrchr(b->suite_path, '/') + 1 : b->suite_path;
    const char *dot = strstr(base, ".json");
    CLP_TRY(canonical_hash(b->suite, "", hash, err));
    b->doc = json_pack("{s:{s:s%, s:s}, s:s, s:[], s:[]}", "suite", "name", base,
                       dot && !dot[5] ? (size_t)(dot - base) : strlen(base), "hash", hash, "clpart",
                       clp_version(), "devices", "workloads");
    CLP_REQUIRE_ALLOC(b->doc, err);
    size_t w;
    json_t *workload;
    json_array_foreach(json_object_get(b->suite, "workloads"), w, workload) {
        case_source(workload, source, sizeof source);
        CLP_TRY(cli_file_hash(source, case_hash, err));
        CLP_TRY(canonical_hash(workload, case_hash, hash, err));
        const json_t *note = json_object_get(workload, "note");
        json_array_append_new(json_object_get(b->doc, "workloads"),
                              json_pack("{s:O, s:s, s:O, s:s, s:[]}", "name",
                                        json_object_get(workload, "name"), "note",
                                        note ? json_string_value(note) : "", "definition", workload,
                                        "definition_hash", hash, "results"));
    }
fail:
    return st;
}

/* `object`'s string `key` with each "DIR/" of the bench folder taken out, so that it names
 * the bench's cases relative to the folder. */
static void relative_to(const bench *b, json_t *object, const char *key) {
    const char *text = json_string_value(json_object_get(object, key));
    const size_t prefix = strlen(b->dir);
    if (!text || !prefix)
        return;
    clp_strbuf out = {0};
    for (const char *at = text, *found; *at; at = found + prefix + 1) {
        found = strstr(at, b->dir);
        while (found && found[prefix] != '/')
            found = strstr(found + 1, b->dir);
        if (!found) {
            clp__sb_append(&out, at);
            break;
        }
        clp__sb_append_n(&out, at, (size_t)(found - at));
    }
    char *relative = clp__sb_take(&out);
    if (relative)
        json_object_set_new(object, key, json_string(relative));
    free(relative);
}

/* bench.json without the bench folder's path: its default and best records (copies: those of
 * results.jsonl stay as they were) name their case relative to it, as do the reasons of
 * failures, which often name the case. */
static void relative_cases(bench *b) {
    const char *keys[3] = {"default", "best", "tuned"};
    size_t w, r;
    json_t *workload, *result;
    json_array_foreach(json_object_get(b->doc, "workloads"), w, workload) {
        json_array_foreach(json_object_get(workload, "results"), r, result) {
            relative_to(b, result, "reason");
            for (int k = 0; k < 3; k++) {
                json_t *copy = json_deep_copy(json_object_get(result, keys[k]));
                relative_to(b, copy, "case");
                relative_to(b, copy, "reason");
                if (copy)
                    json_object_set_new(result, keys[k], copy);
            }
        }
    }
}

static clp_status parse(int argc, char **argv, bench *b, clp_error *err) {
    for (int i = 1; i < argc; i++) {
        const bool value = i + 1 < argc;
        if (!strcmp(argv[i], "--suite") && value)
            b->suite_arg = argv[++i];
        else if (!strcmp(argv[i], "--out") && value)
            b->out = argv[++i];
        else if (!strcmp(argv[i], "--devices") && value)
            b->selectors = argv[++i];
        else
            return CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1,
                               "unknown argument '%s' (or it lacks its value)", argv[i]);
    }
    return CLP_OK;
}

static void bench_free(bench *b) {
    json_decref(b->suite);
    json_decref(b->done);
    json_decref(b->doc);
    sweep_devices_free(&b->dev);
    clp_cache_close(b->cache);
    clp_schema_destroy(b->schema);
}

int cmd_bench(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    bench b = {.cli = cli};
    clp_status st = parse(argc, argv, &b, &err);
    char path[1024], why[256];
    if (st == CLP_OK) { /* the schema first: the suite names options */
        snprintf(path, sizeof path, "%s/options", clp_data_dir());
        st = clp_schema_load(path, &b.schema, &err);
    }
    if (st == CLP_OK)
        st = load_suite(&b, &err);
    if (st == CLP_OK) {
        cli_handle_signals();
        st = sweep_devices_select(&b.dev, b.selectors, false, cli, &err);
    }
    if (st == CLP_OK)
        st = cli_open_cache(cli, &b.cache, &err);
    if (st == CLP_OK) {
        snprintf(b.dir, sizeof b.dir, "%s", b.out ? b.out : "clpart-bench");
        snprintf(path, sizeof path, "%s/cases", b.dir);
        if (!clp__make_dirs(path, why, sizeof why))
            st = CLP_FAIL_AT(&err, CLP_IO, b.dir, -1, -1, "cannot make %s: %s", path, why);
        snprintf(b.results, sizeof b.results, "%s/results.jsonl", b.dir);
    }
    if (st == CLP_OK)
        st = sweep_results_load(b.results, false, &b.done, &err);
    if (st == CLP_OK)
        st = bench_document(&b, &err);
    for (size_t d = 0; st == CLP_OK && d < b.dev.n; d++)
        st = run_device(&b, d, &err);
    char charts[2400] = "";
    if (st == CLP_OK) {
        relative_cases(&b);
        st = portability_compute(b.doc, &err);
    }
    if (st == CLP_OK) {
        clp_strbuf title = {0};
        clp__sb_appendf(
            &title, "clpart bench, suite %s",
            json_string_value(json_object_get(json_object_get(b.doc, "suite"), "name")));
        char *text = clp__sb_take(&title);
        st = text ? portability_write(b.doc, b.dir, "bench", text, charts, sizeof charts, &err)
                  : CLP_FAIL(&err, CLP_NOMEM, "out of host memory");
        free(text);
    }
    if (st == CLP_OK) {
        char phi[128];
        portability_phi_text(b.doc, phi, sizeof phi);
        printf("done: %s/bench.md, %s/bench.json%s; %s\n", b.dir, b.dir, charts, phi);
    }
    int rc;
    if (st == CLP_INTERRUPTED || (st != CLP_OK && err.status == CLP_INTERRUPTED)) {
        fprintf(stderr,
                "clpart: interrupted: the results so far are in %s; run the same bench "
                "again to go on\n",
                b.results);
        rc = 128 + (cli_stop_signal ? cli_stop_signal : 2);
    } else
        rc = st == CLP_OK ? CLP_EXIT_OK : cli_report(&err);
    bench_free(&b);
    return rc;
}
