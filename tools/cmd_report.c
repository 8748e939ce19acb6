/* clpart report BENCH.json... [--out DIR]: merges the bench.json files of several machines
 * (a GPU server, a laptop, a CI box) into one portability table: every device as a column,
 * every workload as a row, with both efficiencies and Φ over all the devices. */
#include "cli_case.h"
#include "portability.h"
#include "sweep_engine.h"

#include <string.h>

/* Appends the devices and results of the bench.json at `path` to `doc`. */
static clp_status merge(json_t *doc, const char *path, clp_error *err) {
    clp_status st = CLP_OK;
    json_error_t e;
    json_t *bench = json_load_file(path, 0, &e);
    if (!bench)
        return CLP_FAIL_AT(err, CLP_CASE, path, e.line, e.column, "%s", e.text);
    json_t *devices = json_object_get(doc, "devices"),
           *workloads = json_object_get(doc, "workloads");
    const json_t *their_devices = json_object_get(bench, "devices");
    const json_t *their_workloads = json_object_get(bench, "workloads");
    CLP_REQUIRE(json_is_array(their_devices) && json_is_array(their_workloads), err, CLP_CASE,
                "%s is not a clpart bench.json: it lacks \"devices\" or \"workloads\"", path);
    const size_t offset = json_array_size(devices);
    size_t d, w, r;
    json_t *device, *theirs, *result;
    json_array_foreach(their_devices, d, device) {
        json_t *copy = json_deep_copy(device);
        json_object_set_new(copy, "source", json_string(path));
        json_array_append_new(devices, copy);
    }
    json_array_foreach(their_workloads, w, theirs) {
        const char *name = json_string_value(json_object_get(theirs, "name"));
        CLP_REQUIRE(name, err, CLP_CASE, "%s: workload %zu has no name", path, w);
        json_t *ours = NULL, *candidate;
        size_t k;
        json_array_foreach(workloads, k, candidate) {
            if (!strcmp(json_string_value(json_object_get(candidate, "name")), name))
                ours = candidate;
        }
        if (!ours) { /* a workload the files so far did not run */
            ours = json_pack("{s:s, s:O, s:o}", "name", name, "unit",
                             json_object_get(theirs, "unit") ? json_object_get(theirs, "unit")
                                                             : json_null(),
                             "results", json_array());
            json_array_append_new(workloads, ours);
        }
        json_array_foreach(json_object_get(theirs, "results"), r, result) {
            const json_int_t at = json_integer_value(json_object_get(result, "device"));
            CLP_REQUIRE(at >= 0 && (size_t)at < json_array_size(their_devices), err, CLP_CASE,
                        "%s: a result of workload %s names device %lld, which is not listed", path,
                        name, (long long)at);
            json_t *copy = json_deep_copy(result);
            json_object_set_new(copy, "device", json_integer(at + (json_int_t)offset));
            json_array_append_new(json_object_get(ours, "results"), copy);
        }
    }
fail:
    json_decref(bench);
    return st;
}

int cmd_report(int argc, char **argv, const clp_cli *cli) {
    (void)cli;
    clp_error err = CLP_ERROR_INIT;
    clp_status st = CLP_OK;
    const char *out = "report";
    json_t *doc = json_pack("{s:s, s:o, s:o, s:o}", "clpart", clp_version(), "sources",
                            json_array(), "devices", json_array(), "workloads", json_array());
    for (int i = 1; st == CLP_OK && i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] == '-')
            st = CLP_FAIL_AT(&err, CLP_USAGE, "command line", -1, -1,
                             "unknown flag '%s' (or it lacks its value)", argv[i]);
        else {
            json_array_append_new(json_object_get(doc, "sources"), json_string(argv[i]));
            st = merge(doc, argv[i], &err);
        }
    }
    if (st == CLP_OK && json_array_size(json_object_get(doc, "sources")) == 0)
        st = CLP_FAIL(&err, CLP_USAGE, "clpart report takes one or more bench.json files");
    char why[256], dir[1024];
    bool charted = false;
    char chart[1100];
    snprintf(dir, sizeof dir, "%s", out);
    if (st == CLP_OK && !clp__make_dirs(dir, why, sizeof why))
        st = CLP_FAIL_AT(&err, CLP_IO, out, -1, -1, "cannot make %s: %s", out, why);
    if (st == CLP_OK) {
        portability_compute(doc);
        st = portability_write(doc, out, "report", "clpart portability report", &charted, &err);
    }
    if (st == CLP_OK)
        printf("%zu devices from %zu files: %s/report.md, %s/report.json%s; "
               "Φ architectural %.3f, application %.3f\n",
               json_array_size(json_object_get(doc, "devices")),
               json_array_size(json_object_get(doc, "sources")), out, out,
               sweep_chart_mention(charted, out, "report.png", chart, sizeof chart),
               json_real_value(json_object_get(json_object_get(doc, "phi"), "architectural")),
               json_real_value(json_object_get(json_object_get(doc, "phi"), "application")));
    json_decref(doc);
    return st == CLP_OK ? CLP_EXIT_OK : cli_report(&err);
}
