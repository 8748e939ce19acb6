/* clpart compare's comparisons (see compare.h): provenance, the CSV tables row by row at
 * equal keys, summary.json's numbers, and the snapshots particle by particle at equal times
 * and IDs; for each quantity the worst difference against its tolerance. */
#include "compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- The result */

static clp_status note(compare_result *r, clp_error *err, const char *fmt, ...) CLP_PRINTF(3, 4);
static clp_status note(compare_result *r, clp_error *err, const char *fmt, ...) {
    char **grown = realloc(r->notes, (r->n_notes + 1) * sizeof *grown);
    if (!grown)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    r->notes = grown;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    va_end(ap);
    if (!text)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    r->notes[r->n_notes] = text;
    r->n_notes++;
    return CLP_OK;
}

/* The item of `quantity` in `file`, added when new. */
static clp_status item_for(compare_result *r, const char *file, const char *quantity,
                           compare_item **out, clp_error *err) {
    for (size_t i = 0; i < r->n_items; i++)
        if (!strcmp(r->items[i].file, file) && !strcmp(r->items[i].quantity, quantity)) {
            *out = &r->items[i];
            return CLP_OK;
        }
    compare_item *grown = realloc(r->items, (r->n_items + 1) * sizeof *grown);
    if (!grown)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    r->items = grown;
    compare_item *it = &r->items[r->n_items];
    *it = (compare_item){.file = strdup(file), .quantity = strdup(quantity), .at = NAN};
    if (!it->file || !it->quantity) {
        free(it->file);
        free(it->quantity);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    }
    r->n_items++;
    *out = it;
    return CLP_OK;
}

double compare_ratio(const compare_item *it) {
    if (it->difference == 0)
        return 0.0;
    return it->allowed > 0 ? it->difference / it->allowed : INFINITY; /* NaN allows nothing */
}

/* Keeps (a, b) as the item's worst when it uses more of its tolerance than the worst so far. */
static void account(compare_item *it, double a, double b, double difference, double allowed,
                    double at) {
    const compare_item candidate = {.difference = difference, .allowed = allowed};
    if (it->compared == 0 || compare_ratio(&candidate) > compare_ratio(it)) {
        it->a = a;
        it->b = b;
        it->difference = difference;
        it->allowed = allowed;
        it->at = at;
    }
    it->compared++;
    it->beyond = compare_ratio(it) > 1;
}

/* |a - b|, to the nearest image of a periodic coordinate; inf where one is NaN. */
static double distance(double a, double b, double period) {
    if (isnan(a) != isnan(b))
        return INFINITY;
    if (isnan(a))
        return 0;
    double d = fabs(a - b);
    if (period > 0) {
        d = fmod(d, period);
        d = fmin(d, period - d);
    }
    return d;
}

/* ---- Scales: what a named scale means where a quantity is compared */

typedef struct scope {
    const clp__csv_table *ta, *tb; /* the rows being compared, when in a table */
    size_t ra, rb;
    const json_t *sa, *sb; /* the summaries */
    double spacing;        /* of a snapshot's particles, 0 when none */
    double particles;
} scope;

/* The value of `name` where the comparison is: the larger magnitude of the two sides' column
 * in the same row, else of their summaries, else a snapshot's spacing or particle count. */
static bool scope_value(const scope *s, const char *name, double *out) {
    if (s->ta) {
        const long ca = clp__csv_table_column(s->ta, name);
        const long cb = clp__csv_table_column(s->tb, name);
        if (ca >= 0 && cb >= 0) {
            *out = fmax(fabs(s->ta->values[s->ra * s->ta->n_columns + (size_t)ca]),
                        fabs(s->tb->values[s->rb * s->tb->n_columns + (size_t)cb]));
            return true;
        }
    }
    /* a summary counts its particles as particles, atoms (LJ) or points (repulsive) */
    const char *const aliases[] = {name, "atoms", "points"};
    for (size_t k = 0; k < (strcmp(name, "particles") ? 1u : 3u); k++) {
        const json_t *a = json_object_get(s->sa, aliases[k]);
        const json_t *b = json_object_get(s->sb, aliases[k]);
        if (json_is_number(a) || json_is_number(b)) {
            *out = fmax(fabs(json_number_value(a)), fabs(json_number_value(b)));
            return true;
        }
    }
    if (!strcmp(name, "spacing") && s->spacing > 0) {
        *out = s->spacing;
        return true;
    }
    if (!strcmp(name, "particles") && s->particles > 0) {
        *out = s->particles;
        return true;
    }
    return false;
}

/* abs + rel * scale for values a and b (magnitudes when the tolerance names no scale). */
static double allowed(const compare_tolerance *t, const scope *s, double a, double b,
                      bool *unknown) {
    double scale = fmax(fabs(a), fabs(b));
    if (t->n_scale) {
        double product = 1;
        for (size_t i = 0; i < t->n_scale; i++) {
            double v;
            if (!scope_value(s, t->scale[i], &v)) {
                *unknown = true;
                return t->abs + t->rel * scale;
            }
            product *= v;
        }
        scale = pow(product, t->power);
    }
    return t->abs + t->rel * scale;
}

/* ---- Provenance */

/* A note for each of `fields` of run.json that the two runs do not share. */
static clp_status compare_provenance(const compare_run *a, const compare_run *b, compare_result *r,
                                     clp_error *err) {
    clp_status st = CLP_OK;
    if (a->model && b->model && strcmp(a->model, b->model)) {
        r->comparable = false;
        return note(r, err, "the runs are of two models (%s and %s): nothing is compared", a->model,
                    b->model);
    }
    if (!a->run || !b->run)
        return note(r, err, "%s has no run.json: its case, options and device are unknown",
                    a->run ? b->label : a->label);
    const char *ha = json_string_value(json_object_get(json_object_get(a->run, "case"), "hash"));
    const char *hb = json_string_value(json_object_get(json_object_get(b->run, "case"), "hash"));
    if (ha && hb && strcmp(ha, hb))
        CLP_TRY(note(r, err, "warning: the case files differ (hash %s and %s)", ha, hb));
    const char *va = json_string_value(json_object_get(a->run, "clpart"));
    const char *vb = json_string_value(json_object_get(b->run, "clpart"));
    if (va && vb && strcmp(va, vb))
        CLP_TRY(note(r, err, "warning: clpart versions differ (%s and %s)", va, vb));
    if (!json_equal(json_object_get(a->run, "limits"), json_object_get(b->run, "limits"))) {
        char *la = json_dumps(json_object_get(a->run, "limits"), JSON_COMPACT | JSON_SORT_KEYS);
        char *lb = json_dumps(json_object_get(b->run, "limits"), JSON_COMPACT | JSON_SORT_KEYS);
        st = note(r, err, "warning: the runs' limits differ (%s and %s)", la ? la : "none",
                  lb ? lb : "none");
        free(la);
        free(lb);
        CLP_TRY(st);
    }
    const json_t *oa = json_object_get(a->run, "options"), *ob = json_object_get(b->run, "options");
    const char *name;
    json_t *value;
    json_object_foreach((json_t *)oa, name, value) {
        const json_t *other = json_object_get(ob, name);
        if (other && !json_equal(value, other))
            CLP_TRY(note(r, err, "option %s: %s and %s", name, json_string_value(value),
                         json_string_value(other)));
    }
    const json_t *da = json_object_get(a->run, "device"), *db = json_object_get(b->run, "device");
    const char *na = json_string_value(json_object_get(da, "name"));
    const char *nb = json_string_value(json_object_get(db, "name"));
    const char *pa = json_string_value(json_object_get(da, "platform"));
    const char *pb = json_string_value(json_object_get(db, "platform"));
    if (na && nb && pa && pb && (strcmp(na, nb) || strcmp(pa, pb)))
        CLP_TRY(note(r, err, "devices: %s (%s) and %s (%s)", na, pa, nb, pb));
fail:
    return st;
}

/* ---- Tables */

/* Whether keys x and y are the same within `rel`. */
static bool same_key(double x, double y, double rel) {
    return fabs(x - y) <= rel * fmax(fabs(x), fabs(y));
}

/* Every column both tables have, except the key, at each pair of rows with the same key (or
 * the same index when the file has no key). */
static clp_status compare_table(const char *file, const clp__csv_table *ta,
                                const clp__csv_table *tb, const compare_run *a,
                                const compare_run *b, const compare_tolerances *tol,
                                compare_result *r, clp_error *err) {
    clp_status st = CLP_OK;
    double key_rel;
    const char *key = compare_key_of(tol, file, &key_rel);
    long ka = key ? clp__csv_table_column(ta, key) : -1;
    long kb = key ? clp__csv_table_column(tb, key) : -1;
    if (key && (ka < 0 || kb < 0)) { /* a record counts steps where a folder's files do not */
        key = "steps";
        ka = clp__csv_table_column(ta, key);
        kb = clp__csv_table_column(tb, key);
        CLP_REQUIRE(ka >= 0 && kb >= 0, err, CLP_CASE,
                    "%s: the tolerances key its rows by \"%s\", a column it lacks", file,
                    compare_key_of(tol, file, &key_rel));
    }
    size_t matched = 0, only_a = 0, only_b = 0;
    double first_a = NAN, first_b = NAN; /* the first keys without a partner */
    bool parted_before = false;          /* a row without a partner before a matched row */
    bool unknown_scale = false;
    for (size_t i = 0, j = 0; i < ta->n_rows || j < tb->n_rows;) {
        const double *ra = i < ta->n_rows ? ta->values + i * ta->n_columns : NULL;
        const double *rb = j < tb->n_rows ? tb->values + j * tb->n_columns : NULL;
        if (ra && rb && ka >= 0 && !same_key(ra[ka], rb[kb], key_rel)) {
            /* the smaller key has no partner: step past it */
            if (ra[ka] < rb[kb]) {
                first_a = only_a++ ? first_a : ra[ka];
                i++;
            } else {
                first_b = only_b++ ? first_b : rb[kb];
                j++;
            }
            continue;
        }
        if (!ra || !rb) {
            if (ra && ka >= 0)
                first_a = only_a ? first_a : ra[ka];
            if (rb && kb >= 0)
                first_b = only_b ? first_b : rb[kb];
            only_a += ra != NULL;
            only_b += rb != NULL;
            i += ra != NULL;
            j += rb != NULL;
            continue;
        }
        const scope s = {ta, tb, i, j, a->summary, b->summary, 0, 0};
        for (size_t c = 0; c < ta->n_columns; c++) {
            const long cb = clp__csv_table_column(tb, ta->columns[c]);
            if (cb < 0 || (long)c == ka)
                continue;
            const compare_tolerance t = compare_tolerance_of(tol, file, ta->columns[c]);
            if (t.ignore)
                continue;
            compare_item *it;
            CLP_TRY(item_for(r, file, ta->columns[c], &it, err));
            const double x = ra[c], y = rb[cb];
            account(it, x, y, distance(x, y, t.period), allowed(&t, &s, x, y, &unknown_scale),
                    ka >= 0 ? ra[ka] : (double)i);
        }
        parted_before |= only_a || only_b;
        matched++;
        i++;
        j++;
    }
    /* a run that stops by a criterion (the repulsive design at rest) may stop a check sooner */
    const bool tail_only =
        !parted_before && (!only_a || !only_b) && compare_ends_by_criterion(tol, file);
    if (unknown_scale)
        CLP_TRY(note(r, err,
                     "%s: a tolerance names a scale neither run holds: those values "
                     "are compared relative to their own size",
                     file));
    if ((only_a || only_b) && ka >= 0 && !tail_only) { /* the runs went other ways */
        compare_item *it;
        CLP_TRY(item_for(r, file, key, &it, err));
        account(it, first_a, first_b, distance(first_a, first_b, 0),
                key_rel * fmax(fabs(first_a), fabs(first_b)), NAN);
        it->beyond = it->parted = true;
    }
    if (only_a || only_b)
        CLP_TRY(note(r, err,
                     "%s: %zu rows of %s and %zu of %s have no row %s in the other (their last "
                     "%s: %.10g and %.10g)",
                     file, only_a, a->label, only_b, b->label,
                     ka >= 0 ? "at the same key" : "at that index", key ? key : "row",
                     ta->n_rows && ka >= 0 ? ta->values[(ta->n_rows - 1) * ta->n_columns + ka]
                                           : (double)ta->n_rows,
                     tb->n_rows && kb >= 0 ? tb->values[(tb->n_rows - 1) * tb->n_columns + kb]
                                           : (double)tb->n_rows));
    if (!matched && (ta->n_rows || tb->n_rows))
        CLP_TRY(note(r, err,
                     "%s: no row of one run has a row of the other at the same %s: "
                     "nothing of it compared",
                     file, key ? key : "index"));
fail:
    return st;
}

/* ---- summary.json */

static clp_status compare_summaries(const compare_run *a, const compare_run *b,
                                    const compare_tolerances *tol, compare_result *r,
                                    clp_error *err) {
    clp_status st = CLP_OK;
    const char *name;
    json_t *value;
    bool unknown_scale = false;
    const scope s = {.sa = a->summary, .sb = b->summary};
    json_object_foreach(a->summary, name, value) {
        const json_t *other = json_object_get(b->summary, name);
        if (!json_is_number(value) || !json_is_number(other))
            continue;
        const compare_tolerance t = compare_tolerance_of(tol, "summary.json", name);
        if (t.ignore)
            continue;
        compare_item *it;
        CLP_TRY(item_for(r, "summary.json", name, &it, err));
        const double x = json_number_value(value), y = json_number_value(other);
        account(it, x, y, distance(x, y, t.period), allowed(&t, &s, x, y, &unknown_scale), NAN);
    }
    if (unknown_scale)
        CLP_TRY(note(r, err, "summary.json: a tolerance names a scale neither run holds"));
fail:
    return st;
}

/* ---- Snapshots */

typedef struct id_index {
    double id;
    size_t at;
} id_index;

static int by_id(const void *x, const void *y) {
    const double a = ((const id_index *)x)->id, b = ((const id_index *)y)->id;
    return (a > b) - (a < b);
}

/* The snapshot's particles by ID, ascending. New array. */
static id_index *sorted_ids(const clp__vtp_array *ids) {
    id_index *s = malloc(ids->tuples * sizeof *s + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < ids->tuples; i++)
        s[i] = (id_index){ids->values[i], i};
    qsort(s, ids->tuples, sizeof *s, by_id);
    return s;
}

/* The median distance from a sample of up to 256 particles to their nearest other particle:
 * the particles' spacing, the scale of a position's difference. */
static double spacing(const clp__vtp_array *pos) {
    const size_t n = pos->tuples, step = n > 256 ? n / 256 : 1;
    double nearest[257];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 256; i += step) {
        double best = INFINITY;
        for (size_t j = 0; j < n; j++) {
            double d2 = 0;
            for (int c = 0; c < pos->components; c++) {
                const size_t w = (size_t)pos->components;
                const double d = pos->values[i * w + c] - pos->values[j * w + c];
                d2 += d * d;
            }
            if (j != i && d2 > 0)
                best = fmin(best, d2);
        }
        if (isfinite(best))
            nearest[k++] = sqrt(best);
    }
    return k ? clp__median(nearest, k) : 0.0;
}

/* The fields of one pair of snapshots at the same time (both with IDs), particle by particle,
 * matched by their IDs; particles whose type differs (one left the domain) are counted, not
 * compared. */
static clp_status compare_snapshot(const clp__vtp_data *va, const clp__vtp_data *vb,
                                   const compare_tolerances *tol, compare_result *r,
                                   clp_error *err) {
    clp_status st = CLP_OK;
    id_index *ia = NULL, *ib = NULL;
    size_t *pair_a = NULL, *pair_b = NULL;
    const clp__vtp_array *ida = clp__vtp_find(va, "id"), *idb = clp__vtp_find(vb, "id");
    ia = sorted_ids(ida);
    ib = sorted_ids(idb);
    pair_a = malloc(va->n * sizeof *pair_a + 1);
    pair_b = malloc(va->n * sizeof *pair_b + 1);
    CLP_REQUIRE(ia && ib && pair_a && pair_b, err, CLP_NOMEM, "out of host memory");
    const clp__vtp_array *ta = clp__vtp_find(va, "type"), *tb = clp__vtp_find(vb, "type");
    size_t pairs = 0, unpaired = 0, other_type = 0;
    for (size_t i = 0, j = 0; i < va->n || j < vb->n;) {
        if (i < va->n && j < vb->n && ia[i].id == ib[j].id) {
            const size_t x = ia[i++].at, y = ib[j++].at;
            if (ta && tb && ta->values[x] != tb->values[y])
                other_type++;
            else if (!ta || ta->values[x] != CLP_GRID_EXCLUDED) {
                pair_a[pairs] = x;
                pair_b[pairs++] = y;
            }
        } else if (j >= vb->n || (i < va->n && ia[i].id < ib[j].id))
            i++, unpaired++;
        else
            j++, unpaired++;
    }
    if (unpaired)
        CLP_TRY(
            note(r, err, "t = %.10g: %zu particles are in one snapshot only", va->time, unpaired));
    if (other_type)
        CLP_TRY(note(r, err,
                     "t = %.10g: %zu particles have another type in each run (one left the "
                     "domain): not compared",
                     va->time, other_type));
    const clp__vtp_array *pos = clp__vtp_find(va, "position");
    const scope s = {.spacing = pos ? spacing(pos) : 0, .particles = (double)pairs};
    bool unknown_scale = false;
    for (size_t k = 0; k < va->n_arrays; k++) {
        const clp__vtp_array *fa = &va->arrays[k];
        const clp__vtp_array *fb = clp__vtp_find(vb, fa->name);
        if (!fb || fa->tuples != va->n || fb->components != fa->components ||
            !strcmp(fa->name, "id") || !strcmp(fa->name, "type"))
            continue;
        const compare_tolerance t = compare_tolerance_of(tol, "particles.pvd", fa->name);
        if (t.ignore || !pairs)
            continue;
        /* positions in a periodic box: to the nearest image along each periodic axis */
        const clp__vtp_array *box = clp__vtp_find(va, "Period");
        const bool wraps = box && !strcmp(fa->name, "position") && box->tuples == 1 &&
                           box->components == fa->components;
        double sum_d2 = 0, sum_a2 = 0, sum_b2 = 0;
        for (size_t p = 0; p < pairs; p++) {
            const double *x = fa->values + pair_a[p] * (size_t)fa->components;
            const double *y = fb->values + pair_b[p] * (size_t)fb->components;
            for (int c = 0; c < fa->components; c++) {
                const double d = distance(x[c], y[c], wraps ? box->values[c] : t.period);
                sum_d2 += d * d;
                sum_a2 += x[c] * x[c];
                sum_b2 += y[c] * y[c];
            }
        }
        const double rms_a = sqrt(sum_a2 / (double)pairs), rms_b = sqrt(sum_b2 / (double)pairs);
        const double rms_d = sqrt(sum_d2 / (double)pairs);
        compare_item *it;
        CLP_TRY(item_for(r, "particles.pvd", fa->name, &it, err));
        account(it, rms_a, rms_b, rms_d, allowed(&t, &s, rms_a, rms_b, &unknown_scale), va->time);
    }
    if (unknown_scale)
        CLP_TRY(note(r, err, "particles.pvd: a tolerance names a scale the snapshots lack"));
fail:
    free(ia);
    free(ib);
    free(pair_a);
    free(pair_b);
    return st;
}

/* Every snapshot of a at a time that b has one at too. */
static clp_status compare_snapshots(const compare_run *a, const compare_run *b,
                                    const compare_tolerances *tol, compare_result *r,
                                    clp_error *err) {
    clp_status st = CLP_OK;
    double key_rel;
    compare_key_of(tol, "particles.pvd", &key_rel);
    size_t matched = 0;
    for (size_t i = 0, j = 0; i < a->snapshots.count && j < b->snapshots.count;) {
        const double ta = a->snapshots.times[i], tb = b->snapshots.times[j];
        if (!same_key(ta, tb, key_rel)) {
            i += ta < tb;
            j += tb < ta;
            continue;
        }
        clp__vtp_data va = {0}, vb = {0};
        st = clp__vtp_read(a->snapshots.files[i], &va, err);
        if (st == CLP_OK)
            st = clp__vtp_read(b->snapshots.files[j], &vb, err);
        const bool ids = clp__vtp_find(&va, "id") && clp__vtp_find(&vb, "id");
        if (st == CLP_OK && ids)
            st = compare_snapshot(&va, &vb, tol, r, err);
        else if (st == CLP_OK) /* written before snapshots carried IDs */
            st = note(r, err, "%s has no particle IDs: the snapshots are not compared",
                      clp__vtp_find(&va, "id") ? vb.path : va.path);
        clp__vtp_data_free(&va);
        clp__vtp_data_free(&vb);
        CLP_TRY(st);
        if (!ids)
            return CLP_OK;
        matched++;
        i++;
        j++;
    }
    if (matched < a->snapshots.count || matched < b->snapshots.count)
        CLP_TRY(note(r, err,
                     "particles.pvd: %zu of %zu and %zu snapshots are at times the other "
                     "run has one at too",
                     matched, a->snapshots.count, b->snapshots.count));
fail:
    return st;
}

/* ---- The whole */

clp_status compare_runs(const compare_run *a, const compare_run *b, const compare_tolerances *tol,
                        compare_result *out, clp_error *err) {
    clp_status st = CLP_OK;
    compare_result r = {.comparable = true};
    CLP_TRY(compare_provenance(a, b, &r, err));
    if (!r.comparable)
        goto done;
    for (size_t i = 0; i < a->n_tables; i++) {
        const char *name = a->table_names[i];
        size_t j = 0;
        while (j < b->n_tables && strcmp(b->table_names[j], name))
            j++;
        if (j == b->n_tables)
            CLP_TRY(note(&r, err, "%s: only %s has it", name, a->label));
        else
            CLP_TRY(compare_table(name, &a->tables[i], &b->tables[j], a, b, tol, &r, err));
    }
    for (size_t j = 0; j < b->n_tables; j++) {
        size_t i = 0;
        while (i < a->n_tables && strcmp(a->table_names[i], b->table_names[j]))
            i++;
        if (i == a->n_tables)
            CLP_TRY(note(&r, err, "%s: only %s has it", b->table_names[j], b->label));
    }
    CLP_TRY(compare_summaries(a, b, tol, &r, err));
    CLP_TRY(compare_snapshots(a, b, tol, &r, err));
    for (size_t i = 0; i < r.n_items; i++)
        r.beyond += r.items[i].beyond;
    r.comparable = r.n_items > 0;
    if (!r.comparable)
        CLP_TRY(note(&r, err, "no quantity of one run could be matched with the other's"));
done:
    *out = r;
    return CLP_OK;
fail:
    compare_result_free(&r);
    return st;
}

void compare_result_free(compare_result *r) {
    for (size_t i = 0; i < r->n_items; i++) {
        free(r->items[i].file);
        free(r->items[i].quantity);
    }
    free(r->items);
    for (size_t i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    *r = (compare_result){0};
}

const compare_item *compare_worst(const compare_result *r) {
    const compare_item *worst = NULL;
    for (size_t i = 0; i < r->n_items; i++)
        if (!worst || compare_ratio(&r->items[i]) > compare_ratio(worst))
            worst = &r->items[i];
    return worst;
}

char *compare_verdict_text(const compare_result *r) {
    clp_strbuf text = {0};
    if (!r->comparable)
        clp__sb_append(&text, "not comparable");
    else if (!r->beyond)
        clp__sb_append(&text, "no physical change");
    /* the row keys first: runs that part there compare nothing after */
    for (size_t i = 0, listed = 0; r->comparable && i < r->n_items && listed < 2; i++) {
        const compare_item *it = &r->items[i];
        if (!it->beyond)
            continue;
        if (it->parted && (isnan(it->a) || isnan(it->b)))
            clp__sb_appendf(&text, "%s%s: rows the other run lacks", listed ? ", " : "",
                            it->quantity);
        else if (it->parted)
            clp__sb_appendf(&text, "%sends at %s %.10g, not %.10g", listed ? ", " : "",
                            it->quantity, it->b, it->a);
        else
            clp__sb_appendf(&text, "%s%s %.3g times its tolerance", listed ? ", " : "",
                            it->quantity, compare_ratio(it));
        listed++;
    }
    if (r->comparable && r->beyond > 2)
        clp__sb_appendf(&text, ", and %zu more", r->beyond - 2);
    return clp__sb_take(&text);
}

clp_status compare_records(const json_t *a, const json_t *b, const compare_tolerances *tolerances,
                           char **text, bool *same, clp_error *err) {
    clp_status st = CLP_OK;
    compare_run ra = {0}, rb = {0};
    compare_result result = {0};
    *text = NULL;
    CLP_TRY(compare_run_from_record(a, "the reference", &ra, err));
    CLP_TRY(compare_run_from_record(b, "this record", &rb, err));
    CLP_TRY(compare_runs(&ra, &rb, tolerances, &result, err));
    *same = result.comparable && !result.beyond;
    *text = compare_verdict_text(&result);
    CLP_REQUIRE_ALLOC(*text, err);
fail:
    compare_result_free(&result);
    compare_run_close(&ra);
    compare_run_close(&rb);
    return st;
}
