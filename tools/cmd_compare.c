/* clpart compare A B [--tol QUANTITY=REL[,ABS]]... [--tolerances FILE] [--model NAME]
 * [--all] [--json]: two runs of a case (output folders, or records of a results.jsonl as FILE:LINE)
 * side by side. Prints what the runs do not share, then a table of the quantities that come
 * nearest to or go beyond their tolerance, and exits 0 when every quantity is within its
 * tolerance, 1 when one is beyond it or nothing could be compared. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SHOWN = 12 }; /* rows of the table without --all, beyond those past their tolerance */

static int by_ratio(const void *x, const void *y) {
    const double a = compare_ratio(x), b = compare_ratio(y);
    return (b > a) - (b < a);
}

static void print_table(const compare_result *r, bool all) {
    compare_item *sorted = malloc(r->n_items * sizeof *sorted + 1);
    if (!sorted)
        return;
    memcpy(sorted, r->items, r->n_items * sizeof *sorted);
    qsort(sorted, r->n_items, sizeof *sorted, by_ratio);
    printf("%-16s %-18s %12s %14s %14s %11s %11s %8s\n", "file", "quantity", "at", "A", "B",
           "difference", "allowed", "used");
    size_t shown = 0;
    for (size_t i = 0; i < r->n_items; i++) {
        const compare_item *it = &sorted[i];
        if (!all && !it->beyond && shown >= SHOWN)
            continue;
        char at[32] = "";
        if (!isnan(it->at))
            snprintf(at, sizeof at, "%.6g", it->at);
        char used[32];
        const double ratio = compare_ratio(it);
        snprintf(used, sizeof used, isinf(ratio) ? "inf" : "%.3g", ratio);
        printf("%-16s %-18s %12s %14.7g %14.7g %11.3g %11.3g %8s%s\n", it->file, it->quantity, at,
               it->a, it->b, it->difference, it->allowed, used, it->beyond ? "  BEYOND" : "");
        shown++;
    }
    if (shown < r->n_items)
        printf("(%zu more within %.3g of their tolerance; --all lists them)\n", r->n_items - shown,
               compare_ratio(&sorted[shown]));
    free(sorted);
}

/* The verdict, notes and every item as one JSON document on stdout. */
static void print_json(const compare_result *r, const compare_run *a, const compare_run *b) {
    json_t *items = json_array(), *notes = json_array();
    for (size_t i = 0; i < r->n_items; i++) {
        const compare_item *it = &r->items[i];
        const double ratio = compare_ratio(it);
        json_array_append_new(
            items, json_pack("{s:s, s:s, s:o, s:f, s:f, s:f, s:f, s:o, s:I, s:b}", "file", it->file,
                             "quantity", it->quantity, "at",
                             isnan(it->at) ? json_null() : json_real(it->at), "a", it->a, "b",
                             it->b, "difference", it->difference, "allowed", it->allowed, "used",
                             isfinite(ratio) ? json_real(ratio) : json_string("inf"), "compared",
                             (json_int_t)it->compared, "beyond", it->beyond));
    }
    for (size_t i = 0; i < r->n_notes; i++)
        json_array_append_new(notes, json_string(r->notes[i]));
    const char *verdict = !r->comparable ? "not comparable" : r->beyond ? "beyond" : "within";
    json_t *doc = json_pack("{s:s, s:s, s:s, s:o, s:o}", "a", a->label, "b", b->label, "verdict",
                            verdict, "notes", notes, "items", items);
    json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    putchar('\n');
    json_decref(doc);
}

/* "kinetic_energy (diagnostics.csv), ..." for the items beyond their tolerance. */
static void print_beyond(const compare_result *r) {
    size_t listed = 0;
    for (size_t i = 0; i < r->n_items && listed < 8; i++)
        if (r->items[i].beyond)
            printf("%s%s (%s)", listed++ ? ", " : "", r->items[i].quantity, r->items[i].file);
    if (r->beyond > listed)
        printf(", and %zu more", r->beyond - listed);
}

int cmd_compare(int argc, char **argv, const clp_cli *cli) {
    (void)cli;
    clp_error err = CLP_ERROR_INIT;
    clp_status st = CLP_OK;
    const char *paths[2] = {NULL, NULL}, *tolerances_path = NULL, *model = NULL;
    compare_run a = {0}, b = {0};
    compare_tolerances tol = {0};
    compare_result result = {0};
    json_t *overrides = json_array();
    bool all = false, as_json = false;
    int n_paths = 0;
    for (int i = 1; st == CLP_OK && i < argc; i++) {
        const bool value = i + 1 < argc;
        if (!strcmp(argv[i], "--tol") && value)
            json_array_append_new(overrides, json_string(argv[++i]));
        else if (!strcmp(argv[i], "--tolerances") && value)
            tolerances_path = argv[++i];
        else if (!strcmp(argv[i], "--model") && value)
            model = argv[++i];
        else if (!strcmp(argv[i], "--all"))
            all = true;
        else if (!strcmp(argv[i], "--json"))
            as_json = true;
        else if (argv[i][0] == '-' && argv[i][1])
            st = CLP_FAIL_AT(&err, CLP_USAGE, "command line", -1, -1,
                             "unknown flag '%s' (or it lacks its value)", argv[i]);
        else if (n_paths < 2)
            paths[n_paths++] = argv[i];
        else
            st = CLP_FAIL(&err, CLP_USAGE, "clpart compare takes two runs, not a third ('%s')",
                          argv[i]);
    }
    if (st == CLP_OK && n_paths != 2)
        st = CLP_FAIL(&err, CLP_USAGE,
                      "clpart compare takes two runs: output folders, or FILE.jsonl:LINE records");
    if (st == CLP_OK)
        st = compare_run_open(paths[0], &a, &err);
    if (st == CLP_OK)
        st = compare_run_open(paths[1], &b, &err);
    if (st == CLP_OK && !model)
        model = a.model ? a.model : b.model;
    if (st == CLP_OK && !model && !tolerances_path)
        st = CLP_FAIL(&err, CLP_USAGE,
                      "neither %s nor %s names its model (in run.json or summary.json): give "
                      "--model NAME",
                      paths[0], paths[1]);
    if (st == CLP_OK)
        st = compare_tolerances_load(model, tolerances_path, &tol, &err);
    for (size_t i = 0; st == CLP_OK && i < json_array_size(overrides); i++)
        st = compare_tolerances_override(&tol, json_string_value(json_array_get(overrides, i)),
                                         &err);
    if (st == CLP_OK)
        st = compare_runs(&a, &b, &tol, &result, &err);
    int rc = CLP_EXIT_RUNTIME;
    if (st == CLP_OK && as_json) {
        print_json(&result, &a, &b);
        rc = result.comparable && !result.beyond ? CLP_EXIT_OK : CLP_EXIT_RUNTIME;
    } else if (st == CLP_OK) {
        printf("A: %s\nB: %s\n", a.label, b.label);
        for (size_t i = 0; i < result.n_notes; i++)
            printf("note: %s\n", result.notes[i]);
        if (result.n_items)
            print_table(&result, all);
        if (!result.comparable)
            printf("not comparable: nothing of one run could be matched with the other's\n");
        else if (result.beyond) {
            printf("beyond tolerance: %zu of %zu quantities: ", result.beyond, result.n_items);
            print_beyond(&result);
            printf("\n");
        } else {
            const compare_item *w = compare_worst(&result);
            printf("within tolerance: %zu quantities; the nearest, %s (%s), used %.3g of its "
                   "tolerance\n",
                   result.n_items, w->quantity, w->file, compare_ratio(w));
            rc = CLP_EXIT_OK;
        }
    } else
        rc = cli_report(&err);
    compare_result_free(&result);
    compare_tolerances_free(&tol);
    compare_run_close(&a);
    compare_run_close(&b);
    json_decref(overrides);
    return rc;
}
