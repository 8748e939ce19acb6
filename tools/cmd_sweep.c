/* clpart sweep CASE [-s NAME=V1,V2,...]... [-p P1,P2,...] [-c KEY=V1,V2,...]... [--combos FILE]
 * [--fraction F | --max N] [--seed S] [--devices SEL,...|all] [--serial | --parallel]
 * [--steps N | --time T] [--repeat R] [--spread F] [--budget SECONDS] [--out DIR]: runs the
 * case under every combination of the listed option values, presets and case parameters (or
 * the option sets of a --combos file, or a random sample of the product) on each device (the
 * selected one by default), a thread per group of devices (sweep_groups.h: the devices on the
 * host's cores one after the other, every other device at the same time). Each combination
 * is timed until its spread is under --spread or --budget is spent (sweep_timing.h). A
 * combination the options or the case refuse, a failed build or a failed run is recorded
 * with its reason and the sweep goes on. Each result is one line of DIR/results.jsonl,
 * written whole as soon as it is known, so an interrupted sweep loses nothing and a rerun
 * skips what is there for the same settings; DIR/summary.csv and DIR/summary.md compare the
 * combinations with the first. */
#include "base/json_file.h"
#include "cli_case.h"
#include "io/io.h"
#include "sweep_engine.h"
#include "sweep_groups.h"
#include "sweep_summary.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>

enum { MAX_AXES = 16, MAX_VALUES = 64, DEFAULT_REPEAT = 3 };
/* Seconds between the progress lines of a combination that is still running. */
static const double progress_interval = 5;

/* One swept option and its values, as given after -s; or (in_case) a key of the case file and
 * its values, as given after -c: JSON text, or a string. */
typedef struct axis {
    char *name;
    char *values[MAX_VALUES];
    size_t n;
    bool in_case;
} axis;

/* What device d's thread is doing, for the progress lines (under the sweep's lock). */
typedef struct busy {
    bool active;
    size_t k;                /* its combination */
    char *text;              /* what it runs, as combination_text says */
    double since, last_line; /* when it began, when a line last said so (clp__now) */
    sweep_observation now;
} busy;

typedef struct sweep {
    const char *case_path;
    axis axes[MAX_AXES];
    size_t n_axes, combinations; /* the combinations run: the product, sampled, or the list */
    size_t product;              /* of the axes' value counts */
    json_t *combos;              /* --combos: the option sets, each NAME: value text */
    size_t *picked;              /* a sample's indices into the product, ascending */
    double fraction;             /* --fraction, 0 when not sampling by fraction */
    uint64_t max, seed;          /* --max (0: none) and the sample's seed */
    sweep_plan plan;             /* the case, the runs' limits, the timed runs */
    char dir[900], results[1024];
    char case_hash[17];
    const char *selectors; /* --devices, NULL for the selected device */
    sweep_devices dev;
    sweep_schedule schedule; /* --serial, --parallel, else by the devices' hardware */
    clp_cache *cache;        /* shared by the threads (clp_cache takes that) */
    json_t *base;            /* the case file, when -c patches it */
    size_t to_run;    /* combinations and devices not in results.jsonl when the sweep began */
    size_t groups;    /* threads */
    atomic_bool stop; /* a thread failed: the others stop after their current run */
    /* Under `lock`, as every device's thread reads and adds to them: */
    pthread_mutex_t lock;
    pthread_cond_t wake; /* the progress thread's: signalled when the sweep ends */
    bool ended;
    json_t *done; /* the results in results.jsonl for this version, by sweep_record_key */
    size_t ran;   /* combinations run and recorded by this sweep */
    busy busy[SWEEP_MAX_DEVICES];
    /* the seconds of the combinations run so far, for the time left: cold builds and cache
       hits (prepare_seconds), the rest of each combination */
    size_t cold, hits;
    double cold_seconds, hit_seconds, rest_seconds;
} sweep;

/* The values of -c: split at the commas outside brackets, braces and quotes, so that an
 * array or an object is one value. */
static char *next_case_value(char **rest) {
    char *start = *rest;
    if (!start)
        return NULL;
    int depth = 0;
    bool quoted = false;
    for (char *c = start; *c; c++) {
        if (quoted)
            quoted = !(*c == '"' && c[-1] != '\\');
        else if (*c == '"')
            quoted = true;
        else if (*c == '[' || *c == '{')
            depth++;
        else if (*c == ']' || *c == '}')
            depth--;
        else if (*c == ',' && depth == 0) {
            *c = '\0';
            *rest = c + 1;
            return start;
        }
    }
    *rest = NULL;
    return start;
}

/* -s NAME=V1,V2,... (or, for -p, "preset=P1,P2,..."; for -c, `in_case`, KEY=V1,V2,...) into a
 * new axis (one value is an axis of one). */
static clp_status add_axis(sweep *sw, const char *flag, const char *text, bool in_case,
                           clp_error *err) {
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || !eq[1])
        return CLP_FAIL(err, CLP_USAGE, "%s takes %s=V1,V2,..., not '%s'", flag,
                        in_case ? "KEY" : "NAME", text);
    if (sw->n_axes == MAX_AXES)
        return CLP_FAIL(err, CLP_USAGE, "at most %d swept options and case keys", MAX_AXES);
    axis *a = &sw->axes[sw->n_axes++];
    a->in_case = in_case;
    a->name = strndup(text, (size_t)(eq - text));
    char *values = strdup(eq + 1), *save = NULL, *rest = values;
    if (!a->name || !values) {
        free(values);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    }
    for (char *v = in_case ? next_case_value(&rest) : strtok_r(values, ",", &save); v;
         v = in_case ? next_case_value(&rest) : strtok_r(NULL, ",", &save)) {
        if (a->n == MAX_VALUES) {
            free(values);
            return CLP_FAIL(err, CLP_USAGE, "%s: at most %d values", a->name, MAX_VALUES);
        }
        for (size_t k = 0; k < a->n; k++)
            if (!strcmp(a->values[k], v)) {
                const clp_status st =
                    CLP_FAIL(err, CLP_USAGE, "%s %s lists '%s' twice", flag, a->name, v);
                free(values);
                return st;
            }
        a->values[a->n++] = strdup(v);
    }
    free(values);
    if (a->n == 0)
        return CLP_FAIL(err, CLP_USAGE, "%s %s lists no value", flag, text);
    return CLP_OK;
}

static void sweep_free(sweep *sw) {
    json_decref(sw->combos);
    free(sw->picked);
    for (size_t i = 0; i < sw->n_axes; i++) {
        free(sw->axes[i].name);
        for (size_t k = 0; k < sw->axes[i].n; k++)
            free(sw->axes[i].values[k]);
    }
    sweep_devices_free(&sw->dev);
    json_decref(sw->done);
    json_decref(sw->base);
    for (size_t d = 0; d < SWEEP_MAX_DEVICES; d++)
        free(sw->busy[d].text);
}

/* A value of -c as JSON: a number, boolean, array, object or quoted string as such, any
 * other text as a string (new). */
static json_t *case_value(const char *text) {
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    return v ? v : json_string(text);
}

/* The options of combination k, as an object NAME: value text (a preset under "preset"), and
 * in *parameters its case parameters, KEY: value (new; NULL without -c); in the product the
 * first axis varies slowest, so combination 0 (every first value) is the reference, and a
 * sample keeps it. */
static json_t *combination(const sweep *sw, size_t k, json_t **parameters) {
    *parameters = NULL;
    if (sw->combos)
        return json_deep_copy(json_array_get(sw->combos, k));
    json_t *o = json_object();
    if (sw->picked)
        k = sw->picked[k];
    size_t stride = sw->product;
    for (size_t i = 0; i < sw->n_axes; i++) {
        const axis *a = &sw->axes[i];
        stride /= a->n;
        const char *value = a->values[(k / stride) % a->n];
        if (!a->in_case)
            json_object_set_new(o, a->name, json_string(value));
        else {
            if (!*parameters)
                *parameters = json_object();
            json_object_set_new(*parameters, a->name, case_value(value));
        }
    }
    return o;
}

/* Sets `key` to `value` (stolen) in `patch`, for the case `base` (NULL where the case has
 * nothing): a key that the case holds as it is, or one without a dot, names that entry; else
 * the key is a path split at a dot: at the first whose left part names an object of the case
 * ("sph.dp": "dp" of the object "sph"; "options.core.dim": "core.dim" of "options"), or at
 * the first dot when none does (objects made along the path). False when the patch holds a
 * value that is not an object where the path goes. */
static bool set_path(json_t *patch, const json_t *base, const char *key, json_t *value) {
    const char *dot = json_object_get(base, key) ? NULL : strchr(key, '.');
    for (const char *d = dot; d; d = strchr(d + 1, '.')) {
        char *prefix = strndup(key, (size_t)(d - key));
        const bool object = prefix && json_is_object(json_object_get(base, prefix));
        free(prefix);
        if (object) {
            dot = d;
            break;
        }
    }
    if (!dot) {
        json_object_set_new(patch, key, value);
        return true;
    }
    char *prefix = strndup(key, (size_t)(dot - key));
    json_t *inner = prefix ? json_object_get(patch, prefix) : NULL;
    if (prefix && !inner) {
        inner = json_object();
        json_object_set_new(patch, prefix, inner);
    }
    const bool ok = json_is_object(inner) &&
                    set_path(inner, json_object_get(base, prefix), dot + 1, json_incref(value));
    json_decref(value);
    free(prefix);
    return ok;
}

/* The case of a combination with case parameters `parameters` (NULL: the case file itself):
 * *path (new), the patched case as DIR/cases/HASH.json, written when `write`, and its hash. */
static clp_status case_of(const sweep *sw, const json_t *parameters, bool write, char **path,
                          char hash[17], clp_error *err) {
    clp_status st = CLP_OK;
    char *text = NULL;
    json_t *patch = json_object();
    clp_strbuf name = {0};
    *path = NULL;
    if (!parameters) {
        *path = strdup(sw->case_path);
        CLP_REQUIRE_ALLOC(*path, err);
        memcpy(hash, sw->case_hash, 17);
        goto fail;
    }
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)parameters, key, value) {
        CLP_REQUIRE(set_path(patch, sw->base, key, json_incref(value)), err, CLP_USAGE,
                    "-c %s: an earlier -c key sets a value that is not an object there", key);
    }
    CLP_TRY(sweep_case_patch(sw->case_path, patch, &text, err));
    sweep_hash_text(text, strlen(text), hash);
    clp__sb_appendf(&name, "%s/cases", sw->dir);
    if (write) {
        char why[256];
        char *dir = clp__sb_take(&name);
        CLP_REQUIRE_ALLOC(dir, err);
        const bool made = clp__make_dirs(dir, why, sizeof why);
        clp__sb_append(&name, dir);
        free(dir);
        CLP_REQUIRE(made, err, CLP_IO, "cannot make %s/cases: %s", sw->dir, why);
    }
    clp__sb_appendf(&name, "/%s.json", hash);
    *path = clp__sb_take(&name);
    CLP_REQUIRE_ALLOC(*path, err);
    if (write)
        CLP_TRY(sweep_write_text(*path, text, err));
fail:
    clp__sb_free(&name);
    json_decref(patch);
    free(text);
    return st;
}

/* The record of combination k on device d before it runs (*record, new), its plan with its
 * case (*case_path: new, to free; written when `write`), and its key (*key, new). */
static clp_status combination_record(const sweep *sw, size_t k, size_t d, bool write,
                                     sweep_plan *plan, char **case_path, json_t **record,
                                     char **key, clp_error *err) {
    clp_status st = CLP_OK;
    json_t *parameters, *options = combination(sw, k, &parameters);
    char hash[17];
    *plan = sw->plan;
    *record = NULL;
    *key = NULL;
    CLP_TRY(case_of(sw, parameters, write, case_path, hash, err));
    plan->case_path = *case_path;
    *record = sweep_record_new(plan, hash, parameters, options, sw->dev.identities[d]);
    if (parameters)
        json_object_set_new(*record, "base_case", json_string(sw->case_path));
    *key = sweep_record_key(*record);
    CLP_REQUIRE_ALLOC(*key, err);
fail:
    json_decref(options);
    json_decref(parameters);
    return st;
}

/* The record of combination k on device d in results.jsonl (borrowed), or NULL. */
static json_t *recorded_result(const sweep *sw, size_t k, size_t d) {
    sweep_plan plan;
    char *path = NULL, *key;
    json_t *record, *found = NULL;
    if (combination_record(sw, k, d, false, &plan, &path, &record, &key, NULL) == CLP_OK)
        found = json_object_get(sw->done, key);
    json_decref(record);
    free(path);
    free(key);
    return found;
}

/* --combos FILE: a JSON list of option sets, each an object NAME: value (a string, number
 * or boolean, as -s would take it; "preset" names a preset). */
static clp_status load_combos(sweep *sw, const char *path, clp_error *err) {
    json_t *list;
    const clp_status loaded = clp__json_load(path, CLP_CASE, &list, err);
    if (loaded != CLP_OK)
        return loaded;
    if (!json_is_array(list) || json_array_size(list) == 0) {
        json_decref(list);
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s must hold a non-empty list of option sets", path);
    }
    sw->combos = json_array();
    size_t k;
    json_t *set;
    json_array_foreach(list, k, set) {
        json_t *texts = json_object();
        json_array_append_new(sw->combos, texts);
        const char *name;
        json_t *value;
        if (!json_is_object(set)) {
            json_decref(list);
            return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                               "%s: entry %zu is not an object of option values", path, k);
        }
        json_object_foreach(set, name, value) {
            char text[32]; /* a number's or a boolean's text; a string is taken whole */
            if (json_is_integer(value))
                snprintf(text, sizeof text, "%lld", (long long)json_integer_value(value));
            else if (json_is_real(value)) /* the shortest text that reads back the same */
                for (int digits = 1; digits <= 17; digits++) {
                    snprintf(text, sizeof text, "%.*g", digits, json_real_value(value));
                    if (strtod(text, NULL) == json_real_value(value))
                        break;
                }
            else if (json_is_boolean(value))
                snprintf(text, sizeof text, "%s", json_is_true(value) ? "true" : "false");
            else if (!json_is_string(value)) {
                /* the message first: the name belongs to the list */
                const clp_status st = CLP_FAIL_AT(
                    err, CLP_CASE, path, -1, -1,
                    "%s: entry %zu: '%s' must be a string, number or boolean", path, k, name);
                json_decref(list);
                return st;
            }
            json_object_set_new(
                texts, name, json_string(json_is_string(value) ? json_string_value(value) : text));
        }
    }
    json_decref(list);
    return CLP_OK;
}

static int compare_sizes(const void *a, const void *b) {
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* --fraction and --max: a random sample of the product, drawn from --seed (default 1), that
 * always holds the reference (combination 0), in ascending order. */
static clp_status sample(sweep *sw, clp_error *err) {
    clp_status st = CLP_OK;
    size_t want = sw->product;
    if (sw->fraction > 0)
        want = (size_t)ceil(sw->fraction * (double)sw->product);
    if (sw->max && sw->max < want)
        want = (size_t)sw->max;
    CLP_REQUIRE(sw->product <= 10000000, err, CLP_USAGE,
                "sampling takes products of at most 1e7 combinations, not %zu", sw->product);
    size_t *all = malloc(sw->product * sizeof *all);
    CLP_REQUIRE(all, err, CLP_NOMEM, "out of host memory for %zu combinations", sw->product);
    for (size_t i = 0; i < sw->product; i++)
        all[i] = i;
    uint64_t state = sw->seed ? sw->seed : 1;
    for (size_t i = 1; i < want; i++) { /* partial Fisher-Yates over 1..; 0 stays first */
        const size_t j = i + (size_t)(clp__splitmix64(&state) % (sw->product - i));
        const size_t t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    qsort(all, want, sizeof *all, compare_sizes);
    sw->picked = all;
    sw->combinations = want;
fail:
    return st;
}

/* Parses the command line into `sw` and the base case (its options without the sweep's). */
static clp_status parse(int argc, char **argv, sweep *sw, cli_case *base, clp_error *err) {
    clp_status st = CLP_OK;
    const char *out = NULL;
    char *kept[4] = {argv[0]};
    int n_kept = 1;
    sw->plan.timing = (sweep_timing){DEFAULT_REPEAT, SWEEP_DEFAULT_SPREAD, SWEEP_DEFAULT_BUDGET};
    for (int i = 1; i < argc; i++) {
        const bool value = i + 1 < argc;
        bool taken;
        if ((!strcmp(argv[i], "-s") || !strcmp(argv[i], "-c")) && value) {
            CLP_TRY(add_axis(sw, argv[i], argv[i + 1], argv[i][1] == 'c', err));
            i++;
        } else if (!strcmp(argv[i], "-p") && value) {
            clp_strbuf text = {0};
            clp__sb_appendf(&text, "preset=%s", argv[++i]);
            char *axis_text = clp__sb_take(&text);
            CLP_REQUIRE_ALLOC(axis_text, err);
            st = add_axis(sw, "-p", axis_text, false, err);
            free(axis_text);
            CLP_TRY(st);
        } else if (!strcmp(argv[i], "--combos") && value)
            CLP_TRY(load_combos(sw, argv[++i], err));
        else if (!strcmp(argv[i], "--fraction") && value) {
            CLP_TRY(cli_positive("--fraction", argv[++i], false, NULL, &sw->fraction, err));
            CLP_REQUIRE(sw->fraction <= 1, err, CLP_USAGE,
                        "--fraction takes a number in (0, 1], not %s", argv[i]);
        } else if (!strcmp(argv[i], "--max") && value)
            CLP_TRY(cli_positive("--max", argv[++i], true, &sw->max, NULL, err));
        else if (!strcmp(argv[i], "--seed") && value)
            CLP_TRY(cli_positive("--seed", argv[++i], true, &sw->seed, NULL, err));
        else if (!strcmp(argv[i], "--out") && value)
            out = argv[++i];
        else if (!strcmp(argv[i], "--devices") && value)
            sw->selectors = argv[++i];
        else if (!strcmp(argv[i], "--serial") || !strcmp(argv[i], "--parallel")) {
            const sweep_schedule schedule =
                !strcmp(argv[i], "--serial") ? SWEEP_SERIAL : SWEEP_PARALLEL;
            CLP_REQUIRE(sw->schedule == SWEEP_BY_HARDWARE || sw->schedule == schedule, err,
                        CLP_USAGE, "--serial and --parallel exclude each other");
            sw->schedule = schedule;
        } else if ((st = sweep_plan_flag(argc, argv, &i, &sw->plan, &taken, err)) != CLP_OK)
            goto fail;
        else if (taken)
            continue;
        else if (argv[i][0] == '-' && argv[i][1])
            return CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1,
                               "unknown flag '%s' (or it lacks its value)", argv[i]);
        else if (n_kept < 4)
            kept[n_kept++] = argv[i];
    }
    CLP_REQUIRE(n_kept == 2, err, CLP_USAGE, "clpart sweep takes one case file");
    CLP_TRY(cli_case_load(n_kept, kept, true, base, err));
    sw->case_path = base->case_path;
    CLP_REQUIRE(!sw->combos || sw->n_axes == 0, err, CLP_USAGE,
                "--combos lists the option sets itself: it takes no -s, -p or -c lists");
    CLP_REQUIRE(!sw->combos || (!sw->fraction && !sw->max), err, CLP_USAGE,
                "--fraction and --max sample the product of -s and -p lists, not a --combos "
                "file");
    sw->product = 1;
    for (size_t i = 0; i < sw->n_axes; i++) {
        CLP_REQUIRE(sw->product <= SIZE_MAX / MAX_VALUES, err, CLP_USAGE,
                    "the product of the lists is too large");
        sw->product *= sw->axes[i].n;
    }
    sw->combinations = sw->combos ? json_array_size(sw->combos) : sw->product;
    if (!sw->combos && (sw->fraction || sw->max))
        CLP_TRY(sample(sw, err));
    CLP_TRY(sweep_out_dir(out, "sweep", sw->case_path, sw->dir, sizeof sw->dir, sw->results,
                          sizeof sw->results, err));
    CLP_TRY(cli_file_hash(sw->case_path, sw->case_hash, err));
    sw->plan.case_path = sw->case_path;
    sw->plan.schema = base->schema;
    for (size_t i = 0; i < sw->n_axes; i++) /* -s of another model's option changes nothing */
        if (!sw->axes[i].in_case && strcmp(sw->axes[i].name, "preset") != 0)
            CLP_TRY(cli_option_applies(base->schema, clp_options_model(base->options),
                                       sw->axes[i].name, err));
    for (size_t i = 0; i < sw->n_axes && !sw->base; i++)
        if (sw->axes[i].in_case) { /* the keys patch the case: checked on the first values */
            CLP_TRY(clp__json_load(sw->case_path, CLP_CASE, &sw->base, err));
            json_t *parameters, *options = combination(sw, 0, &parameters);
            char *path = NULL, hash[17];
            st = case_of(sw, parameters, false, &path, hash, err);
            free(path);
            json_decref(options);
            json_decref(parameters);
            CLP_TRY(st);
        }
fail:
    return st;
}

/* Whether results.jsonl holds the result `key`. */
static bool recorded(sweep *sw, const char *key) {
    pthread_mutex_lock(&sw->lock);
    const bool found = json_object_get(sw->done, key) != NULL;
    pthread_mutex_unlock(&sw->lock);
    return found;
}

/* " (N to go, about T left: builds B, runs R)" for the combinations not yet run, at the pace
 * of those run so far, a thread per group: their builds (cold or cache hits, in the
 * proportion seen) apart from the rest. Until a build has been seen no time is given, and
 * while every build so far was a cache hit the time assumes the rest are too. */
static void time_left(const sweep *sw, char *out, size_t size) {
    const size_t left = sw->to_run - sw->ran;
    const double share = (double)left / (double)sw->ran / (double)(sw->groups ? sw->groups : 1);
    char total[32], builds[32], runs[32];
    clp__format_duration(share * (sw->cold_seconds + sw->hit_seconds + sw->rest_seconds), total);
    clp__format_duration(share * (sw->cold_seconds + sw->hit_seconds), builds);
    clp__format_duration(share * sw->rest_seconds, runs);
    if (!sw->cold && !sw->hits)
        snprintf(out, size, " (%zu to go, ETA after the first build)", left);
    else if (!sw->cold)
        snprintf(out, size, " (%zu to go, about %s left if their programs are in the cache too)",
                 left, total);
    else
        snprintf(out, size, " (%zu to go, about %s left: builds %s, runs %s)", left, total, builds,
                 runs);
}

/* Appends the record of combination k on device d to results.jsonl and the table of results,
 * and says so on stderr with the time left: under the lock, so that each record and each line
 * is written whole, by one thread at a time. */
static clp_status record_result(sweep *sw, size_t d, size_t k, const char *key, json_t *record,
                                clp_error *err) {
    pthread_mutex_lock(&sw->lock);
    const clp_status st = sweep_results_append(sw->results, record, err);
    sw->busy[d].active = false;
    if (st == CLP_OK) {
        json_object_set(sw->done, key, record);
        ++sw->ran;
        const double seconds = json_real_value(json_object_get(record, "seconds"));
        const double prepare = json_real_value(json_object_get(record, "prepare_seconds"));
        const json_t *hit = json_object_get(record, "cache_hit");
        if (json_is_boolean(hit)) {
            *(json_is_true(hit) ? &sw->hits : &sw->cold) += 1;
            *(json_is_true(hit) ? &sw->hit_seconds : &sw->cold_seconds) += prepare;
            sw->rest_seconds += seconds - prepare;
        } else
            sw->rest_seconds += seconds;
        const json_t *rate = json_object_get(record, "throughput");
        char *text = sweep_combination_text(record), left[160] = "", note[256];
        fprintf(stderr, "[%zu/%zu] device %zu: %s: %s", k + 1, sw->combinations,
                sw->dev.devices[d]->index, text ? text : "",
                json_string_value(json_object_get(record, "status")));
        if (rate) {
            sweep_unstable_note(record, note, sizeof note);
            fprintf(stderr, ", %.4g %s", json_real_value(rate),
                    json_string_value(json_object_get(record, "unit")));
            if (json_is_number(json_object_get(record, "spread")))
                fprintf(stderr, " (%.4g to %.4g, %lld runs)",
                        json_real_value(json_object_get(record, "throughput_low")),
                        json_real_value(json_object_get(record, "throughput_high")),
                        (long long)json_integer_value(json_object_get(record, "samples")));
            fprintf(stderr, "%s", note);
        }
        if (sw->ran < sw->to_run)
            time_left(sw, left, sizeof left);
        fprintf(stderr, "%s\n", left);
        free(text);
    }
    pthread_mutex_unlock(&sw->lock);
    return st;
}

/* What device d's thread passes to its plan's observer. */
typedef struct watcher {
    sweep *sw;
    size_t d;
} watcher;

static void watch(void *observer, const sweep_observation *o) {
    const watcher *w = observer;
    pthread_mutex_lock(&w->sw->lock);
    w->sw->busy[w->d].now = *o;
    pthread_mutex_unlock(&w->sw->lock);
}

/* The progress thread: every progress_interval seconds that a combination runs on, a line on
 * what it is doing (a plain line, also on a terminal: the record lines come between). */
static void *report_progress(void *arg) {
    sweep *sw = arg;
    pthread_mutex_lock(&sw->lock);
    while (!sw->ended) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&sw->wake, &sw->lock, &until);
        const double now = clp__now();
        for (size_t d = 0; d < sw->dev.n && !sw->ended; d++) {
            busy *b = &sw->busy[d];
            if (!b->active || now - b->last_line < progress_interval)
                continue;
            b->last_line = now;
            fprintf(stderr, "[%zu/%zu] device %zu: %s: %s", b->k + 1, sw->combinations,
                    sw->dev.devices[d]->index, b->text ? b->text : "", b->now.phase);
            if (b->now.samples)
                fprintf(stderr, ", run %zu (at least %d, at most %d), %.4g %s", b->now.samples,
                        sw->plan.timing.min_repeat, SWEEP_MAX_SAMPLES, b->now.rate,
                        b->now.unit ? b->now.unit : "");
            if (b->now.spread >= 0)
                fprintf(stderr, ", spread %.2g %% (target %g %%)", 100 * b->now.spread,
                        100 * sw->plan.timing.spread);
            fprintf(stderr, ", %.0f s in\n", now - b->since);
        }
    }
    pthread_mutex_unlock(&sw->lock);
    return NULL;
}

/* Sweeps device d (a sweep_device_fn; `user` is the sweep): every combination that
 * results.jsonl does not hold yet, each recorded as soon as it is known, until another
 * thread's failure sets sw->stop. Its worker is opened only when there is something to run. */
static clp_status sweep_device(size_t d, void *user, clp_error *err) {
    sweep *sw = user;
    clp_status st = CLP_OK;
    cli_session s = {.cache = sw->cache};
    watcher w = {sw, d};
    for (size_t k = 0; st == CLP_OK && k < sw->combinations && !atomic_load(&sw->stop); k++) {
        sweep_plan plan;
        char *case_path = NULL, *key = NULL;
        json_t *record = NULL;
        st = combination_record(sw, k, d, true, &plan, &case_path, &record, &key, err);
        if (st != CLP_OK || recorded(sw, key)) {
            json_decref(record);
            free(case_path);
            free(key);
            continue;
        }
        if (!s.worker)
            st = clp_worker_create(sw->dev.devices[d], &s.worker, err);
        plan.observe = watch;
        plan.observer = &w;
        pthread_mutex_lock(&sw->lock);
        busy *b = &sw->busy[d];
        free(b->text);
        *b = (busy){
            .active = true, .k = k, .since = clp__now(), .text = sweep_combination_text(record)};
        b->last_line = b->since;
        b->now = (sweep_observation){.phase = "preparing", .spread = -1};
        pthread_mutex_unlock(&sw->lock);
        const double started = sweep_unix_time(), start = clp__now();
        if (st == CLP_OK)
            st = sweep_run_options(&plan, &s, json_object_get(record, "options"), record, err);
        json_object_set_new(record, "started", json_real(started));
        json_object_set_new(record, "seconds", json_real(clp__now() - start));
        if (st == CLP_OK)
            st = record_result(sw, d, k, key, record, err);
        pthread_mutex_lock(&sw->lock);
        sw->busy[d].active = false;
        pthread_mutex_unlock(&sw->lock);
        json_decref(record);
        free(case_path);
        free(key);
    }
    clp_worker_destroy(s.worker);
    return st;
}

/* "clpart: 3 devices, 2 threads: [0, 2] [1] ...": which devices share a thread. */
static void describe_groups(const sweep *sw, const size_t *group_of, size_t groups) {
    fprintf(stderr, "clpart: %zu devices, %zu thread%s:", sw->dev.n, groups,
            groups == 1 ? "" : "s");
    for (size_t g = 0; g < groups; g++) {
        const char *sep = " [";
        for (size_t d = 0; d < sw->dev.n; d++)
            if (group_of[d] == g) {
                fprintf(stderr, "%s%zu", sep, sw->dev.devices[d]->index);
                sep = ", ";
            }
        fprintf(stderr, "]");
    }
    fprintf(stderr, " (a thread's devices run one after the other)\n");
}

/* Of this sweep's combinations on its devices, how many results.jsonl holds (*known) and how
 * many of those ran (*ok). */
static void count_results(const sweep *sw, size_t *known, size_t *ok) {
    *known = *ok = 0;
    for (size_t d = 0; d < sw->dev.n; d++)
        for (size_t k = 0; k < sw->combinations; k++) {
            const json_t *r = recorded_result(sw, k, d);
            *known += r != NULL;
            *ok += sweep_record_ok(r);
        }
}

/* summary.md, summary.csv and summary.png from the records results.jsonl holds, their physics
 * judged under the tolerances of the model of the first that ran. */
static clp_status write_summaries(const sweep *sw, bool *charted, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = sw->combinations * sw->dev.n;
    compare_tolerances tolerances = {0};
    const char *model = NULL;
    sweep_table t = {.dir = sw->dir,
                     .case_path = sw->case_path,
                     .plan = &sw->plan,
                     .dev = &sw->dev,
                     .combinations = sw->combinations,
                     .records = calloc(n + 1, sizeof *t.records),
                     .labels = calloc(sw->combinations + 1, sizeof *t.labels)};
    CLP_REQUIRE(t.records && t.labels, err, CLP_NOMEM, "out of host memory");
    for (size_t i = 0; i < sw->n_axes; i++)
        t.with_case |= sw->axes[i].in_case;
    for (size_t k = 0; k < sw->combinations; k++) {
        json_t *parameters, *options = combination(sw, k, &parameters);
        json_t *labelled =
            json_pack("{s:O, s:O?}", "options", options, "case_parameters", parameters);
        t.labels[k] = sweep_combination_text(labelled);
        json_decref(labelled);
        json_decref(options);
        json_decref(parameters);
        for (size_t d = 0; d < sw->dev.n; d++) {
            const json_t *r = t.records[k * sw->dev.n + d] = recorded_result(sw, k, d);
            if (!model && sweep_record_ok(r))
                model = json_string_value(json_object_get(r, "model"));
        }
    }
    if (model && compare_tolerances_load(model, NULL, &tolerances, err) == CLP_OK)
        t.tolerances = &tolerances;
    else if (model) /* the summaries go on without the physics, and say why */
        fprintf(stderr, "clpart: warning: no physics in the summary: %s\n", err->message);
    clp_error_clear(err);
    CLP_TRY(sweep_summary_write(&t, err));
    CLP_TRY(sweep_summary_chart(&t, charted, err));
fail:
    for (size_t k = 0; t.labels && k < sw->combinations; k++)
        free(t.labels[k]);
    free(t.labels);
    free(t.records);
    compare_tolerances_free(&tolerances);
    return st;
}

int cmd_sweep(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    sweep sw = {0};
    cli_case base = {0};
    pthread_mutex_init(&sw.lock, NULL);
    pthread_cond_init(&sw.wake, NULL);
    clp_status st = parse(argc, argv, &sw, &base, &err);
    if (st == CLP_OK) {
        cli_handle_signals();
        st = sweep_devices_select(&sw.dev, sw.selectors, false, cli, &err);
    }
    if (st == CLP_OK)
        st = cli_open_cache(cli, &sw.cache, &err);
    if (st == CLP_OK) {
        char path[sizeof sw.dir], why[256];
        snprintf(path, sizeof path, "%s", sw.dir);
        if (!clp__make_dirs(path, why, sizeof why))
            st = CLP_FAIL_AT(&err, CLP_IO, sw.dir, -1, -1, "cannot make %s: %s", sw.dir, why);
    }
    if (st == CLP_OK)
        st = sweep_results_load(sw.results, false, &sw.done, &err);
    size_t known = 0, ok = 0;
    if (st == CLP_OK) {
        count_results(&sw, &known, &ok);
        sw.to_run = sw.combinations * sw.dev.n - known;
    }
    if (st == CLP_OK) {
        size_t group_of[SWEEP_MAX_DEVICES];
        sw.groups = sweep_group_devices(sw.dev.devices, sw.dev.n, sw.schedule, group_of);
        if (sw.dev.n > 1)
            describe_groups(&sw, group_of, sw.groups);
        pthread_t progress;
        const bool reporting = pthread_create(&progress, NULL, report_progress, &sw) == 0;
        st = sweep_groups_run(group_of, sw.dev.n, sw.groups, sweep_device, &sw, &sw.stop, &err);
        pthread_mutex_lock(&sw.lock);
        sw.ended = true;
        pthread_cond_signal(&sw.wake);
        pthread_mutex_unlock(&sw.lock);
        if (reporting)
            pthread_join(progress, NULL);
    }
    bool charted = false;
    char chart[1100];
    if (sw.done && (st == CLP_OK || st == CLP_INTERRUPTED)) {
        clp_error summary_err = CLP_ERROR_INIT;
        const clp_status summary = write_summaries(&sw, &charted, &summary_err);
        if (summary != CLP_OK && st == CLP_OK) {
            st = summary;
            err = summary_err;
        }
    }
    if (st == CLP_OK) {
        count_results(&sw, &known, &ok);
        printf("done: %zu run, %zu already in %s; %s/summary.md, %s/summary.csv%s", sw.ran,
               sw.combinations * sw.dev.n - sw.to_run, sw.results, sw.dir, sw.dir,
               sweep_chart_mention(charted, sw.dir, "summary.png", chart, sizeof chart));
        if (ok < known)
            printf("; %zu of %zu refused or failed", known - ok, known);
        printf("\n");
        if (known && !ok)
            st = CLP_FAIL(&err, CLP_CASE,
                          "no combination ran: all %zu were refused or failed (the reasons are in "
                          "%s/summary.md)",
                          known, sw.dir);
    }
    int rc;
    if (st == CLP_INTERRUPTED) {
        fprintf(stderr,
                "clpart: interrupted: %zu combinations recorded in %s; run the same "
                "sweep again to go on\n",
                sw.ran, sw.results);
        rc = 128 + cli_stop_signal;
    } else
        rc = st == CLP_OK ? CLP_EXIT_OK : cli_report(&err);
    clp_cache_close(sw.cache);
    cli_case_free(&base);
    sweep_free(&sw);
    pthread_cond_destroy(&sw.wake);
    pthread_mutex_destroy(&sw.lock);
    return rc;
}
