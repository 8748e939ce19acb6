/* Reading a numeric CSV table back: the header's names and every row's numbers, as the runs'
 * CSV outputs write them (csv.c), whatever the process locale. */
#include "io.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One header cell from *p (quoted with doubled quotes, or plain up to a comma or the line's
 * end), advanced past it and its comma. New string, or NULL when out of memory. */
static char *header_cell(const char **p) {
    const char *s = *p;
    clp_strbuf sb = {0};
    if (*s == '"') {
        for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
            if (*s == '"')
                s++; /* a doubled quote */
            clp__sb_append_n(&sb, s, 1);
        }
        if (*s == '"')
            s++;
    } else {
        const size_t n = strcspn(s, ",\r\n");
        clp__sb_append_n(&sb, s, n);
        s += n;
    }
    if (*s == ',')
        s++;
    *p = s;
    clp__sb_append(&sb, "");
    if (sb.failed) {
        clp__sb_free(&sb);
        return NULL;
    }
    return sb.data;
}

/* Whether `line` holds only a line break, or nothing. */
static bool blank(const char *line) {
    return line[strspn(line, "\r\n")] == '\0';
}

static clp_status read_header(clp__csv_table *t, const char *line, clp_error *err) {
    clp_status st = CLP_OK;
    size_t cap = 0;
    const char *p = line;
    while (*p && *p != '\n' && *p != '\r') {
        if (t->n_columns == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(t->columns, cap * sizeof *grown);
            CLP_REQUIRE_ALLOC(grown, err);
            t->columns = grown;
        }
        t->columns[t->n_columns] = header_cell(&p);
        CLP_REQUIRE_ALLOC(t->columns[t->n_columns], err);
        t->n_columns++;
    }
    CLP_REQUIRE_FILE(t->path, t->n_columns > 0, err, "%s: the header names no column", t->path);
fail:
    return st;
}

static clp_status read_row(clp__csv_table *t, const char *line, size_t number, size_t *cap,
                           clp_error *err) {
    clp_status st = CLP_OK;
    if (t->n_rows == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        double *grown = realloc(t->values, *cap * t->n_columns * sizeof *grown);
        CLP_REQUIRE_ALLOC(grown, err);
        t->values = grown;
    }
    double *row = t->values + t->n_rows * t->n_columns;
    const char *p = line;
    for (size_t i = 0; i < t->n_columns; i++) {
        char *end = (char *)p;
        const char want = i + 1 < t->n_columns ? ',' : '\0';
        /* an empty field is a missing value (a dry gauge's): NaN */
        const bool empty = want ? *p == ',' : (*p == '\0' || blank(p));
        row[i] = empty ? NAN : strtod(p, &end);
        const bool ends = want ? *end == ',' : (*end == '\0' || blank(end));
        CLP_REQUIRE_FILE(t->path, (end != p || empty) && ends, err,
                         "%s:%zu: column %zu (%s) is not a number, or the row has not %zu columns",
                         t->path, number, i + 1, t->columns[i], t->n_columns);
        p = end + 1;
    }
    t->n_rows++;
fail:
    return st;
}

clp_status clp__csv_read(const char *path, clp__csv_table *out, clp_error *err) {
    clp_status st = CLP_OK;
    *out = (clp__csv_table){0};
    clp__csv_table t = {.path = strdup(path)};
    char *line = NULL;
    size_t line_cap = 0, row_cap = 0, number = 0;
    FILE *f = NULL;
    CLP_REQUIRE_ALLOC(t.path, err);
    f = fopen(path, "r");
    CLP_REQUIRE_FILE(path, f, err, "cannot read %s: %s", path, strerror(errno));
    locale_t previous = clp__c_numeric_begin();
    bool header = false;
    while (st == CLP_OK && getline(&line, &line_cap, f) > 0) {
        number++;
        if (blank(line))
            continue;
        st = header ? read_row(&t, line, number, &row_cap, err) : read_header(&t, line, err);
        header = true;
    }
    clp__c_numeric_end(previous);
    CLP_TRY(st);
    CLP_REQUIRE_FILE(path, header, err, "%s is empty: it has no header row", path);
    *out = t;
    t = (clp__csv_table){0};
fail:
    if (f)
        fclose(f);
    free(line);
    clp__csv_table_free(&t);
    return st;
}

long clp__csv_table_column(const clp__csv_table *t, const char *name) {
    for (size_t i = 0; i < t->n_columns; i++)
        if (!strcmp(t->columns[i], name))
            return (long)i;
    return -1;
}

void clp__csv_table_free(clp__csv_table *t) {
    for (size_t i = 0; i < t->n_columns; i++)
        free(t->columns[i]);
    free(t->columns);
    free(t->values);
    free(t->path);
    *t = (clp__csv_table){0};
}
