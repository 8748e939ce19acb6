/* Where the pressure points of an SPH case's gauges are sampled. A point on a wall's face
 * samples a kernel that is half wall, where there is no fluid to average, so a point on a
 * face (within half a spacing of it) or in a wall moves along the face's normal into the
 * fluid, as DualSPHysics' pressure probes are placed. */
#include "models/sph/sph_gauges.h"

#include <math.h>
#include <stdio.h>

/* A face of the tank's inner box or of a wall box: the plane x[axis] = at, with the fluid
 * on the side `sign` (+1 above, -1 below). */
typedef struct {
    int axis, sign;
    double at;
    long box; /* the wall box, -1 for the tank */
} face;

/* The faces point x lies on or behind: within `near` of the face on the fluid's side, or in
 * the wall behind it; a wall box's only where x lies over the face. Their distances (negative
 * behind) in d. */
static size_t faces_near(const clp_sph_case *c, const double *x, double near, face *out,
                         double *d) {
    const int dim = c->dim, up = dim - 1;
    size_t n = 0;
    for (int a = 0; a < dim && c->has_tank; a++)
        for (int side = 0; side < 2; side++) {
            if (a == up && side == 1 && c->open_top)
                continue;
            const double at = side ? c->tank.max[a] : c->tank.min[a];
            const double distance = side ? at - x[a] : x[a] - at;
            if (distance < near) {
                out[n] = (face){a, side ? -1 : 1, at, -1};
                d[n++] = distance;
            }
        }
    for (size_t b = 0; b < c->n_walls; b++) {
        const clp_box *w = &c->walls[b];
        for (int a = 0; a < dim; a++) {
            bool over = true;
            for (int e = 0; e < dim; e++)
                over = over && (e == a || (x[e] >= w->min[e] && x[e] <= w->max[e]));
            for (int side = 0; side < 2 && over; side++) {
                const double at = side ? w->max[a] : w->min[a];
                const double distance = side ? x[a] - at : at - x[a];
                if (distance < near && distance > -(w->max[a] - w->min[a])) {
                    out[n] = (face){a, side ? 1 : -1, at, (long)b};
                    d[n++] = distance;
                }
            }
        }
    }
    return n;
}

static void describe(const face *f, char *out, size_t size) {
    static const char axes[] = "xyz";
    if (f->box < 0)
        snprintf(out, size, "the tank's wall %c = %g", axes[f->axis], f->at);
    else
        snprintf(out, size, "the face %c = %g of 'walls'[%ld]", axes[f->axis], f->at, f->box);
}

static void format_point(const double *x, int dim, char *out, size_t size) {
    if (dim == 3)
        snprintf(out, size, "(%g, %g, %g)", x[0], x[1], x[2]);
    else
        snprintf(out, size, "(%g, %g)", x[0], x[1]);
}

/* Moves the point off the other faces it lies within `offset` of, a corner's, so that the
 * kernel around it is fluid on every side: a sensor on a side wall 3 mm above the floor is
 * sampled `offset` above it where that exceeds 3 mm (at finer spacings, nearer its height). */
static void clear_corner(const clp_sph_case *c, int placed_axis, double offset, double x[3]) {
    face faces[6 + 6 * CLP_CASE_MAX_BOXES];
    double d[6 + 6 * CLP_CASE_MAX_BOXES];
    const size_t n = faces_near(c, x, offset, faces, d);
    for (size_t f = 0; f < n; f++) {
        if (faces[f].axis == placed_axis || d[f] < 0)
            continue;
        const double kept = x[faces[f].axis];
        x[faces[f].axis] = faces[f].at + faces[f].sign * offset;
        if (!clp__sph_in_fluid_space(c, x))
            x[faces[f].axis] = kept;
    }
}

/* Of the n faces near x (distances d), the nearest whose side at `offset` from it is fluid,
 * with the point there in placed, clear of a corner's other faces; -1 where none is. So a
 * point on a side wall near the floor moves off the side wall, and off the floor where it is
 * nearer than `offset`. */
static long place_off(const clp_sph_case *c, const double *x, const face *faces, const double *d,
                      size_t n, double offset, double placed[3]) {
    bool tried[6 + 6 * CLP_CASE_MAX_BOXES] = {false};
    for (size_t round = 0; round < n; round++) {
        long nearest = -1;
        for (size_t f = 0; f < n; f++)
            if (!tried[f] && (nearest < 0 || fabs(d[f]) < fabs(d[nearest])))
                nearest = (long)f;
        tried[nearest] = true;
        for (int a = 0; a < 3; a++)
            placed[a] = x[a];
        placed[faces[nearest].axis] = faces[nearest].at + faces[nearest].sign * offset;
        if (clp__sph_in_fluid_space(c, placed)) {
            clear_corner(c, faces[nearest].axis, offset, placed);
            return nearest;
        }
    }
    return -1;
}

clp_status clp__sph_gauges_place(clp_sph_case *c, double offset, bool refuse, const char *path,
                                 size_t *moved, clp_error *err) {
    clp_sph_gauges *g = &c->gauges;
    *moved = 0;
    for (size_t k = 0; k < g->n_points; k++) {
        double *x = g->points[k], placed[3];
        face faces[6 + 6 * CLP_CASE_MAX_BOXES];
        double d[6 + 6 * CLP_CASE_MAX_BOXES];
        const size_t n = faces_near(c, x, 0.5 * c->dp, faces, d);
        if (n == 0)
            continue;
        const long best = place_off(c, x, faces, d, n, offset, placed);
        size_t first = 0; /* the nearest face, to name */
        for (size_t f = 1; f < n; f++)
            first = fabs(d[f]) < fabs(d[first]) ? f : first;
        const size_t named = best >= 0 ? (size_t)best : first;
        char point[96], wall[96], where[96];
        format_point(x, c->dim, point, sizeof point);
        describe(&faces[named], wall, sizeof wall);
        if (refuse || best < 0)
            return CLP_FAIL_AT(
                err, CLP_CASE, path, -1, -1,
                "%s: 'gauges'.points[%zu] %s lies %s %s, where a gauge would sample the wall "
                "rather than the fluid: %s",
                path, k, point, d[named] < 0 ? "behind" : "on", wall,
                best < 0 ? "none of its walls has fluid sph.gauge_offset in front of it; place it "
                           "in the fluid"
                         : "place it in the fluid, or let clpart move it there "
                           "(sph.gauge_wall=move)");
        format_point(placed, c->dim, where, sizeof where);
        CLP_INFO(CLP_LOG_RUN,
                 "gauge point %zu %s lies on %s: sampled at %s, %g m into the fluid (and as far "
                 "from a corner's other faces)",
                 k, point, wall, where, offset);
        for (int a = 0; a < 3; a++)
            x[a] = placed[a];
        ++*moved;
    }
    return CLP_OK;
}
