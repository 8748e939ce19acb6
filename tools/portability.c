/* The portability table of clpart bench and clpart report (see portability.h). */
#include "portability.h"
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

void portability_compute(json_t *doc) {
    json_t *devices = json_object_get(doc, "devices"),
           *workloads = json_object_get(doc, "workloads");
    const size_t n_devices = json_array_size(devices), n_workloads = json_array_size(workloads);
    double arch_sum[64] = {0}, app_sum[64] = {0};
    size_t w;
    json_t *workload;
    json_array_foreach(workloads, w, workload) {
        double arch[64], app[64];
        for (size_t d = 0; d < n_devices && d < 64; d++)
            arch[d] = app[d] = 0.0; /* a device without a result cannot run it */
        size_t k;
        json_t *result;
        json_array_foreach(json_object_get(workload, "results"), k, result) {
            const size_t d = (size_t)json_integer_value(json_object_get(result, "device"));
            if (d >= n_devices || d >= 64 || !ok(result))
                continue;
            const json_t *probe = json_object_get(json_array_get(devices, d), "probe");
            const json_t *best = json_object_get(result, "best");
            const double best_rate = number(best, "throughput");
            arch[d] = architectural(best, probe);
            app[d] = best_rate > 0
                         ? number(json_object_get(result, "default"), "throughput") / best_rate
                         : 0.0;
            json_object_set_new(result, "architectural_efficiency", json_real(arch[d]));
            json_object_set_new(result, "application_efficiency", json_real(app[d]));
        }
        for (size_t d = 0; d < n_devices && d < 64; d++) {
            arch_sum[d] += arch[d];
            app_sum[d] += app[d];
        }
        const size_t n = n_devices < 64 ? n_devices : 64;
        json_object_set_new(workload, "phi",
                            json_pack("{s:f, s:f}", "architectural", clp_phi(arch, n),
                                      "application", clp_phi(app, n)));
    }
    for (size_t d = 0; d < n_devices && d < 64 && n_workloads; d++) {
        arch_sum[d] /= (double)n_workloads;
        app_sum[d] /= (double)n_workloads;
    }
    const size_t n = n_devices < 64 ? n_devices : 64;
    json_object_set_new(doc, "phi",
                        json_pack("{s:f, s:f}", "architectural", clp_phi(arch_sum, n),
                                  "application", clp_phi(app_sum, n)));
}

/* The result of workload w on device d, or NULL. */
static const json_t *result_of(const json_t *workload, size_t d) {
    size_t k;
    json_t *result;
    json_array_foreach(json_object_get(workload, "results"), k, result) {
        if ((size_t)json_integer_value(json_object_get(result, "device")) == d)
            return result;
    }
    return NULL;
}

static const char *text(const json_t *object, const char *key) {
    const char *s = json_string_value(json_object_get(object, key));
    return s ? s : "";
}

/* One table, workloads as rows and devices as columns: `cell` writes a result's cell; Φ
 * of `phi_key` ends each row when it is not NULL. */
static void table(FILE *md, const json_t *doc, const char *heading, const char *note,
                  void (*cell)(FILE *, const json_t *workload, const json_t *result),
                  const char *phi_key) {
    const json_t *devices = json_object_get(doc, "devices");
    const size_t n = json_array_size(devices);
    fprintf(md, "## %s\n\n%s\n\n| workload |", heading, note);
    for (size_t d = 0; d < n; d++)
        fprintf(md, " %zu |", d);
    fprintf(md, "%s\n| --- |", phi_key ? " Φ |" : "");
    for (size_t d = 0; d < n; d++)
        fprintf(md, " --- |");
    fprintf(md, "%s\n", phi_key ? " --- |" : "");
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
                cell(md, workload, result);
            fprintf(md, " |");
        }
        if (phi_key)
            fprintf(md, " %.3f |", number(json_object_get(workload, "phi"), phi_key));
        fputc('\n', md);
    }
    if (phi_key)
        fprintf(md, "\nOverall Φ (of each device's mean over the workloads): %.3f\n",
                number(json_object_get(doc, "phi"), phi_key));
    fputc('\n', md);
}

static void rate_cell(FILE *md, const json_t *workload, const json_t *result) {
    (void)workload;
    fprintf(md, "%.3g", number(json_object_get(result, "default"), "throughput"));
}

static void architectural_cell(FILE *md, const json_t *workload, const json_t *result) {
    (void)workload;
    fprintf(md, "%.1f %%", 100 * number(result, "architectural_efficiency"));
}

static void application_cell(FILE *md, const json_t *workload, const json_t *result) {
    (void)workload;
    fprintf(md, "%.1f %%", 100 * number(result, "application_efficiency"));
}

static void best_cell(FILE *md, const json_t *workload, const json_t *result) {
    (void)workload;
    char options[512];
    sweep_options_text(json_object_get(json_object_get(result, "best"), "options"), options,
                       sizeof options);
    fprintf(md, "`%s`", options[0] ? options : "defaults");
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
    FILE *md = fopen(path, "w");
    if (!md)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s: %s", path, strerror(errno));
    fprintf(md, "# %s\n\n", title);
    fprintf(md, "| device | name | platform | driver | host | clpart | bandwidth GB/s | "
                "FMA GFLOP/s |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    size_t d;
    json_t *dev;
    json_array_foreach(json_object_get(doc, "devices"), d, dev) {
        const json_t *probe = json_object_get(dev, "probe");
        fprintf(md, "| %zu | %s | %s | %s | %s | %s | %.1f | %.0f |\n", d, text(dev, "name"),
                text(dev, "platform"), text(dev, "driver"), text(dev, "host"), text(dev, "version"),
                bandwidth(probe) / 1e9, best(probe, "fp32") / 1e9);
    }
    fprintf(md, "\nBandwidth: the best of BabelStream's copy, mul, add, triad and dot, each at its "
                "best launch (BabelStream's convention); FMA: FP32 chains of fused multiply-adds "
                "at their best launch. Each workload's unit is its model's.\n\n");
    probe_table(md, doc);
    table(md, doc, "Throughput with the default options", "The median of the timed runs.",
          rate_cell, NULL);
    table(md, doc, "Architectural efficiency",
          "The best variant's bytes/s (the least traffic its kernels must move) over the "
          "device's bandwidth, or its flop/s over the FMA probe, whichever is larger.",
          architectural_cell, "architectural");
    table(md, doc, "Application efficiency",
          "The default options' rate over the best variant's found on that device.",
          application_cell, "application");
    table(md, doc, "Best option set per device",
          "The performance options that gave the best rate (defaults: none beat them).", best_cell,
          NULL);
    fprintf(md, "## What did not run\n\n");
    size_t w, r, failures = 0;
    json_t *workload, *result;
    json_array_foreach(json_object_get(doc, "workloads"), w, workload) {
        json_array_foreach(json_object_get(workload, "results"), r, result) {
            if (ok(result))
                continue;
            fprintf(md, "- %s on device %lld: %s: %s\n", text(workload, "name"),
                    (long long)json_integer_value(json_object_get(result, "device")),
                    text(result, "status"), text(result, "reason"));
            failures++;
        }
    }
    fprintf(md, "%s\n", failures ? "" : "Every workload ran on every device.\n");
    const bool written = !ferror(md);
    if (fclose(md) != 0 || !written)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s", path);
    return CLP_OK;
}

/* STEM.dat and STEM.gp: both efficiencies per workload, a bar per device, in two panels. */
static clp_status write_chart(const json_t *doc, const char *dir, const char *stem,
                              const char *title, bool *drawn, clp_error *err) {
    char path[1024], script[256], chart[256];
    const json_t *devices = json_object_get(doc, "devices");
    const size_t n = json_array_size(devices);
    const json_t *workloads = json_object_get(doc, "workloads");
    snprintf(path, sizeof path, "%s/%s.dat", dir, stem);
    FILE *dat = fopen(path, "w");
    if (!dat)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s: %s", path, strerror(errno));
    size_t w;
    json_t *workload;
    json_array_foreach(workloads, w, workload) {
        fprintf(dat, "\"%s\"", text(workload, "name"));
        for (size_t d = 0; d < n; d++) {
            const json_t *result = result_of(workload, d);
            fprintf(dat, " %.4f %.4f", 100 * number(result, "architectural_efficiency"),
                    100 * number(result, "application_efficiency"));
        }
        fputc('\n', dat);
    }
    if (fclose(dat) != 0)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s", path);
    snprintf(path, sizeof path, "%s/%s.gp", dir, stem);
    FILE *gp = fopen(path, "w");
    if (!gp)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s: %s", path, strerror(errno));
    fprintf(gp,
            "set terminal pngcairo size %zu,900 font ',10'\nset output '%s.png'\n"
            "set termoption noenhanced\nset multiplot layout 2,1 title '%s'\n"
            "set style data histograms\nset style histogram clustered gap 1\n"
            "set style fill solid 0.8 border -1\nset xtics rotate by 20 right scale 0\n"
            "set key outside right top vertical\nset grid ytics\nset yrange [0:*]\n",
            (size_t)900 + 60 * json_array_size(workloads) * n, stem, title);
    const char *panels[2][2] = {{"architectural efficiency (%)", "2"},
                                {"application efficiency (%)", "3"}};
    for (int p = 0; p < 2; p++) {
        fprintf(gp, "set ylabel '%s'\n", panels[p][0]);
        for (size_t d = 0; d < n; d++)
            fprintf(gp, "%s '%s.dat' using %zu%s title '%zu: %s'", d ? ", \\\n  " : "plot", stem,
                    2 * d + (size_t)(p + 2), d ? "" : ":xtic(1)", d,
                    text(json_array_get(devices, d), "name"));
        fputc('\n', gp);
    }
    fprintf(gp, "unset multiplot\n");
    if (fclose(gp) != 0)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s", path);
    snprintf(script, sizeof script, "%s.gp", stem);
    snprintf(chart, sizeof chart, "%s.png", stem);
    return sweep_gnuplot(dir, script, chart, drawn, err);
}

clp_status portability_write(const json_t *doc, const char *dir, const char *stem,
                             const char *title, bool *charted, clp_error *err) {
    clp_status st = CLP_OK;
    *charted = false;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, stem);
    CLP_REQUIRE(json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0, err, CLP_IO,
                "cannot write %s", path);
    snprintf(path, sizeof path, "%s/%s.md", dir, stem);
    CLP_TRY(write_markdown(doc, path, title, err));
    if (json_array_size(json_object_get(doc, "workloads"))) /* probes alone: no chart */
        CLP_TRY(write_chart(doc, dir, stem, title, charted, err));
fail:
    return st;
}
