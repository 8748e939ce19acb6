/* run.json, the record of how clpart run made an output folder: begun before the device is
 * opened, written when the run starts and again, with its status, when it ends. */
#include "run_record.h"

#include "options/options_schema.h"
#include "io/io.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Now as ISO 8601 in UTC, to the second: "2025-01-31T12:00:00Z". */
static json_t *utc_now(void) {
    const time_t now = time(NULL);
    struct tm tm;
    char text[32];
    if (!gmtime_r(&now, &tm) || !strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return json_null();
    return json_string(text);
}

/* The first "model name" of /proc/cpuinfo, or "unknown" (another system, or none given). */
static json_t *cpu_model(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char *line = NULL;
    size_t cap = 0;
    json_t *model = NULL;
    while (f && !model && getline(&line, &cap, f) > 0) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        const char *value = colon + 1 + strspn(colon + 1, " \t");
        model = json_stringn(value, strcspn(value, "\n"));
    }
    free(line);
    if (f)
        fclose(f);
    return model ? model : json_string("unknown");
}

static json_t *host(void) {
    char name[256] = "unknown";
    if (gethostname(name, sizeof name) != 0)
        snprintf(name, sizeof name, "unknown");
    name[sizeof name - 1] = '\0';
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return json_pack("{s:s, s:o, s:I}", "hostname", name, "cpu", cpu_model(), "cpus",
                     (json_int_t)(cpus > 0 ? cpus : 0));
}

static json_t *command_line(const clp_cli *cli) {
    json_t *list = json_array();
    for (int i = 0; i < cli->argc; i++)
        json_array_append_new(list, json_string(cli->argv[i]));
    return list;
}

static json_t *working_folder(void) {
    char *cwd = getcwd(NULL, 0);
    json_t *text = cwd ? json_string(cwd) : json_null();
    free(cwd);
    return text;
}

/* Every option of the model's modules as NAME: value text, in schema order. */
static json_t *options(const cli_case *c, const clp_model *model) {
    json_t *all = json_object();
    for (size_t i = 0; i < clp_schema_count(c->schema); i++) {
        const clp__option_def *def = clp__schema_option(c->schema, i);
        bool taken = false;
        for (size_t m = 0; model->modules[m]; m++)
            taken |= strcmp(def->module, model->modules[m]) == 0;
        char value[128];
        if (taken)
            json_object_set_new(
                all, def->name,
                json_string(clp__value_format(def, clp__options_value_at(c->options, i), value,
                                              sizeof value)));
    }
    return all;
}

static json_t *device(const clp_device_info *d) {
    return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}", "index",
                     (json_int_t)d->index, "name", d->name, "vendor", d->vendor, "platform",
                     d->platform_name, "platform_version", d->platform_version, "driver",
                     d->driver_version, "device_version", d->device_version, "opencl_c_version",
                     d->opencl_c_version, "type", clp_device_type_name(d->type), "compute_units",
                     (json_int_t)d->compute_units, "global_memory", (json_int_t)d->global_mem_size);
}

static clp_status save(run_record *rec, clp_error *err) {
    return clp__json_write(rec->dir, "run.json", json_incref(rec->root),
                           JSON_PRESERVE_ORDER | JSON_INDENT(2), err);
}

clp_status run_record_begin(run_record *rec, const char *out_dir, const clp_cli *cli,
                            const cli_case *c, const clp_model *model, const clp_run_config *config,
                            clp_error *err) {
    clp_status st = CLP_OK;
    char hash[17];
    char *stem = NULL;
    *rec = (run_record){0};
    CLP_TRY(cli_file_hash(c->case_path, hash, err));
    stem = cli_file_stem(c->case_path);
    rec->dir = strdup(out_dir);
    CLP_REQUIRE(stem && rec->dir, err, CLP_NOMEM, "out of host memory");
    json_t *limits =
        json_pack("{s:o, s:o}", "steps",
                  config->max_steps ? json_integer((json_int_t)config->max_steps) : json_null(),
                  "time", config->max_time > 0 ? json_real(config->max_time) : json_null());
    rec->root = json_pack(
        "{s:s, s:o, s:o, s:{s:s, s:s, s:s}, s:s, s:o, s:O, s:o, s:o, s:o, s:o, s:n, s:s, s:n, "
        "s:n}",
        "clpart", clp_version(), "command", command_line(cli), "cwd", working_folder(), "case",
        "path", c->case_path, "hash", hash, "name", stem, "model", model->name, "options",
        options(c, model), "tuning", c->tuning ? c->tuning : json_null(), "host", host(), "limits",
        limits, "restart", config->restart ? json_string(config->restart) : json_null(), "started",
        utc_now(), "ended", "status", "running", "error", "result");
    CLP_REQUIRE(rec->root, err, CLP_NOMEM,
                "cannot make run.json: out of host memory, or text that is not UTF-8 (the case "
                "path, the working folder or the CPU's name)");
fail:
    free(stem);
    if (st != CLP_OK)
        run_record_end(rec, st, NULL, NULL, NULL, NULL);
    return st;
}

clp_status run_record_start(run_record *rec, const clp_device_info *const *devices, size_t n,
                            bool split, clp_error *err) {
    char why[512];
    if (!rec->root)
        return CLP_OK;
    json_t *list = json_array(), *root = json_object();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, device(devices[i]));
    const char *key;
    json_t *value;
    json_object_foreach(rec->root, key, value) { /* the devices after the options */
        json_object_set(root, key, value);
        if (!strcmp(key, "options"))
            json_object_set(root, split ? "devices" : "device",
                            split ? list : json_array_get(list, 0));
    }
    json_decref(list);
    json_decref(rec->root);
    rec->root = root;
    char *path = strdup(rec->dir); /* clp__make_dirs writes into it */
    if (!path)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    const bool made = clp__make_dirs(path, why, sizeof why);
    free(path);
    if (!made)
        return CLP_FAIL_AT(err, CLP_IO, rec->dir, -1, -1, "cannot create the output folder: %s",
                           why);
    clp_status st = save(rec, err);
    rec->started = st == CLP_OK;
    return st;
}

/* {"steps", "seconds", "work", "rate", "unit"}, or null when the run reported nothing. */
static json_t *result_json(const clp_run_result *r, const char *unit) {
    if (!r || (r->steps == 0 && r->seconds <= 0))
        return json_null();
    return json_pack("{s:I, s:f, s:f, s:o, s:s}", "steps", (json_int_t)r->steps, "seconds",
                     r->seconds, "work", r->work, "rate",
                     r->seconds > 0 ? json_real(r->work / r->seconds) : json_null(), "unit", unit);
}

/* Whether the folder holds nothing but run.json: the run wrote nothing of its own. */
static bool only_record(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool alone = true;
    for (struct dirent *e = readdir(d); e && alone; e = readdir(d))
        alone =
            !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "run.json");
    closedir(d);
    return alone;
}

/* A case the model refused before it wrote anything leaves no output behind, as before there
 * was a run.json: the record goes, and the folder when it is empty then. */
static void remove_record(const char *dir) {
    const size_t size = strlen(dir) + sizeof "/run.json";
    char *path = malloc(size);
    if (!path)
        return;
    snprintf(path, size, "%s/run.json", dir);
    if (unlink(path) == 0)
        rmdir(dir);
    free(path);
}

clp_status run_record_end(run_record *rec, clp_status st, const clp_error *run_err,
                          const clp_run_result *result, const char *unit, clp_error *err) {
    clp_status written = CLP_OK;
    const bool failed = st != CLP_OK && st != CLP_INTERRUPTED;
    if (rec->started && failed && only_record(rec->dir)) {
        remove_record(rec->dir);
    } else if (rec->started) {
        const char *status = st == CLP_OK ? "ok" : st == CLP_INTERRUPTED ? "interrupted" : "failed";
        json_object_set_new(rec->root, "ended", utc_now());
        json_object_set_new(rec->root, "status", json_string(status));
        if (failed)
            json_object_set_new(rec->root, "error",
                                json_string(run_err && run_err->message[0] ? run_err->message
                                                                           : clp_status_str(st)));
        json_object_set_new(rec->root, "result", result_json(result, unit));
        written = save(rec, err);
    }
    json_decref(rec->root);
    free(rec->dir);
    *rec = (run_record){0};
    return written;
}
