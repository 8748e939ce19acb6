/* One side of clpart compare: an output folder's files, or a result record, read into a
 * compare_run (see compare.h). */
#include "base/json_file.h"
#include "compare.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds an empty table called `name` to r; *out is it. */
static clp_status add_table(compare_run *r, const char *name, clp__csv_table **out,
                            clp_error *err) {
    clp_status st = CLP_OK;
    clp__csv_table *tables = realloc(r->tables, (r->n_tables + 1) * sizeof *tables);
    CLP_REQUIRE_ALLOC(tables, err);
    r->tables = tables;
    char **names = realloc(r->table_names, (r->n_tables + 1) * sizeof *names);
    CLP_REQUIRE_ALLOC(names, err);
    r->table_names = names;
    names[r->n_tables] = strdup(name);
    CLP_REQUIRE_ALLOC(names[r->n_tables], err);
    tables[r->n_tables] = (clp__csv_table){0};
    *out = &tables[r->n_tables++];
fail:
    return st;
}

/* The JSON file `name` of `dir`, or NULL when there is none; an unreadable one is an error. */
static clp_status load_json(const char *dir, const char *name, json_t **out, clp_error *err) {
    char *path = clp__path_join(dir, name);
    *out = NULL;
    if (!path)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    clp_status st = CLP_OK;
    struct stat s;
    if (stat(path, &s) == 0) {
        st = clp__json_load(path, CLP_IO, out, err);
    }
    free(path);
    return st;
}

/* The model the run names: run.json's, else summary.json's "model". */
static clp_status find_model(compare_run *r, clp_error *err) {
    const char *model = json_string_value(json_object_get(r->run, "model"));
    if (!model)
        model = json_string_value(json_object_get(r->summary, "model"));
    if (model && !(r->model = strdup(model)))
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    return CLP_OK;
}

static clp_status open_folder(const char *dir, compare_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    char **names = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(dir);
    CLP_REQUIRE(d, err, CLP_IO, "cannot read the folder %s: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".csv"))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(names, cap * sizeof *grown);
            CLP_REQUIRE_ALLOC(grown, err);
            names = grown;
        }
        names[n] = strdup(e->d_name);
        CLP_REQUIRE_ALLOC(names[n], err);
        n++;
    }
    qsort(names, n, sizeof *names, by_name); /* the report's order does not depend on the FS */
    for (size_t i = 0; i < n; i++) {
        clp__csv_table *t;
        CLP_TRY(add_table(r, names[i], &t, err));
        char *path = clp__path_join(dir, names[i]);
        CLP_REQUIRE_ALLOC(path, err);
        st = clp__csv_read(path, t, err);
        free(path);
        CLP_TRY(st);
    }
    CLP_TRY(load_json(dir, "run.json", &r->run, err));
    CLP_TRY(load_json(dir, "summary.json", &r->summary, err));
    char *pvd = clp__path_join(dir, "particles.pvd");
    CLP_REQUIRE_ALLOC(pvd, err);
    struct stat s;
    if (stat(pvd, &s) == 0)
        st = clp__pvd_read(pvd, &r->snapshots, err);
    free(pvd);
    CLP_TRY(st);
    CLP_REQUIRE(r->n_tables || r->summary || r->snapshots.count, err, CLP_USAGE,
                "%s holds no output of a clpart run (no CSV file, summary.json or "
                "particles.pvd)",
                dir);
    CLP_TRY(find_model(r, err));
fail:
    if (d)
        closedir(d);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}

/* Line `line` (from 1; 0: the only one) of the results file `path`. New object. */
static clp_status read_record(const char *path, unsigned long line, json_t **out, clp_error *err) {
    clp_status st = CLP_OK;
    char *text = NULL;
    size_t cap = 0;
    unsigned long number = 0, lines = 0;
    FILE *f = fopen(path, "r");
    *out = NULL;
    CLP_REQUIRE(f, err, CLP_IO, "cannot read %s: %s", path, strerror(errno));
    while (getline(&text, &cap, f) > 0) {
        number++;
        if (text[strspn(text, " \t\r\n")] == '\0')
            continue;
        lines++;
        if (line && number != line)
            continue;
        json_decref(*out);
        json_error_t e;
        *out = json_loads(text, 0, &e);
        if (!json_is_object(*out)) {
            st = CLP_FAIL_AT(err, CLP_CASE, path, (int)number, e.column,
                             "%s:%lu is not a result record: %s", path, number,
                             *out ? "not an object" : e.text);
            goto fail;
        }
    }
    CLP_REQUIRE(line == 0 || *out, err, CLP_USAGE, "%s has no line %lu (it has %lu)", path, line,
                number);
    CLP_REQUIRE(lines > 0, err, CLP_USAGE, "%s holds no result record", path);
    CLP_REQUIRE(line != 0 || lines == 1, err, CLP_USAGE,
                "%s holds %lu records: name one as %s:LINE", path, lines, path);
fail:
    if (st != CLP_OK) {
        json_decref(*out);
        *out = NULL;
    }
    if (f)
        fclose(f);
    free(text);
    return st;
}

/* FILE or FILE:LINE into the file's name (in place) and the line (0: none). */
static clp_status record_address(char *file, unsigned long *line, clp_error *err) {
    struct stat s;
    char *colon = strrchr(file, ':');
    *line = 0;
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
        stat(file, &s) != 0) {
        *colon = '\0';
        *line = strtoul(colon + 1, NULL, 10);
        if (*line == 0)
            return CLP_FAIL(err, CLP_USAGE, "%s: lines count from 1", file);
    }
    if (stat(file, &s) != 0)
        return CLP_FAIL(err, CLP_USAGE, "%s is neither an output folder nor a results file: %s",
                        file, strerror(errno));
    return CLP_OK;
}

clp_status compare_run_open(const char *path, compare_run *out, clp_error *err) {
    clp_status st = CLP_OK;
    compare_run r = {.label = strdup(path)};
    json_t *record = NULL;
    char *file = strdup(path);
    CLP_REQUIRE(r.label && file, err, CLP_NOMEM, "out of host memory");
    struct stat s;
    if (stat(path, &s) == 0 && S_ISDIR(s.st_mode)) {
        CLP_TRY(open_folder(path, &r, err));
        *out = r;
        r = (compare_run){0};
    } else {
        unsigned long line;
        CLP_TRY(record_address(file, &line, err));
        CLP_TRY(read_record(file, line, &record, err));
        CLP_TRY(compare_run_from_record(record, path, out, err));
    }
fail:
    compare_run_close(&r);
    json_decref(record);
    free(file);
    return st;
}

/* The model whose runs count `unit` (a record before records named their model). */
static const char *model_of_unit(const char *unit) {
    size_t count;
    const clp_model *models = clp_models(&count);
    for (size_t i = 0; unit && i < count; i++)
        if (models[i].throughput_unit && !strcmp(models[i].throughput_unit, unit))
            return models[i].name;
    return NULL;
}

clp_status compare_run_from_record(const json_t *record, const char *label, compare_run *out,
                                   clp_error *err) {
    clp_status st = CLP_OK;
    compare_run r = {.label = strdup(label)};
    CLP_REQUIRE_ALLOC(r.label, err);
    const char *status = json_string_value(json_object_get(record, "status"));
    CLP_REQUIRE(status && !strcmp(status, "ok"), err, CLP_USAGE,
                "%s is a record of a run that did not end well (%s): nothing to compare", label,
                status ? status : "no status");
    const char *model = json_string_value(json_object_get(record, "model"));
    if (!model)
        model = model_of_unit(json_string_value(json_object_get(record, "unit")));
    if (model)
        CLP_REQUIRE_ALLOC(r.model = strdup(model), err);
    /* what run.json would say: the case, options and device */
    r.run = json_pack(
        "{s:O?, s:{s:O?, s:O?}, s:O?, s:O?, s:O?}", "clpart", json_object_get(record, "version"),
        "case", "path", json_object_get(record, "case"), "hash",
        json_object_get(record, "case_hash"), "options", json_object_get(record, "options"),
        "device", json_object_get(record, "device"), "limits", json_object_get(record, "limits"));
    CLP_REQUIRE_ALLOC(r.run, err);
    if (model)
        json_object_set_new(r.run, "model", json_string(model));
    /* the particles a step moves, a scale some tolerances name */
    const double work = json_number_value(json_object_get(record, "work"));
    const double steps = json_number_value(json_object_get(record, "steps"));
    if (work > 0 && steps > 0)
        CLP_REQUIRE_ALLOC(r.summary = json_pack("{s:f}", "particles", work / steps), err);
    const json_t *diagnostics = json_object_get(record, "diagnostics");
    CLP_REQUIRE(json_object_size(diagnostics) > 0, err, CLP_USAGE,
                "%s holds no diagnostics to compare", label);
    clp__csv_table *t;
    CLP_TRY(add_table(&r, "record", &t, err));
    const size_t n = json_object_size(diagnostics) + 1;
    t->columns = calloc(n, sizeof *t->columns);
    t->values = malloc(n * sizeof *t->values);
    CLP_REQUIRE(t->columns && t->values, err, CLP_NOMEM, "out of host memory");
    t->n_rows = 1;
    const char *name;
    json_t *value;
    json_object_foreach((json_t *)diagnostics, name, value) {
        CLP_REQUIRE_ALLOC(t->columns[t->n_columns] = strdup(name), err);
        t->values[t->n_columns++] = json_number_value(value);
    }
    CLP_REQUIRE_ALLOC(t->columns[t->n_columns] = strdup("steps"), err);
    t->values[t->n_columns++] = (double)json_integer_value(json_object_get(record, "steps"));
    *out = r;
    r = (compare_run){0};
fail:
    compare_run_close(&r);
    return st;
}

void compare_run_close(compare_run *r) {
    for (size_t i = 0; i < r->n_tables; i++) {
        clp__csv_table_free(&r->tables[i]);
        free(r->table_names[i]);
    }
    free(r->tables);
    free(r->table_names);
    clp__pvd_list_free(&r->snapshots);
    json_decref(r->run);
    json_decref(r->summary);
    free(r->model);
    free(r->label);
    *r = (compare_run){0};
}
