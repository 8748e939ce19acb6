/* The portability table of clpart bench and clpart report (see portability.h). */
#include "portability.h"
#include "compare.h"
#include "sweep_engine.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static double number(const json_t *object, const char *key) {
    const json_t *v = json_object_get(object, key);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

/* A probe's best figure (the highest rate over its launches, the least time), 0 when the
 * probe is absent or null. */
static double best(const json_t *probe, const char *name) {
    return number(json_object_get(probe, name), "best");
}

/* The device's bandwidth in bytes/s: the best of BabelStream's kernels, each at its best
 * launch (BabelStream's convention). */
static double bandwidth(const json_t *probe) {
    static const char *const kernels[] = {"copy", "mul", "add", "triad", "dot"};
    double most = 0;
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
        most = fmax(most, best(probe, kernels[k]));
    return most;
}

/* How close a record's rate comes to the device's roofline: its bytes per second over the
 * bandwidth, or its flops per second over the FP32 FMA probe, whichever is larger. */
static double architectural(const json_t *record, const json_t *probe) {
    const double rate = number(record, "throughput");
    const double bw = bandwidth(probe), peak = best(probe, "fp32");
    const double bytes = bw > 0 ? rate * number(record, "bytes_per_unit") / bw : 0.0;
    const double flops = peak > 0 ? rate * number(record, "flops_per_unit") / peak : 0.0;
    return fmax(bytes, flops);
}

/* `bytes` as "N GiB", "N MiB" or "N KiB", or "N bytes". */
static void bytes_text(double bytes, char *out, size_t size) {
    static const char *const units[] = {"GiB", "MiB", "KiB"};
    for (int u = 0; u < 3; u++) {
        const double scale = (double)(1ull << (10 * (3 - u)));
        if (bytes >= scale) {
            snprintf(out, size, "%.3g %s", bytes / scale, units[u]);
            return;
        }
    }
    snprintf(out, size, "%.0f bytes", bytes);
}

void portability_probe_arrays(const json_t *probe, char *out, size_t size) {
    char array[32], cache[32];
    const double cache_bytes = number(probe, "cache_bytes");
    bytes_text(number(probe, "array_bytes"), array, sizeof array);
    bytes_text(cache_bytes, cache, sizeof cache);
    if (!json_is_object(json_object_get(probe, "copy")))
        snprintf(out, size, "no probes in this form (a bench.json of an older clpart)");
    else if (cache_bytes > 0)
        snprintf(out, size, "%s arrays, cache %s: %s", array, cache,
                 json_is_true(json_object_get(probe, "beyond_cache")) ? "beyond cache"
                                                                      : "within 4 x cache");
    else
        snprintf(out, size, "%s arrays, cache size unknown", array);
}

static bool ok(const json_t *result) {
    const char *status = json_string_value(json_object_get(result, "status"));
    return status && !strcmp(status, "ok");
}

/* The result of workload w on device d, or NULL: none when d did not run it. */
static const json_t *result_of(const json_t *workload, size_t d) {
    size_t k;
    json_t *result;
    json_array_foreach(json_object_get(workload, "results"), k, result) {
        if ((size_t)json_integer_value(json_object_get(result, "device")) == d)
            return result;
    }
    return NULL;
}

/* A record's rate over its timed runs: {least, median, most}; the median for all three where
 * the record holds no spread. */
static void rate_range(const json_t *record, double range[3]) {
    range[1] = number(record, "throughput");
    range[0] = json_is_number(json_object_get(record, "throughput_min"))
                   ? number(record, "throughput_min")
                   : range[1];
    range[2] = json_is_number(json_object_get(record, "throughput_max"))
                   ? number(record, "throughput_max")
                   : range[1];
}

static json_t *pair(double a, double b) {
    return json_pack("[f, f]", a, b);
}

/* Sets an ok result's efficiencies and, from the spread of the timed runs, their ranges: the
 * architectural one scales with the best record's rate; the application one runs from the
 * defaults' least over the best's most to the defaults' most over the best's least (1 when
 * the defaults are the best). */
static void result_efficiencies(json_t *result, const json_t *probe, double *arch, double *app,
                                double *tuned_app) {
    const json_t *best = json_object_get(result, "best"),
                 *defaults = json_object_get(result, "default"),
                 *tuned = json_object_get(result, "tuned");
    double b[3], d[3], t[3];
    rate_range(best, b);
    rate_range(defaults, d);
    rate_range(tuned ? tuned : defaults, t); /* none: a run takes the defaults */
    *arch = architectural(best, probe);
    *app = b[1] > 0 ? d[1] / b[1] : 0.0;
    *tuned_app = b[1] > 0 ? t[1] / b[1] : 0.0;
    json_object_set_new(result, "architectural_efficiency", json_real(*arch));
    json_object_set_new(result, "application_efficiency", json_real(*app));
    json_object_set_new(result, "tuned_application_efficiency", json_real(*tuned_app));
    if (b[1] > 0 && (b[0] != b[2] || d[0] != d[2])) {
        const bool same = json_equal(best, defaults);
        json_object_set_new(result, "architectural_efficiency_range",
                            pair(*arch * b[0] / b[1], *arch * b[2] / b[1]));
        json_object_set_new(result, "application_efficiency_range",
                            same ? pair(1, 1)
                                 : pair(b[2] > 0 ? d[0] / b[2] : 0, b[0] > 0 ? d[2] / b[0] : 0));
    }
}

/* {"architectural": A, "application": B, "tuned_application": C} of three numbers, or of nulls
 * when `have` is false. */
static json_t *both(bool have, double architectural, double application, double tuned) {
    return have ? json_pack("{s:f, s:f, s:f}", "architectural", architectural, "application",
                            application, "tuned_application", tuned)
                : json_pack("{s:n, s:n, s:n}", "architectural", "application", "tuned_application");
}

clp_status portability_compute(json_t *doc, clp_error *err) {
    clp_status st = CLP_OK;
    json_t *devices = json_object_get(doc, "devices");
    const size_t n = json_array_size(devices);
    /* per workload, over the devices that ran it; per device, summed over the common ones */
    double *arch = calloc(6 * n + 1, sizeof *arch), *app = arch + n, *arch_sum = app + n,
           *app_sum = arch_sum + n, *tuned = app_sum + n, *tuned_sum = tuned + n;
    json_t *left_out = json_array();
    CLP_REQUIRE_ALLOC(arch, err);
    size_t common = 0, w;
    json_t *workload;
    json_array_foreach(json_object_get(doc, "workloads"), w, workload) {
        json_t *over = json_array();
        size_t k = 0;
        for (size_t d = 0; d < n; d++) {
            json_t *result = (json_t *)result_of(workload, d);
            if (!result)
                continue;
            arch[k] = app[k] = tuned[k] = 0.0; /* ran and failed: it cannot run there */
            if (ok(result))
                result_efficiencies(result, json_object_get(json_array_get(devices, d), "probe"),
                                    &arch[k], &app[k], &tuned[k]);
            json_array_append_new(over, json_integer((json_int_t)d));
            k++;
        }
        json_object_set_new(workload, "over_devices", over);
        json_object_set_new(workload, "phi",
                            both(true, clp_phi(arch, k), clp_phi(app, k), clp_phi(tuned, k)));
        json_object_set_new(workload, "mean",
                            both(true, clp_efficiency_mean(arch, k), clp_efficiency_mean(app, k),
                                 clp_efficiency_mean(tuned, k)));
        if (n > 0 && k == n) { /* every device ran it: arch[d] is device d's */
            for (size_t d = 0; d < n; d++) {
                arch_sum[d] += arch[d];
                app_sum[d] += app[d];
                tuned_sum[d] += tuned[d];
            }
            common++;
        } else
            json_array_append(left_out, json_object_get(workload, "name"));
    }
    for (size_t d = 0; d < n && common; d++) {
        arch_sum[d] /= (double)common;
        app_sum[d] /= (double)common;
        tuned_sum[d] /= (double)common;
        json_object_set_new(json_array_get(devices, d), "efficiency",
                            both(true, arch_sum[d], app_sum[d], tuned_sum[d]));
    }
    json_object_set_new(doc, "common_workloads", json_integer((json_int_t)common));
    json_object_set(doc, "left_out", left_out);
    json_object_set_new(
        doc, "phi", both(common, clp_phi(arch_sum, n), clp_phi(app_sum, n), clp_phi(tuned_sum, n)));
    json_object_set_new(doc, "mean",
                        both(common, clp_efficiency_mean(arch_sum, n),
                             clp_efficiency_mean(app_sum, n), clp_efficiency_mean(tuned_sum, n)));
fail:
    json_decref(left_out);
    free(arch);
    return st;
}

void portability_phi_text(const json_t *doc, char *out, size_t size) {
    const json_t *phi = json_object_get(doc, "phi");
    const json_int_t common = json_integer_value(json_object_get(doc, "common_workloads"));
    if (!common)
        snprintf(out, size, "no Φ: no workload ran on every device");
    else
        snprintf(out, size,
                 "Φ architectural %.3f, application %.3f, tuned application %.3f (over %lld "
                 "workloads)",
                 number(phi, "architectural"), number(phi, "application"),
                 number(phi, "tuned_application"), (long long)common);
}

static const char *text(const json_t *object, const char *key) {
    const char *s = json_string_value(json_object_get(object, key));
    return s ? s : "";
}

/* The host cell: "NAME: CPU, N CPUs". */
static void host_cell(FILE *md, const json_t *host) {
    fprintf(md, "%s: %s, %lld CPUs", text(host, "hostname"), text(host, "cpu"),
            (long long)json_integer_value(json_object_get(host, "cpus")));
}

/* An efficiency in per cent, with its range when the records gave one. */
static void percent(FILE *md, const json_t *result, const char *key) {
    char range_key[64];
    snprintf(range_key, sizeof range_key, "%s_range", key);
    const json_t *range = json_object_get(result, range_key);
    fprintf(md, "%.1f %%", 100 * number(result, key));
    if (json_array_size(range) == 2)
        fprintf(md, " (%.1f–%.1f)", 100 * json_number_value(json_array_get(range, 0)),
                100 * json_number_value(json_array_get(range, 1)));
}

/* One table, workloads as rows and devices as columns: `cell` writes a result's cell; with
 * `phi_key`, Φ and the arithmetic mean of that efficiency end each row, and the overall
 * values follow the table. */
static void table(FILE *md, const json_t *doc, const char *heading, const char *note,
                  void (*cell)(FILE *, const json_t *result), const char *phi_key) {
    const json_t *devices = json_object_get(doc, "devices");
    const size_t n = json_array_size(devices);
    fprintf(md, "## %s\n\n%s\n\n| workload |", heading, note);
    for (size_t d = 0; d < n; d++)
        fprintf(md, " %zu |", d);
    fprintf(md, "%s\n| --- |", phi_key ? " Φ | mean |" : "");
    for (size_t d = 0; d < n; d++)
        fprintf(md, " --- |");
    fprintf(md, "%s\n", phi_key ? " --- | --- |" : "");
    size_t w;
    json_t *workload;
    json_array_foreach(json_object_get(doc, "workloads"), w, workload) {
        fprintf(md, "| %s |", text(workload, "name"));
        for (size_t d = 0; d < n; d++) {
            const json_t *result = result_of(workload, d);
            fputc(' ', md);
            if (!result)
                fprintf(md, "not run");
            else if (!ok(result))
                fprintf(md, "%s", text(result, "status"));
            else
                cell(md, result);
            fprintf(md, " |");
        }
        if (phi_key) {
            const size_t over = json_array_size(json_object_get(workload, "over_devices"));
            char of[64] = "";
            if (over < n)
                snprintf(of, sizeof of, " (%zu of %zu devices)", over, n);
            fprintf(md, " %.3f%s | %.3f%s |", number(json_object_get(workload, "phi"), phi_key), of,
                    number(json_object_get(workload, "mean"), phi_key), of);
        }
        fputc('\n', md);
    }
    if (phi_key && json_integer_value(json_object_get(doc, "common_workloads")))
        fprintf(md,
                "\nOverall, over the %lld workloads that every device ran: Φ %.3f (the harmonic "
                "mean over the devices of each device's mean efficiency over those workloads), "
                "arithmetic mean %.3f.\n",
                (long long)json_integer_value(json_object_get(doc, "common_workloads")),
                number(json_object_get(doc, "phi"), phi_key),
                number(json_object_get(doc, "mean"), phi_key));
    else if (phi_key)
        fprintf(md, "\nNo workload ran on every device: no overall Φ.\n");
    fputc('\n', md);
}

/* The median rate with the least and the most of the timed runs, where recorded. */
static void rate_cell(FILE *md, const json_t *result) {
    double r[3];
    rate_range(json_object_get(result, "default"), r);
    fprintf(md, "%.3g", r[1]);
    if (r[0] != r[2])
        fprintf(md, " (%.3g–%.3g)", r[0], r[2]);
}

static void architectural_cell(FILE *md, const json_t *result) {
    percent(md, result, "architectural_efficiency");
}

static void application_cell(FILE *md, const json_t *result) {
    percent(md, result, "application_efficiency");
}

static void tuned_cell(FILE *md, const json_t *result) {
    percent(md, result, "tuned_application_efficiency");
}

/* The best record's options; what a run that chooses its program chose ("lj.strategy=auto
 * (chose simd, list)"); and a note when its runs' range overlaps the defaults'. */
static void best_cell(FILE *md, const json_t *result) {
    const json_t *best = json_object_get(result, "best"),
                 *defaults = json_object_get(result, "default");
    char *options = sweep_options_text(json_object_get(best, "options"));
    fprintf(md, "`%s`", options && *options ? options : "defaults");
    free(options);
    const char *chosen = json_string_value(json_object_get(best, "chosen"));
    for (const char *at = chosen; at && *at;) { /* "NAME=VALUE NAME=VALUE": the values */
        const char *value = strchr(at, '=');
        if (!value)
            break;
        const size_t length = strcspn(value + 1, " ");
        fprintf(md, "%s%.*s", at == chosen ? " (chose " : ", ", (int)length, value + 1);
        at = value + 1 + length + strspn(value + 1 + length, " ");
        if (!*at)
            fputc(')', md);
    }
    double b[3], d[3];
    rate_range(best, b);
    rate_range(defaults, d);
    if (!json_equal(best, defaults) && b[0] <= d[2] && (b[0] != b[2] || d[0] != d[2]))
        fprintf(md, ", within the defaults' range");
}

/* What a report merged from: each file and the clpart that wrote it, with a warning when
 * those differ. */
static void sources(FILE *md, const json_t *doc) {
    const json_t *list = json_object_get(doc, "sources");
    if (!json_array_size(list))
        return;
    bool differ = false;
    size_t k;
    json_t *source;
    json_array_foreach(list, k, source) {
        differ |= strcmp(text(source, "clpart"), text(json_array_get(list, 0), "clpart")) != 0;
    }
    fprintf(md, "Merged from:\n\n");
    json_array_foreach(list, k, source) {
        fprintf(md, "- `%s`, written by clpart %s\n", text(source, "file"), text(source, "clpart"));
    }
    if (differ)
        fprintf(md, "\n**Warning:** these files were written by different versions of clpart "
                    "(listed above): a difference between their devices may come from the "
                    "versions.\n");
    fputc('\n', md);
}

/* What did not run: the workloads a device has no result for (absent from its file) and those
 * that ran and failed, with the reason; the claim that everything ran only when it did. */
static void not_run(FILE *md, const json_t *doc) {
    const json_t *devices = json_object_get(doc, "devices");
    const size_t n = json_array_size(devices);
    fprintf(md, "## What did not run\n\n");
    size_t w, missing = 0;
    json_t *workload;
    json_array_foreach(json_object_get(doc, "workloads"), w, workload) {
        for (size_t d = 0; d < n; d++) {
            const json_t *result = result_of(workload, d);
            const json_t *device = json_array_get(devices, d);
            if (result && ok(result))
                continue;
            missing++;
            fprintf(md, "- %s on device %zu (%s): ", text(workload, "name"), d,
                    text(device, "name"));
            if (!result)
                fprintf(md, "not run (%s has no result for it)\n",
                        json_object_get(device, "source") ? text(device, "source") : "its bench");
            else
                fprintf(md, "failed: %s: %s\n", text(result, "status"), text(result, "reason"));
        }
    }
    const json_t *left_out = json_object_get(doc, "left_out");
    if (json_array_size(left_out)) {
        fprintf(md, "\nLeft out of the overall Φ and mean, as not every device ran them:");
        size_t k;
        json_t *name;
        json_array_foreach(left_out, k, name) {
            fprintf(md, "%s %s", k ? "," : "", json_string_value(name));
        }
        fprintf(md, ".\n");
    }
    fprintf(md, "%s\n", missing ? "" : "Every workload ran on every device.\n");
}

/* Whether the default options give the same answer on every device: each device's defaults'
 * final diagnostics against device 0's, under the model's tolerances (docs/compare.md). */
static void same_answer(FILE *md, const json_t *doc) {
    const json_t *devices = json_object_get(doc, "devices");
    const size_t n = json_array_size(devices);
    if (n < 2)
        return;
    fprintf(md, "## The same answer on every device\n\nEach device's run of the default options "
                "against device 0's: its final diagnostics within their tolerances (`no "
                "physical change`) or not, as `clpart compare` judges two records.\n\n"
                "| workload |");
    for (size_t d = 1; d < n; d++)
        fprintf(md, " %zu |", d);
    fprintf(md, "\n| --- |");
    for (size_t d = 1; d < n; d++)
        fprintf(md, " --- |");
    fputc('\n', md);
    size_t w;
    json_t *workload;
    json_array_foreach(json_object_get(doc, "workloads"), w, workload) {
        const json_t *reference = json_object_get(result_of(workload, 0), "default");
        const char *model = json_string_value(json_object_get(reference, "model"));
        compare_tolerances tolerances = {0};
        clp_error err = CLP_ERROR_INIT;
        const bool tolerated =
            ok(result_of(workload, 0)) &&
            compare_tolerances_load(model ? model : "default", NULL, &tolerances, &err) == CLP_OK;
        fprintf(md, "| %s |", text(workload, "name"));
        for (size_t d = 1; d < n; d++) {
            const json_t *result = result_of(workload, d);
            const json_t *record = json_object_get(result, "default");
            char *verdict = NULL;
            bool same;
            if (!tolerated || !result || !ok(result))
                fprintf(md, " |");
            else if (strcmp(text(record, "case_hash"), text(reference, "case_hash")))
                fprintf(md, " another size |");
            else if (compare_records(reference, record, &tolerances, &verdict, &same, &err) ==
                     CLP_OK)
                fprintf(md, " %s |", verdict);
            else
                fprintf(md, " not compared: %s |", err.message);
            free(verdict);
        }
        fputc('\n', md);
        compare_tolerances_free(&tolerances);
    }
    fputc('\n', md);
}

/* Opens `path` for writing into *f, or fails naming it. */
static clp_status open_for(const char *path, FILE **f, clp_error *err) {
    *f = fopen(path, "w");
    return *f ? CLP_OK
              : CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s: %s", path,
                            strerror(errno));
}

/* Closes *f (and sets it to NULL), or fails naming `path` when anything was not written. */
static clp_status close_for(FILE **f, const char *path, clp_error *err) {
    const bool written = !ferror(*f);
    const bool closed = fclose(*f) == 0;
    *f = NULL;
    return written && closed ? CLP_OK
                             : CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s", path);
}

/* A probe's cell: its best with its range over the launches, in units of `scale`; "none"
 * where the device lacks it (null). */
static void probe_cell(FILE *md, const json_t *probe, const char *name, double scale) {
    const json_t *stat = json_object_get(probe, name);
    if (!json_is_object(stat))
        fprintf(md, " none |");
    else
        fprintf(md, " %.3g (%.3g–%.3g) |", number(stat, "best") / scale,
                number(stat, "min") / scale, number(stat, "max") / scale);
}

/* Every device's probes: the arrays against the cache, then each figure. */
static void probe_table(FILE *md, const json_t *doc) {
    fprintf(md, "## Device probes\n\n"
                "Each figure is the best launch, with the range over the launches in brackets "
                "(docs/cli.md, bench, says how each is measured).\n\n"
                "| device | arrays | copy GB/s | triad GB/s | dot GB/s | FP32 GFLOP/s | FP64 "
                "GFLOP/s | H2D GB/s | D2H GB/s | launch µs | iterations |\n"
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    size_t d;
    json_t *dev;
    json_array_foreach(json_object_get(doc, "devices"), d, dev) {
        const json_t *probe = json_object_get(dev, "probe");
        char arrays[128];
        portability_probe_arrays(probe, arrays, sizeof arrays);
        fprintf(md, "| %zu | %s |", d, arrays);
        static const struct {
            const char *name;
            double scale;
        } cells[] = {{"copy", 1e9}, {"triad", 1e9}, {"dot", 1e9}, {"fp32", 1e9},
                     {"fp64", 1e9}, {"h2d", 1e9},   {"d2h", 1e9}, {"launch_wall", 1e-6}};
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++)
            probe_cell(md, probe, cells[c].name, cells[c].scale);
        fprintf(md, " %lld |\n",
                (long long)json_integer_value(json_object_get(probe, "iterations")));
    }
    fprintf(md, "\nArrays: each of the three at least 4 times the device's reported cache "
                "(BabelStream's rule) is beyond cache. copy, triad, dot: BabelStream's kernels "
                "(bytes read plus written per second, device time); FP32, FP64: chains of "
                "fused multiply-adds (none: no cl_khr_fp64); H2D, D2H: a blocking write and "
                "read of one array, wall clock; launch: an empty kernel from the enqueue to "
                "the end of a clFinish, wall clock.\n\n");
}

static clp_status write_markdown(const json_t *doc, const char *path, const char *title,
                                 clp_error *err) {
    FILE *md;
    clp_status st = open_for(path, &md, err);
    if (st != CLP_OK)
        return st;
    const json_t *suite = json_object_get(doc, "suite");
    fprintf(md, "# %s\n\nSuite `%s` (hash `%s`), clpart %s.\n\n", title, text(suite, "name"),
            text(suite, "hash"), text(doc, "clpart"));
    sources(md, doc);
    fprintf(md, "| device | name | platform | driver | host | clpart | bandwidth GB/s | "
                "FMA GFLOP/s |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    size_t d;
    json_t *dev;
    json_array_foreach(json_object_get(doc, "devices"), d, dev) {
        const json_t *probe = json_object_get(dev, "probe");
        fprintf(md, "| %zu | %s | %s | %s | ", d, text(dev, "name"), text(dev, "platform"),
                text(dev, "driver"));
        host_cell(md, json_object_get(dev, "host"));
        fprintf(md, " | %s | %.1f | %.0f |\n", text(dev, "version"), bandwidth(probe) / 1e9,
                best(probe, "fp32") / 1e9);
    }
    fprintf(md, "\nBandwidth: the best of BabelStream's copy, mul, add, triad and dot, each at its "
                "best launch (BabelStream's convention); FMA: FP32 chains of fused multiply-adds "
                "at their best launch. Each workload's unit is its model's.\n\n");
    probe_table(md, doc);
    table(md, doc, "Throughput with the default options",
          "The median of the timed runs, with their least and most where they differ.", rate_cell,
          NULL);
    table(md, doc, "Architectural efficiency",
          "The best variant's bytes/s (the least traffic its kernels must move) over the "
          "device's bandwidth, or its flop/s over the FMA probe, whichever is larger; in "
          "brackets, the same for the least and the most of its timed runs. Φ is Pennycook's, "
          "the harmonic mean over the devices that ran the workload (0 when one of them could "
          "not run it); mean is the arithmetic mean beside it.",
          architectural_cell, "architectural");
    table(md, doc, "Application efficiency",
          "The default options' rate over the best variant's found on that device; in brackets, "
          "from the defaults' least over the best's most to the defaults' most over the best's "
          "least.",
          application_cell, "application");
    table(md, doc, "Application efficiency with the tuning database",
          "The rate with the options a run takes from the tuning database (tuning/v1 and the "
          "user's file, docs/tuning.md) over the best variant's; where no entry applies, the "
          "defaults'.",
          tuned_cell, "tuned_application");
    table(md, doc, "Best option set per device",
          "The performance options that gave the best rate (defaults: none beat them); for an "
          "option that the run chooses itself, what it chose.",
          best_cell, NULL);
    same_answer(md, doc);
    not_run(md, doc);
    return close_for(&md, path, err);
}

/* Closes the script DIR/NAME.gp (*f) and has gnuplot draw DIR/NAME.png from it. */
static clp_status draw(FILE **f, const char *dir, const char *name, bool *drawn, clp_error *err) {
    char path[1024], script[300], chart[300];
    snprintf(script, sizeof script, "%s.gp", name);
    snprintf(chart, sizeof chart, "%s.png", name);
    snprintf(path, sizeof path, "%s/%s", dir, script);
    const clp_status st = close_for(f, path, err);
    return st == CLP_OK ? sweep_gnuplot(dir, script, chart, drawn, err) : st;
}

/* A range's low or high end as a percentage: the efficiency itself where there is none. */
static double range_end(const json_t *result, const char *key, int end) {
    char range_key[64];
    snprintf(range_key, sizeof range_key, "%s_range", key);
    const json_t *range = json_object_get(result, range_key);
    return 100 * (json_array_size(range) == 2 ? json_number_value(json_array_get(range, end))
                                              : number(result, key));
}

/* STEM.dat and STEM.gp: both efficiencies per workload, a bar per device, in two panels, with
 * the spread of the timed runs as error bars when the records hold one. */
static clp_status write_chart(const json_t *doc, const char *dir, const char *stem,
                              const char *title, bool *drawn, clp_error *err) {
    clp_status st = CLP_OK;
    char path[1024];
    const json_t *devices = json_object_get(doc, "devices");
    const size_t n = json_array_size(devices);
    const json_t *workloads = json_object_get(doc, "workloads");
    const char *keys[2] = {"architectural_efficiency", "application_efficiency"};
    bool spread = false;
    FILE *f = NULL;
    snprintf(path, sizeof path, "%s/%s.dat", dir, stem);
    CLP_TRY(open_for(path, &f, err));
    size_t w;
    json_t *workload;
    json_array_foreach(workloads, w, workload) {
        fprintf(f, "\"%s\"", text(workload, "name"));
        for (size_t d = 0; d < n; d++) {
            const json_t *result = result_of(workload, d);
            for (int p = 0; p < 2; p++)
                fprintf(f, " %.4f %.4f %.4f", 100 * number(result, keys[p]),
                        range_end(result, keys[p], 0), range_end(result, keys[p], 1));
            spread |= json_object_get(result, "application_efficiency_range") != NULL;
        }
        fputc('\n', f);
    }
    CLP_TRY(close_for(&f, path, err));
    snprintf(path, sizeof path, "%s/%s.gp", dir, stem);
    CLP_TRY(open_for(path, &f, err));
    fprintf(f,
            "set terminal pngcairo size %zu,900 font ',10'\nset output '%s.png'\n"
            "set termoption noenhanced\nset multiplot layout 2,1 title '%s%s'\n"
            "set style data histograms\nset style histogram %s gap 1\n"
            "set style fill solid 0.8 border -1\nset xtics rotate by 20 right scale 0\n"
            "set key outside right top vertical\nset grid ytics\nset yrange [0:*]\n"
            "set offsets 0, 0, graph 0.05, 0\n",
            (size_t)900 + 60 * json_array_size(workloads) * n, stem, title,
            spread ? " (error bars: from the least to the most of the timed runs)" : "",
            spread ? "errorbars lw 1" : "clustered");
    const char *labels[2] = {"architectural efficiency (%)", "application efficiency (%)"};
    for (int p = 0; p < 2; p++) {
        fprintf(f, "set ylabel '%s'\n", labels[p]);
        for (size_t d = 0; d < n; d++) {
            const size_t column = 2 + 6 * d + 3 * (size_t)p;
            fprintf(f, "%s '%s.dat' using %zu", d ? ", \\\n  " : "plot", stem, column);
            if (spread)
                fprintf(f, ":%zu:%zu", column + 1, column + 2);
            fprintf(f, "%s title '%zu: %s'", d ? "" : ":xtic(1)", d,
                    text(json_array_get(devices, d), "name"));
        }
        fputc('\n', f);
    }
    fprintf(f, "unset multiplot\n");
    CLP_TRY(draw(&f, dir, stem, drawn, err));
fail:
    if (f)
        fclose(f);
    return st;
}

/* Device d's mean efficiency over the common workloads (the key of "efficiency"), and the
 * order of the devices from the most to the least efficient by it. */
typedef struct ranked {
    double efficiency;
    size_t device;
} ranked;

static int most_first(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    return (x->efficiency < y->efficiency) - (x->efficiency > y->efficiency);
}

/* STEM-cascade.dat and .gp, as the P3 Analysis Library draws a cascade: on top each device's
 * mean efficiency over the workloads every device ran, the devices from the most to the least
 * efficient; below, Φ of the first k of them as k grows. One series per efficiency. */
static clp_status write_cascade(const json_t *doc, const char *dir, const char *stem,
                                const char *title, bool *drawn, clp_error *err) {
    clp_status st = CLP_OK;
    const json_t *devices = json_object_get(doc, "devices");
    const size_t n = json_array_size(devices);
    const char *keys[2] = {"application", "architectural"};
    char path[1024];
    ranked *order = calloc(n + 1, sizeof *order);
    double *sorted = calloc(n + 1, sizeof *sorted);
    FILE *f = NULL;
    CLP_REQUIRE(order && sorted, err, CLP_NOMEM, "out of host memory");
    snprintf(path, sizeof path, "%s/%s-cascade.dat", dir, stem);
    CLP_TRY(open_for(path, &f, err));
    for (int s = 0; s < 2; s++) {
        fprintf(f,
                "%s# %s efficiency: rank, efficiency (%%), Φ of the first k devices (%%), "
                "device\n",
                s ? "\n\n" : "", keys[s]);
        for (size_t d = 0; d < n; d++)
            order[d] = (ranked){
                number(json_object_get(json_array_get(devices, d), "efficiency"), keys[s]), d};
        qsort(order, n, sizeof *order, most_first);
        for (size_t k = 0; k < n; k++) {
            sorted[k] = order[k].efficiency;
            fprintf(f, "%zu %.4f %.4f \"%zu\"\n", k + 1, 100 * sorted[k],
                    100 * clp_phi(sorted, k + 1), order[k].device);
        }
    }
    CLP_TRY(close_for(&f, path, err));
    snprintf(path, sizeof path, "%s/%s-cascade.gp", dir, stem);
    CLP_TRY(open_for(path, &f, err));
    fprintf(
        f,
        "set terminal pngcairo size 900,800 font ',10'\nset output '%s-cascade.png'\n"
        "set termoption noenhanced\n"
        "set multiplot layout 2,1 title '%s: cascade over the %lld workloads every device "
        "ran'\nset xrange [0.5:%zu.5]\nset xtics 1\nset yrange [0:*]\n"
        "set offsets 0, 0, graph 0.15, 0\nset grid ytics\nset key outside right top vertical\n"
        "set ylabel 'mean efficiency (%%)'\n"
        "set xlabel 'rank: the devices from the most to the least efficient (labels: device "
        "numbers)'\n"
        "plot '%s-cascade.dat' index 0 using 1:2 with linespoints lc 1 pt 7 title 'application', "
        "\\\n  '' index 0 using 1:2:4 with labels offset 0,1 tc lt 1 notitle, \\\n"
        "  '' index 1 using 1:2 with linespoints lc 2 pt 5 title 'architectural', \\\n"
        "  '' index 1 using 1:2:4 with labels offset 0,1 tc lt 2 notitle\n"
        "set ylabel 'Φ of the first k devices (%%)'\nset xlabel 'k'\n"
        "plot '%s-cascade.dat' index 0 using 1:3 with linespoints lc 1 pt 7 title 'application', "
        "\\\n  '' index 1 using 1:3 with linespoints lc 2 pt 5 title 'architectural'\n"
        "unset multiplot\n",
        stem, title, (long long)json_integer_value(json_object_get(doc, "common_workloads")), n,
        stem, stem);
    snprintf(path, sizeof path, "%s-cascade", stem);
    CLP_TRY(draw(&f, dir, path, drawn, err));
fail:
    if (f)
        fclose(f);
    free(order);
    free(sorted);
    return st;
}

clp_status portability_write(const json_t *doc, const char *dir, const char *stem,
                             const char *title, char *charts, size_t size, clp_error *err) {
    clp_status st = CLP_OK;
    charts[0] = '\0';
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, stem);
    CLP_REQUIRE(json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0, err, CLP_IO,
                "cannot write %s", path);
    snprintf(path, sizeof path, "%s/%s.md", dir, stem);
    CLP_TRY(write_markdown(doc, path, title, err));
    bool drawn = false;
    if (json_array_size(json_object_get(doc, "workloads"))) /* probes alone: no chart */
        CLP_TRY(write_chart(doc, dir, stem, title, &drawn, err));
    if (drawn)
        snprintf(charts, size, ", %s/%s.png", dir, stem);
    drawn = false;
    if (json_integer_value(json_object_get(doc, "common_workloads")))
        CLP_TRY(write_cascade(doc, dir, stem, title, &drawn, err));
    if (drawn) {
        const size_t at = strlen(charts);
        snprintf(charts + at, size - at, ", %s/%s-cascade.png", dir, stem);
    }
fail:
    return st;
}
