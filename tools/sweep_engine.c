/* What clpart sweep and clpart bench share: device selection, one option set run into a
 * result record, and the results.jsonl file (see sweep_engine.h). */
#include "base/json_file.h"
#include "sweep_engine.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

static json_t *device_identity(const clp_device_info *d) {
    return json_pack("{s:I, s:s, s:s, s:s, s:s}", "index", (json_int_t)d->index, "name", d->name,
                     "platform", d->platform_name, "driver", d->driver_version, "type",
                     clp_device_type_name(d->type));
}

bool sweep_selects_all(const char *selectors) {
    return !strncmp(selectors, "all", 3) && (selectors[3] == '\0' || selectors[3] == ':');
}

clp_status sweep_devices_select(sweep_devices *d, const char *selectors, bool repeats,
                                const clp_cli *cli, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp_device_list_create(&d->list, err));
    if (selectors && sweep_selects_all(selectors)) {
        /* "all", or "all:NAME": every device whose implementation, vendor or name matches */
        const char *name = selectors[3] == ':' ? selectors + 4 : NULL;
        const size_t n = clp_device_list_count(d->list);
        for (size_t i = 0; i < n && d->n < SWEEP_MAX_DEVICES; i++)
            if (!name || clp__device_matches_name(clp_device_list_get(d->list, i), name))
                d->devices[d->n++] = clp_device_list_get(d->list, i);
        CLP_REQUIRE(d->n > 0, err, CLP_NO_DEVICE, "--devices '%s' names no device", selectors);
    } else if (selectors) {
        char *list = strdup(selectors), *save = NULL;
        const clp_device_info *shared = NULL;
        CLP_REQUIRE_ALLOC(list, err);
        for (char *sel = strtok_r(list, ",", &save); sel && st == CLP_OK;
             sel = strtok_r(NULL, ",", &save)) {
            const clp_device_info *dev;
            st = clp_device_select(d->list, sel, &dev, err);
            for (size_t k = 0; st == CLP_OK && k < d->n; k++)
                if (d->devices[k] == dev && !repeats)
                    st = CLP_FAIL(err, CLP_USAGE, "--devices names device %zu (%s) twice",
                                  dev->index, dev->name);
                else if (d->devices[k] == dev)
                    shared = dev;
            if (st == CLP_OK && d->n == SWEEP_MAX_DEVICES)
                st = CLP_FAIL(err, CLP_USAGE, "--devices names more than %d devices",
                              SWEEP_MAX_DEVICES);
            if (st == CLP_OK)
                d->devices[d->n++] = dev;
        }
        free(list);
        CLP_TRY(st);
        CLP_REQUIRE(d->n > 0, err, CLP_USAGE, "--devices '%s' names no device", selectors);
        if (shared) /* a split tested on one device, never a speed-up */
            CLP_WARN(CLP_LOG_RUN,
                     "--devices names device %zu (%s) more than once: its ranks share it, one "
                     "after the other (a test of the split, not a faster run)",
                     shared->index, shared->name);
    } else {
        CLP_TRY(clp_device_select(d->list, cli->device, &d->devices[0], err));
        d->n = 1;
    }
    for (size_t k = 0; k < d->n; k++)
        d->identities[k] = device_identity(d->devices[k]);
fail:
    return st;
}

void sweep_devices_free(sweep_devices *d) {
    for (size_t k = 0; k < d->n; k++)
        json_decref(d->identities[k]);
    clp_device_list_destroy(d->list);
}

static void observe(const sweep_plan *plan, const char *phase, const char *unit, size_t samples,
                    double rate, double spread) {
    if (plan->observe)
        plan->observe(plan->observer, &(sweep_observation){phase, unit, samples, rate, spread});
}

/* The rates of the timed runs in `record`: every sample, their median, least and largest,
 * the interval of the median and its relative width, and whether it met the target. */
static void record_samples(json_t *record, const double *rates, size_t n, double seconds,
                           bool stable) {
    double sorted[SWEEP_MAX_SAMPLES], low, high;
    json_t *runs = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(runs, json_real(rates[i]));
        sorted[i] = rates[i];
    }
    const double median = clp__median(sorted, n); /* sorts */
    sweep_interval(sorted, n, &low, &high);
    const double spread = sweep_spread(rates, n);
    json_object_set_new(record, "runs", runs);
    json_object_set_new(record, "samples", json_integer((json_int_t)n));
    json_object_set_new(record, "timed_seconds", json_real(seconds));
    json_object_set_new(record, "throughput", json_real(median));
    json_object_set_new(record, "throughput_min", json_real(sorted[0]));
    json_object_set_new(record, "throughput_max", json_real(sorted[n - 1]));
    json_object_set_new(record, "throughput_low", json_real(low));
    json_object_set_new(record, "throughput_high", json_real(high));
    json_object_set_new(record, "spread", spread >= 0 ? json_real(spread) : json_null());
    json_object_set_new(record, "stable", json_boolean(stable));
}

/* A built option set's runs: a one-step warm-up (the program loaded, the first launches made,
 * the clocks up), then timed ones until plan->timing says stop (sweep_timing_next); their
 * rates, their cost per unit of work and the last run's diagnostics go into `record`.
 * *pruned: the warm-up ran slower than plan->prune_below twice, and nothing was timed. The
 * second warm-up step is needed on a CPU: PoCL compiles each kernel at its first launch,
 * which made the first step of a variant run 3 to 4 times slower than its timed steps and
 * pruned variants that were not slow. */
static clp_status time_runs(const sweep_plan *plan, const cli_session *s, const clp_model *model,
                            const clp_options *opts, json_t *record, bool *pruned, clp_error *err) {
    clp_status st = CLP_OK;
    double rates[SWEEP_MAX_SAMPLES];
    clp_run_result result = {0};
    clp_run_config config = plan->limits;
    config.cache = s->cache;
    config.stop_requested = &cli_stop_signal;
    config.result = &result;
    config.max_steps = 1;
    const char *unit = model->throughput_unit;
    double warmup = 0;
    observe(plan, "warm-up", unit, 0, 0, -1);
    for (int w = 0; w == 0 || (w == 1 && warmup < plan->prune_below); w++) {
        CLP_TRY(model->run(s->worker, opts, plan->case_path, &config, err));
        warmup = result.seconds > 0 ? result.work / result.seconds : 0.0;
        json_object_set_new(record, "warmup_throughput", json_real(warmup));
    }
    *pruned = warmup < plan->prune_below;
    if (*pruned)
        goto fail;
    config.max_steps = plan->limits.max_steps;
    size_t n = 0;
    double spent = 0;
    sweep_next next;
    do {
        const double start = clp__now();
        CLP_TRY(model->run(s->worker, opts, plan->case_path, &config, err));
        spent += clp__now() - start;
        rates[n] = result.seconds > 0 ? result.work / result.seconds : 0.0;
        n++;
        observe(plan, "timing", unit, n, rates[n - 1], sweep_spread(rates, n));
    } while ((next = sweep_timing_next(&plan->timing, rates, n, spent)) == SWEEP_MORE);
    record_samples(record, rates, n, spent, next == SWEEP_STABLE);
    const double median = json_real_value(json_object_get(record, "throughput"));
    json_object_set_new(record, "steps", json_integer((json_int_t)result.steps));
    json_object_set_new(record, "work", json_real(result.work));
    json_object_set_new(record, "run_seconds", json_real(median > 0 ? result.work / median : 0));
    if (result.work > 0) {
        json_object_set_new(record, "bytes_per_unit", json_real(result.bytes / result.work));
        json_object_set_new(record, "flops_per_unit", json_real(result.flops / result.work));
    }
    json_t *diagnostics = json_object();
    for (size_t i = 0; i < result.n_values; i++)
        json_object_set_new(diagnostics, result.values[i].name, json_real(result.values[i].value));
    json_object_set_new(record, "diagnostics", diagnostics);
    if (result.chosen[0]) /* the program the run chose (lj.strategy=auto) */
        json_object_set_new(record, "chosen", json_string(result.chosen));
fail:
    return st;
}

clp_status sweep_run_options(const sweep_plan *plan, const cli_session *s, json_t *options,
                             json_t *record, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *opts = NULL;
    char *source = NULL;
    const char *status = "refused";
    const clp_model *model = NULL;
    const char *name;
    json_t *value;
    clp_error e = CLP_ERROR_INIT;
    const double start = clp__now();
/* a failure is this option set's record, not the caller's error */
#define RECORD_FAILURE(call)                                                                       \
    do {                                                                                           \
        if ((call) != CLP_OK)                                                                      \
            goto recorded;                                                                         \
    } while (0)
    RECORD_FAILURE(clp_options_create(plan->schema, &opts, &e));
    /* as clpart run takes them: the case, its preset, then each -s */
    const char *preset = json_string_value(json_object_get(options, "preset"));
    RECORD_FAILURE(clp_options_apply_case(opts, plan->case_path, &preset, preset ? 1 : 0, &e));
    json_object_foreach(options, name, value) {
        if (!strcmp(name, "preset"))
            continue;
        clp_strbuf text = {0};
        clp__sb_appendf(&text, "%s=%s", name, json_string_value(value));
        char *assignment = clp__sb_take(&text);
        if (!assignment) {
            CLP_FAIL(&e, CLP_NOMEM, "out of host memory");
            goto recorded;
        }
        const clp_status applied = clp_options_apply_assignment(opts, assignment, &e);
        free(assignment);
        RECORD_FAILURE(applied);
    }
    RECORD_FAILURE(clp_options_check(opts, &e));
    RECORD_FAILURE(clp_model_find(clp_options_model(opts), &model, &e));
    if (!model->run) {
        CLP_FAIL(&e, CLP_CASE, "model %s is run by %s, not swept", model->name, model->runner);
        goto recorded;
    }
    json_object_set_new(record, "model", json_string(model->name));
    json_object_set_new(record, "unit", json_string(model->throughput_unit));
    if (clp_model_run_chooses(model, opts)) {
        /* its builds and the timing of its candidates fall in the warm-up */
        json_object_set_new(record, "program", json_string("chosen by the run"));
    } else {
        RECORD_FAILURE(
            model->source(opts, clp_worker_device(s->worker), plan->case_path, &source, &e));
        clp_build_report report;
        status = "build failed";
        observe(plan, "building", model->throughput_unit, 0, 0, -1);
        RECORD_FAILURE(clp_worker_build_for(s->worker, source, opts, s->cache, &report, &e));
        json_object_set_new(record, "build_seconds", json_real(report.seconds));
        json_object_set_new(record, "cache_hit", json_boolean(report.cache_hit));
    }
    /* what comes before the runs: options, source, build or cache hit */
    json_object_set_new(record, "prepare_seconds", json_real(clp__now() - start));
    status = "run failed";
    bool pruned;
    RECORD_FAILURE(time_runs(plan, s, model, opts, record, &pruned, &e));
    status = pruned ? "pruned" : "ok";
    if (pruned) {
        char why[256];
        snprintf(why, sizeof why, "its one-step warm-up ran at %.3g %s, below %.3g: not timed",
                 json_real_value(json_object_get(record, "warmup_throughput")),
                 model->throughput_unit, plan->prune_below);
        json_object_set_new(record, "reason", json_string(why));
    }
recorded:
    json_object_set_new(record, "status", json_string(status));
    if (e.message[0]) {
        json_object_set_new(record, "reason", json_string(e.message));
        json_object_set_new(record, "error", json_string(clp_status_name(e.status)));
    }
    if (e.status == CLP_INTERRUPTED || cli_stop_signal)
        st = CLP_FAIL(err, CLP_INTERRUPTED, "stopped by a signal");
    free(source);
    clp_options_destroy(opts);
    return st;
#undef RECORD_FAILURE
}

clp_status sweep_plan_flag(int argc, char **argv, int *i, sweep_plan *plan, bool *taken,
                           clp_error *err) {
    clp_status st = CLP_OK;
    const char *flag = argv[*i];
    *taken = *i + 1 < argc &&
             (!strcmp(flag, "--steps") || !strcmp(flag, "--time") || !strcmp(flag, "--repeat") ||
              !strcmp(flag, "--spread") || !strcmp(flag, "--budget"));
    if (!*taken)
        return CLP_OK;
    const char *text = argv[++*i];
    if (!strcmp(flag, "--steps"))
        CLP_TRY(cli_positive(flag, text, true, &plan->limits.max_steps, NULL, err));
    else if (!strcmp(flag, "--time"))
        CLP_TRY(cli_positive(flag, text, false, NULL, &plan->limits.max_time, err));
    else if (!strcmp(flag, "--repeat")) {
        uint64_t r;
        CLP_TRY(cli_positive(flag, text, true, &r, NULL, err));
        CLP_REQUIRE(r <= SWEEP_MAX_SAMPLES, err, CLP_USAGE,
                    "--repeat takes at most %d runs, not %llu", SWEEP_MAX_SAMPLES,
                    (unsigned long long)r);
        plan->timing.min_repeat = (int)r;
    } else if (!strcmp(flag, "--spread"))
        CLP_TRY(cli_positive(flag, text, false, NULL, &plan->timing.spread, err));
    else {
        char *end;
        errno = 0;
        const double budget = strtod(text, &end); /* 0: no run beyond --repeat */
        CLP_REQUIRE(end != text && !*end && !errno && budget >= 0 && isfinite(budget), err,
                    CLP_USAGE, "--budget takes a number of seconds of at least 0, not '%s'", text);
        plan->timing.budget = budget;
    }
fail:
    return st;
}

clp_status sweep_out_dir(const char *out, const char *folder, const char *case_path, char *dir,
                         size_t dir_size, char *results, size_t results_size, clp_error *err) {
    clp_status st = CLP_OK;
    char *stem = out ? NULL : cli_file_stem(case_path);
    CLP_REQUIRE(out || stem, err, CLP_NOMEM, "out of host memory");
    const int length =
        out ? snprintf(dir, dir_size, "%s", out) : snprintf(dir, dir_size, "%s/%s", folder, stem);
    CLP_REQUIRE(length >= 0 && (size_t)length < dir_size, err, CLP_USAGE,
                "the output folder's path is longer than %zu characters", dir_size - 1);
    snprintf(results, results_size, "%s/results.jsonl", dir);
fail:
    free(stem);
    return st;
}

clp_status sweep_measure(const sweep_plan *plan, const cli_session *s, const clp_device_info *dev,
                         const json_t *identity, const char *label, json_t *options,
                         sweep_store *store, json_t **out, clp_error *err) {
    clp_status st = CLP_OK;
    char hash[17], *key = NULL;
    json_t *record = NULL;
    CLP_TRY(cli_file_hash(plan->case_path, hash, err));
    record = sweep_record_new(plan, hash, NULL, options, identity);
    key = sweep_record_key(record);
    CLP_REQUIRE_ALLOC(key, err);
    json_t *known = json_object_get(store->done, key);
    if (known) {
        *out = json_incref(known);
        goto fail;
    }
    if (label)
        json_object_set_new(record, "workload", json_string(label));
    const double started = sweep_unix_time(), start = clp__now();
    st = sweep_run_options(plan, s, options, record, err);
    json_object_set_new(record, "started", json_real(started));
    json_object_set_new(record, "seconds", json_real(clp__now() - start));
    if (st == CLP_OK)
        st = sweep_results_append(store->path, record, err);
    if (st == CLP_OK) {
        char *text = sweep_options_text(options);
        fprintf(stderr, "device %zu: %s%s%s: %s", dev->index, label ? label : "", label ? " " : "",
                text && *text ? text : "defaults",
                json_string_value(json_object_get(record, "status")));
        free(text);
        if (json_object_get(record, "throughput"))
            fprintf(stderr, ", %.4g %s", json_real_value(json_object_get(record, "throughput")),
                    json_string_value(json_object_get(record, "unit")));
        fprintf(stderr, " (%.1f s)\n", clp__now() - start);
        json_object_set(store->done, key, record);
        *out = json_incref(record);
    }
fail:
    free(key);
    json_decref(record);
    return st;
}

double sweep_unix_time(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

char *sweep_record_key(const json_t *record) {
    static const char *const parts[] = {"case_hash", "case_parameters", "options",
                                        "device",    "limits",          "timing"};
    json_t *key = json_object();
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        json_t *part = json_object_get(record, parts[i]);
        json_object_set(key, parts[i], part ? part : json_null());
    }
    char *text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(key);
    return text;
}

bool sweep_record_status_whole(const json_t *record) {
    const char *status = json_string_value(json_object_get(record, "status"));
    const json_t *rate = json_object_get(record, "throughput");
    return json_is_object(record) && status &&
           (strcmp(status, "ok") != 0 ||
            (json_is_number(rate) && isfinite(json_number_value(rate)) &&
             json_number_value(rate) > 0));
}

/* Whether a line of results.jsonl is a record as sweep and bench write them: its identity, and
 * a whole status. */
static bool record_whole(const json_t *record) {
    return sweep_record_status_whole(record) &&
           json_is_string(json_object_get(record, "case_hash")) &&
           json_is_object(json_object_get(record, "options"));
}

clp_status sweep_results_load(const char *path, bool any_version, json_t **out, clp_error *err) {
    json_t *done = *out = json_object();
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? CLP_OK
                               : CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot read %s: %s", path,
                                             strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int number = 0;
    ssize_t length;
    off_t whole = 0; /* where the last line ending in a newline ends */
    bool torn = false;
    while ((length = getline(&line, &cap, f)) > 0) {
        number++;
        torn = line[length - 1] != '\n';
        if (torn) /* a stop or a full disk mid-write: removed below, and run again */
            break;
        whole += length;
        json_t *record = json_loads(line, 0, NULL);
        const char *version = json_string_value(json_object_get(record, "version"));
        if (!record_whole(record))
            fprintf(stderr, "clpart: warning: %s:%d is not a whole result; it is run again\n", path,
                    number);
        else if (any_version || (version && !strcmp(version, clp_version()))) {
            char *key = sweep_record_key(record);
            if (key)
                json_object_set(done, key, record);
            free(key);
        }
        json_decref(record);
    }
    free(line);
    fclose(f);
    if (torn && truncate(path, whole) != 0)
        return CLP_FAIL_AT(err, CLP_IO, path, number, -1,
                           "%s:%d is a torn record, and it cannot be cut off: %s", path, number,
                           strerror(errno));
    if (torn)
        fprintf(stderr,
                "clpart: warning: %s:%d was a torn record (a stop mid-write): cut off, "
                "and it is run again\n",
                path, number);
    return CLP_OK;
}

clp_status sweep_results_append(const char *path, json_t *record, clp_error *err) {
    char *text = json_dumps(record, JSON_COMPACT | JSON_PRESERVE_ORDER);
    FILE *f = text ? fopen(path, "a") : NULL;
    bool ok = f && fprintf(f, "%s\n", text) > 0 && fflush(f) == 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(text);
    return ok ? CLP_OK
              : CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot append to %s: %s", path,
                            strerror(errno));
}

json_t *sweep_record_new(const sweep_plan *plan, const char *case_hash, const json_t *parameters,
                         const json_t *options, const json_t *identity) {
    json_t *record = json_pack("{s:s, s:s}", "case", plan->case_path, "case_hash", case_hash);
    if (parameters)
        json_object_set(record, "case_parameters", (json_t *)parameters);
    json_object_set(record, "options", (json_t *)options);
    json_object_set(record, "device", (json_t *)identity);
    json_object_set_new(record, "version", json_string(clp_version()));
    json_object_set_new(record, "limits",
                        json_pack("{s:I, s:f}", "max_steps", (json_int_t)plan->limits.max_steps,
                                  "max_time", plan->limits.max_time));
    json_object_set_new(record, "timing",
                        json_pack("{s:i, s:f, s:f}", "min_repeat", plan->timing.min_repeat,
                                  "spread_target", plan->timing.spread, "budget_seconds",
                                  plan->timing.budget));
    return record;
}

clp_status sweep_case_patch(const char *source, const json_t *patch, char **text, clp_error *err) {
    clp_status st = CLP_OK;
    json_t *c;
    *text = NULL;
    CLP_TRY(clp__json_load(source, CLP_CASE, &c, err));
    CLP_REQUIRE(!patch || json_object_update_recursive(c, (json_t *)patch) == 0, err, CLP_CASE,
                "%s: a case patch must be an object", source);
    *text = json_dumps(c, JSON_INDENT(2) | JSON_SORT_KEYS);
    CLP_REQUIRE_ALLOC(*text, err);
fail:
    json_decref(c);
    return st;
}

clp_status sweep_write_text(const char *path, const char *text, clp_error *err) {
    /* a temporary file renamed over `path`: another thread may be reading the same case */
    clp_strbuf name = {0};
    clp__sb_appendf(&name, "%s.XXXXXX", path);
    char *temporary = clp__sb_take(&name);
    const int fd = temporary ? mkstemp(temporary) : -1;
    FILE *f = fd >= 0 && fchmod(fd, 0644) == 0 ? fdopen(fd, "w") : NULL; /* mkstemp's 0600 */
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f)
        ok = fclose(f) == 0 && ok;
    else if (fd >= 0)
        close(fd);
    ok = ok && rename(temporary, path) == 0;
    const int error = errno;
    if (!ok && fd >= 0)
        remove(temporary);
    free(temporary);
    return ok ? CLP_OK
              : CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot write %s: %s", path,
                            strerror(error));
}

void sweep_hash_text(const char *text, size_t size, char hash[17]) {
    snprintf(hash, 17, "%016llx", (unsigned long long)XXH64(text, size, 0));
}

char *sweep_options_text(const json_t *options) {
    const char *name;
    json_t *value;
    clp_strbuf text = {0};
    clp__sb_append(&text, "");
    json_object_foreach((json_t *)options, name, value) {
        clp__sb_appendf(&text, "%s%s=%s", text.len ? " " : "", name, json_string_value(value));
    }
    return clp__sb_take(&text);
}

void sweep_csv_field(FILE *f, const char *text) {
    fputc('"', f);
    for (const char *c = text ? text : ""; *c; c++) {
        if (*c == '"')
            fputc('"', f);
        fputc(*c == '\n' ? ' ' : *c, f);
    }
    fputc('"', f);
}

clp_status sweep_gnuplot(const char *dir, const char *script, const char *chart, bool *drawn,
                         clp_error *err) {
    *drawn = false;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "clpart: note: gnuplot is not installed: no %s/%s\n", dir, chart);
        return CLP_OK;
    }
    char command[2048];
    snprintf(command, sizeof command, "cd '%s' && gnuplot '%s' 2>&1", dir, script);
    if (strchr(dir, '\'') || strchr(script, '\'') || system(command) != 0)
        return CLP_FAIL(err, CLP_IO, "gnuplot could not draw %s/%s (see %s/%s)", dir, chart, dir,
                        script);
    *drawn = true;
    return CLP_OK;
}

const char *sweep_chart_mention(bool drawn, const char *dir, const char *chart, char *buf,
                                size_t size) {
    buf[0] = '\0';
    if (drawn)
        snprintf(buf, size, ", %s/%s", dir, chart);
    return buf;
}
