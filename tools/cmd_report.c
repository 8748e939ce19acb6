/* clpart report BENCH.json... [--out DIR] [--split]: merges the bench.json files of several
 * machines (a GPU server, a laptop, a CI box) into one portability table: every device as a column,
 * every workload as a row, with both efficiencies, Φ and the arithmetic mean over the devices.
 * Only benches of one suite merge, each workload identified by the hash of its definition and
 * case file: a row never mixes two sizes of a workload; --split writes a report per suite. */
#include "base/json_file.h"
#include "cli_case.h"
#include "portability.h"
#include "sweep_engine.h"

#include <math.h>
#include <string.h>

static const char *text(const json_t *object, const char *key) {
    const char *s = json_string_value(json_object_get(object, key));
    return s ? s : "";
}

/* The workload of `bench` named `name`, or NULL. */
static const json_t *named(const json_t *bench, const char *name) {
    size_t w;
    json_t *workload;
    json_array_foreach(json_object_get(bench, "workloads"), w, workload) {
        if (!strcmp(text(workload, "name"), name))
            return workload;
    }
    return NULL;
}

/* 'its "patch" and "steps" differ': the keys whose values differ between two workload
 * definitions (a key in one only among them); nothing when none does. */
static void differing_keys(const json_t *a, const json_t *b, clp_strbuf *out) {
    json_t *keys = json_array();
    const json_t *sides[2][2] = {{a, b}, {b, a}};
    for (int s = 0; s < 2; s++) {
        const char *key;
        json_t *value;
        json_object_foreach((json_t *)sides[s][0], key, value) {
            const json_t *other = json_object_get(sides[s][1], key);
            if (s == 0 ? !json_equal(value, other) : !other)
                json_array_append_new(keys, json_string(key));
        }
    }
    const size_t n = json_array_size(keys);
    for (size_t k = 0; k < n; k++)
        clp__sb_appendf(out, "%s\"%s\"",
                        k == 0      ? "its "
                        : k + 1 < n ? ", "
                                    : " and ",
                        json_string_value(json_array_get(keys, k)));
    if (n)
        clp__sb_append(out, n > 1 ? " differ" : " differs");
    json_decref(keys);
}

/* How the workloads of benches a and b differ: the first that one of them lacks (when their
 * suites differ: a bench of the same suite may lack a workload it did not run) or defines
 * otherwise, and how; NULL when none does (new string). */
static char *first_difference(const json_t *a, const char *a_path, const json_t *b,
                              const char *b_path, bool same_suite) {
    const json_t *benches[2] = {a, b};
    const char *paths[2] = {a_path, b_path};
    clp_strbuf why = {0};
    for (int s = 0; s < 2 && !why.len; s++) {
        size_t w;
        json_t *workload;
        json_array_foreach(json_object_get(benches[s], "workloads"), w, workload) {
            const char *name = text(workload, "name");
            const json_t *other = named(benches[1 - s], name);
            if (!other && !same_suite) {
                clp__sb_appendf(&why, "workload %s is in %s's suite only", name, paths[s]);
                break;
            }
            if (!other ||
                !strcmp(text(workload, "definition_hash"), text(other, "definition_hash")))
                continue;
            clp__sb_appendf(&why, "workload %s: ", name);
            const size_t at = why.len;
            differing_keys(json_object_get(workload, "definition"),
                           json_object_get(other, "definition"), &why);
            if (why.len == at)
                clp__sb_appendf(&why, "its case file %s differs",
                                text(json_object_get(workload, "definition"), "case"));
            break;
        }
    }
    return why.len ? clp__sb_take(&why) : NULL;
}

/* Fails unless the bench.json at `path` names its suite and its workloads' definitions by
 * hash, and, when `first` is not NULL, is of the same suite as it with the same definitions. */
static clp_status check_mergeable(const json_t *bench, const char *path, const json_t *first,
                                  const char *first_path, clp_error *err) {
    clp_status st = CLP_OK;
    char *why = NULL;
    const json_t *suite = json_object_get(bench, "suite");
    bool hashed = json_is_string(json_object_get(suite, "hash"));
    size_t w;
    json_t *workload;
    json_array_foreach(json_object_get(bench, "workloads"), w, workload) {
        hashed &= json_is_string(json_object_get(workload, "definition_hash"));
    }
    CLP_REQUIRE(hashed, err, CLP_CASE,
                "%s was written by clpart %s before workloads were hashed; rerun the bench", path,
                json_is_string(json_object_get(bench, "clpart")) ? text(bench, "clpart")
                                                                 : "of an unknown version");
    if (!first)
        goto fail;
    const json_t *theirs = json_object_get(first, "suite");
    const bool same_suite = !strcmp(text(suite, "hash"), text(theirs, "hash"));
    why = first_difference(first, first_path, bench, path, same_suite);
    if (!same_suite)
        CLP_REQUIRE(false, err, CLP_CASE,
                    "%s (suite %s, %s) and %s (suite %s, %s) are of different suites: %s; "
                    "report each suite apart (--split)",
                    first_path, text(theirs, "name"), text(theirs, "hash"), path,
                    text(suite, "name"), text(suite, "hash"),
                    why ? why : "their settings outside the workloads differ");
    CLP_REQUIRE(!why, err, CLP_CASE,
                "%s and %s (suite %s) define a workload differently: %s; rerun them with one "
                "clpart",
                first_path, path, text(suite, "name"), why);
fail:
    free(why);
    return st;
}

/* Appends the devices and results of the bench.json at `path` to `doc`; `first` is the first
 * bench merged (NULL for the first itself, which gives the report its suite). */
static clp_status merge(json_t *doc, const char *path, const json_t *bench, const json_t *first,
                        const char *first_path, clp_error *err) {
    clp_status st = CLP_OK;
    json_t *devices = json_object_get(doc, "devices"),
           *workloads = json_object_get(doc, "workloads");
    const json_t *their_devices = json_object_get(bench, "devices");
    const json_t *their_workloads = json_object_get(bench, "workloads");
    CLP_REQUIRE(json_is_array(their_devices) && json_is_array(their_workloads), err, CLP_CASE,
                "%s is not a clpart bench.json: it lacks \"devices\" or \"workloads\"", path);
    CLP_TRY(check_mergeable(bench, path, first, first_path, err));
    if (!first)
        json_object_set(doc, "suite", json_object_get(bench, "suite"));
    json_array_append_new(json_object_get(doc, "sources"),
                          json_pack("{s:s, s:s}", "file", path, "clpart", text(bench, "clpart")));
    const size_t offset = json_array_size(devices);
    size_t d, w, r;
    json_t *device, *theirs, *result;
    json_array_foreach(their_devices, d, device) {
        json_t *copy = json_deep_copy(device);
        json_object_set_new(copy, "source", json_string(path));
        json_array_append_new(devices, copy);
    }
    json_array_foreach(their_workloads, w, theirs) {
        const char *hash = text(theirs, "definition_hash");
        json_t *ours = NULL, *candidate;
        size_t k;
        json_array_foreach(workloads, k, candidate) {
            if (!strcmp(text(candidate, "definition_hash"), hash))
                ours = candidate;
        }
        if (!ours) { /* a workload the files so far did not run */
            ours = json_deep_copy(theirs);
            json_object_set_new(ours, "results", json_array());
            json_array_append_new(workloads, ours);
        }
        json_array_foreach(json_object_get(theirs, "results"), r, result) {
            const json_int_t at = json_integer_value(json_object_get(result, "device"));
            CLP_REQUIRE(at >= 0 && (size_t)at < json_array_size(their_devices), err, CLP_CASE,
                        "%s: a result of workload %s names device %lld, which is not listed", path,
                        text(theirs, "name"), (long long)at);
            json_t *copy = json_deep_copy(result);
            json_object_set_new(copy, "device", json_integer(at + (json_int_t)offset));
            json_array_append_new(json_object_get(ours, "results"), copy);
        }
    }
fail:
    return st;
}

/* A warning on stderr when the files were written by different versions of clpart (report.md
 * lists each file's version). */
static void warn_versions(const json_t *doc) {
    const json_t *sources = json_object_get(doc, "sources");
    bool differ = false;
    size_t k;
    json_t *source;
    json_array_foreach(sources, k, source) {
        differ |= strcmp(text(source, "clpart"), text(json_array_get(sources, 0), "clpart")) != 0;
    }
    if (!differ)
        return;
    fprintf(stderr, "clpart: warning: the files were written by different versions of clpart:");
    json_array_foreach(sources, k, source) {
        fprintf(stderr, "%s %s by %s", k ? "," : "", text(source, "file"), text(source, "clpart"));
    }
    fprintf(stderr, "\n");
}

/* The report in `out` of the loaded benches ({"path", "bench"} each) of the suite whose hash is
 * `suite` (NULL: of them all). */
static clp_status report(const json_t *loaded, const char *suite, const char *out, clp_error *err) {
    clp_status st = CLP_OK;
    const json_t *first = NULL;
    const char *first_path = NULL;
    json_t *doc = json_pack("{s:s, s:n, s:[], s:[], s:[]}", "clpart", clp_version(), "suite",
                            "sources", "devices", "workloads");
    size_t k;
    json_t *item;
    json_array_foreach(loaded, k, item) {
        const json_t *bench = json_object_get(item, "bench");
        if (suite && strcmp(text(json_object_get(bench, "suite"), "hash"), suite) != 0)
            continue;
        CLP_TRY(merge(doc, text(item, "path"), bench, first, first_path, err));
        if (!first) {
            first = bench;
            first_path = text(item, "path");
        }
    }
    char why[256], dir[1024], charts[2400] = "";
    snprintf(dir, sizeof dir, "%s", out);
    CLP_REQUIRE(clp__make_dirs(dir, why, sizeof why), err, CLP_IO, "cannot make %s: %s", out, why);
    warn_versions(doc);
    CLP_TRY(portability_compute(doc, err));
    CLP_TRY(portability_write(doc, out, "report", "clpart portability report", charts,
                              sizeof charts, err));
    char phi[128];
    portability_phi_text(doc, phi, sizeof phi);
    printf("%zu devices from %zu files: %s/report.md, %s/report.json%s; %s\n",
           json_array_size(json_object_get(doc, "devices")),
           json_array_size(json_object_get(doc, "sources")), out, out, charts, phi);
fail:
    json_decref(doc);
    return st;
}

/* With --split: a report per suite, in DIR/NAME (DIR/NAME-HASH when two suites of the files
 * share a name). */
static clp_status split(const json_t *loaded, const char *out, clp_error *err) {
    clp_status st = CLP_OK;
    json_t *suites = json_array(); /* each suite once, in the order of the files */
    size_t k, j;
    json_t *item, *seen;
    json_array_foreach(loaded, k, item) {
        const json_t *suite = json_object_get(json_object_get(item, "bench"), "suite");
        bool known = false;
        json_array_foreach(suites, j, seen) {
            known |= !strcmp(text(seen, "hash"), text(suite, "hash"));
        }
        if (!known)
            json_array_append_new(suites, json_pack("{s:s, s:s}", "name", text(suite, "name"),
                                                    "hash", text(suite, "hash")));
    }
    json_array_foreach(suites, k, item) {
        bool shared = false;
        json_array_foreach(suites, j, seen) {
            shared |= j != k && !strcmp(text(seen, "name"), text(item, "name"));
        }
        clp_strbuf dir = {0};
        clp__sb_appendf(&dir, "%s/%s%s%s", out, text(item, "name"), shared ? "-" : "",
                        shared ? text(item, "hash") : "");
        char *path = clp__sb_take(&dir);
        st = path ? report(loaded, text(item, "hash"), path, err)
                  : CLP_FAIL(err, CLP_NOMEM, "out of host memory");
        free(path);
        CLP_TRY(st);
    }
fail:
    json_decref(suites);
    return st;
}

/* A record of a result ("default", "best"): a whole status (a run that went well has a finite
 * positive rate), and every bound and cost it gives a finite number of at least 0. */
static bool record_ok(const json_t *record) {
    static const char *const measures[] = {"throughput_min",  "throughput_max", "throughput_low",
                                           "throughput_high", "bytes_per_unit", "flops_per_unit"};
    if (!sweep_record_status_whole(record))
        return false;
    for (size_t k = 0; k < sizeof measures / sizeof *measures; k++) {
        const json_t *v = json_object_get(record, measures[k]);
        const double x = json_number_value(v);
        if (v && !(json_is_number(v) && isfinite(x) && x >= 0))
            return false;
    }
    return true;
}

/* bench.json as clpart bench writes it: devices and workloads, each result on one of its
 * devices with whole records (the hashes are check_mergeable's); the first fault is named with
 * its place. */
static clp_status check_bench(const char *path, const json_t *bench, clp_error *err) {
    clp_status st = CLP_OK;
    const json_t *devices = json_object_get(bench, "devices"),
                 *workloads = json_object_get(bench, "workloads"), *workload, *result;
    CLP_REQUIRE(json_is_array(devices) && json_is_array(workloads), err, CLP_CASE,
                "%s is not a clpart bench.json: it lacks \"devices\" or \"workloads\"", path);
    size_t w, r;
    json_array_foreach(workloads, w, workload) {
        const char *name = json_string_value(json_object_get(workload, "name"));
        CLP_REQUIRE(name && json_is_array(json_object_get(workload, "results")), err, CLP_CASE,
                    "%s: workload %zu lacks its name or its results", path, w);
        json_array_foreach(json_object_get(workload, "results"), r, result) {
            const json_t *device = json_object_get(result, "device");
            const json_t *chosen[] = {json_object_get(result, "default"),
                                      json_object_get(result, "best")};
            bool whole = json_is_integer(device) && json_integer_value(device) >= 0 &&
                         (size_t)json_integer_value(device) < json_array_size(devices) &&
                         json_is_string(json_object_get(result, "status"));
            for (size_t k = 0; k < 2; k++)
                whole = whole && (!chosen[k] || record_ok(chosen[k]));
            CLP_REQUIRE(whole, err, CLP_CASE,
                        "%s: workload %s, result %zu: not a whole result (its device, status, or "
                        "a rate that is not a finite positive number)",
                        path, name, r);
        }
    }
fail:
    return st;
}

int cmd_report(int argc, char **argv, const clp_cli *cli) {
    (void)cli;
    clp_error err = CLP_ERROR_INIT;
    clp_status st = CLP_OK;
    const char *out = "report";
    bool by_suite = false;
    json_t *loaded = json_array();
    for (int i = 1; st == CLP_OK && i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--split"))
            by_suite = true;
        else if (argv[i][0] == '-')
            st = CLP_FAIL_AT(&err, CLP_USAGE, "command line", -1, -1,
                             "unknown flag '%s' (or it lacks its value)", argv[i]);
        else {
            json_t *bench = NULL, *entry;
            size_t k;
            st = clp__json_load(argv[i], CLP_CASE, &bench, &err);
            if (st == CLP_OK)
                st = check_bench(argv[i], bench, &err);
            json_array_foreach(loaded, k, entry) /* one device's results counted twice */
                if (st == CLP_OK && json_equal(json_object_get(entry, "bench"), bench)) st =
                    CLP_FAIL_AT(&err, CLP_USAGE, "command line", -1, -1,
                                "%s and %s hold the same bench: give each once",
                                json_string_value(json_object_get(entry, "path")), argv[i]);
            if (st == CLP_OK)
                json_array_append_new(loaded,
                                      json_pack("{s:s, s:o}", "path", argv[i], "bench", bench));
            else
                json_decref(bench);
        }
    }
    if (st == CLP_OK && json_array_size(loaded) == 0)
        st = CLP_FAIL(&err, CLP_USAGE, "clpart report takes one or more bench.json files");
    if (st == CLP_OK)
        st = by_suite ? split(loaded, out, &err) : report(loaded, NULL, out, &err);
    json_decref(loaded);
    return st == CLP_OK ? CLP_EXIT_OK : cli_report(&err);
}
