/* What several subcommands share: reading "CASE [-s NAME=VALUE]... [-p PRESET]..." into
 * checked option values, a case's source, and opening the selected device's worker and the
 * cache. */
#include "cli_case.h"
#include "options/options_schema.h"
#include "models/models.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

clp_status cli_case_load(int argc, char **argv, bool case_required, cli_case *out, clp_error *err) {
    clp_status st = CLP_OK;
    const char *case_path = NULL;
    const char *presets[32];
    size_t n_presets = 0;
    *out = (cli_case){0};
    for (int i = 1; i < argc; i++) {
        bool has_value = i + 1 < argc;
        if ((!strcmp(argv[i], "-s") || !strcmp(argv[i], "-p")) && !has_value)
            return CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1, "%s needs a value", argv[i]);
        if (!strcmp(argv[i], "-p")) {
            if (n_presets == sizeof presets / sizeof presets[0])
                return CLP_FAIL(err, CLP_USAGE, "too many presets");
            presets[n_presets++] = argv[++i];
        } else if (!strcmp(argv[i], "-s")) {
            i++; /* applied below, after the case */
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1, "unknown flag '%s'",
                               argv[i]);
        } else if (!case_path) {
            case_path = argv[i];
        } else {
            return CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1,
                               "more than one case file: '%s' and '%s'", case_path, argv[i]);
        }
    }
    if (!case_path && (case_required || n_presets))
        return CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1,
                           n_presets ? "-p needs a case file that holds the presets"
                                     : "a case file is needed");
    char schema_dir[1024];
    snprintf(schema_dir, sizeof schema_dir, "%s/options", clp_data_dir());
    CLP_TRY(clp_schema_load(schema_dir, &out->schema, err));
    CLP_TRY(clp_options_create(out->schema, &out->options, err));
    if (case_path)
        CLP_TRY(clp_options_apply_case(out->options, case_path, presets, n_presets, err));
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "-p"))
            if (!strcmp(argv[i++], "-s")) {
                CLP_TRY(clp_options_apply_assignment(out->options, argv[i], err));
                /* -s of another model's option would change nothing */
                char *name = strndup(argv[i], strcspn(argv[i], "="));
                CLP_REQUIRE_ALLOC(name, err);
                st = cli_option_applies(out->schema, clp_options_model(out->options), name, err);
                free(name);
                CLP_TRY(st);
            }
    CLP_TRY(clp_options_check(out->options, err));
    out->case_path = case_path;
    return CLP_OK;
fail:
    cli_case_free(out);
    return st;
}

clp_status cli_option_applies(const clp_schema *schema, const char *model, const char *name,
                              clp_error *err) {
    const long i = clp_schema_find(schema, name);
    size_t n = 0;
    const char *const *modules = model ? clp__model_modules(model, &n) : NULL;
    if (i < 0 || !modules) /* an unknown name is the schema's to refuse */
        return CLP_OK;
    const char *module = clp__schema_option(schema, (size_t)i)->module;
    for (size_t k = 0; k < n; k++)
        if (!strcmp(modules[k], module))
            return CLP_OK;
    clp_strbuf taken = {0};
    for (size_t k = 0; k < n; k++)
        clp__sb_appendf(&taken, "%s%s", k ? ", " : "", modules[k]);
    clp_status st = CLP_FAIL_AT(err, CLP_USAGE, "command line", -1, -1,
                                "%s is an option of module %s, which model %s does not take (its "
                                "modules: %s)",
                                name, module, model, taken.data ? taken.data : "");
    clp__sb_free(&taken);
    return st;
}

void cli_case_free(cli_case *c) {
    json_decref(c->tuning);
    clp_options_destroy(c->options);
    clp_schema_destroy(c->schema);
    *c = (cli_case){0};
}

clp_status cli_session_open(const clp_cli *cli, cli_session *s, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_device_info *dev;
    *s = (cli_session){0};
    CLP_TRY(clp_device_list_create(&s->list, err));
    CLP_TRY(clp_device_select(s->list, cli->device, &dev, err));
    CLP_TRY(clp_worker_create(dev, &s->worker, err));
    CLP_TRY(cli_open_cache(cli, &s->cache, err));
    return CLP_OK;
fail:
    cli_session_close(s);
    return st;
}

void cli_session_close(cli_session *s) {
    clp_cache_close(s->cache);
    clp_worker_destroy(s->worker);
    clp_device_list_destroy(s->list);
    *s = (cli_session){0};
}

int cli_finish(clp_status st, const clp_error *err, const cli_session *s, const clp_cli *cli) {
    if (st == CLP_OK)
        return CLP_EXIT_OK;
    if (st == CLP_BUILD && cli->verbose && s->worker)
        fprintf(stderr, "%s\n", clp_worker_build_log(s->worker));
    return cli_report(err);
}

clp_status cli_case_source(const cli_case *c, const clp_cli *cli, char **source, clp_error *err) {
    const clp_model *model;
    clp_status st = clp_model_find(clp_options_model(c->options), &model, err);
    if (st != CLP_OK)
        return st;
    if (!model->source_needs_device || !model->source_needs_device(c->options))
        return model->source(c->options, NULL, c->case_path, source, err);
    /* the program is laid out for the selected device: it is listed and selected, and no
       context is made */
    clp_device_list *list = NULL;
    const clp_device_info *dev = NULL;
    st = clp_device_list_create(&list, err);
    if (st == CLP_OK)
        st = clp_device_select(list, cli->device, &dev, err);
    if (st == CLP_OK)
        st = model->source(c->options, dev, c->case_path, source, err);
    clp_device_list_destroy(list);
    return st;
}

clp_status cli_positive(const char *flag, const char *text, bool whole, uint64_t *count,
                        double *number, clp_error *err) {
    char *end;
    errno = 0;
    const double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !(v > 0) || !isfinite(v) ||
        (whole && (v != floor(v) || v >= 1e18)))
        return CLP_FAIL(err, CLP_USAGE, "%s takes %s above 0, not '%s'", flag,
                        whole ? "a whole number" : "a number", text);
    if (whole)
        *count = (uint64_t)v;
    else
        *number = v;
    return CLP_OK;
}

clp_status cli_file_hash(const char *path, char hash[17], clp_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot read %s: %s", path, strerror(errno));
    XXH64_state_t *h = XXH64_createState();
    if (!h) {
        fclose(f);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory hashing %s", path);
    }
    XXH64_reset(h, 0);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        XXH64_update(h, buf, n);
    const bool failed = ferror(f);
    fclose(f);
    snprintf(hash, 17, "%016llx", (unsigned long long)XXH64_digest(h));
    XXH64_freeState(h);
    if (failed)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot read %s", path);
    return CLP_OK;
}

char *cli_file_stem(const char *path) {
    char *copy = strdup(path);
    if (!copy)
        return NULL;
    char *name = basename(copy), *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    /* a folder name of its own: never ".", "..", hidden or empty ("...json" would write
       into the folder above) */
    name += strspn(name, ".");
    char *stem = strdup(*name ? name : "case");
    free(copy);
    return stem;
}
