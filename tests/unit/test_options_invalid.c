/* unit/options-invalid: runs every case folder of <argv[1]>/options/invalid (case.json and/or
 * args: assignments and "preset NAME" lines) and <argv[1]>/schema/invalid (an options/ schema
 * folder, loaded instead of the real one), checking every clp_error field against "expected". */
#include "test.h"

#include <dirent.h>
#include <sys/stat.h>

enum { MAX_LINES = 32, LINE_SIZE = 512, PATH_SIZE = 2048 };

typedef struct lines {
    char text[MAX_LINES][LINE_SIZE];
    size_t n;
} lines;

/* Reads the non-empty lines of a file; false when it does not exist. */
static bool read_lines(const char *path, lines *out) {
    out->n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[LINE_SIZE];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] && out->n < MAX_LINES)
            snprintf(out->text[out->n++], LINE_SIZE, "%s", line);
    }
    fclose(f);
    return true;
}

/* out = a/b; a path that does not fit ends the test. */
static void join(char *out, size_t size, const char *a, const char *b) {
    if ((size_t)snprintf(out, size, "%s/%s", a, b) >= size)
        CLP_TEST_FAIL("path too long: %s/%s", a, b);
}

static bool exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Runs one folder: the schema (its own or `real`), the case with its presets, the
 * assignments, then the depends check; stops at the first error. */
static void run_case(const char *dir, const clp_schema *real, clp_error *err) {
    char path[PATH_SIZE], case_path[PATH_SIZE];
    clp_schema *own = NULL;
    join(path, sizeof path, dir, "options");
    if (exists(path) && clp_schema_load(path, &own, err) != CLP_OK)
        return;
    clp_options *opts = NULL;
    CLP_ASSERT_OK(clp_options_create(own ? own : real, &opts, err), err);
    lines args;
    join(path, sizeof path, dir, "args");
    read_lines(path, &args);
    const char *presets[MAX_LINES];
    size_t n_presets = 0;
    for (size_t k = 0; k < args.n; k++)
        if (strncmp(args.text[k], "preset ", 7) == 0)
            presets[n_presets++] = args.text[k] + 7;
    join(case_path, sizeof case_path, dir, "case.json");
    clp_status st = CLP_OK;
    if (exists(case_path))
        st = clp_options_apply_case(opts, case_path, presets, n_presets, err);
    for (size_t k = 0; k < args.n && st == CLP_OK; k++)
        if (strncmp(args.text[k], "preset ", 7) != 0)
            st = clp_options_apply_assignment(opts, args.text[k], err);
    if (st == CLP_OK)
        clp_options_check(opts, err);
    clp_options_destroy(opts);
    clp_schema_destroy(own);
}

/* Replaces each "(case)" with dir/case.json and each "(dir)" with the folder itself. */
static void expand(const char *dir, const char *text, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    while (*text && used < size) {
        if (strncmp(text, "(case)", 6) == 0) {
            used += (size_t)snprintf(out + used, size - used, "%s/case.json", dir);
            text += 6;
        } else if (strncmp(text, "(dir)", 5) == 0) {
            used += (size_t)snprintf(out + used, size - used, "%s", dir);
            text += 5;
        } else {
            used += (size_t)snprintf(out + used, size - used, "%c", *text++);
        }
    }
}

/* err->source keeps the tail of a long source behind "...". */
static bool same_source(const char *got, const char *expected) {
    if (strcmp(got, expected) == 0)
        return true;
    size_t lg = strlen(got), le = strlen(expected);
    return strncmp(got, "...", 3) == 0 && le > lg - 3 &&
           strcmp(expected + le - (lg - 3), got + 3) == 0;
}

/* Compares err with the folder's expected file; prints each mismatch; true when all match. */
static bool check_expected(const char *dir, const clp_error *err) {
    char path[PATH_SIZE], text[LINE_SIZE + PATH_SIZE];
    lines expected;
    join(path, sizeof path, dir, "expected");
    if (!read_lines(path, &expected)) {
        fprintf(stderr, "%s: no expected file\n", dir);
        return false;
    }
    bool ok = true;
    int seen = 0; /* bits: status, source, line, column, message */
    for (size_t k = 0; k < expected.n; k++) {
        const char *line = expected.text[k];
        const char *value = strchr(line, ' ');
        value = value ? value + 1 : "";
        bool match;
        if (strncmp(line, "status ", 7) == 0) {
            seen |= 1;
            match = strcmp(clp_status_name(err->status), value) == 0;
        } else if (strncmp(line, "source ", 7) == 0) {
            seen |= 2;
            expand(dir, value, text, sizeof text);
            match = same_source(err->source, text);
        } else if (strncmp(line, "line ", 5) == 0) {
            seen |= 4;
            match = err->line == atoi(value);
        } else if (strncmp(line, "column ", 7) == 0) {
            seen |= 8;
            match = err->column == atoi(value);
        } else if (strncmp(line, "message-contains ", 17) == 0) {
            seen |= 16;
            expand(dir, value, text, sizeof text);
            match = strstr(err->message, text) != NULL;
        } else {
            fprintf(stderr, "%s: unknown line in expected: %s\n", dir, line);
            match = false;
        }
        if (!match)
            fprintf(stderr, "%s: expected %s\n", dir, line);
        ok = ok && match;
    }
    if (seen != 31) {
        fprintf(stderr,
                "%s: expected must give status, source, line, column and "
                "message-contains\n",
                dir);
        ok = false;
    }
    if (err->cl_code != 0 || !err->origin_file) {
        fprintf(stderr, "%s: cl_code %d, origin_file %s\n", dir, (int)err->cl_code,
                err->origin_file ? err->origin_file : "(null)");
        ok = false;
    }
    if (!ok)
        fprintf(stderr, "%s: got %s, source \"%s\", line %d, column %d, message \"%s\"\n", dir,
                clp_status_name(err->status), err->source, err->line, err->column, err->message);
    return ok;
}

static int is_case(const struct dirent *e) {
    return e->d_name[0] != '.';
}

/* Runs every case folder of `root`; returns how many failed, adds how many ran to *total. */
static int run_folder(const char *root, const clp_schema *real, int *total) {
    struct dirent **cases = NULL;
    int n = scandir(root, &cases, is_case, alphasort);
    if (n <= 0)
        CLP_TEST_FAIL("no cases in %s", root);
    int failed = 0;
    for (int k = 0; k < n; k++) {
        char dir[PATH_SIZE];
        join(dir, sizeof dir, root, cases[k]->d_name);
        clp_error err = CLP_ERROR_INIT;
        run_case(dir, real, &err);
        bool ok = check_expected(dir, &err);
        printf("%s %s\n", ok ? "ok  " : "FAIL", dir);
        failed += !ok;
        free(cases[k]);
    }
    free(cases);
    *total += n;
    return failed;
}

int main(int argc, char **argv) {
    if (argc != 2)
        CLP_TEST_FAIL("usage: %s DATA_FOLDER (tests/data)", argv[0]);
    char path[PATH_SIZE];
    join(path, sizeof path, clp_data_dir(), "options");
    clp_error err = CLP_ERROR_INIT;
    clp_schema *real = NULL;
    CLP_ASSERT_OK(clp_schema_load(path, &real, &err), &err);
    int failed = 0, total = 0;
    const char *folders[] = {"options/invalid", "schema/invalid"};
    for (size_t k = 0; k < sizeof folders / sizeof folders[0]; k++) {
        join(path, sizeof path, argv[1], folders[k]);
        failed += run_folder(path, real, &total);
    }
    clp_schema_destroy(real);
    printf("%d of %d cases failed\n", failed, total);
    return failed ? 1 : 0;
}
