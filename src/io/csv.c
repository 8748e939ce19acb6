/* The CSV outputs: a header row, then one row of numbers per output time, each flushed to the
 * file as it is written. Numbers read the same under every locale. */
#include "io.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct clp__csv {
    FILE *file;
    char *path;
    size_t n_columns;
};

char *clp__csv_format_number(double v, char buf[32]) {
    if (fabs(v) < 0x1p53 && v == trunc(v)) {
        snprintf(buf, 32, "%lld", (long long)v);
    } else if (isnan(v)) {
        strcpy(buf, "nan");
    } else if (isinf(v)) {
        strcpy(buf, v > 0 ? "inf" : "-inf");
    } else {
        locale_t previous = clp__c_numeric_begin();
        snprintf(buf, 32, "%.17g", v);
        clp__c_numeric_end(previous);
    }
    return buf;
}

/* A header cell, quoted (with doubled quotes) when it holds a comma, quote or line break. */
static void put_name(FILE *file, const char *name) {
    if (!strpbrk(name, ",\"\r\n")) {
        fputs(name, file);
        return;
    }
    fputc('"', file);
    for (const char *p = name; *p; p++) {
        if (*p == '"')
            fputc('"', file);
        fputc(*p, file);
    }
    fputc('"', file);
}

/* Flushes the row just written; a write error is CLP_IO naming the file. */
static clp_status end_row(clp__csv *csv, clp_error *err) {
    fputc('\n', csv->file);
    if (fflush(csv->file) != 0 || ferror(csv->file))
        return CLP_FAIL_AT(err, CLP_IO, csv->path, -1, -1, "cannot write %s: %s", csv->path,
                           strerror(errno));
    return CLP_OK;
}

clp_status clp__csv_open(const char *path, const char *const *columns, size_t n_columns,
                         clp__csv **out, clp_error *err) {
    if (!path || !columns || n_columns == 0)
        return CLP_FAIL(err, CLP_USAGE, "CSV output %s: no columns", path ? path : "(no path)");
    clp_status st = CLP_OK;
    clp__csv *csv = calloc(1, sizeof *csv);
    CLP_REQUIRE_ALLOC(csv, err);
    csv->n_columns = n_columns;
    csv->path = strdup(path);
    CLP_REQUIRE_ALLOC(csv->path, err);
    csv->file = fopen(path, "w");
    if (!csv->file) {
        st = CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot create %s: %s", path, strerror(errno));
        goto fail;
    }
    for (size_t i = 0; i < n_columns; i++) {
        if (i > 0)
            fputc(',', csv->file);
        put_name(csv->file, columns[i]);
    }
    CLP_TRY(end_row(csv, err));
    *out = csv;
    return CLP_OK;
fail:
    clp__csv_close(csv, NULL);
    return st;
}

clp_status clp__csv_row(clp__csv *csv, const double *values, clp_error *err) {
    for (size_t i = 0; i < csv->n_columns; i++) {
        char number[32];
        if (i > 0)
            fputc(',', csv->file);
        if (!isnan(values[i])) /* a missing value, such as a dry gauge's, is an empty field */
            fputs(clp__csv_format_number(values[i], number), csv->file);
    }
    return end_row(csv, err);
}

clp_status clp__csv_close(clp__csv *csv, clp_error *err) {
    if (!csv)
        return CLP_OK;
    clp_status st = CLP_OK;
    if (csv->file && fclose(csv->file) != 0)
        st = CLP_FAIL_AT(err, CLP_IO, csv->path, -1, -1, "cannot close %s: %s", csv->path,
                         strerror(errno));
    free(csv->path);
    free(csv);
    return st;
}

clp_status clp__csv_open_in(const char *dir, const char *name, const char *const *columns,
                            size_t n_columns, clp__csv **out, clp_error *err) {
    char path[1024], why[512];
    snprintf(path, sizeof path, "%s", dir);
    if (!clp__make_dirs(path, why, sizeof why))
        return CLP_FAIL_AT(err, CLP_IO, dir, -1, -1, "cannot create the output folder: %s", why);
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return CLP_FAIL_AT(err, CLP_IO, dir, -1, -1, "the output folder's name is too long");
    return clp__csv_open(path, columns, n_columns, out, err);
}

/* The rows of an earlier run's file at `path` whose value in `column` is at most `last`,
 * after a header that must be `columns`: n_columns numbers a row, new in *rows. The caller
 * reads them in the C locale. */
static clp_status read_rows(const char *path, FILE *file, const char *const *columns,
                            size_t n_columns, size_t column, double last, double **rows,
                            size_t *n_rows, clp_error *err) {
    clp_status st = CLP_OK;
    char *line = NULL, *header = NULL;
    size_t cap = 0, used = 0, count = 0, header_len = 0;
    FILE *expected = open_memstream(&header, &header_len);
    CLP_REQUIRE_ALLOC(expected, err);
    for (size_t i = 0; i < n_columns; i++) {
        if (i > 0)
            fputc(',', expected);
        put_name(expected, columns[i]);
    }
    fclose(expected);
    ssize_t len = getline(&line, &cap, file);
    CLP_REQUIRE(len > 0 && (size_t)len == header_len + 1 && strncmp(line, header, header_len) == 0,
                err, CLP_IO, "%s is not this run's: its header is not \"%s\"", path, header);
    while ((len = getline(&line, &cap, file)) > 0) {
        if (count == used) {
            used = used ? 2 * used : 64;
            double *grown = realloc(*rows, used * n_columns * sizeof *grown);
            CLP_REQUIRE_ALLOC(grown, err);
            *rows = grown;
        }
        double *row = *rows + count * n_columns;
        char *p = line;
        for (size_t i = 0; i < n_columns; i++) {
            char *end = p;
            const char after = i + 1 < n_columns ? ',' : '\n';
            const bool empty = *p == after; /* a missing value */
            row[i] = empty ? NAN : strtod(p, &end);
            CLP_REQUIRE((end != p || empty) && *end == after, err, CLP_IO,
                        "%s, row %zu: not %zu numbers", path, count + 1, n_columns);
            p = end + 1;
        }
        if (row[column] > last)
            break;
        count++;
    }
    *n_rows = count;
fail:
    free(line);
    free(header);
    return st;
}

clp_status clp__csv_continue_in(const char *dir, const char *name, const char *const *columns,
                                size_t n_columns, size_t column, double last, double **kept,
                                size_t *n_kept, clp__csv **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__csv *csv = NULL;
    char path[1024], temporary[1100];
    *kept = NULL;
    *n_kept = 0;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return CLP_FAIL_AT(err, CLP_IO, dir, -1, -1, "the output folder's name is too long");
    FILE *earlier = fopen(path, "r");
    if (!earlier)
        return clp__csv_open_in(dir, name, columns, n_columns, out, err);
    locale_t previous = clp__c_numeric_begin();
    st = read_rows(path, earlier, columns, n_columns, column, last, kept, n_kept, err);
    clp__c_numeric_end(previous);
    fclose(earlier);
    CLP_TRY(st);
    /* the kept rows go to a new file that then replaces the old one, and stays open */
    snprintf(temporary, sizeof temporary, "%s.continued", path);
    CLP_TRY(clp__csv_open(temporary, columns, n_columns, &csv, err));
    for (size_t i = 0; i < *n_kept; i++)
        CLP_TRY(clp__csv_row(csv, *kept + i * n_columns, err));
    if (rename(temporary, path) != 0) {
        st = CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot replace %s: %s", path, strerror(errno));
        goto fail;
    }
    free(csv->path);
    csv->path = strdup(path);
    CLP_REQUIRE_ALLOC(csv->path, err);
    *out = csv;
    return CLP_OK;
fail:
    if (csv) {
        clp__csv_close(csv, NULL);
        remove(temporary);
    }
    free(*kept);
    *kept = NULL;
    *n_kept = 0;
    return st;
}

clp_status clp__csv_write_table(const char *dir, const char *name, const char *const *columns,
                                size_t n_columns, const double *rows, size_t n_rows,
                                clp_error *err) {
    clp__csv *csv = NULL;
    clp_status st = clp__csv_open_in(dir, name, columns, n_columns, &csv, err);
    for (size_t i = 0; st == CLP_OK && i < n_rows; i++)
        st = clp__csv_row(csv, rows + i * n_columns, err);
    if (st != CLP_OK) {
        clp__csv_close(csv, NULL);
        return st;
    }
    return clp__csv_close(csv, err);
}
