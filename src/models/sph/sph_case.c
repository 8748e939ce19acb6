/* The geometry and physics of an SPH case file: domain, lattice spacing, fluid boxes, the
 * tank and wall boxes of boundary particles, constants, end time and output interval. The JSON
 * stays in this file; errors name the file and the key. Options are read by options.c. */
#include "models/sph/sph_case.h"
#include "run/case_json.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* Reads up to `dim` numbers of an array at key; false with the error filled otherwise. */
static bool read_vector(json_t *parent, const char *key, int dim, double out[3], bool required,
                        const char *path, clp_error *err) {
    json_t *v = json_object_get(parent, key);
    if (!v && !required)
        return true;
    if (!json_is_array(v) || json_array_size(v) != (size_t)dim) {
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: '%s' must be an array of %d numbers", path,
                    key, dim);
        return false;
    }
    for (int a = 0; a < dim; a++) {
        json_t *x = json_array_get(v, (size_t)a);
        if (!json_is_number(x)) {
            CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: '%s'[%d] must be a number", path, key, a);
            return false;
        }
        out[a] = json_number_value(x);
    }
    return true;
}

/* A number at key, in [min, max]; absent keeps *out (the default) unless required. */
static bool read_number(json_t *parent, const char *key, double min, double max, bool required,
                        double *out, const char *path, clp_error *err) {
    json_t *v = json_object_get(parent, key);
    if (!v && !required)
        return true;
    if (!json_is_number(v) || !(json_number_value(v) >= min && json_number_value(v) <= max)) {
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: '%s' must be a number in [%g, %g]", path, key,
                    min, max);
        return false;
    }
    *out = json_number_value(v);
    return true;
}

/* Every key of `object` (when it is one) is among `names`: a misspelt key is refused with the
 * closest name, as in the other models' cases, rather than silently left at its default. */
#define KNOWN(object, section, names, path, err)                                                   \
    (!json_is_object(object) ||                                                                    \
     clp__case_known_keys((object), (section), (names), sizeof(names) / sizeof((names)[0]),        \
                          (path), (err)) == CLP_OK)

static const char *const top_keys[] = {"model",
                                       "options",
                                       "presets",
                                       "domain",
                                       "sph",
                                       "fluid",
                                       "walls",
                                       "tank",
                                       "end_time",
                                       "output_interval",
                                       "checkpoint_interval",
                                       "gauges"};
static const char *const domain_keys[] = {"origin", "size"};
static const char *const sph_keys[] = {"dp",    "h_over_dp", "rho0", "c0",
                                       "alpha", "nu",        "cfl",  "gravity"};
static const char *const tank_keys[] = {"min", "max", "layers", "open_top"};
static const char *const box_keys[] = {"min", "max"};
static const char *const gauge_keys[] = {"interval", "heights", "points", "walls"};

static bool read_box(json_t *box, int dim, clp_box *out, const char *what, const char *path,
                     clp_error *err) {
    if (!json_is_object(box)) {
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: %s must be an object with min and max", path,
                    what);
        return false;
    }
    if (!read_vector(box, "min", dim, out->min, true, path, err) ||
        !read_vector(box, "max", dim, out->max, true, path, err))
        return false;
    for (int a = 0; a < dim; a++) {
        if (!(out->max[a] > out->min[a])) {
            CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: %s has max <= min on axis %d", path, what,
                        a);
            return false;
        }
    }
    return true;
}

static bool read_physics(json_t *sph, clp_sph_case *c, const char *path, clp_error *err) {
    if (!json_is_object(sph)) {
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: an SPH case needs an object 'sph'", path);
        return false;
    }
    c->h_over_dp = 1.3;
    c->rho0 = 1000;
    c->gravity[c->dim - 1] = -9.81;
    c->alpha = 0.02;
    c->nu = 1e-6;
    c->cfl = 0.1; /* symplectic Euler kept the 2D dam break stable at 0.1, not at 0.2 */
    return read_number(sph, "dp", 1e-9, 1e9, true, &c->dp, path, err) &&
           read_number(sph, "h_over_dp", 0.5, 4, false, &c->h_over_dp, path, err) &&
           read_number(sph, "rho0", 1e-9, 1e9, false, &c->rho0, path, err) &&
           read_number(sph, "c0", 1e-9, 1e9, false, &c->c0, path, err) &&
           read_number(sph, "alpha", 0, 10, false, &c->alpha, path, err) &&
           read_number(sph, "nu", 0, 1e9, false, &c->nu, path, err) &&
           read_number(sph, "cfl", 1e-6, 1, false, &c->cfl, path, err) &&
           read_vector(sph, "gravity", c->dim, c->gravity, false, path, err);
}

/* A list of boxes at key: at least `min_count`, at most CLP_CASE_MAX_BOXES. */
static bool read_boxes(json_t *list, const char *key, size_t min_count, int dim, clp_box *boxes,
                       size_t *n, const char *path, clp_error *err) {
    const size_t count = json_array_size(list);
    if (!list && min_count == 0)
        return true;
    if (!json_is_array(list) || count < min_count || count > CLP_CASE_MAX_BOXES) {
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: '%s' must be a list of %zu to %d boxes", path,
                    key, min_count, CLP_CASE_MAX_BOXES);
        return false;
    }
    char what[64], section[64];
    for (size_t i = 0; i < count; i++) {
        snprintf(what, sizeof what, "'%s'[%zu]", key, i);
        snprintf(section, sizeof section, "%s[%zu].", key, i);
        if (!KNOWN(json_array_get(list, i), section, box_keys, path, err) ||
            !read_box(json_array_get(list, i), dim, &boxes[i], what, path, err))
            return false;
    }
    *n = count;
    return true;
}

static bool read_tank(json_t *tank, clp_sph_case *c, const char *path, clp_error *err) {
    if (!tank)
        return true;
    double layers = 3;
    json_t *open_top = json_object_get(tank, "open_top");
    if (!read_box(tank, c->dim, &c->tank, "'tank'", path, err) ||
        !read_number(tank, "layers", 1, 8, false, &layers, path, err))
        return false;
    if (open_top && !json_is_boolean(open_top)) {
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1, "%s: 'tank.open_top' must be true or false", path);
        return false;
    }
    c->has_tank = true;
    c->layers = (int)layers;
    c->open_top = !open_top || json_is_true(open_top);
    return true;
}

/* A list at `key` of `gauges` of up to CLP_CASE_MAX_GAUGES positions of `n` numbers each,
 * every one inside the domain on its axes. */
static bool read_positions(json_t *gauges, const char *key, int n, const clp_sph_case *c,
                           double (*out)[3], size_t *count, const char *path, clp_error *err) {
    json_t *list = json_object_get(gauges, key);
    if (!list)
        return true;
    if (!json_is_array(list) || json_array_size(list) > CLP_CASE_MAX_GAUGES) {
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                    "%s: 'gauges.%s' must be a list of at most %d "
                    "positions",
                    path, key, CLP_CASE_MAX_GAUGES);
        return false;
    }
    for (size_t g = 0; g < json_array_size(list); g++) {
        json_t *entry = json_array_get(list, g);
        for (int a = 0; a < n; a++) {
            json_t *x = json_array_get(entry, (size_t)a);
            const double lo = c->origin[a], hi = c->origin[a] + c->size[a];
            if (!json_is_array(entry) || json_array_size(entry) != (size_t)n ||
                !json_is_number(x) || json_number_value(x) < lo || json_number_value(x) > hi) {
                CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                            "%s: 'gauges.%s'[%zu] must be %d numbers inside the domain "
                            "(axis %d from %g to %g)",
                            path, key, g, n, a, lo, hi);
                return false;
            }
            out[g][a] = json_number_value(x);
        }
    }
    *count = json_array_size(list);
    return true;
}

/* The gauges: an interval, water heights at x (2D) or (x, y) (3D), pressure and velocity at
 * points, and the force on wall boxes given by their index in 'walls'. */
static bool read_gauges(json_t *gauges, clp_sph_case *c, const char *path, clp_error *err) {
    clp_sph_gauges *g = &c->gauges;
    if (!gauges)
        return true;
    if (!KNOWN(gauges, "gauges.", gauge_keys, path, err) ||
        !read_number(gauges, "interval", 1e-12, 1e9, true, &g->interval, path, err) ||
        !read_positions(gauges, "heights", c->dim - 1, c, g->heights, &g->n_heights, path, err) ||
        !read_positions(gauges, "points", c->dim, c, g->points, &g->n_points, path, err))
        return false;
    json_t *walls = json_object_get(gauges, "walls");
    if (!walls)
        return true;
    if (!json_is_array(walls) || json_array_size(walls) > CLP_CASE_MAX_BOXES) {
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                    "%s: 'gauges.walls' must be a list of at most %d indices into 'walls'", path,
                    CLP_CASE_MAX_BOXES);
        return false;
    }
    for (size_t k = 0; k < json_array_size(walls); k++) {
        json_t *index = json_array_get(walls, k);
        if (!json_is_integer(index) || json_integer_value(index) < 0 ||
            (size_t)json_integer_value(index) >= c->n_walls) {
            CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                        "%s: 'gauges.walls'[%zu] must be the index of a box of 'walls', and the "
                        "case has %zu",
                        path, k, c->n_walls);
            return false;
        }
        g->walls[k] = (size_t)json_integer_value(index);
    }
    g->n_walls = json_array_size(walls);
    return true;
}

/* Where box `inner` (named `what`) crosses out of `outer` (named `where`): the first axis and
 * side on which it does, refused with both bounds; boxes that touch are inside. */
static bool check_inside(const clp_box *inner, const char *what, const clp_box *outer,
                         const char *where, int dim, double tolerance, const char *path,
                         clp_error *err) {
    static const char axes[] = "xyz";
    for (int a = 0; a < dim; a++) {
        const bool below = inner->min[a] < outer->min[a] - tolerance;
        if (below || inner->max[a] > outer->max[a] + tolerance) {
            CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                        "%s: %s reaches %c = %g, beyond %s, which %s at %c = %g", path, what,
                        axes[a], below ? inner->min[a] : inner->max[a], where,
                        below ? "begins" : "ends", axes[a], below ? outer->min[a] : outer->max[a]);
            return false;
        }
    }
    return true;
}

/* Whether two boxes share a volume, not only a face. */
static bool overlap(const clp_box *a, const clp_box *b, int dim, double tolerance) {
    for (int k = 0; k < dim; k++)
        if (a->max[k] <= b->min[k] + tolerance || b->max[k] <= a->min[k] + tolerance)
            return false;
    return true;
}

/* Whether boxes of one kind (`kind`: "fluid", "walls") keep apart: two that share space would
 * put two particles on each lattice point they share, with twice the mass. */
static bool check_apart(const clp_box *boxes, size_t n, const char *kind, int dim, double tolerance,
                        const char *path, clp_error *err) {
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if (overlap(&boxes[a], &boxes[b], dim, tolerance)) {
                CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                            "%s: '%s'[%zu] and '%s'[%zu] share space: particles would sit on "
                            "each other there; make one box of them, or boxes that only touch",
                            path, kind, a, kind, b);
                return false;
            }
    return true;
}

/* The boxes' places, checked before any particle exists: the fluid inside the tank's inner
 * box (above an open top it may stand higher), every particle's box inside the domain, no
 * fluid box sharing space with a wall box, and no two boxes of a kind sharing space. A
 * particle outside the domain would otherwise stop the run after its first step, and fluid
 * inside a wall would blow it up. */
static bool check_geometry(const clp_sph_case *c, const char *path, clp_error *err) {
    const int dim = c->dim, up = dim - 1;
    const double tolerance = 1e-6 * c->dp;
    clp_box domain, tank_outer = c->tank, tank_inner = c->tank;
    char what[64];
    for (int a = 0; a < 3; a++) {
        domain.min[a] = c->origin[a];
        domain.max[a] = c->origin[a] + c->size[a];
        tank_outer.min[a] -= c->layers * c->dp;
        tank_outer.max[a] += a == up && c->open_top ? 0 : c->layers * c->dp;
    }
    if (c->open_top)
        tank_inner.max[up] = INFINITY;
    if (c->has_tank && !check_inside(&tank_outer, "the tank with its wall layers", &domain,
                                     "the domain", dim, tolerance, path, err))
        return false;
    for (size_t b = 0; b < c->n_fluid; b++) {
        snprintf(what, sizeof what, "'fluid'[%zu]", b);
        if ((c->has_tank && !check_inside(&c->fluid[b], what, &tank_inner, "the tank's inner box",
                                          dim, tolerance, path, err)) ||
            !check_inside(&c->fluid[b], what, &domain, "the domain", dim, tolerance, path, err))
            return false;
        for (size_t w = 0; w < c->n_walls; w++) {
            if (overlap(&c->fluid[b], &c->walls[w], dim, tolerance)) {
                CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                            "%s: 'fluid'[%zu] and 'walls'[%zu] share space: fluid particles "
                            "would sit inside the wall",
                            path, b, w);
                return false;
            }
        }
    }
    for (size_t w = 0; w < c->n_walls; w++) {
        snprintf(what, sizeof what, "'walls'[%zu]", w);
        if (!check_inside(&c->walls[w], what, &domain, "the domain", dim, tolerance, path, err))
            return false;
    }
    return check_apart(c->fluid, c->n_fluid, "fluid", dim, tolerance, path, err) &&
           check_apart(c->walls, c->n_walls, "walls", dim, tolerance, path, err);
}

clp_status clp__sph_case_load(const char *path, int dim, clp_sph_case *out, clp_error *err) {
    json_t *root;
    const clp_status loaded = clp__case_parse(path, NULL, &root, err);
    if (loaded != CLP_OK)
        return loaded;
    clp_sph_case c = {.dim = dim, .end_time = 1.0, .output_interval = 0.05};
    json_t *domain = json_object_get(root, "domain");
    bool ok = KNOWN(root, "", top_keys, path, err) &&
              KNOWN(domain, "domain.", domain_keys, path, err) &&
              KNOWN(json_object_get(root, "sph"), "sph.", sph_keys, path, err) &&
              KNOWN(json_object_get(root, "tank"), "tank.", tank_keys, path, err);
    ok = ok && json_is_object(domain) &&
         read_vector(domain, "origin", dim, c.origin, true, path, err) &&
         read_vector(domain, "size", dim, c.size, true, path, err);
    if (!ok && err->status == CLP_OK)
        CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                    "%s: 'domain' must be an object with origin and size", path);
    ok = ok && read_physics(json_object_get(root, "sph"), &c, path, err) &&
         read_boxes(json_object_get(root, "fluid"), "fluid", 1, dim, c.fluid, &c.n_fluid, path,
                    err) &&
         read_boxes(json_object_get(root, "walls"), "walls", 0, dim, c.walls, &c.n_walls, path,
                    err) &&
         read_tank(json_object_get(root, "tank"), &c, path, err) &&
         read_number(root, "end_time", 0, 1e9, false, &c.end_time, path, err) &&
         read_number(root, "output_interval", 1e-12, 1e9, false, &c.output_interval, path, err) &&
         read_number(root, "checkpoint_interval", 0, 1e9, false, &c.checkpoint_interval, path,
                     err) &&
         check_geometry(&c, path, err) &&
         read_gauges(json_object_get(root, "gauges"), &c, path, err);
    json_decref(root);
    if (!ok)
        return err->status;
    *out = c;
    return CLP_OK;
}
