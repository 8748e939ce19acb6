/* clpart sweep CASE [-s NAME=V1,V2,...]... [-p P1,P2,...] [--combos FILE] [--fraction F |
 * --max N] [--seed S] [--devices SEL,...|all] [--steps N | --time T] [--repeat R] [--out DIR]:
 * runs the case under every combination of the listed option values and presets (or the
 * option sets of a --combos file, or a random sample of the product) on each device (the
 * selected one by default), one device after the other.
 * A combination the options refuse, a failed build or a failed run is recorded with its
 * reason and the sweep goes on. Each result is one line of DIR/results.jsonl, written whole
 * as soon as it is known, so an interrupted sweep loses nothing and a rerun skips what is
 * there; DIR/summary.csv and DIR/summary.md compare the combinations with the first. */
#include "cli_case.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

enum { MAX_AXES = 16, MAX_VALUES = 64, MAX_DEVICES = 16, DEFAULT_REPEAT = 3 };

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
    clp_run_config run;          /* the limits; the rest is set per run */
    int repeat;
    char dir[900], results[1024];
    char case_hash[17];
    const char *selectors; /* --devices, NULL for the selected device */
    clp_device_list *list;
    const clp_device_info *devices[MAX_DEVICES];
    json_t *identities[MAX_DEVICES]; /* each device as results.jsonl records it */
    size_t n_devices;
    json_t *done;  /* the results in results.jsonl for this case and version, by record_key */
    size_t to_run; /* combinations and devices not in results.jsonl when the sweep began */
    double started;
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
    for (size_t d = 0; d < sw->n_devices; d++)
        json_decref(sw->identities[d]);
    json_decref(sw->done);
    clp_device_list_destroy(sw->list);
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

/* A combination's options as one line. */
static char *options_key(const json_t *options) {
    return json_dumps(options, JSON_COMPACT | JSON_SORT_KEYS);
}

/* The key of a result: its options and its device, each as one line. */
static void record_key(const json_t *options, const json_t *device, char *out, size_t size) {
    char *o = options_key(options), *d = json_dumps(device, JSON_COMPACT | JSON_SORT_KEYS);
    snprintf(out, size, "%s@%s", o ? o : "", d ? d : "");
    free(o);
    free(d);
}

/* The case file's contents hashed: a changed case is a new sweep. */
static clp_status hash_case(sweep *sw, clp_error *err) {
    FILE *f = fopen(sw->case_path, "rb");
    if (!f)
        return CLP_FAIL_AT(err, CLP_IO, sw->case_path, -1, -1, "cannot read %s: %s", sw->case_path,
                           strerror(errno));
    XXH64_state_t *h = XXH64_createState();
    XXH64_reset(h, 0);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        XXH64_update(h, buf, n);
    fclose(f);
    snprintf(sw->case_hash, sizeof sw->case_hash, "%016llx", (unsigned long long)XXH64_digest(h));
    XXH64_freeState(h);
    return CLP_OK;
}

/* Whether `line` (a results.jsonl record) belongs to this case and version. */
static bool same_sweep(const sweep *sw, json_t *line) {
    return json_is_string(json_object_get(line, "case_hash")) &&
           !strcmp(json_string_value(json_object_get(line, "case_hash")), sw->case_hash) &&
           json_is_string(json_object_get(line, "version")) &&
           !strcmp(json_string_value(json_object_get(line, "version")), clp_version());
}

/* The results already in DIR/results.jsonl for this sweep, by options key. A line that is not
 * a whole JSON object (a sweep killed mid-write) is skipped with a warning. */
static clp_status load_done(sweep *sw, clp_error *err) {
    sw->done = json_object();
    FILE *f = fopen(sw->results, "r");
    if (!f)
        return errno == ENOENT ? CLP_OK
                               : CLP_FAIL_AT(err, CLP_IO, sw->results, -1, -1, "cannot read %s: %s",
                                             sw->results, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int number = 0;
    while (getline(&line, &cap, f) > 0) {
        number++;
        json_t *record = json_loads(line, 0, NULL);
        if (!json_is_object(record))
            fprintf(stderr, "clpart: warning: %s:%d is not a whole result; it is run again\n",
                    sw->results, number);
        else if (same_sweep(sw, record)) {
            char key[2048];
            record_key(json_object_get(record, "options"), json_object_get(record, "device"), key,
                       sizeof key);
            json_object_set(sw->done, key, record);
        }
        json_decref(record);
    }
    free(line);
    fclose(f);
    return CLP_OK;
}

/* Appends one record to results.jsonl, whole and flushed. */
static clp_status append_result(const sweep *sw, json_t *record, clp_error *err) {
    char *text = json_dumps(record, JSON_COMPACT | JSON_PRESERVE_ORDER);
    FILE *f = text ? fopen(sw->results, "a") : NULL;
    bool ok = f && fprintf(f, "%s\n", text) > 0 && fflush(f) == 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(text);
    return ok ? CLP_OK
              : CLP_FAIL_AT(err, CLP_IO, sw->results, -1, -1, "cannot append to %s: %s",
                            sw->results, strerror(errno));
}

/* Runs a built combination: a warm-up run, then `repeat` timed ones; their rates and the last
 * run's diagnostics go into `record`. */
static clp_status time_runs(const sweep *sw, const cli_session *s, const clp_model *model,
                            const clp_options *opts, json_t *record, clp_error *err) {
    double rates[64];
    clp_run_result result = {0};
    clp_run_config config = sw->run;
    config.cache = s->cache;
    config.stop_requested = &cli_stop_signal;
    config.result = &result;
    json_t *runs = json_array();
    json_object_set_new(record, "runs", runs);
    for (int r = -1; r < sw->repeat; r++) {
        clp_status st = model->run(s->worker, opts, sw->case_path, &config, err);
        if (st != CLP_OK)
            return st;
        if (r < 0)
            continue; /* the warm-up: caches, clocks and the first allocations */
        rates[r] = result.seconds > 0 ? result.work / result.seconds : 0.0;
        json_array_append_new(runs, json_real(rates[r]));
    }
    json_object_set_new(record, "throughput", json_real(clp__median(rates, (size_t)sw->repeat)));
    json_object_set_new(record, "steps", json_integer((json_int_t)result.steps));
    json_t *diagnostics = json_object();
    for (size_t i = 0; i < result.n_values; i++)
        json_object_set_new(diagnostics, result.values[i].name, json_real(result.values[i].value));
    json_object_set_new(record, "diagnostics", diagnostics);
    return CLP_OK;
}

/* One combination from its options to its record: refused by the options, a failed build, a
 * failed run, or ok with its rates. CLP_INTERRUPTED when a signal stopped it (no record). */
static clp_status run_combination(const sweep *sw, const cli_case *base, const cli_session *s,
                                  json_t *options, json_t *record, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *opts = NULL;
    char *source = NULL;
    const char *status = "refused";
    const clp_model *model = NULL;
    const char *name;
    json_t *value;
    clp_error e = CLP_ERROR_INIT;
    const double start = clp__now();
/* a failure is this combination's record, not the sweep's error */
#define RECORD_FAILURE(call)                                                                       \
    do {                                                                                           \
        if ((call) != CLP_OK)                                                                      \
            goto recorded;                                                                         \
    } while (0)
    RECORD_FAILURE(clp_options_create(base->schema, &opts, &e));
    /* as clpart run takes them: the case, its preset, then each -s */
    const char *preset = json_string_value(json_object_get(options, "preset"));
    RECORD_FAILURE(clp_options_apply_case(opts, sw->case_path, &preset, preset ? 1 : 0, &e));
    json_object_foreach(options, name, value) {
        if (!strcmp(name, "preset"))
            continue;
        char assignment[512];
        snprintf(assignment, sizeof assignment, "%s=%s", name, json_string_value(value));
        RECORD_FAILURE(clp_options_apply_assignment(opts, assignment, &e));
    }
    RECORD_FAILURE(clp_options_check(opts, &e));
    RECORD_FAILURE(clp_model_find(clp_options_model(opts), &model, &e));
    if (!model->run) {
        CLP_FAIL(&e, CLP_CASE, "model %s is run by %s, not swept", model->name, model->runner);
        goto recorded;
    }
    json_object_set_new(record, "unit", json_string(model->throughput_unit));
    RECORD_FAILURE(model->source(opts, clp_worker_device(s->worker), sw->case_path, &source, &e));
    clp_build_report report;
    status = "build failed";
    RECORD_FAILURE(clp_worker_build_for(s->worker, source, opts, s->cache, &report, &e));
    json_object_set_new(record, "build_seconds", json_real(report.seconds));
    json_object_set_new(record, "cache_hit", json_boolean(report.cache_hit));
    /* what the sweep adds before the runs: options, source, build or cache hit */
    json_object_set_new(record, "prepare_seconds", json_real(clp__now() - start));
    status = "run failed";
    RECORD_FAILURE(time_runs(sw, s, model, opts, record, &e));
    status = "ok";
recorded:
    json_object_set_new(record, "status", json_string(status));
    if (e.message[0])
        json_object_set_new(record, "reason", json_string(e.message));
    if (e.status == CLP_INTERRUPTED || cli_stop_signal)
        st = CLP_FAIL(err, CLP_INTERRUPTED, "stopped by a signal");
    free(source);
    clp_options_destroy(opts);
    return st;
#undef RECORD_FAILURE
}

/* The identity of the worker's device, as the records hold it. */
static json_t *device_identity(const clp_device_info *d) {
    return json_pack("{s:I, s:s, s:s, s:s, s:s}", "index", (json_int_t)d->index, "name", d->name,
                     "platform", d->platform_name, "driver", d->driver_version, "type",
                     clp_device_type_name(d->type));
}

/* The devices --devices names (a comma-separated list of selectors, or all), else the one
 * the global flags select. */
static clp_status select_devices(sweep *sw, const clp_cli *cli, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp_device_list_create(&sw->list, err));
    if (sw->selectors && !strcmp(sw->selectors, "all")) {
        const size_t n = clp_device_list_count(sw->list);
        for (size_t i = 0; i < n && i < MAX_DEVICES; i++)
            sw->devices[sw->n_devices++] = clp_device_list_get(sw->list, i);
    } else if (sw->selectors) {
        char *list = strdup(sw->selectors), *save = NULL;
        CLP_REQUIRE_ALLOC(list, err);
        for (char *sel = strtok_r(list, ",", &save); sel && st == CLP_OK;
             sel = strtok_r(NULL, ",", &save)) {
            const clp_device_info *dev;
            st = clp_device_select(sw->list, sel, &dev, err);
            for (size_t d = 0; st == CLP_OK && d < sw->n_devices; d++)
                if (sw->devices[d] == dev)
                    st = CLP_FAIL(err, CLP_USAGE, "--devices names device %zu (%s) twice",
                                  dev->index, dev->name);
            if (st == CLP_OK && sw->n_devices == MAX_DEVICES)
                st = CLP_FAIL(err, CLP_USAGE, "--devices names more than %d devices", MAX_DEVICES);
            if (st == CLP_OK)
                sw->devices[sw->n_devices++] = dev;
        }
        free(list);
        CLP_TRY(st);
    } else {
        CLP_TRY(clp_device_select(sw->list, cli->device, &sw->devices[0], err));
        sw->n_devices = 1;
    }
    for (size_t d = 0; d < sw->n_devices; d++)
        sw->identities[d] = device_identity(sw->devices[d]);
fail:
    return st;
}

/* The options of a record as "NAME=VALUE NAME=VALUE", in the sweep's order. */
static void options_text(const json_t *options, char *out, size_t size) {
    const char *name;
    json_t *value;
    size_t at = 0;
    out[0] = '\0';
    json_object_foreach((json_t *)options, name, value) {
        if (at < size)
            at += (size_t)snprintf(out + at, size - at, "%s%s=%s", at ? " " : "", name,
                                   json_string_value(value));
    }
}

/* `text` as one CSV field: quoted, its quotes doubled, its line breaks made spaces. */
static void csv_field(FILE *f, const char *text) {
    fputc('"', f);
    for (const char *c = text ? text : ""; *c; c++) {
        if (*c == '"')
            fputc('"', f);
        fputc(*c == '\n' ? ' ' : *c, f);
    }
    fputc('"', f);
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
        record_key(options, sw->identities[d], key, sizeof key);
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
    const clp_device_info *dev = sw->devices[d];
    fprintf(md, "## Device %zu: %s (%s)\n\n", dev->index, dev->name, dev->platform_name);
    fprintf(md, "| options | status | throughput | speed-up | difference |\n"
                "| --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        char options[1024];
        options_text(json_object_get(r, "options"), options, sizeof options);
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
        csv_field(csv, dev->name);
        fputc(',', csv);
        csv_field(csv, options);
        fprintf(csv, ",%s,%.6g,%s,%.4g,%.3g,", status ? status : "", ok ? rate : 0.0,
                unit ? unit : "", speedup, ok ? worst : 0.0);
        csv_field(csv, reason);
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
static clp_status write_chart(const sweep *sw, clp_error *err) {
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
        options_text(options, text, sizeof text);
        for (char *c = text; *c; c++)
            if (*c == '"')
                *c = '\'';
        fprintf(dat, "\"%s\"", text);
        for (size_t d = 0; d < sw->n_devices; d++) {
            char key[2048];
            record_key(options, sw->identities[d], key, sizeof key);
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
            700 + 40 * sw->combinations * sw->n_devices, sw->case_path, unit ? unit : "rate");
    if (highest > 20 * lowest) /* devices far apart: every bar stays visible */
        fprintf(gp, "set logscale y\nset yrange [*:*]\n");
    for (size_t d = 0; d < sw->n_devices; d++)
        fprintf(gp, "%s 'summary.dat' using %zu%s title 'device %zu: %s'", d ? ", \\\n  " : "plot",
                d + 2, d ? "" : ":xtic(1)", sw->devices[d]->index, sw->devices[d]->name);
    fprintf(gp, "\n");
    CLP_REQUIRE(fclose(gp) == 0, err, CLP_IO, "cannot write %s", path);
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "clpart: note: gnuplot is not installed: no %s/summary.png\n", sw->dir);
        return CLP_OK;
    }
    char command[2048];
    snprintf(command, sizeof command, "cd '%s' && gnuplot summary.gp 2>&1", sw->dir);
    CLP_REQUIRE(!strchr(sw->dir, '\'') && system(command) == 0, err, CLP_IO,
                "gnuplot could not draw %s/summary.png (see %s/summary.gp)", sw->dir, sw->dir);
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
    for (size_t d = 0; d < sw->n_devices; d++)
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
    sw->repeat = DEFAULT_REPEAT;
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
        else if (!strcmp(argv[i], "--steps") && value)
            CLP_TRY(cli_positive("--steps", argv[++i], true, &sw->run.max_steps, NULL, err));
        else if (!strcmp(argv[i], "--time") && value)
            CLP_TRY(cli_positive("--time", argv[++i], false, NULL, &sw->run.max_time, err));
        else if (!strcmp(argv[i], "--repeat") && value) {
            uint64_t r;
            CLP_TRY(cli_positive("--repeat", argv[++i], true, &r, NULL, err));
            CLP_REQUIRE(r <= 64, err, CLP_USAGE, "--repeat takes at most 64 runs, not %llu",
                        (unsigned long long)r);
            sw->repeat = (int)r;
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
    CLP_TRY(hash_case(sw, err));
fail:
    return st;
}

/* Sweeps device d: every combination that results.jsonl does not hold yet, each recorded as
 * soon as it is known. Its worker is opened only when there is something to run. */
static clp_status sweep_device(sweep *sw, const cli_case *base, size_t d, clp_cache *cache,
                               size_t *ran, size_t *skipped, clp_error *err) {
    clp_status st = CLP_OK;
    cli_session s = {.cache = cache};
    for (size_t k = 0; st == CLP_OK && k < sw->combinations; k++) {
        json_t *options = combination(sw, k);
        char key[2048];
        record_key(options, sw->identities[d], key, sizeof key);
        if (json_object_get(sw->done, key)) {
            ++*skipped;
            json_decref(options);
            continue;
        }
        if (!s.worker)
            st = clp_worker_create(sw->devices[d], &s.worker, err);
        json_t *record = json_pack("{s:s, s:s, s:O, s:O, s:s}", "case", sw->case_path, "case_hash",
                                   sw->case_hash, "options", options, "device", sw->identities[d],
                                   "version", clp_version());
        const double start = clp__now();
        if (st == CLP_OK)
            st = run_combination(sw, base, &s, options, record, err);
        json_object_set_new(record, "seconds", json_real(clp__now() - start));
        if (st == CLP_OK)
            st = append_result(sw, record, err);
        if (st == CLP_OK) {
            json_object_set(sw->done, key, record);
            const json_t *rate = json_object_get(record, "throughput");
            char text[1024];
            options_text(options, text, sizeof text);
            fprintf(stderr, "[%zu/%zu] device %zu: %s: %s", k + 1, sw->combinations,
                    sw->devices[d]->index, text,
                    json_string_value(json_object_get(record, "status")));
            if (rate)
                fprintf(stderr, ", %.4g %s", json_real_value(rate),
                        json_string_value(json_object_get(record, "unit")));
            ++*ran;
            /* the time left, at the pace so far */
            const double left =
                (clp__now() - sw->started) / (double)*ran * (double)(sw->to_run - *ran);
            if (*ran < sw->to_run)
                fprintf(stderr, " (%zu to go, about %.0f s left)", sw->to_run - *ran, left);
            fprintf(stderr, "\n");
        }
        json_decref(record);
        json_decref(options);
    }
    clp_worker_destroy(s.worker);
    return st;
}

int cmd_sweep(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    sweep sw = {0};
    cli_case base = {0};
    clp_cache *cache = NULL;
    clp_status st = parse(argc, argv, &sw, &base, &err);
    if (st == CLP_OK) {
        cli_handle_signals();
        st = select_devices(&sw, cli, &err);
    }
    if (st == CLP_OK)
        st = cli_open_cache(cli, &cache, &err);
    if (st == CLP_OK) {
        char path[sizeof sw.dir], why[256];
        snprintf(path, sizeof path, "%s", sw.dir);
        if (!clp__make_dirs(path, why, sizeof why))
            st = CLP_FAIL_AT(&err, CLP_IO, sw.dir, -1, -1, "cannot make %s: %s", sw.dir, why);
    }
    if (st == CLP_OK)
        st = load_done(&sw, &err);
    for (size_t d = 0; st == CLP_OK && d < sw.n_devices; d++)
        for (size_t k = 0; k < sw.combinations; k++) {
            json_t *options = combination(&sw, k);
            char key[2048];
            record_key(options, sw.identities[d], key, sizeof key);
            sw.to_run += json_object_get(sw.done, key) == NULL;
            json_decref(options);
        }
    sw.started = clp__now();
    size_t ran = 0, skipped = 0;
    for (size_t d = 0; st == CLP_OK && d < sw.n_devices; d++)
        st = sweep_device(&sw, &base, d, cache, &ran, &skipped, &err);
    if (sw.done && (st == CLP_OK || st == CLP_INTERRUPTED)) {
        clp_error summary_err = CLP_ERROR_INIT;
        clp_status summary = write_summary(&sw, &summary_err);
        if (summary == CLP_OK)
            summary = write_chart(&sw, &summary_err);
        if (summary != CLP_OK && st == CLP_OK) {
            st = summary;
            err = summary_err;
        }
    }
    if (st == CLP_OK)
        printf("done: %zu run, %zu already in %s; %s/summary.md, %s/summary.csv, "
               "%s/summary.png\n",
               ran, skipped, sw.results, sw.dir, sw.dir, sw.dir);
    int rc;
    if (st == CLP_INTERRUPTED) {
        fprintf(stderr,
                "clpart: interrupted: %zu combinations recorded in %s; run the same "
                "sweep again to go on\n",
                ran, sw.results);
        rc = 128 + cli_stop_signal;
    } else
        rc = st == CLP_OK ? CLP_EXIT_OK : cli_report(&err);
    clp_cache_close(cache);
    cli_case_free(&base);
    sweep_free(&sw);
    return rc;
}
