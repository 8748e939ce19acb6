/* A neighbour-search case file: the "search" section (the lattice, the radius, the moves, the
 * steps and passes) and the start it gives. The JSON stays in this file; errors name the file
 * and the key, and keys this file does not know are refused. Options are read by options.c. */
#include "models/search/search.h"
#include "run/case_json.h"

#include <stdlib.h>

/* The top-level keys of a search case: options.c reads the first three. */
static const char *const top_keys[] = {"model", "options", "presets", "search"};
/* The keys of the "search" section. */
static const char *const search_keys[] = {"side", "steps", "radius", "jitter",
                                          "move", "seed",  "passes"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static clp_status read_case(json_t *root, clp__search_case *c, const char *path, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__case_known_keys(root, "", top_keys, COUNT(top_keys), path, err));
    json_t *search = json_object_get(root, "search");
    if (!json_is_object(search))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: a neighbour-search case needs an object 'search'", path);
    CLP_TRY(clp__case_known_keys(search, "search.", search_keys, COUNT(search_keys), path, err));
    long long side = 0, steps = 0, seed = 1, passes = 1;
    CLP_TRY(clp__case_integer(search, "side", "search.side", 1, CLP__SEARCH_MOST_SIDE, true,
                              " (side^3 particles)", &side, path, err));
    CLP_TRY(clp__case_integer(search, "steps", "search.steps", 1, CLP__SEARCH_MOST_STEPS, true,
                              NULL, &steps, path, err));
    clp__search_params *p = &c->params;
    /* SPH's density: 2.3 spacings hold about 51 neighbours */
    p->radius = 2.3;
    p->jitter = 0.05;
    p->move = 0.05;
    CLP_TRY(clp__case_number(search, "radius", "search.radius", 0, true, CLP__SEARCH_MOST_SIDE,
                             false, &p->radius, path, err));
    CLP_TRY(clp__case_number(search, "jitter", "search.jitter", 0, false, 0.5, false, &p->jitter,
                             path, err));
    CLP_TRY(
        clp__case_number(search, "move", "search.move", 0, false, 1, false, &p->move, path, err));
    CLP_TRY(clp__case_integer(search, "seed", "search.seed", 0, INT64_MAX, false,
                              " (JSON integers are signed 64-bit here, so not up to 2^64 - 1)",
                              &seed, path, err));
    CLP_TRY(clp__case_integer(search, "passes", "search.passes", 0, CLP__SEARCH_MOST_PASSES, false,
                              NULL, &passes, path, err));
    p->side = (size_t)side;
    p->seed = (uint64_t)seed;
    p->passes = (unsigned)passes;
    c->steps = (uint64_t)steps;
fail:
    return st;
}

clp_status clp__search_case_load(const char *path, clp__search_case *out, clp_error *err) {
    json_t *root;
    clp_status st = clp__case_parse(path, NULL, &root, err);
    if (st != CLP_OK)
        return st;
    clp__search_case c = {0};
    st = read_case(root, &c, path, err);
    json_decref(root);
    if (st == CLP_OK)
        *out = c;
    return st;
}

clp_status clp__search_lattice(const clp__search_params *p, double **xyz, clp_error *err) {
    const size_t side = p->side, n = side * side * side;
    double *x = malloc(3 * n * sizeof *x);
    if (!x)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for %zu particles", n);
    uint64_t counter = p->seed;
    for (size_t i = 0; i < n; i++) {
        const size_t site[3] = {i % side, i / side % side, i / (side * side)};
        for (int a = 0; a < 3; a++)
            x[3 * i + (size_t)a] =
                (double)site[a] + 0.5 + p->jitter * (2 * clp__uniform01(&counter) - 1);
    }
    *xyz = x;
    return CLP_OK;
}
