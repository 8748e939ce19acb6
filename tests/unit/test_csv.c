/* The diagnostics CSV: header quoting, number formatting (integers without a decimal point,
 * 17 significant digits otherwise), the same text under a German locale, rows on disk as soon
 * as they are written, and write errors. Expected texts are worked out by hand. */
#include "io/io.h"
#include "test.h"

#include <errno.h>
#include <locale.h>
#include <unistd.h>

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        CLP_TEST_FAIL("cannot open %s: %s", path, strerror(errno));
    static char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void check_number(double v, const char *expected) {
    char buf[32];
    CLP_ASSERT_STR_EQ(clp__csv_format_number(v, buf), expected);
}

static void check_numbers(void) {
    check_number(0.0, "0");
    check_number(-0.0, "0");
    check_number(42.0, "42");
    check_number(-7.0, "-7");
    check_number(9007199254740991.0, "9007199254740991"); /* 2^53 - 1: still an integer */
    check_number(-9007199254740991.0, "-9007199254740991");
    check_number(9007199254740992.0, "9007199254740992"); /* 2^53 by %.17g: no decimal anyway */
    check_number(1e20, "1e+20");
    check_number(0.5, "0.5");
    check_number(12345.5, "12345.5");
    check_number(0.1, "0.10000000000000001");
    check_number(1.0 / 3.0, "0.33333333333333331");
    check_number(1e-4, "0.0001");
    check_number(-2.5e-5, "-2.5000000000000001e-05");
    check_number(1e300, "1.0000000000000001e+300");
    check_number(NAN, "nan");
    check_number(-NAN, "nan");
    check_number(INFINITY, "inf");
    check_number(-INFINITY, "-inf");
}

static const char *const columns[] = {"time", "step", "kinetic energy", "front, m", "say \"hi\""};
static const char header[] = "time,step,kinetic energy,\"front, m\",\"say \"\"hi\"\"\"\n";

static void write_rows(const char *path) {
    clp_error err = CLP_ERROR_INIT;
    clp__csv *csv = NULL;
    CLP_ASSERT_OK(clp__csv_open(path, columns, 5, &csv, &err), &err);
    /* Each row must be in the file while the writer is still open. */
    CLP_ASSERT_STR_EQ(read_text(path), header);
    const double row1[5] = {0.0, 0.0, 0.0, 0.5, -3.0};
    CLP_ASSERT_OK(clp__csv_row(csv, row1, &err), &err);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s0,0,0,0.5,-3\n", header);
    CLP_ASSERT_STR_EQ(read_text(path), expected);
    const double row2[5] = {0.1, 1500.0, 1.0 / 3.0, 1e-4, NAN};
    CLP_ASSERT_OK(clp__csv_row(csv, row2, &err), &err);
    snprintf(expected, sizeof expected,
             "%s0,0,0,0.5,-3\n0.10000000000000001,1500,0.33333333333333331,0.0001,\n", header);
    CLP_ASSERT_STR_EQ(read_text(path), expected);
    CLP_ASSERT_OK(clp__csv_close(csv, &err), &err);
    CLP_ASSERT_STR_EQ(read_text(path), expected);
}

/* The same text under a locale whose decimal separator is a comma. */
static void check_german_locale(const char *path) {
    if (!setlocale(LC_ALL, "de_DE.UTF-8") && !setlocale(LC_ALL, "de_DE.utf8")) {
        if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
            CLP_TEST_FAIL("locale de_DE.UTF-8 missing under CI");
        fprintf(stderr, "note: no de_DE.UTF-8 locale, locale independence not checked\n");
        return;
    }
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 0.5);
    CLP_ASSERT_STR_EQ(probe, "0,5"); /* the locale is really in effect */
    check_numbers();
    write_rows(path);
    setlocale(LC_ALL, "C");
}

static void check_errors(const char *folder) {
    char path[512];
    snprintf(path, sizeof path, "%s/missing/diagnostics.csv", folder);
    clp_error err = CLP_ERROR_INIT;
    clp__csv *csv = NULL;
    CLP_ASSERT_STATUS(clp__csv_open(path, columns, 5, &csv, &err), CLP_IO, &err);
    CLP_ASSERT(csv == NULL);
    CLP_ASSERT_STR_EQ(err.source, path);
    CLP_ASSERT_EQ(err.line, -1);
    CLP_ASSERT_EQ(err.column, -1);
    CLP_ASSERT_CONTAINS(err.message, path);
    CLP_ASSERT_CONTAINS(err.message, strerror(ENOENT));

    /* /dev/full accepts the open and fails every write with ENOSPC. */
    if (access("/dev/full", W_OK) != 0)
        return;
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__csv_open("/dev/full", columns, 5, &csv, &err), CLP_IO, &err);
    CLP_ASSERT_STR_EQ(err.source, "/dev/full");
    CLP_ASSERT_CONTAINS(err.message, "/dev/full");
    CLP_ASSERT_CONTAINS(err.message, strerror(ENOSPC));

    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__csv_open(path, columns, 0, &csv, &err), CLP_USAGE, &err);
    CLP_ASSERT_OK(clp__csv_close(NULL, &err), &err);
}

/* A restart continues the file of the run it resumes: rows up to the checkpoint's step stay,
 * byte for byte (German locale too), later ones go, new rows follow; another file is refused,
 * and a missing one is begun anew. */
static void check_continue(const char *folder) {
    clp_error err = CLP_ERROR_INIT;
    static const char *const columns[] = {"time", "step"};
    clp__csv *csv = NULL;
    const double rows[4][2] = {{0, 0}, {0.1, 10}, {0.30000000000000004, 20}, {0.5, 30}};
    CLP_ASSERT_OK(clp__csv_write_table(folder, "run.csv", columns, 2, &rows[0][0], 4, &err), &err);
    double *kept = NULL;
    size_t n_kept = 0;
    setlocale(LC_ALL, "de_DE.UTF-8");
    CLP_ASSERT_OK(
        clp__csv_continue_in(folder, "run.csv", columns, 2, 1, 25, &kept, &n_kept, &csv, &err),
        &err);
    CLP_ASSERT_EQ(n_kept, 3);
    CLP_ASSERT(kept[4] == 0.30000000000000004 && kept[5] == 20);
    const double next[2] = {0.4, 25};
    CLP_ASSERT_OK(clp__csv_row(csv, next, &err), &err);
    CLP_ASSERT_OK(clp__csv_close(csv, &err), &err);
    setlocale(LC_ALL, "C");
    free(kept);
    char path[160];
    snprintf(path, sizeof path, "%s/run.csv", folder);
    CLP_ASSERT_STR_EQ(read_text(path), "time,step\n0,0\n0.10000000000000001,10\n"
                                       "0.30000000000000004,20\n0.40000000000000002,25\n");
    snprintf(path, sizeof path, "%s/run.csv.continued", folder);
    CLP_ASSERT(access(path, F_OK) != 0);

    static const char *const other[] = {"time", "energy"};
    CLP_ASSERT_STATUS(
        clp__csv_continue_in(folder, "run.csv", other, 2, 1, 25, &kept, &n_kept, &csv, &err),
        CLP_IO, &err);
    CLP_ASSERT_CONTAINS(err.message,
                        "run.csv is not this run's: its header is not \"time,energy\"");
    CLP_ASSERT(kept == NULL);

    clp_error_clear(&err);
    CLP_ASSERT_OK(
        clp__csv_continue_in(folder, "new.csv", columns, 2, 1, 25, &kept, &n_kept, &csv, &err),
        &err);
    CLP_ASSERT(n_kept == 0 && kept == NULL);
    CLP_ASSERT_OK(clp__csv_close(csv, &err), &err);
    snprintf(path, sizeof path, "%s/new.csv", folder);
    CLP_ASSERT_STR_EQ(read_text(path), "time,step\n");
    CLP_ASSERT(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/run.csv", folder);
    CLP_ASSERT(unlink(path) == 0);
}

/* A missing value (NaN, a dry gauge's) is an empty field, last in its row or not; a restart
 * reads it back as NaN and keeps it empty, and the table reader takes it as NaN too. */
static void check_missing(const char *folder) {
    clp_error err = CLP_ERROR_INIT;
    static const char *const columns[] = {"time", "pressure", "step"};
    clp__csv *csv = NULL;
    const double rows[2][3] = {{0, NAN, 0}, {0.5, 2.5, NAN}};
    CLP_ASSERT_OK(clp__csv_write_table(folder, "dry.csv", columns, 3, &rows[0][0], 2, &err), &err);
    char path[160];
    snprintf(path, sizeof path, "%s/dry.csv", folder);
    CLP_ASSERT_STR_EQ(read_text(path), "time,pressure,step\n0,,0\n0.5,2.5,\n");
    clp__csv_table table;
    CLP_ASSERT_OK(clp__csv_read(path, &table, &err), &err);
    CLP_ASSERT(table.n_rows == 2 && isnan(table.values[1]) && table.values[4] == 2.5 &&
               isnan(table.values[5]));
    clp__csv_table_free(&table);
    double *kept = NULL;
    size_t n_kept = 0;
    CLP_ASSERT_OK(
        clp__csv_continue_in(folder, "dry.csv", columns, 3, 0, 1, &kept, &n_kept, &csv, &err),
        &err);
    CLP_ASSERT(n_kept == 2 && isnan(kept[1]) && kept[4] == 2.5 && isnan(kept[5]));
    CLP_ASSERT_OK(clp__csv_close(csv, &err), &err);
    free(kept);
    CLP_ASSERT_STR_EQ(read_text(path), "time,pressure,step\n0,,0\n0.5,2.5,\n");
    CLP_ASSERT(unlink(path) == 0);
}

int main(void) {
    char folder[64] = "/tmp/clpart-test-csv-XXXXXX";
    CLP_ASSERT(mkdtemp(folder) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/diagnostics.csv", folder);
    check_numbers();
    write_rows(path);
    check_german_locale(path);
    check_errors(folder);
    check_continue(folder);
    check_missing(folder);
    CLP_ASSERT(unlink(path) == 0);
    CLP_ASSERT(rmdir(folder) == 0);
    printf("csv: all checks passed\n");
    return 0;
}
