/* clpart sweep CASE [-s NAME=V1,V2,...]... [-p P1,P2,...] [--combos FILE] [--fraction F |
 * --max N] [--seed S] [--devices SEL,...|all] [--serial | --parallel] [--steps N | --time T]
 * [--repeat R] [--out DIR]: runs the case under every combination of the listed option values
 * and presets (or the option sets of a --combos file, or a random sample of the product) on
 * each device (the selected one by default), a thread per group of devices (sweep_groups.h:
 * the devices on the host's cores one after the other, every other device at the same time).
 * A combination the options refuse, a failed build or a failed run is recorded with its
 * reason and the sweep goes on. Each result is one line of DIR/results.jsonl, written whole
 * as soon as it is known, so an interrupted sweep loses nothing and a rerun skips what is
 * there; DIR/summary.csv and DIR/summary.md compare the combinations with the first. */
#include "sweep_engine.h"
#include "sweep_groups.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>

enum { MAX_AXES = 16, MAX_VALUES = 64, DEFAULT_REPEAT = 3 };

/* One swept option and its values, as given after -s. */
typedef struct axis {
    char *name;
    char *values[MAX_VALUES];
    size_t n;
} axis;

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
    size_t to_run; /* combinations and devices not in results.jsonl when the sweep began */
    double started;
    atomic_bool stop; /* a thread failed: the others stop after their current run */
    /* Under `lock`, as every device's thread reads and adds to them: */
    pthread_mutex_t lock;
    json_t *done; /* the results in results.jsonl for this version, by sweep_record_key */
    size_t ran;   /* combinations run and recorded by this sweep */
} sweep;

/* -s NAME=V1,V2,... (or, for -p, "preset=P1,P2,...") into a new axis (one value is an axis
 * of one). */
static clp_status add_axis(sweep *sw, const char *text, clp_error *err) {
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || !eq[1])
        return CLP_FAIL(err, CLP_USAGE, "-s takes NAME=V1,V2,..., not '%s'", text);
    if (sw->n_axes == MAX_AXES)
        return CLP_FAIL(err, CLP_USAGE, "at most %d swept options", MAX_AXES);
    axis *a = &sw->axes[sw->n_axes++];
    a->name = strndup(text, (size_t)(eq - text));
    char *values = strdup(eq + 1), *save = NULL;
    if (!a->name || !values)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    for (char *v = strtok_r(values, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
        if (a->n == MAX_VALUES) {
            free(values);
            return CLP_FAIL(err, CLP_USAGE, "%s: at most %d values", a->name, MAX_VALUES);
        }
        a->values[a->n++] = strdup(v);
    }
    free(values);
    if (a->n == 0)
        return CLP_FAIL(err, CLP_USAGE, "-s %s lists no value", text);
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
}

/* The options of combination k, as an object NAME: value text (a preset under "preset");
 * in the product the first axis varies slowest, so combination 0 (every first value) is the
 * reference, and a sample keeps it. */
static json_t *combination(const sweep *sw, size_t k) {
    if (sw->combos)
        return json_deep_copy(json_array_get(sw->combos, k));
    json_t *o = json_object();
    if (sw->picked)
        k = sw->picked[k];
    size_t stride = sw->product;
    for (size_t i = 0; i < sw->n_axes; i++) {
        stride /= sw->axes[i].n;
        json_object_set_new(o, sw->axes[i].name,
                            json_string(sw->axes[i].values[(k / stride) % sw->axes[i].n]));
    }
    return o;
}

/* The relative difference of `value` from `reference`, 0 when both are 0. */
static double relative(double value, double reference) {
    const double scale = fmax(fabs(value), fabs(reference));
    return scale > 0 ? (value - reference) / scale : 0.0;
}

/* The records of device d for this sweep's combinations, fastest first (refused and failed
 * ones last, in their order); *reference is the first combination's, or NULL. New array. */
static json_t *device_rows(const sweep *sw, size_t d, json_t **reference) {
    json_t *rows = json_array();
    *reference = NULL;
    for (size_t k = 0; k < sw->combinations; k++) {
        json_t *options = combination(sw, k);
        char key[2048];
        sweep_record_key(sw->case_hash, options, sw->dev.identities[d], key, sizeof key);
        json_t *record = json_object_get(sw->done, key);
        if (record) {
            json_array_append(rows, record);
            if (k == 0)
                *reference = record;
        }
        json_decref(options);
    }
    const size_t n = json_array_size(rows);
    for (size_t i = 1; i < n; i++) /* insertion sort: stable, and the lists are short */
        for (size_t j = i; j > 0; j--) {
            json_t *a = json_array_get(rows, j - 1), *b = json_array_get(rows, j);
            if (json_real_value(json_object_get(b, "throughput")) <=
                json_real_value(json_object_get(a, "throughput")))
                break;
            json_incref(a);
            json_array_set(rows, j - 1, b);
            json_array_set_new(rows, j, a);
        }
    return rows;
}

/* Device d's rows of summary.csv and its table in summary.md. */
static void write_device(const sweep *sw, size_t d, FILE *csv, FILE *md) {
    json_t *reference;
    json_t *rows = device_rows(sw, d, &reference);
    const double reference_rate = json_real_value(json_object_get(reference, "throughput"));
    const json_t *reference_diagnostics = json_object_get(reference, "diagnostics");
    const clp_device_info *dev = sw->dev.devices[d];
    fprintf(md, "## Device %zu: %s (%s)\n\n", dev->index, dev->name, dev->platform_name);
    fprintf(md, "| options | status | throughput | speed-up | difference |\n"
                "| --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        char options[1024];
        sweep_options_text(json_object_get(r, "options"), options, sizeof options);
        const char *status = json_string_value(json_object_get(r, "status"));
        const char *reason = json_string_value(json_object_get(r, "reason"));
        const char *unit = json_string_value(json_object_get(r, "unit"));
        const double rate = json_real_value(json_object_get(r, "throughput"));
        const bool ok = status && !strcmp(status, "ok");
        double worst = 0;
        const char *name;
        json_t *value;
        json_object_foreach(json_object_get(r, "diagnostics"), name, value) {
            const json_t *ref = json_object_get(reference_diagnostics, name);
            if (ref)
                worst = fmax(worst, fabs(relative(json_real_value(value), json_real_value(ref))));
        }
        const double speedup = ok && reference_rate > 0 ? rate / reference_rate : 0.0;
        fprintf(csv, "%zu,", dev->index);
        sweep_csv_field(csv, dev->name);
        fputc(',', csv);
        sweep_csv_field(csv, options);
        fprintf(csv, ",%s,%.6g,%s,%.4g,%.3g,", status ? status : "", ok ? rate : 0.0,
                unit ? unit : "", speedup, ok ? worst : 0.0);
        sweep_csv_field(csv, reason);
        fputc('\n', csv);
        if (ok)
            fprintf(md, "| `%s` | ok | %.4g %s | %.3f | %.2g |\n", options, rate, unit, speedup,
                    worst);
        else
            fprintf(md, "| `%s` | %s: %s | | | |\n", options, status ? status : "?",
                    reason ? reason : "");
    }
    fprintf(md, "\n");
    json_decref(rows);
}

/* DIR/summary.png: the median rate of every combination, a bar per device, drawn by gnuplot
 * (from summary.dat and summary.gp, kept beside it). Without gnuplot there is no chart, and
 * a note says so. */
static clp_status write_chart(const sweep *sw, bool *drawn, clp_error *err) {
    clp_status st = CLP_OK;
    char path[1024];
    const char *unit = NULL;
    double lowest = INFINITY, highest = 0;
    snprintf(path, sizeof path, "%s/summary.dat", sw->dir);
    FILE *dat = fopen(path, "w");
    CLP_REQUIRE(dat, err, CLP_IO, "cannot write %s: %s", path, strerror(errno));
    for (size_t k = 0; k < sw->combinations; k++) {
        json_t *options = combination(sw, k);
        char text[1024];
        sweep_options_text(options, text, sizeof text);
        for (char *c = text; *c; c++)
            if (*c == '"')
                *c = '\'';
        fprintf(dat, "\"%s\"", text);
        for (size_t d = 0; d < sw->dev.n; d++) {
            char key[2048];
            sweep_record_key(sw->case_hash, options, sw->dev.identities[d], key, sizeof key);
            const json_t *r = json_object_get(sw->done, key);
            const json_t *rate = json_object_get(r, "throughput");
            if (rate && !unit)
                unit = json_string_value(json_object_get(r, "unit"));
            if (rate && json_real_value(rate) > 0) {
                lowest = fmin(lowest, json_real_value(rate));
                highest = fmax(highest, json_real_value(rate));
            }
            fprintf(dat, " %.6g", rate ? json_real_value(rate) : 0.0);
        }
        fprintf(dat, "\n");
        json_decref(options);
    }
    CLP_REQUIRE(fclose(dat) == 0, err, CLP_IO, "cannot write %s", path);
    snprintf(path, sizeof path, "%s/summary.gp", sw->dir);
    FILE *gp = fopen(path, "w");
    CLP_REQUIRE(gp, err, CLP_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(gp,
            "set terminal pngcairo size %zu,700 font ',10'\n"
            "set output 'summary.png'\nset termoption noenhanced\n"
            "set title 'clpart sweep of %s'\nset ylabel '%s'\n"
            "set style data histograms\nset style histogram clustered gap 1\n"
            "set style fill solid 0.8 border -1\nset xtics rotate by 30 right scale 0\n"
            "set key outside top center horizontal\nset yrange [0:*]\nset grid ytics\n"
            "set bmargin 14\nset lmargin 12\n",
            700 + 40 * sw->combinations * sw->dev.n, sw->case_path, unit ? unit : "rate");
    if (highest > 20 * lowest) /* devices far apart: every bar stays visible */
        fprintf(gp, "set logscale y\nset yrange [*:*]\n");
    for (size_t d = 0; d < sw->dev.n; d++)
        fprintf(gp, "%s 'summary.dat' using %zu%s title 'device %zu: %s'", d ? ", \\\n  " : "plot",
                d + 2, d ? "" : ":xtic(1)", sw->dev.devices[d]->index, sw->dev.devices[d]->name);
    fprintf(gp, "\n");
    CLP_REQUIRE(fclose(gp) == 0, err, CLP_IO, "cannot write %s", path);
    CLP_TRY(sweep_gnuplot(sw->dir, "summary.gp", "summary.png", drawn, err));
fail:
    return st;
}

/* summary.csv and summary.md: per device, every combination of this sweep, fastest first,
 * with its speed against the reference (the first combination) and the largest relative
 * difference of its final diagnostics from the reference's. */
static clp_status write_summary(const sweep *sw, clp_error *err) {
    clp_status st = CLP_OK;
    char path[1024];
    snprintf(path, sizeof path, "%s/summary.csv", sw->dir);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/summary.md", sw->dir);
    FILE *md = fopen(path, "w");
    CLP_REQUIRE(csv && md, err, CLP_IO, "cannot write the summary in %s: %s", sw->dir,
                strerror(errno));
    fprintf(csv, "device,device_name,options,status,throughput,unit,speedup,"
                 "largest_diagnostic_difference,reason\n");
    fprintf(md, "# Sweep of %s\n\n", sw->case_path);
    fprintf(md, "Per device, fastest first. Reference: the first combination. Speed-up: the "
                "throughput over the reference's. Difference: the largest relative difference "
                "of a final diagnostic from the reference's.\n\n");
    for (size_t d = 0; d < sw->dev.n; d++)
        write_device(sw, d, csv, md);
    CLP_REQUIRE(!ferror(csv) && !ferror(md), err, CLP_IO, "cannot write the summary in %s",
                sw->dir);
fail:
    if (csv && fclose(csv) != 0 && st == CLP_OK)
        st = CLP_FAIL(err, CLP_IO, "cannot write %s/summary.csv", sw->dir);
    if (md && fclose(md) != 0 && st == CLP_OK)
        st = CLP_FAIL(err, CLP_IO, "cannot write %s/summary.md", sw->dir);
    return st;
}

/* --combos FILE: a JSON list of option sets, each an object NAME: value (a string, number
 * or boolean, as -s would take it; "preset" names a preset). */
static clp_status load_combos(sweep *sw, const char *path, clp_error *err) {
    json_error_t e;
    json_t *list = json_load_file(path, 0, &e);
    if (!list)
        return CLP_FAIL_AT(err, CLP_CASE, path, e.line, e.column, "%s", e.text);
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
            char text[256];
            if (json_is_string(value))
                snprintf(text, sizeof text, "%s", json_string_value(value));
            else if (json_is_integer(value))
                snprintf(text, sizeof text, "%lld", (long long)json_integer_value(value));
            else if (json_is_real(value)) /* the shortest text that reads back the same */
                for (int digits = 1; digits <= 17; digits++) {
                    snprintf(text, sizeof text, "%.*g", digits, json_real_value(value));
                    if (strtod(text, NULL) == json_real_value(value))
                        break;
                }
            else if (json_is_boolean(value))
                snprintf(text, sizeof text, "%s", json_is_true(value) ? "true" : "false");
            else {
                json_decref(list);
                return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                                   "%s: entry %zu: '%s' must be a string, number or boolean", path,
                                   k, name);
            }
            json_object_set_new(texts, name, json_string(text));
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
    sw->plan.repeat = DEFAULT_REPEAT;
    for (int i = 1; i < argc; i++) {
        const bool value = i + 1 < argc;
        if (!strcmp(argv[i], "-s") && value)
            CLP_TRY(add_axis(sw, argv[++i], err));
        else if (!strcmp(argv[i], "-p") && value) {
            char axis_text[1024];
            snprintf(axis_text, sizeof axis_text, "preset=%s", argv[++i]);
            CLP_TRY(add_axis(sw, axis_text, err));
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
        } else if (!strcmp(argv[i], "--steps") && value)
            CLP_TRY(
                cli_positive("--steps", argv[++i], true, &sw->plan.limits.max_steps, NULL, err));
        else if (!strcmp(argv[i], "--time") && value)
            CLP_TRY(cli_positive("--time", argv[++i], false, NULL, &sw->plan.limits.max_time, err));
        else if (!strcmp(argv[i], "--repeat") && value) {
            uint64_t r;
            CLP_TRY(cli_positive("--repeat", argv[++i], true, &r, NULL, err));
            CLP_REQUIRE(r <= 64, err, CLP_USAGE, "--repeat takes at most 64 runs, not %llu",
                        (unsigned long long)r);
            sw->plan.repeat = (int)r;
        } else if (argv[i][0] == '-' && argv[i][1])
            return CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1,
                               "unknown flag '%s' (or it lacks its value)", argv[i]);
        else if (n_kept < 4)
            kept[n_kept++] = argv[i];
    }
    CLP_REQUIRE(n_kept == 2, err, CLP_USAGE, "clpart sweep takes one case file");
    CLP_TRY(cli_case_load(n_kept, kept, true, base, err));
    sw->case_path = base->case_path;
    CLP_REQUIRE(!sw->combos || sw->n_axes == 0, err, CLP_USAGE,
                "--combos lists the option sets itself: it takes no -s or -p lists");
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
    if (out)
        snprintf(sw->dir, sizeof sw->dir, "%s", out);
    else { /* sweep/<case file name without .json> */
        char name[512];
        snprintf(name, sizeof name, "%s", sw->case_path);
        char *file = basename(name), *dot = strrchr(file, '.');
        if (dot)
            *dot = '\0';
        snprintf(sw->dir, sizeof sw->dir, "sweep/%s", file);
    }
    snprintf(sw->results, sizeof sw->results, "%s/results.jsonl", sw->dir);
    CLP_TRY(cli_file_hash(sw->case_path, sw->case_hash, err));
    sw->plan.case_path = sw->case_path;
    sw->plan.schema = base->schema;
fail:
    return st;
}

/* Now as Unix time, in seconds. */
static double unix_time(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether results.jsonl holds the result `key`. */
static bool recorded(sweep *sw, const char *key) {
    pthread_mutex_lock(&sw->lock);
    const bool found = json_object_get(sw->done, key) != NULL;
    pthread_mutex_unlock(&sw->lock);
    return found;
}

/* Appends the record of combination k on device d to results.jsonl and the table of results,
 * and says so on stderr with the time left: under the lock, so that each record and each line
 * is written whole, by one thread at a time. */
static clp_status record_result(sweep *sw, size_t d, size_t k, const char *key, json_t *record,
                                clp_error *err) {
    pthread_mutex_lock(&sw->lock);
    const clp_status st = sweep_results_append(sw->results, record, err);
    if (st == CLP_OK) {
        json_object_set(sw->done, key, record);
        const json_t *rate = json_object_get(record, "throughput");
        char options[1024], line[2048];
        sweep_options_text(json_object_get(record, "options"), options, sizeof options);
        int at = snprintf(line, sizeof line, "[%zu/%zu] device %zu: %s: %s", k + 1,
                          sw->combinations, sw->dev.devices[d]->index, options,
                          json_string_value(json_object_get(record, "status")));
        if (rate && at >= 0 && (size_t)at < sizeof line)
            at += snprintf(line + at, sizeof line - (size_t)at, ", %.4g %s", json_real_value(rate),
                           json_string_value(json_object_get(record, "unit")));
        ++sw->ran;
        /* the time left, at the pace so far of all the threads together */
        const double left =
            (clp__now() - sw->started) / (double)sw->ran * (double)(sw->to_run - sw->ran);
        if (sw->ran < sw->to_run && at >= 0 && (size_t)at < sizeof line)
            snprintf(line + at, sizeof line - (size_t)at, " (%zu to go, about %.0f s left)",
                     sw->to_run - sw->ran, left);
        fprintf(stderr, "%s\n", line);
    }
    pthread_mutex_unlock(&sw->lock);
    return st;
}

/* Sweeps device d (a sweep_device_fn; `user` is the sweep): every combination that
 * results.jsonl does not hold yet, each recorded as soon as it is known, until another
 * thread's failure sets sw->stop. Its worker is opened only when there is something to run. */
static clp_status sweep_device(size_t d, void *user, clp_error *err) {
    sweep *sw = user;
    clp_status st = CLP_OK;
    cli_session s = {.cache = sw->cache};
    for (size_t k = 0; st == CLP_OK && k < sw->combinations && !atomic_load(&sw->stop); k++) {
        json_t *options = combination(sw, k);
        char key[2048];
        sweep_record_key(sw->case_hash, options, sw->dev.identities[d], key, sizeof key);
        if (recorded(sw, key)) {
            json_decref(options);
            continue;
        }
        if (!s.worker)
            st = clp_worker_create(sw->dev.devices[d], &s.worker, err);
        json_t *record =
            sweep_record_new(sw->case_path, sw->case_hash, options, sw->dev.identities[d]);
        const double started = unix_time(), start = clp__now();
        if (st == CLP_OK)
            st = sweep_run_options(&sw->plan, &s, options, record, err);
        json_object_set_new(record, "started", json_real(started));
        json_object_set_new(record, "seconds", json_real(clp__now() - start));
        if (st == CLP_OK)
            st = record_result(sw, d, k, key, record, err);
        json_decref(record);
        json_decref(options);
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

int cmd_sweep(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    sweep sw = {0};
    cli_case base = {0};
    pthread_mutex_init(&sw.lock, NULL);
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
        st = sweep_results_load(sw.results, &sw.done, &err);
    for (size_t d = 0; st == CLP_OK && d < sw.dev.n; d++)
        for (size_t k = 0; k < sw.combinations; k++) {
            json_t *options = combination(&sw, k);
            char key[2048];
            sweep_record_key(sw.case_hash, options, sw.dev.identities[d], key, sizeof key);
            sw.to_run += json_object_get(sw.done, key) == NULL;
            json_decref(options);
        }
    sw.started = clp__now();
    if (st == CLP_OK) {
        size_t group_of[SWEEP_MAX_DEVICES];
        const size_t groups = sweep_group_devices(sw.dev.devices, sw.dev.n, sw.schedule, group_of);
        if (sw.dev.n > 1)
            describe_groups(&sw, group_of, groups);
        st = sweep_groups_run(group_of, sw.dev.n, groups, sweep_device, &sw, &sw.stop, &err);
    }
    bool charted = false;
    char chart[1100];
    if (sw.done && (st == CLP_OK || st == CLP_INTERRUPTED)) {
        clp_error summary_err = CLP_ERROR_INIT;
        clp_status summary = write_summary(&sw, &summary_err);
        if (summary == CLP_OK)
            summary = write_chart(&sw, &charted, &summary_err);
        if (summary != CLP_OK && st == CLP_OK) {
            st = summary;
            err = summary_err;
        }
    }
    if (st == CLP_OK)
        printf("done: %zu run, %zu already in %s; %s/summary.md, %s/summary.csv%s\n", sw.ran,
               sw.combinations * sw.dev.n - sw.to_run, sw.results, sw.dir, sw.dir,
               sweep_chart_mention(charted, sw.dir, "summary.png", chart, sizeof chart));
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
    pthread_mutex_destroy(&sw.lock);
    return rc;
}
