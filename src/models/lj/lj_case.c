/* A Lennard-Jones case file: the "lj" section (initial state, pair parameters, time step) and
 * the step counts. The JSON stays in this file; errors name the file and the key, and keys
 * this file does not know are refused. Options are read by options.c. */
#include "run/case_json.h"
#include "models/lj/lj_case.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* The top-level keys of an LJ case: options.c reads the first three. */
static const char *const top_keys[] = {"model", "options",      "presets",       "lj",
                                       "steps", "output_every", "snapshot_every"};

/* The keys of the "lj" section; `init` 0 means any, else the init the key belongs to. */
static const struct {
    const char *name;
    int init; /* 0: any; 1 + CLP__LJ_INIT_* otherwise */
} lj_keys[] = {
    {"init", 0},
    {"fcc_cells", 1 + CLP__LJ_INIT_FCC},
    {"density", 1 + CLP__LJ_INIT_FCC},
    {"cells_per_side", 1 + CLP__LJ_INIT_RANDOM},
    {"particles_per_cell", 1 + CLP__LJ_INIT_RANDOM},
    {"temperature", 0},
    {"rc", 0},
    {"softening", 0},
    {"dt", 0},
    {"seed", 0},
};
enum { LJ_KEY_COUNT = sizeof lj_keys / sizeof lj_keys[0] };

static const char *const init_names[] = {"fcc", "random"};

/* "init": which initial state, and every key of the section known and meant for it. */
static clp_status read_init(json_t *lj, clp__lj_case *c, const char *path, clp_error *err) {
    json_t *init = json_object_get(lj, "init");
    if (!init)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'lj.init' is required: \"fcc\" or \"random\"", path);
    const char *name = json_is_string(init) ? json_string_value(init) : NULL;
    if (name && strcmp(name, "fcc") == 0)
        c->init = CLP__LJ_INIT_FCC;
    else if (name && strcmp(name, "random") == 0)
        c->init = CLP__LJ_INIT_RANDOM;
    else if (name)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'lj.init' is \"%s\"; it must be \"fcc\" or \"random\"", path, name);
    else
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'lj.init' must be the string \"fcc\" or \"random\"", path);
    const char *names[LJ_KEY_COUNT];
    for (size_t i = 0; i < LJ_KEY_COUNT; i++)
        names[i] = lj_keys[i].name;
    clp_status st = clp__case_known_keys(lj, "lj.", names, LJ_KEY_COUNT, path, err);
    if (st != CLP_OK)
        return st;
    const char *key;
    json_t *value;
    json_object_foreach(lj, key, value) {
        size_t k = 0; /* found: every key is known now */
        while (strcmp(lj_keys[k].name, key) != 0)
            k++;
        if (lj_keys[k].init && lj_keys[k].init != 1 + (int)c->init)
            return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                               "%s: 'lj.%s' belongs to init \"%s\", not \"%s\"", path, key,
                               init_names[lj_keys[k].init - 1], init_names[c->init]);
    }
    return CLP_OK;
}

/* The atom count and box of the initial state. */
static clp_status read_state(json_t *lj, clp__lj_case *c, const char *path, clp_error *err) {
    clp_status st = CLP_OK;
    long long count;
    if (c->init == CLP__LJ_INIT_FCC) {
        /* 4 * 512^3 atoms, 2^29, stays well inside the grid's 32-bit indices */
        CLP_TRY(clp__case_integer(lj, "fcc_cells", "lj.fcc_cells", 1, 512, true, NULL, &count, path,
                                  err));
        CLP_TRY(clp__case_number(lj, "density", "lj.density", 0, true, 10, true, &c->density, path,
                                 err));
        c->fcc_cells = (int)count;
        c->n = 4 * (size_t)count * (size_t)count * (size_t)count;
        c->box = cbrt((double)c->n / c->density);
        return CLP_OK;
    }
    CLP_TRY(clp__case_integer(lj, "cells_per_side", "lj.cells_per_side", 3, 1024, true, NULL,
                              &count, path, err));
    CLP_TRY(clp__case_number(lj, "particles_per_cell", "lj.particles_per_cell", 0, true, 1000, true,
                             &c->particles_per_cell, path, err));
    c->cells_per_side = (int)count;
    const double atoms = nearbyint(c->particles_per_cell * (double)count * count * count);
    if (!(atoms >= 2 && atoms < 2147483648.0))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'lj.particles_per_cell' %g in %lld^3 cells gives %.0f atoms; a "
                           "random start needs 2 to 2^31 - 1",
                           path, c->particles_per_cell, count, atoms);
    c->n = (size_t)atoms;
    c->box = (double)count * c->rc * (1.0 + CLP__LJ_BOX_SLACK);
fail:
    return st;
}

static clp_status read_case(json_t *root, clp__lj_case *c, const char *path, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(
        clp__case_known_keys(root, "", top_keys, sizeof top_keys / sizeof top_keys[0], path, err));
    json_t *lj = json_object_get(root, "lj");
    if (!json_is_object(lj))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: a Lennard-Jones case needs an object 'lj'", path);
    *c = (clp__lj_case){.rc = 2.5, .dt = 0.005, .seed = 1, .output_every = 100};
    long long seed = 1, steps = 0, every = 100, snapshot_every = 0;
    CLP_TRY(read_init(lj, c, path, err));
    /* rc first: a random box is measured in cutoffs */
    CLP_TRY(clp__case_number(lj, "rc", "lj.rc", 0, true, 100, false, &c->rc, path, err));
    CLP_TRY(read_state(lj, c, path, err));
    CLP_TRY(clp__case_number(lj, "temperature", "lj.temperature", 0, false, 1e4, false,
                             &c->temperature, path, err));
    CLP_TRY(clp__case_number(lj, "softening", "lj.softening", 0, false, 10, false, &c->softening,
                             path, err));
    CLP_TRY(clp__case_number(lj, "dt", "lj.dt", 0, true, 1, false, &c->dt, path, err));
    CLP_TRY(clp__case_integer(lj, "seed", "lj.seed", 0, 9007199254740992LL, false, NULL, &seed,
                              path, err));
    CLP_TRY(clp__case_integer(root, "steps", "steps", 0, 1000000000000LL, true, NULL, &steps, path,
                              err));
    CLP_TRY(clp__case_integer(root, "output_every", "output_every", 1, 1000000000000LL, false, NULL,
                              &every, path, err));
    CLP_TRY(clp__case_integer(root, "snapshot_every", "snapshot_every", 0, 1000000000000LL, false,
                              NULL, &snapshot_every, path, err));
    c->snapshot_every = (uint64_t)snapshot_every;
    c->seed = (uint64_t)seed;
    c->steps = (uint64_t)steps;
    c->output_every = (uint64_t)every;
fail:
    return st;
}

clp_status clp__lj_case_load(const char *path, clp__lj_case *out, clp_error *err) {
    json_t *root;
    const clp_status loaded = clp__case_parse(path, NULL, &root, err);
    if (loaded != CLP_OK)
        return loaded;
    clp__lj_case c;
    clp_status st = read_case(root, &c, path, err);
    json_decref(root);
    if (st == CLP_OK)
        *out = c;
    return st;
}
