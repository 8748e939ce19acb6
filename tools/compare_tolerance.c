/* The tolerances of clpart compare: a model's document (tolerances/<model>.json) and the
 * user's --tol overrides, looked up per file and quantity (see compare.h). */
#include "base/json_file.h"
#include "compare.h"
#include "json_list.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

clp_status compare_tolerances_load(const char *model, const char *path, compare_tolerances *out,
                                   clp_error *err) {
    clp_status st = CLP_OK;
    char *own = NULL;
    *out = (compare_tolerances){.overrides = json_object()};
    if (!path) {
        char name[128];
        snprintf(name, sizeof name, "tolerances/%s.json", model ? model : "default");
        own = clp__path_join(clp_data_dir(), name);
        CLP_REQUIRE_ALLOC(own, err);
        path = own;
    }
    CLP_TRY(clp__json_load(path, CLP_CASE, &out->doc, err));
    CLP_REQUIRE(json_is_object(out->doc) && json_is_object(json_object_get(out->doc, "files")), err,
                CLP_CASE, "%s: a tolerances document is an object with \"files\"", path);
fail:
    free(own);
    if (st != CLP_OK)
        compare_tolerances_free(out);
    return st;
}

clp_status compare_tolerances_override(compare_tolerances *t, const char *text, clp_error *err) {
    const char *eq = strchr(text, '=');
    char *end;
    if (!eq || eq == text)
        return CLP_FAIL(err, CLP_USAGE, "--tol takes QUANTITY=REL[,ABS], not '%s'", text);
    const double rel = strtod(eq + 1, &end);
    double abs = 0;
    if (*end == ',')
        abs = strtod(end + 1, &end);
    if (end == eq + 1 || *end || !(rel >= 0) || !(abs >= 0) || !isfinite(rel + abs))
        return CLP_FAIL(err, CLP_USAGE,
                        "--tol %s: REL and ABS are numbers of at least 0 (QUANTITY=REL[,ABS])",
                        text);
    char *name = strndup(text, (size_t)(eq - text));
    if (!name)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    json_object_set_new(t->overrides, name, json_pack("{s:f, s:f}", "rel", rel, "abs", abs));
    free(name);
    return CLP_OK;
}

void compare_tolerances_free(compare_tolerances *t) {
    json_decref(t->doc);
    json_decref(t->overrides);
    *t = (compare_tolerances){0};
}

/* The document's entry for `file`: a record takes the entry its "record" names. */
static const json_t *file_entry(const compare_tolerances *t, const char *file) {
    const json_t *files = json_object_get(t->doc, "files");
    if (!strcmp(file, "record")) {
        const char *like = json_string_value(json_object_get(t->doc, "record"));
        if (like)
            file = like;
    }
    return json_object_get(files, file);
}

/* Fills t from a JSON object's "abs", "rel", "scale", "power", "period", keeping what it
 * does not set. */
static void read_tolerance(const json_t *o, compare_tolerance *t) {
    if (!json_is_object(o))
        return;
    const json_t *v;
    if (json_is_number(v = json_object_get(o, "abs")))
        t->abs = json_number_value(v);
    if (json_is_number(v = json_object_get(o, "rel")))
        t->rel = json_number_value(v);
    if (json_is_number(v = json_object_get(o, "power")))
        t->power = json_number_value(v);
    if (json_is_number(v = json_object_get(o, "period")))
        t->period = json_number_value(v);
    if (json_is_array(v = json_object_get(o, "scale"))) {
        t->n_scale = 0;
        for (size_t i = 0; i < json_array_size(v) && t->n_scale < 4; i++)
            if (json_is_string(json_array_get(v, i)))
                t->scale[t->n_scale++] = json_string_value(json_array_get(v, i));
    }
    t->ignore = json_is_true(json_object_get(o, "ignore"));
}

compare_tolerance compare_tolerance_of(const compare_tolerances *t, const char *file,
                                       const char *quantity) {
    compare_tolerance tol = {.abs = 0, .rel = 1e-6, .power = 1};
    const json_t *entry = file_entry(t, file);
    read_tolerance(json_object_get(t->doc, "default"), &tol);
    read_tolerance(json_object_get(entry, "default"), &tol);
    read_tolerance(json_object_get(json_object_get(entry, "quantities"), quantity), &tol);
    tol.ignore |= json_list_holds(json_object_get(t->doc, "ignore"), quantity) ||
                  json_list_holds(json_object_get(entry, "ignore"), quantity);
    char both[512];
    snprintf(both, sizeof both, "%s/%s", file, quantity);
    const json_t *over = json_object_get(t->overrides, both);
    if (!over)
        over = json_object_get(t->overrides, quantity);
    if (over) { /* the user's word replaces the document's, scale included */
        tol.n_scale = 0;
        tol.power = 1;
        tol.ignore = false;
        read_tolerance(over, &tol);
    }
    return tol;
}

const char *compare_key_of(const compare_tolerances *t, const char *file, double *key_rel) {
    const json_t *entry = file_entry(t, file);
    const json_t *rel = json_object_get(entry, "key_rel");
    *key_rel = json_is_number(rel) ? json_number_value(rel) : 1e-6;
    return json_string_value(json_object_get(entry, "key"));
}

bool compare_ends_by_criterion(const compare_tolerances *t, const char *file) {
    return json_is_true(json_object_get(file_entry(t, file), "ends_by_criterion"));
}
