/* What clpart sweep and clpart bench share: device selection, one option set run into a
 * result record, and the results.jsonl file (see sweep_engine.h). */
#include "sweep_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static json_t *device_identity(const clp_device_info *d) {
    return json_pack("{s:I, s:s, s:s, s:s, s:s}", "index", (json_int_t)d->index, "name", d->name,
                     "platform", d->platform_name, "driver", d->driver_version, "type",
                     clp_device_type_name(d->type));
}

clp_status sweep_devices_select(sweep_devices *d, const char *selectors, bool repeats,
                                const clp_cli *cli, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp_device_list_create(&d->list, err));
    if (selectors && !strcmp(selectors, "all")) {
        const size_t n = clp_device_list_count(d->list);
        for (size_t i = 0; i < n && i < SWEEP_MAX_DEVICES; i++)
            d->devices[d->n++] = clp_device_list_get(d->list, i);
    } else if (selectors) {
        char *list = strdup(selectors), *save = NULL;
        CLP_REQUIRE_ALLOC(list, err);
        for (char *sel = strtok_r(list, ",", &save); sel && st == CLP_OK;
             sel = strtok_r(NULL, ",", &save)) {
            const clp_device_info *dev;
            st = clp_device_select(d->list, sel, &dev, err);
            for (size_t k = 0; st == CLP_OK && !repeats && k < d->n; k++)
                if (d->devices[k] == dev)
                    st = CLP_FAIL(err, CLP_USAGE, "--devices names device %zu (%s) twice",
                                  dev->index, dev->name);
            if (st == CLP_OK && d->n == SWEEP_MAX_DEVICES)
                st = CLP_FAIL(err, CLP_USAGE, "--devices names more than %d devices",
                              SWEEP_MAX_DEVICES);
            if (st == CLP_OK)
                d->devices[d->n++] = dev;
        }
        free(list);
        CLP_TRY(st);
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

/* A built option set's runs: a one-step warm-up (the program loaded, the first launches made,
 * the clocks up), then `repeat` timed ones; their rates, their cost per unit of work and the
 * last run's diagnostics go into `record`. *pruned: the warm-up ran slower than
 * plan->prune_below twice, and nothing was timed. The second warm-up step is needed on a CPU:
 * PoCL compiles each kernel at its first launch, which made the first step of a variant run
 * 3 to 4 times slower than its timed steps and pruned variants that were not slow. */
static clp_status time_runs(const sweep_plan *plan, const cli_session *s, const clp_model *model,
                            const clp_options *opts, json_t *record, bool *pruned, clp_error *err) {
    clp_status st = CLP_OK;
    double rates[64];
    clp_run_result result = {0};
    clp_run_config config = plan->limits;
    config.cache = s->cache;
    config.stop_requested = &cli_stop_signal;
    config.result = &result;
    config.max_steps = 1;
    double warmup = 0;
    for (int w = 0; w == 0 || (w == 1 && warmup < plan->prune_below); w++) {
        CLP_TRY(model->run(s->worker, opts, plan->case_path, &config, err));
        warmup = result.seconds > 0 ? result.work / result.seconds : 0.0;
        json_object_set_new(record, "warmup_throughput", json_real(warmup));
    }
    *pruned = warmup < plan->prune_below;
    if (*pruned)
        goto fail;
    config.max_steps = plan->limits.max_steps;
    json_t *runs = json_array();
    json_object_set_new(record, "runs", runs);
    for (int r = 0; r < plan->repeat; r++) {
        CLP_TRY(model->run(s->worker, opts, plan->case_path, &config, err));
        rates[r] = result.seconds > 0 ? result.work / result.seconds : 0.0;
        json_array_append_new(runs, json_real(rates[r]));
    }
    const double median = clp__median(rates, (size_t)plan->repeat);
    json_object_set_new(record, "throughput", json_real(median));
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
    if (clp_model_run_chooses(model, opts)) {
        /* its builds and the timing of its candidates fall in the warm-up */
        json_object_set_new(record, "program", json_string("chosen by the run"));
    } else {
        RECORD_FAILURE(
            model->source(opts, clp_worker_device(s->worker), plan->case_path, &source, &e));
        clp_build_report report;
        status = "build failed";
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

void sweep_record_key(const char *case_hash, const json_t *options, const json_t *device, char *out,
                      size_t size) {
    char *o = json_dumps(options, JSON_COMPACT | JSON_SORT_KEYS);
    char *d = json_dumps(device, JSON_COMPACT | JSON_SORT_KEYS);
    snprintf(out, size, "%s|%s@%s", case_hash, o ? o : "", d ? d : "");
    free(o);
    free(d);
}

clp_status sweep_results_load(const char *path, json_t **out, clp_error *err) {
    json_t *done = *out = json_object();
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? CLP_OK
                               : CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot read %s: %s", path,
                                             strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int number = 0;
    while (getline(&line, &cap, f) > 0) {
        number++;
        json_t *record = json_loads(line, 0, NULL);
        const char *hash = json_string_value(json_object_get(record, "case_hash"));
        const char *version = json_string_value(json_object_get(record, "version"));
        if (!json_is_object(record) || !hash)
            fprintf(stderr, "clpart: warning: %s:%d is not a whole result; it is run again\n", path,
                    number);
        else if (version && !strcmp(version, clp_version())) {
            char key[2048];
            sweep_record_key(hash, json_object_get(record, "options"),
                             json_object_get(record, "device"), key, sizeof key);
            json_object_set(done, key, record);
        }
        json_decref(record);
    }
    free(line);
    fclose(f);
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

json_t *sweep_record_new(const char *case_path, const char *case_hash, const json_t *options,
                         const json_t *identity) {
    return json_pack("{s:s, s:s, s:O, s:O, s:s}", "case", case_path, "case_hash", case_hash,
                     "options", options, "device", identity, "version", clp_version());
}

void sweep_options_text(const json_t *options, char *out, size_t size) {
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
