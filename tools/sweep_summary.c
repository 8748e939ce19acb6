/* The summaries of clpart sweep (see sweep_summary.h). */
#include "sweep_summary.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "NAME=VALUE NAME=VALUE" of a record's case parameters (new). */
static char *parameters_text(const json_t *record) {
    clp_strbuf text = {0};
    const char *key;
    json_t *value;
    json_object_foreach(json_object_get(record, "case_parameters"), key, value) {
        char *v = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
        clp__sb_appendf(&text, "%s%s=%s", text.len ? " " : "", key, v ? v : "?");
        free(v);
    }
    return clp__sb_take(&text);
}

char *sweep_combination_text(const json_t *record) {
    char *parameters = parameters_text(record);
    char *options = sweep_options_text(json_object_get(record, "options"));
    clp_strbuf text = {0};
    clp__sb_appendf(&text, "%s%s%s", parameters ? parameters : "",
                    parameters && *parameters && options && *options ? " " : "",
                    options ? options : "");
    free(parameters);
    free(options);
    return clp__sb_take(&text);
}

bool sweep_record_ok(const json_t *record) {
    const char *status = json_string_value(json_object_get(record, "status"));
    return status && !strcmp(status, "ok");
}

static const json_t *record_at(const sweep_table *t, size_t k, size_t d) {
    return t->records[k * t->dev->n + d];
}

/* The records of device d, fastest first (refused and failed ones last, in their order);
 * *reference is the first combination's, or NULL. New array. */
static json_t *device_rows(const sweep_table *t, size_t d, const json_t **reference) {
    json_t *rows = json_array();
    *reference = record_at(t, 0, d);
    for (size_t k = 0; k < t->combinations; k++)
        if (record_at(t, k, d))
            json_array_append(rows, (json_t *)record_at(t, k, d));
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

/* Whether row i's interval of the median reaches the next faster row's (i - 1), both ok. */
static bool overlaps_faster(const json_t *rows, size_t i) {
    const json_t *r = json_array_get(rows, i), *faster = json_array_get(rows, i - 1);
    return i > 0 && sweep_record_ok(r) && sweep_record_ok(faster) &&
           json_real_value(json_object_get(r, "throughput_high")) >=
               json_real_value(json_object_get(faster, "throughput_low"));
}

void sweep_unstable_note(const json_t *r, char *out, size_t size) {
    const json_t *timing = json_object_get(r, "timing");
    const double target = json_real_value(json_object_get(timing, "spread_target"));
    const double budget = json_real_value(json_object_get(timing, "budget_seconds"));
    const json_int_t samples = json_integer_value(json_object_get(r, "samples"));
    const json_t *spread = json_object_get(r, "spread");
    out[0] = '\0';
    if (json_is_true(json_object_get(r, "stable")) || !sweep_record_ok(r))
        return;
    if (!json_is_number(spread))
        snprintf(out, size, ", unstable: %lld sample, spread unknown (budget %g s)",
                 (long long)samples, budget);
    else
        snprintf(out, size,
                 ", unstable: spread %.3g %% over %lld samples in %.3g s (target %g %%, %s)",
                 100 * json_real_value(spread), (long long)samples,
                 json_real_value(json_object_get(r, "timed_seconds")), 100 * target,
                 samples >= SWEEP_MAX_SAMPLES ? "the most samples" : "budget spent");
}

/* How record r's physics stands against `reference`'s, as clpart compare judges it: a new
 * text ("the reference" for the reference itself, "" when either did not run), and *same. */
static char *physics(const sweep_table *t, const json_t *r, const json_t *reference, bool *same) {
    *same = false;
    if (r == reference)
        return strdup("the reference");
    if (sweep_record_ok(r) && !sweep_record_ok(reference))
        return strdup("n/a: the reference did not run");
    if (!t->tolerances || !sweep_record_ok(r))
        return strdup("");
    char *text = NULL;
    clp_error err = CLP_ERROR_INIT;
    if (compare_records(reference, r, t->tolerances, &text, same, &err) != CLP_OK) {
        free(text);
        clp_strbuf why = {0};
        clp__sb_appendf(&why, "not compared: %s", err.message);
        text = clp__sb_take(&why);
    }
    return text;
}

/* Device d's rows of summary.csv and its table in summary.md. */
static void write_device(const sweep_table *t, size_t d, FILE *csv, FILE *md) {
    const json_t *reference;
    json_t *rows = device_rows(t, d, &reference);
    const double reference_rate = json_real_value(json_object_get(reference, "throughput"));
    const clp_device_info *dev = t->dev->devices[d];
    fprintf(md, "## Device %zu: %s (%s)\n\n", dev->index, dev->name, dev->platform_name);
    fprintf(md,
            "| # | %soptions | status | throughput (median) | interval | spread | speed-up | "
            "physics |\n| --- | %s--- | --- | --- | --- | --- | --- | --- |\n",
            t->with_case ? "case | " : "", t->with_case ? "--- | " : "");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        char note[256], speedup_text[32] = "n/a"; /* n/a: no reference rate to compare with */
        char *parameters = parameters_text(r);
        char *options = sweep_options_text(json_object_get(r, "options"));
        const char *status = json_string_value(json_object_get(r, "status"));
        const char *reason = json_string_value(json_object_get(r, "reason"));
        const char *unit = json_string_value(json_object_get(r, "unit"));
        const double rate = json_real_value(json_object_get(r, "throughput"));
        const double low = json_real_value(json_object_get(r, "throughput_low"));
        const double high = json_real_value(json_object_get(r, "throughput_high"));
        const json_t *spread = json_object_get(r, "spread");
        const bool ok = sweep_record_ok(r);
        bool same;
        char *verdict = physics(t, r, reference, &same);
        if (ok && reference_rate > 0)
            snprintf(speedup_text, sizeof speedup_text, "%.3f", rate / reference_rate);
        fprintf(csv, "%zu,", dev->index);
        sweep_csv_field(csv, dev->name);
        fputc(',', csv);
        sweep_csv_field(csv, parameters);
        fputc(',', csv);
        sweep_csv_field(csv, options ? options : "");
        fprintf(csv, ",%s,", status ? status : "");
        if (ok)
            fprintf(csv, "%.6g,%.6g,%.6g,%.6g,%.6g,", rate, low, high,
                    json_real_value(json_object_get(r, "throughput_min")),
                    json_real_value(json_object_get(r, "throughput_max")));
        else
            fprintf(csv, ",,,,,");
        if (ok && json_is_number(spread))
            fprintf(csv, "%.4g", json_real_value(spread));
        if (ok)
            fprintf(csv, ",%lld,%s", (long long)json_integer_value(json_object_get(r, "samples")),
                    json_is_true(json_object_get(r, "stable")) ? "true" : "false");
        else
            fprintf(csv, ",,");
        fprintf(csv, ",%s,%s,", unit ? unit : "", ok && reference_rate > 0 ? speedup_text : "");
        sweep_csv_field(csv, verdict);
        fputc(',', csv);
        sweep_csv_field(csv, reason);
        fputc('\n', csv);
        fprintf(md, "| %zu%s | ", i + 1, overlaps_faster(rows, i) ? " ≈" : "");
        if (t->with_case)
            fprintf(md, "`%s` | ", parameters ? parameters : "");
        fprintf(md, "`%s` | ", options ? options : "");
        sweep_unstable_note(r, note, sizeof note);
        if (!ok)
            fprintf(md, "%s: %s | | | | | |\n", status ? status : "?", reason ? reason : "");
        else if (json_is_number(spread))
            fprintf(md, "ok%s | %.4g %s | %.4g to %.4g | %.2g %% | %s | %s |\n", note, rate, unit,
                    low, high, 100 * json_real_value(spread), speedup_text, verdict ? verdict : "");
        else
            fprintf(md, "ok%s | %.4g %s | | | %s | %s |\n", note, rate, unit, speedup_text,
                    verdict ? verdict : "");
        free(verdict);
        free(parameters);
        free(options);
    }
    /* runs of rows whose intervals overlap: their order is within the spread */
    bool any = false;
    const size_t n = json_array_size(rows);
    for (size_t i = 1; i < n; i++) {
        if (!overlaps_faster(rows, i) || (i > 1 && overlaps_faster(rows, i - 1)))
            continue;
        size_t last = i;
        while (last + 1 < n && overlaps_faster(rows, last + 1))
            last++;
        fprintf(md, "%s rows %zu to %zu", any ? " and of" : "\nThe order of", i, last + 1);
        any = true;
    }
    if (any)
        fprintf(md, " is within their spread: their intervals overlap (marked ≈).\n");
    fprintf(md, "\n");
    json_decref(rows);
}

/* summary.md's table of the devices side by side: each combination on each other device
 * against the same combination on the reference device (the first), in speed and physics. */
static void write_across(const sweep_table *t, FILE *md) {
    const clp_device_info *ref = t->dev->devices[0];
    fprintf(md,
            "## Across devices\n\nEach combination against itself on device %zu (%s): its "
            "speed there over its speed on device %zu, and whether its physics moved, as "
            "`clpart compare` judges it (tolerances: docs/compare.md).\n\n| "
            "combination |",
            ref->index, ref->name, ref->index);
    for (size_t d = 1; d < t->dev->n; d++)
        fprintf(md, " device %zu: %s |", t->dev->devices[d]->index, t->dev->devices[d]->name);
    fprintf(md, "\n| --- |");
    for (size_t d = 1; d < t->dev->n; d++)
        fprintf(md, " --- |");
    fprintf(md, "\n");
    for (size_t k = 0; k < t->combinations; k++) {
        const json_t *reference = record_at(t, k, 0);
        fprintf(md, "| `%s` |", t->labels[k] ? t->labels[k] : "");
        for (size_t d = 1; d < t->dev->n; d++) {
            const json_t *r = record_at(t, k, d);
            if (!sweep_record_ok(r) || !sweep_record_ok(reference)) {
                fprintf(md, " %s |", !r ? "not run" : !sweep_record_ok(r) ? "did not run" : "");
                continue;
            }
            bool same;
            char *verdict = physics(t, r, reference, &same);
            fprintf(md, " %.3g times, %s |",
                    json_real_value(json_object_get(r, "throughput")) /
                        json_real_value(json_object_get(reference, "throughput")),
                    verdict ? verdict : "");
            free(verdict);
        }
        fprintf(md, "\n");
    }
    fprintf(md, "\n");
}

/* What each combination ran, as summary.md's heading says it: the run's limits and the
 * timing. */
static void describe_plan(const sweep_table *t, FILE *md) {
    const sweep_plan *p = t->plan;
    fprintf(md, "Each combination: ");
    if (p->limits.max_steps)
        fprintf(md, "%llu steps", (unsigned long long)p->limits.max_steps);
    if (p->limits.max_steps && p->limits.max_time > 0)
        fprintf(md, " or ");
    if (p->limits.max_time > 0)
        fprintf(md, "%g s of simulated time", p->limits.max_time);
    if (!p->limits.max_steps && !(p->limits.max_time > 0))
        fprintf(md, "the whole case");
    fprintf(md,
            ", a one-step warm-up, then at least %d timed run%s, more until the spread is at most "
            "%g %% or %g s of timed runs are spent (at most %d runs). Throughput: the median "
            "rate; interval: the distribution-free 95 %% confidence interval of the median "
            "(below 9 runs, their least to largest rate); spread: its width over the median.\n\n",
            p->timing.min_repeat, p->timing.min_repeat == 1 ? "" : "s", 100 * p->timing.spread,
            p->timing.budget, SWEEP_MAX_SAMPLES);
}

clp_status sweep_summary_write(const sweep_table *t, clp_error *err) {
    clp_status st = CLP_OK;
    char path[1024];
    snprintf(path, sizeof path, "%s/summary.csv", t->dir);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/summary.md", t->dir);
    FILE *md = fopen(path, "w");
    CLP_REQUIRE(csv && md, err, CLP_IO, "cannot write the summary in %s: %s", t->dir,
                strerror(errno));
    fprintf(csv, "device,device_name,case_parameters,options,status,throughput,throughput_low,"
                 "throughput_high,throughput_min,throughput_max,spread,samples,stable,unit,"
                 "speedup,physics,reason\n");
    fprintf(md, "# Sweep of %s\n\n", t->case_path);
    describe_plan(t, md);
    fprintf(md, "Per device, fastest first. Reference: the first combination. Speed-up: the "
                "throughput over the reference's. Physics: the final diagnostics against the "
                "reference's, each within its tolerance or not, as `clpart compare` judges "
                "them.\n\n");
    for (size_t d = 0; d < t->dev->n; d++)
        write_device(t, d, csv, md);
    if (t->dev->n > 1)
        write_across(t, md);
    CLP_REQUIRE(!ferror(csv) && !ferror(md), err, CLP_IO, "cannot write the summary in %s", t->dir);
fail:
    if (csv && fclose(csv) != 0 && st == CLP_OK)
        st = CLP_FAIL(err, CLP_IO, "cannot write %s/summary.csv", t->dir);
    if (md && fclose(md) != 0 && st == CLP_OK)
        st = CLP_FAIL(err, CLP_IO, "cannot write %s/summary.md", t->dir);
    return st;
}

clp_status sweep_summary_chart(const sweep_table *t, bool *drawn, clp_error *err) {
    clp_status st = CLP_OK;
    char path[1024];
    const char *unit = NULL;
    double lowest = INFINITY, highest = 0;
    snprintf(path, sizeof path, "%s/summary.dat", t->dir);
    FILE *dat = fopen(path, "w");
    CLP_REQUIRE(dat, err, CLP_IO, "cannot write %s: %s", path, strerror(errno));
    for (size_t k = 0; k < t->combinations; k++) {
        fputc('"', dat);
        for (const char *c = t->labels[k] ? t->labels[k] : ""; *c; c++)
            fputc(*c == '"' ? '\'' : *c, dat);
        fputc('"', dat);
        for (size_t d = 0; d < t->dev->n; d++) {
            const json_t *r = record_at(t, k, d);
            const bool ok = sweep_record_ok(r);
            const double rate = ok ? json_real_value(json_object_get(r, "throughput")) : 0;
            if (r && !unit)
                unit = json_string_value(json_object_get(r, "unit"));
            if (rate > 0) {
                lowest = fmin(lowest, json_real_value(json_object_get(r, "throughput_low")));
                highest = fmax(highest, json_real_value(json_object_get(r, "throughput_high")));
            }
            fprintf(dat, " %.6g %.6g %.6g", rate,
                    ok ? json_real_value(json_object_get(r, "throughput_low")) : 0,
                    ok ? json_real_value(json_object_get(r, "throughput_high")) : 0);
        }
        fprintf(dat, "\n");
    }
    CLP_REQUIRE(fclose(dat) == 0, err, CLP_IO, "cannot write %s", path);
    snprintf(path, sizeof path, "%s/summary.gp", t->dir);
    FILE *gp = fopen(path, "w");
    CLP_REQUIRE(gp, err, CLP_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(gp,
            "set terminal pngcairo size %zu,700 font ',10'\n"
            "set output 'summary.png'\nset termoption noenhanced\n"
            "set title 'clpart sweep of %s (error bars: the interval of the median)'\n"
            "set ylabel '%s'\n"
            "set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
            "set style fill solid 0.8 border -1\nset xtics rotate by 30 right scale 0\n"
            "set key outside top center horizontal\nset yrange [0:*]\nset grid ytics\n"
            "set bmargin 14\nset lmargin 12\n",
            700 + 40 * t->combinations * t->dev->n, t->case_path, unit ? unit : "rate");
    if (highest > 20 * lowest) /* devices far apart: every bar stays visible */
        fprintf(gp, "set logscale y\nset yrange [*:*]\n");
    for (size_t d = 0; d < t->dev->n; d++)
        fprintf(gp, "%s 'summary.dat' using %zu:%zu:%zu%s title 'device %zu: %s'",
                d ? ", \\\n  " : "plot", 3 * d + 2, 3 * d + 3, 3 * d + 4, d ? "" : ":xtic(1)",
                t->dev->devices[d]->index, t->dev->devices[d]->name);
    fprintf(gp, "\n");
    CLP_REQUIRE(fclose(gp) == 0, err, CLP_IO, "cannot write %s", path);
    CLP_TRY(sweep_gnuplot(t->dir, "summary.gp", "summary.png", drawn, err));
fail:
    return st;
}
