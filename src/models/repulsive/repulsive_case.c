/* A repulsive-particle design case file: the "repulsive" section (the design's size and start,
 * the potential's exponent, the time step, the damping terms and the stop rule). The JSON
 * stays in this file; errors name the file and the key, and keys this file does not know are
 * refused. Options are read by options.c. */
#include "run/case_json.h"
#include "models/repulsive/repulsive_case.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* The top-level keys of a repulsive case: options.c reads all but the last. */
static const char *const top_keys[] = {"model", "options", "presets", "repulsive"};
/* The keys of the "repulsive" section. */
static const char *const rep_keys[] = {"points", "dimensions", "start", "seed",      "q",
                                       "dt",     "damping",    "steps", "tolerance", "check_every"};
/* The keys of one damping term. */
static const char *const term_keys[] = {"c", "p"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The largest damping coefficient and kinetic-energy tolerance; both become or meet floats. */
static const double largest_number = 1e30;

/* "start": "latin" (the default) or "random". */
static clp_status read_start(json_t *rep, clp__rep_case *c, const char *path, clp_error *err) {
    json_t *v = json_object_get(rep, "start");
    if (!v)
        return CLP_OK;
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (s && strcmp(s, "latin") == 0)
        c->start = CLP__REP_START_LATIN;
    else if (s && strcmp(s, "random") == 0)
        c->start = CLP__REP_START_RANDOM;
    else
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'repulsive.start' must be \"latin\" (a Latin hypercube) or "
                           "\"random\" (uniform)",
                           path);
    return CLP_OK;
}

/* "dt": "auto" (the default) or a number in (0, 1]. */
static clp_status read_dt(json_t *rep, clp__rep_case *c, const char *path, clp_error *err) {
    json_t *v = json_object_get(rep, "dt");
    c->dt_auto = true;
    c->params.dt = 0;
    if (!v || (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0))
        return CLP_OK;
    const double dt = json_is_number(v) ? json_number_value(v) : NAN;
    if (!(dt > 0 && dt <= 1))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'repulsive.dt' must be \"auto\" (a twentieth of the stiffest "
                           "pair's period at the start) or a number in (0, 1]",
                           path);
    c->dt_auto = false;
    c->params.dt = dt;
    return CLP_OK;
}

/* "damping": an array of at most CLP__REP_MOST_DAMPING terms {"c": c >= 0, "p": integer >= 1,
 * default 1}; absent, one linear term whose c comes from dt (clp__rep_case_resolve). An empty
 * array is no damping. */
static clp_status read_damping(json_t *rep, clp__rep_case *c, const char *path, clp_error *err) {
    clp_status st = CLP_OK;
    clp__rep_params *p = &c->params;
    p->n_damping = 1;
    p->damping_c[0] = 0;
    p->damping_p[0] = 1;
    json_t *terms = json_object_get(rep, "damping");
    c->damping_auto = !terms;
    if (!terms)
        return CLP_OK;
    if (!json_is_array(terms) || json_array_size(terms) > CLP__REP_MOST_DAMPING)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'repulsive.damping' must be an array of at most %d terms "
                           "{\"c\": c, \"p\": p}, each adding c |v|^(p-1) v against the motion",
                           path, CLP__REP_MOST_DAMPING);
    p->n_damping = (int)json_array_size(terms);
    size_t k;
    json_t *term;
    json_array_foreach(terms, k, term) {
        char prefix[48], name[64];
        snprintf(prefix, sizeof prefix, "repulsive.damping[%zu].", k);
        if (!json_is_object(term))
            return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                               "%s: 'repulsive.damping[%zu]' must be an object {\"c\": c, \"p\": "
                               "p}",
                               path, k);
        CLP_TRY(clp__case_known_keys(term, prefix, term_keys, COUNT(term_keys), path, err));
        snprintf(name, sizeof name, "%sc", prefix);
        CLP_TRY(clp__case_number(term, "c", name, 0, false, largest_number, true, &p->damping_c[k],
                                 path, err));
        long long power = 1;
        snprintf(name, sizeof name, "%sp", prefix);
        CLP_TRY(clp__case_integer(term, "p", name, 1, CLP__REP_MOST_DAMPING_POWER, false, NULL,
                                  &power, path, err));
        p->damping_p[k] = (int)power;
    }
fail:
    return st;
}

static clp_status read_case(json_t *root, clp__rep_case *c, const char *path, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__case_known_keys(root, "", top_keys, COUNT(top_keys), path, err));
    json_t *rep = json_object_get(root, "repulsive");
    if (!json_is_object(rep))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: a repulsive-particle case needs an object 'repulsive'", path);
    CLP_TRY(clp__case_known_keys(rep, "repulsive.", rep_keys, COUNT(rep_keys), path, err));
    long long points = 0, dimensions = 0, seed = 1, steps = 100000, every = 100;
    CLP_TRY(clp__case_integer(rep, "points", "repulsive.points", 2, 2147483647LL, true, NULL,
                              &points, path, err));
    CLP_TRY(clp__case_integer(rep, "dimensions", "repulsive.dimensions", 1,
                              CLP__REP_MOST_DIMENSIONS, true, NULL, &dimensions, path, err));
    if (points * dimensions > 2147483647LL)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'repulsive.points' x 'repulsive.dimensions' is %lld x %lld = "
                           "%lld coordinates; the device indexes them with 32-bit integers, so "
                           "at most 2147483647",
                           path, points, dimensions, points * dimensions);
    c->points = (size_t)points;
    c->dim = (int)dimensions;
    c->start = CLP__REP_START_LATIN;
    CLP_TRY(read_start(rep, c, path, err));
    CLP_TRY(clp__case_integer(rep, "seed", "repulsive.seed", 0, INT64_MAX, false,
                              " (JSON integers are signed 64-bit here, so not up to 2^64 - 1)",
                              &seed, path, err));
    c->seed = (uint64_t)seed;
    long long q = dimensions + 1; /* Masek and Vorechovsky 2018's advice: no lower than D + 1 */
    CLP_TRY(
        clp__case_integer(rep, "q", "repulsive.q", 1, CLP__REP_MOST_Q, false, NULL, &q, path, err));
    c->params.q = (int)q;
    CLP_TRY(read_dt(rep, c, path, err));
    CLP_TRY(read_damping(rep, c, path, err));
    CLP_TRY(clp__case_integer(rep, "steps", "repulsive.steps", 1, CLP__REP_MOST_STEPS, false, NULL,
                              &steps, path, err));
    c->tolerance = 1e-6;
    CLP_TRY(clp__case_number(rep, "tolerance", "repulsive.tolerance", 0, false, largest_number,
                             false, &c->tolerance, path, err));
    CLP_TRY(clp__case_integer(rep, "check_every", "repulsive.check_every", 1, 1000000000LL, false,
                              NULL, &every, path, err));
    c->steps = (uint64_t)steps;
    c->check_every = (uint64_t)every;
fail:
    return st;
}

clp_status clp__rep_case_load(const char *path, clp__rep_case *out, clp_error *err) {
    json_t *root;
    clp_status st = clp__case_parse(path, NULL, &root, err);
    if (st != CLP_OK)
        return st;
    clp__rep_case c = {0};
    st = read_case(root, &c, path, err);
    json_decref(root);
    if (st == CLP_OK)
        *out = c;
    return st;
}

clp_status clp__rep_case_design(const clp__rep_case *c, clp__rep_design *out, clp_error *err) {
    if (c->start == CLP__REP_START_RANDOM)
        return clp__rep_random(c->points, c->dim, c->seed, out, err);
    return clp__rep_latin(c->points, c->dim, c->seed, out, err);
}

void clp__rep_case_resolve(clp__rep_case *c, double nearest) {
    if (c->dt_auto)
        c->params.dt = 2 * M_PI *
                       sqrt(pow(nearest, c->params.q + 2) / (c->params.q * (c->params.q + 1.0))) /
                       20;
    if (c->damping_auto)
        c->params.damping_c[0] = CLP__REP_AUTO_DAMPING / c->params.dt;
}
