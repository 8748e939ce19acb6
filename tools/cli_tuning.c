/* A case's performance options from the tuning database, for the device a command runs on
 * (cli_case_tune). */
#include "cli_case.h"
#include "models/models.h"
#include "tuning_db.h"

#include <stdlib.h>
#include <string.h>

/* The entry's values for the options still at their defaults, into c; those taken into
 * *taken (a new object NAME: VALUE). */
static clp_status take(cli_case *c, const tuning_entry *e, json_t **taken, clp_error *err) {
    clp_status st = CLP_OK;
    char origin[1200];
    snprintf(origin, sizeof origin, "tuning: %s", e->where);
    json_t *took_all = json_object();
    CLP_REQUIRE_ALLOC(took_all, err);
    const char *name;
    const json_t *value;
    json_object_foreach(e->options, name, value) {
        const char *text = json_string_value(value);
        bool took;
        CLP_TRY(clp_options_tune(c->options, name, text, origin, &took, err));
        if (took)
            CLP_REQUIRE(!json_object_set_new(took_all, name, json_string(text)), err, CLP_NOMEM,
                        "out of host memory");
    }
    CLP_TRY(clp_options_check(c->options, err));
    *taken = took_all;
    return CLP_OK;
fail:
    json_decref(took_all);
    return st;
}

/* "NAME=VALUE NAME=VALUE" of an object of option values (new). */
static char *assignments(const json_t *options) {
    clp_strbuf sb = {0};
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)options, name, value)
        clp__sb_appendf(&sb, "%s%s=%s", sb.len ? " " : "", name, json_string_value(value));
    return clp__sb_take(&sb);
}

/* Whether the model takes the case's options with the entry's values in them: an entry measured
 * on one case may not go with another's own choices (a cell-searching lj.strategy beside a
 * case's neighbors.mode=list), and the model's source says so before anything is built. A run
 * that chooses its program itself (lj.strategy=auto) is left to do so. */
static bool fits(const clp_model *model, const cli_case *c, const clp_device_info *dev,
                 const tuning_entry *e, tuning_match match) {
    if (clp_model_run_chooses(model, c->options))
        return true;
    char *source = NULL;
    clp_error why = CLP_ERROR_INIT;
    const clp_status st = model->source(c->options, dev, c->case_path, &source, &why);
    free(source);
    if (st != CLP_OK)
        CLP_INFO(CLP_LOG_OPTIONS,
                 "tuning: %s (%s) does not go with this case's options (%s): the defaults",
                 e->where, tuning_match_name(match), why.message);
    return st == CLP_OK;
}

clp_status cli_case_tune(cli_case *c, const clp_cli *cli, const clp_device_info *dev,
                         clp_error *err) {
    clp_status st = CLP_OK;
    const clp_model *model;
    char **paths = NULL;
    size_t n_paths = 0, particles = 0;
    tuning_db db = {0};
    json_t *taken = NULL;
    clp_options *untuned = NULL;
    if (cli->no_tuning) {
        CLP_INFO(CLP_LOG_OPTIONS, "tuning: off (--no-tuning): the performance options' defaults");
        return CLP_OK;
    }
    CLP_TRY(clp_model_find(clp_options_model(c->options), &model, err));
    if (!model->particles)
        return CLP_OK; /* nothing of it is tuned */
    CLP_TRY(tuning_db_paths(&paths, &n_paths, err));
    CLP_TRY(tuning_db_load((const char *const *)paths, n_paths, c->schema, &db, err));
    tuning_identity id;
    tuning_identity_of(dev, &id);
    tuning_match match;
    /* the case is read for its size only where some entry may be taken */
    const tuning_entry *e = tuning_db_lookup(&db, &id, model->name, 0, &match);
    if (e) {
        CLP_TRY(model->particles(c->options, c->case_path, &particles, err));
        e = tuning_db_lookup(&db, &id, model->name, (double)particles, &match);
    }
    if (!e) {
        CLP_INFO(CLP_LOG_OPTIONS,
                 "tuning: no entry for model %s on %s (%s, architecture %s) in %zu file%s: the "
                 "performance options' defaults",
                 model->name, id.name, id.type, id.architecture, n_paths, n_paths == 1 ? "" : "s");
        goto fail;
    }
    CLP_TRY(clp_options_dup(c->options, &untuned, err));
    CLP_TRY(take(c, e, &taken, err));
    if (!fits(model, c, dev, e, match)) { /* the defaults, as they were */
        clp_options_destroy(c->options);
        c->options = untuned;
        untuned = NULL;
        goto fail;
    }
    if (!json_object_size(taken)) {
        CLP_INFO(CLP_LOG_OPTIONS,
                 "tuning: %s (%s) sets nothing here: the case, its presets or -s set every "
                 "option it holds",
                 e->where, tuning_match_name(match));
        goto fail;
    }
    char *text = assignments(taken);
    CLP_INFO(CLP_LOG_OPTIONS,
             "tuning: %s from %s (%s; measured at %.4g particles, this case has %zu)",
             text ? text : "", e->where, tuning_match_name(match), e->particles, particles);
    free(text);
    c->tuning = json_pack("{s:s, s:s, s:O}", "entry", e->where, "match", tuning_match_name(match),
                          "options", taken);
    CLP_REQUIRE_ALLOC(c->tuning, err);
fail:
    clp_options_destroy(untuned);
    json_decref(taken);
    tuning_db_free(&db);
    for (size_t i = 0; i < n_paths; i++)
        free(paths[i]);
    free(paths);
    return st;
}

clp_status cli_case_tune_selected(cli_case *c, const clp_cli *cli, clp_error *err) {
    if (cli->no_tuning)
        return cli_case_tune(c, cli, NULL, err);
    clp_device_list *list = NULL;
    const clp_device_info *dev = NULL;
    clp_error list_err = CLP_ERROR_INIT;
    if (clp_device_list_create(&list, &list_err) != CLP_OK) {
        CLP_INFO(CLP_LOG_OPTIONS, "tuning: no device to tune for (%s): the defaults",
                 list_err.message);
        return CLP_OK;
    }
    clp_status st = clp_device_select(list, cli->device, &dev, err);
    if (st == CLP_OK)
        st = cli_case_tune(c, cli, dev, err);
    clp_device_list_destroy(list);
    return st;
}
