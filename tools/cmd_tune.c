/* clpart tune CASE [-s NAME=VALUE | -s NAME=V1,V2,...]... [--strategy S] [--evaluations N]
 * [--seconds S] [--seed S] [--devices SEL,...|all[:NAME]] [--steps N | --time T] [--repeat R]
 * [--spread F] [--budget SECONDS] [--out DIR] [--save]: searches the performance options of
 * the case's model (and the -s lists) on each device for the case's throughput, with one of
 * the strategies of tune_search.h, over the space the schema and the model's source leave
 * (tune_space.h). Every measurement is a record of DIR/results.jsonl as in clpart sweep, so a
 * stopped tune goes on where it stopped and a finished one is replayed (clpart tune --replay
 * DIR, tune_replay.c); DIR/tune.json holds each device's space and search, DIR/t4-D.json the
 * measurements in the T4 auto-tuning schema; --save writes the best into the user's tuning
 * database. */
#include "cli_case.h"
#include "io/io.h"
#include "models/models.h"
#include "options/options_schema.h"
#include "sweep_engine.h"
#include "tune_replay.h"
#include "tune_space.h"
#include "tuning_db.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { DEFAULT_REPEAT = 3, DEFAULT_EVALUATIONS = 24 };
/* A combination whose one-step warm-up runs at under this fraction of the case's own rate is
 * not timed: it cannot be the best, and on a CPU the slowest take minutes. */
static const double prune_fraction = 0.25;

typedef struct tune {
    const char *selectors, *replay, *strategies, *out;
    tune_strategy strategy;
    tune_budget budget;
    uint64_t seed, seeds;
    double target;
    bool save, budget_given;
    tune_list lists[TUNE_MAX_AXES];
    size_t n_lists;
    json_t *fixed; /* the single -s values: NAME: value text, in every measurement */
    cli_case base;
    sweep_plan plan;
    char dir[900], results[1024];
    sweep_devices dev;
    clp_cache *cache;
    sweep_store store;
    json_t *doc; /* tune.json */
} tune;

/* What one device's search measures through. */
typedef struct live {
    tune *t;
    size_t d;
    const cli_session *s;
    const tune_space *sp;
    json_t **records; /* by combination, once measured */
    char label[256];
} live;

static json_t *with_fixed(const tune *t, const json_t *options) {
    json_t *set = json_deep_copy(t->fixed);
    json_object_update(set, (json_t *)options);
    return set;
}

static clp_status measure_live(void *ctx, size_t k, double *rate, double *seconds, clp_error *err) {
    live *l = ctx;
    clp_status st = CLP_OK;
    json_t *options = with_fixed(l->t, l->sp->options[k]), *record = NULL;
    CLP_REQUIRE_ALLOC(options, err);
    CLP_TRY(sweep_measure(&l->t->plan, l->s, l->t->dev.devices[l->d], l->t->dev.identities[l->d],
                          l->label, options, &l->t->store, &record, err));
    const char *status = json_string_value(json_object_get(record, "status"));
    *rate = status && !strcmp(status, "ok") ? json_real_value(json_object_get(record, "throughput"))
                                            : 0;
    *seconds = json_real_value(json_object_get(record, "seconds"));
    if (k == 0) /* the case's own rate: what the rest must come near to be timed */
        l->t->plan.prune_below = prune_fraction * *rate;
    l->records[k] = record;
fail:
    json_decref(options);
    return st;
}

/* The T4 invalidity of a record's status. */
static const char *invalidity(const char *status) {
    static const char *const map[][2] = {{"ok", "correct"},
                                         {"build failed", "compile"},
                                         {"run failed", "runtime"},
                                         {"refused", "constraints"},
                                         {"pruned", "timeout"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (status && !strcmp(status, map[i][0]))
            return map[i][1];
    return "runtime";
}

/* Combination k's value on every axis it holds, as T4's "configuration". */
static json_t *configuration(const tune_space *sp, size_t k) {
    json_t *c = json_object();
    for (size_t a = 0; a < sp->n_axes; a++) {
        const int v = sp->at[k * sp->n_axes + a];
        if (v >= 0)
            json_object_set_new(c, sp->axes[a].name, json_string(sp->axes[a].values[v]));
    }
    return c;
}

static json_t *t4_result(const tune_space *sp, size_t k, const json_t *record) {
    char when[32];
    const time_t started = (time_t)json_real_value(json_object_get(record, "started"));
    struct tm utc;
    gmtime_r(&started, &utc);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
    const double work = json_real_value(json_object_get(record, "work"));
    json_t *runtimes = json_array(), *sample;
    size_t i;
    json_array_foreach(json_object_get(record, "runs"), i, sample) {
        if (json_real_value(sample) > 0)
            json_array_append_new(runtimes, json_real(work / json_real_value(sample)));
    }
    const char *status = json_string_value(json_object_get(record, "status"));
    json_t *measurements = json_array();
    if (json_object_get(record, "throughput"))
        json_array_append_new(measurements,
                              json_pack("{s:s, s:O, s:s}", "name", "throughput", "value",
                                        json_object_get(record, "throughput"), "unit",
                                        json_string_value(json_object_get(record, "unit"))));
    return json_pack("{s:s, s:o, s:[s], s:{s:f, s:o, s:f}, s:s, s:i, s:o}", "timestamp", when,
                     "configuration", configuration(sp, k), "objectives", "throughput", "times",
                     "compilation_time", json_real_value(json_object_get(record, "build_seconds")),
                     "runtimes", runtimes, "framework",
                     json_real_value(json_object_get(record, "prepare_seconds")), "invalidity",
                     invalidity(status), "correctness", 1, "measurements", measurements);
}

/* Whether record `best` is faster than `own` beyond their spread: the low end of its median's
 * interval above the high end of theirs, and by at least min_gain. Run to run, a GPU's rate
 * moves by a few per cent more than one run's interval says. */
static bool clearly_faster(const json_t *best, const json_t *own) {
    static const double min_gain = 1.03;
    const double low = json_real_value(json_object_get(best, "throughput_low"));
    const double high = json_real_value(json_object_get(own, "throughput_high"));
    const double rate = json_real_value(json_object_get(best, "throughput"));
    const double own_rate = json_real_value(json_object_get(own, "throughput"));
    return low > high && rate >= min_gain * own_rate;
}

static clp_status save(tune *t, size_t d, const tune_space *sp, size_t best, double ratio,
                       clp_error *err) {
    clp_status st = CLP_OK;
    json_t *options = NULL;
    char *path = tuning_db_user_path();
    const clp_model *model;
    size_t particles;
    CLP_REQUIRE_ALLOC(path, err);
    CLP_REQUIRE(*path, err, CLP_USAGE,
                "--save: no folder for the user's tuning database (set CLPART_TUNING_DB, "
                "XDG_DATA_HOME or HOME)");
    CLP_REQUIRE_ALLOC(options = configuration(sp, best), err); /* every axis: the defaults too */
    CLP_TRY(clp_model_find(clp_options_model(t->base.options), &model, err));
    CLP_TRY(model->particles(t->base.options, t->base.case_path, &particles, err));
    tuning_identity id;
    tuning_identity_of(t->dev.devices[d], &id);
    char note[512];
    snprintf(note, sizeof note, "clpart tune %s (%s, clpart %s): %.3g times the defaults",
             t->base.case_path, tune_strategy_name(t->strategy), clp_version(), ratio);
    bool replaced;
    CLP_TRY(
        tuning_db_save(path, &id, model->name, (double)particles, options, note, &replaced, err));
    printf("device %zu: %s the entry for model %s at %zu particles in %s\n",
           t->dev.devices[d]->index, replaced ? "replaced" : "saved", model->name, particles, path);
fail:
    json_decref(options);
    free(path);
    return st;
}

/* Searches on device d; its part of tune.json, its T4 file, and the line that says what it
 * found. */
static clp_status tune_device(tune *t, size_t d, clp_error *err) {
    clp_status st = CLP_OK;
    cli_session s = {.cache = t->cache};
    tune_space sp = {0};
    tune_trace trace = {0};
    live l = {.t = t, .d = d, .s = &s, .sp = &sp};
    const clp_device_info *dev = t->dev.devices[d];
    char *stem = cli_file_stem(t->base.case_path);
    snprintf(l.label, sizeof l.label, "%s", stem ? stem : "case");
    free(stem);
    CLP_TRY(tune_space_build(&sp, &t->base, t->lists, t->n_lists, dev, err));
    for (size_t a = 0; t->save && a < sp.n_axes; a++)
        CLP_REQUIRE(clp_options_get(t->base.options, sp.axes[a].name) &&
                        clp__schema_option(t->base.schema,
                                           (size_t)clp_schema_find(t->base.schema, sp.axes[a].name))
                            ->performance,
                    err, CLP_USAGE,
                    "--save keeps performance options only, and %s is not one (it changes the "
                    "results): tune it without --save",
                    sp.axes[a].name);
    l.records = calloc(sp.n, sizeof *l.records);
    CLP_REQUIRE_ALLOC(l.records, err);
    fprintf(stderr,
            "device %zu: %zu combinations on %zu axes (%zu refused by the options or the "
            "source): %s\n",
            dev->index, sp.n, sp.n_axes, sp.refused, tune_strategy_name(t->strategy));
    CLP_TRY(clp_worker_create(dev, &s.worker, err));
    t->plan.prune_below = 0;
    tune_budget budget = t->budget;
    if (!t->budget_given && t->strategy != TUNE_EXHAUSTIVE)
        budget.evaluations = DEFAULT_EVALUATIONS;
    tune_grid grid;
    tune_space_grid(&sp, &grid);
    CLP_TRY(tune_search(&grid, t->strategy, t->seed, budget, measure_live, &l, &trace, err));
    const size_t best = trace.order[tune_trace_best(&trace)];
    const double own = trace.rates[0], fastest = trace.rates[tune_trace_best(&trace)];
    const double ratio = own > 0 ? fastest / own : 0;
    json_t *steps = json_array(), *t4 = json_array();
    for (size_t i = 0; i < trace.n; i++) {
        const size_t k = trace.order[i];
        json_array_append_new(steps, json_pack("{s:I, s:O, s:O, s:f}", "combination", (json_int_t)k,
                                               "options", sp.options[k], "status",
                                               json_object_get(l.records[k], "status"),
                                               "throughput", trace.rates[i]));
        json_array_append_new(t4, t4_result(&sp, k, l.records[k]));
    }
    json_t *key =
        json_pack("{s:O, s:O, s:O, s:O}", "case_hash", json_object_get(l.records[0], "case_hash"),
                  "device", t->dev.identities[d], "limits", json_object_get(l.records[0], "limits"),
                  "timing", json_object_get(l.records[0], "timing"));
    json_array_append_new(
        json_object_get(t->doc, "devices"),
        json_pack("{s:O, s:o, s:o, s:O, s:o, s:f, s:f, s:{s:I, s:O, s:f}, s:f, s:O}", "device",
                  t->dev.identities[d], "record_key", key, "space", tune_space_json(&sp), "unit",
                  json_object_get(l.records[0], "unit"), "search", steps, "seconds", trace.seconds,
                  "case_throughput", own, "best", "combination", (json_int_t)best, "options",
                  sp.options[best], "throughput", fastest, "ratio", ratio, "fixed", t->fixed));
    char name[64];
    snprintf(name, sizeof name, "t4-%zu.json", dev->index);
    CLP_TRY(clp__json_write(t->dir, name,
                            json_pack("{s:s, s:o}", "schema_version", "1.0.0", "results", t4),
                            JSON_INDENT(1), err));
    char *text = sweep_options_text(sp.options[best]);
    printf("device %zu (%s): %zu of %zu combinations measured; the case's options %.4g %s, the "
           "best %.4g (%.3g times) with %s\n",
           dev->index, dev->name, trace.n, sp.n, own,
           json_string_value(json_object_get(l.records[0], "unit")), fastest, ratio,
           text && *text ? text : "the case's options");
    free(text);
    if (t->save && best != 0 && !clearly_faster(l.records[best], l.records[0])) {
        printf("device %zu: the best is not faster than the case's options beyond the spread of "
               "their runs: --save keeps the case's options\n",
               dev->index);
        CLP_TRY(save(t, d, &sp, 0, 1, err));
    } else if (t->save)
        CLP_TRY(save(t, d, &sp, best, ratio, err));
fail:
    for (size_t k = 0; l.records && k < sp.n; k++)
        json_decref(l.records[k]);
    free(l.records);
    tune_trace_free(&trace);
    tune_space_free(&sp);
    clp_worker_destroy(s.worker);
    return st;
}

/* -s NAME=VALUE is in every measurement; -s NAME=V1,V2,... is an axis of the space. */
static clp_status add_assignment(tune *t, const char *assignment, char **kept, int *n_kept,
                                 clp_error *err) {
    clp_status st = CLP_OK;
    char *copy = NULL, *save = NULL;
    const char *equals = strchr(assignment, '=');
    CLP_REQUIRE(equals && equals != assignment, err, CLP_USAGE,
                "-s takes NAME=VALUE or NAME=V1,V2,..., not '%s'", assignment);
    if (!strchr(equals + 1, ',')) {
        CLP_REQUIRE(*n_kept + 3 <= 2 * TUNE_MAX_AXES + 2, err, CLP_USAGE, "too many -s values");
        kept[(*n_kept)++] = "-s";
        kept[(*n_kept)++] = (char *)assignment;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(equals - assignment), assignment);
        json_object_set_new(t->fixed, name, json_string(equals + 1));
        return CLP_OK;
    }
    CLP_REQUIRE(t->n_lists < TUNE_MAX_AXES, err, CLP_USAGE, "clpart tune takes at most %d -s lists",
                TUNE_MAX_AXES);
    tune_list *list = &t->lists[t->n_lists];
    char **values = calloc(TUNE_MAX_VALUES, sizeof *values);
    copy = strdup(equals + 1);
    list->name = strndup(assignment, (size_t)(equals - assignment));
    list->values = values;
    t->n_lists++;
    CLP_REQUIRE(values && copy && list->name, err, CLP_NOMEM, "out of host memory");
    size_t n = 0;
    for (char *v = strtok_r(copy, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
        CLP_REQUIRE(n < TUNE_MAX_VALUES, err, CLP_USAGE, "-s %s lists more than %d values",
                    list->name, TUNE_MAX_VALUES);
        CLP_REQUIRE_ALLOC(values[n] = strdup(v), err);
        list->n = ++n;
    }
    CLP_REQUIRE(n > 0, err, CLP_USAGE, "-s %s lists no value", list->name);
fail:
    free(copy);
    return st;
}

static clp_status parse_count(const char *flag, const char *text, uint64_t *out, clp_error *err) {
    return cli_positive(flag, text, true, out, NULL, err);
}

static clp_status parse(int argc, char **argv, tune *t, clp_error *err) {
    clp_status st = CLP_OK;
    const char *out = NULL, *case_path = NULL;
    char *kept[2 * TUNE_MAX_AXES + 2] = {argv[0]};
    int n_kept = 1;
    t->plan.timing = (sweep_timing){DEFAULT_REPEAT, SWEEP_DEFAULT_SPREAD, SWEEP_DEFAULT_BUDGET};
    CLP_REQUIRE_ALLOC(t->fixed = json_object(), err);
    for (int i = 1; i < argc; i++) {
        const bool value = i + 1 < argc;
        bool taken;
        uint64_t count;
        if (!strcmp(argv[i], "-s") && value)
            CLP_TRY(add_assignment(t, argv[++i], kept, &n_kept, err));
        else if (!strcmp(argv[i], "--strategy") && value)
            t->strategies = argv[++i];
        else if (!strcmp(argv[i], "--evaluations") && value) {
            CLP_TRY(parse_count("--evaluations", argv[++i], &count, err));
            t->budget.evaluations = (size_t)count;
            t->budget_given = true;
        } else if (!strcmp(argv[i], "--seconds") && value) {
            CLP_TRY(cli_positive("--seconds", argv[++i], false, NULL, &t->budget.seconds, err));
            t->budget_given = true;
        } else if (!strcmp(argv[i], "--seed") && value)
            CLP_TRY(parse_count("--seed", argv[++i], &t->seed, err));
        else if (!strcmp(argv[i], "--seeds") && value)
            CLP_TRY(parse_count("--seeds", argv[++i], &t->seeds, err));
        else if (!strcmp(argv[i], "--target") && value) {
            CLP_TRY(cli_positive("--target", argv[++i], false, NULL, &t->target, err));
            CLP_REQUIRE(t->target <= 1, err, CLP_USAGE,
                        "--target takes a fraction of the best rate in (0, 1], not %s", argv[i]);
        } else if (!strcmp(argv[i], "--devices") && value)
            t->selectors = argv[++i];
        else if (!strcmp(argv[i], "--out") && value)
            out = t->out = argv[++i];
        else if (!strcmp(argv[i], "--replay") && value)
            t->replay = argv[++i];
        else if (!strcmp(argv[i], "--save"))
            t->save = true;
        else if ((st = sweep_plan_flag(argc, argv, &i, &t->plan, &taken, err)) != CLP_OK)
            goto fail;
        else if (taken)
            continue;
        else if (argv[i][0] == '-' && argv[i][1])
            return CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1,
                               "unknown flag '%s' (or it lacks its value)", argv[i]);
        else {
            CLP_REQUIRE(!case_path, err, CLP_USAGE,
                        "clpart tune takes one case file, not '%s' and '%s'", case_path, argv[i]);
            case_path = argv[i];
        }
    }
    if (t->replay) {
        CLP_REQUIRE(!case_path && !t->n_lists && !json_object_size(t->fixed) && !t->save &&
                        !t->selectors,
                    err, CLP_USAGE,
                    "--replay DIR takes the space and the measurements from DIR: no case, -s, "
                    "--devices or --save");
        return CLP_OK;
    }
    CLP_REQUIRE(case_path, err, CLP_USAGE, "clpart tune takes a case file (or --replay DIR)");
    if (t->strategies)
        CLP_REQUIRE(tune_strategy_parse(t->strategies, &t->strategy), err, CLP_USAGE,
                    "--strategy takes exhaustive, random, anneal or tpe, not '%s'", t->strategies);
    else
        t->strategy = TUNE_TPE;
    kept[n_kept++] = (char *)case_path;
    CLP_TRY(cli_case_load(n_kept, kept, true, &t->base, err));
    t->plan.case_path = t->base.case_path;
    t->plan.schema = t->base.schema;
    CLP_TRY(sweep_out_dir(out, "tune", case_path, t->dir, sizeof t->dir, t->results,
                          sizeof t->results, err));
fail:
    return st;
}

static void tune_free(tune *t) {
    for (size_t l = 0; l < t->n_lists; l++) {
        for (size_t v = 0; v < t->lists[l].n; v++)
            free(t->lists[l].values[v]);
        free((void *)t->lists[l].values);
        free((void *)t->lists[l].name);
    }
    json_decref(t->fixed);
    json_decref(t->store.done);
    json_decref(t->doc);
    sweep_devices_free(&t->dev);
    clp_cache_close(t->cache);
    cli_case_free(&t->base);
}

static clp_status run_tune(tune *t, const clp_cli *cli, clp_error *err) {
    clp_status st = CLP_OK;
    char why[256], folder[900];
    cli_handle_signals();
    CLP_TRY(sweep_devices_select(&t->dev, t->selectors, false, cli, err));
    CLP_TRY(cli_open_cache(cli, &t->cache, err));
    snprintf(folder, sizeof folder, "%s", t->dir);
    CLP_REQUIRE(clp__make_dirs(folder, why, sizeof why), err, CLP_IO, "cannot make %s: %s", t->dir,
                why);
    CLP_TRY(sweep_results_load(t->results, false, &t->store.done, err));
    t->store.path = t->results;
    char hash[17];
    CLP_TRY(cli_file_hash(t->base.case_path, hash, err));
    t->doc =
        json_pack("{s:s, s:s, s:s, s:s, s:I, s:{s:I, s:f}, s:[]}", "version", clp_version(), "case",
                  t->base.case_path, "case_hash", hash, "strategy", tune_strategy_name(t->strategy),
                  "seed", (json_int_t)t->seed, "budget", "evaluations",
                  (json_int_t)t->budget.evaluations, "seconds", t->budget.seconds, "devices");
    CLP_REQUIRE_ALLOC(t->doc, err);
    for (size_t d = 0; d < t->dev.n; d++) {
        CLP_TRY(tune_device(t, d, err));
        CLP_TRY(clp__json_write(t->dir, "tune.json", json_incref(t->doc), JSON_INDENT(1), err));
    }
    printf("done: %s/tune.json, %s/results.jsonl, %s/t4-*.json\n", t->dir, t->dir, t->dir);
fail:
    return st;
}

int cmd_tune(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    tune t = {.seed = 1, .seeds = 20, .target = 0.95};
    clp_status st = parse(argc, argv, &t, &err);
    if (st == CLP_OK && t.replay)
        st = tune_replay(t.replay, t.out, t.strategies, t.seeds, t.target, t.budget, &err);
    else if (st == CLP_OK)
        st = run_tune(&t, cli, &err);
    int rc;
    if (st == CLP_INTERRUPTED || (st != CLP_OK && err.status == CLP_INTERRUPTED)) {
        fprintf(stderr,
                "clpart: interrupted: the measurements so far are in %s; run the same tune "
                "again to go on\n",
                t.results);
        rc = 128 + (cli_stop_signal ? cli_stop_signal : 2);
    } else
        rc = st == CLP_OK ? CLP_EXIT_OK : cli_report(&err);
    tune_free(&t);
    return rc;
}
