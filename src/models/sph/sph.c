/* The SPH model: particles from the case's fluid boxes and tank walls on a lattice, the
 * inlined constants, and the step list (rebuild, density, forces, integration). */
#include "models/sph/sph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The lattice points along one axis: up to three runs (a wall's corner layers, its face, the
 * far corner's layers), each `n` points from half a step past `lo`. */
typedef struct {
    int runs;
    double lo[3], step[3];
    long n[3];
} axis_lattice;

/* Adds the points of [lo, hi) to l. Fluid keeps the spacing dp, and so its mass; a wall's
 * points spread evenly over the whole face (the nearest whole count of spacings), so that
 * walls meet at their box's edges whatever the spacing: with dp alone, a tank 874.9 spacings
 * long left a hole of 1.9 spacings between its floor and its far wall, and mDBC, which lets
 * the fluid come within half a spacing of a wall, drained through it. A run of exact spacings
 * that continues the last one extends it, so a lattice that fits is laid as one run. */
static void axis_add(axis_lattice *l, double lo, double hi, double dp, bool wall) {
    const double spacings = (hi - lo) / dp;
    long n = wall ? lround(spacings) : lround(floor(spacings + 1e-9));
    if (wall && n < 1)
        n = 1;
    const bool exact = fabs(spacings - (double)n) < 1e-9 * fmax(1.0, spacings);
    const int last = l->runs - 1;
    if (exact && last >= 0 && l->step[last] == dp &&
        fabs(l->lo[last] + (double)l->n[last] * dp - lo) < 1e-9 * dp) {
        l->n[last] += n;
        return;
    }
    l->lo[l->runs] = lo;
    l->step[l->runs] = exact || !wall ? dp : (hi - lo) / (double)n;
    l->n[l->runs++] = n;
}

static long axis_count(const axis_lattice *l) {
    long n = 0;
    for (int r = 0; r < l->runs; r++)
        n += l->n[r];
    return n;
}

static double axis_at(const axis_lattice *l, long i) {
    int r = 0;
    while (i >= l->n[r])
        i -= l->n[r++];
    return l->lo[r] + ((double)i + 0.5) * l->step[r];
}

/* Appends the points of the lattice ax (x fastest, then y, then z) with type `type`; counts
 * only when xyz is NULL. */
static size_t fill_lattice(const axis_lattice ax[3], int dim, uint32_t type, double *xyz,
                           uint32_t *types, size_t at) {
    long n[3] = {1, 1, 1};
    for (int a = 0; a < dim; a++)
        n[a] = axis_count(&ax[a]);
    if (!xyz)
        return at + (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
    for (long k = 0; k < n[2]; k++)
        for (long j = 0; j < n[1]; j++)
            for (long i = 0; i < n[0]; i++, at++) {
                const long idx[3] = {i, j, k};
                for (int a = 0; a < 3; a++)
                    xyz[3 * at + a] = a < dim ? axis_at(&ax[a], idx[a]) : 0.0;
                types[at] = type;
            }
    return at;
}

/* Appends the lattice points of box [min, max), fluid (type 0) or wall (1). */
static size_t fill_box(const double min[3], const double max[3], int dim, double dp, uint32_t type,
                       double *xyz, uint32_t *types, size_t at) {
    axis_lattice ax[3] = {{0}};
    for (int a = 0; a < dim; a++)
        axis_add(&ax[a], min[a], max[a], dp, type == 1);
    return fill_lattice(ax, dim, type, xyz, types, at);
}

/* Boundary particles: `layers` spacings thick around the tank's inner box, every face but
 * the top when it is open. Built as the thick shell minus the inner box: each face is a slab
 * of the shell, and slabs do not overlap. */
static size_t fill_tank(const clp_sph_case *c, double *xyz, uint32_t *types, size_t at) {
    const int dim = c->dim, up = dim - 1;
    const double t = c->layers * c->dp;
    for (int a = 0; a < dim; a++) {
        for (int side = 0; side < 2; side++) {
            if (a == up && side == 1 && c->open_top)
                continue;
            axis_lattice ax[3] = {{0}};
            for (int b = 0; b < dim; b++) {
                const double lo = c->tank.min[b], hi = c->tank.max[b];
                if (b == a) { /* the slab's layers */
                    axis_add(&ax[b], side ? hi : lo - t, side ? hi + t : lo, c->dp, true);
                    continue;
                }
                /* earlier axes keep to the inner box, later ones span the whole shell */
                const bool open = b == up && c->open_top;
                if (b > a)
                    axis_add(&ax[b], lo - t, lo, c->dp, true);
                /* the side walls of an open top meet nothing up there: the fluid's lattice */
                axis_add(&ax[b], lo, hi, c->dp, !open);
                if (b > a && !open)
                    axis_add(&ax[b], hi, hi + t, c->dp, true);
            }
            at = fill_lattice(ax, dim, 1, xyz, types, at);
        }
    }
    return at;
}

/* Boundary particles: the tank's, then the wall boxes'. */
static size_t fill_walls(const clp_sph_case *c, double *xyz, uint32_t *types, size_t at) {
    if (c->has_tank)
        at = fill_tank(c, xyz, types, at);
    for (size_t b = 0; b < c->n_walls; b++)
        at = fill_box(c->walls[b].min, c->walls[b].max, c->dim, c->dp, 1, xyz, types, at);
    return at;
}

clp_status clp__sph_count(const clp_sph_case *c, size_t *n, size_t *n_fluid, clp_error *err) {
    size_t fluid = 0;
    for (size_t b = 0; b < c->n_fluid; b++)
        fluid = fill_box(c->fluid[b].min, c->fluid[b].max, c->dim, c->dp, 0, NULL, NULL, fluid);
    if (fluid == 0)
        return CLP_FAIL(err, CLP_CASE, "the fluid boxes hold no particle at spacing %g", c->dp);
    *n = fill_walls(c, NULL, NULL, fluid);
    *n_fluid = fluid;
    /* particle indices are uint on the device, and the sort needs a bit to spare */
    if (*n >= UINT32_MAX / 2)
        return CLP_FAIL(err, CLP_CASE,
                        "spacing %g gives %zu particles; clpart handles fewer than 2^31", c->dp,
                        *n);
    return CLP_OK;
}

void clp__sph_wall_ids(const clp_sph_case *c, size_t first[], size_t end[]) {
    size_t at = 0;
    for (size_t b = 0; b < c->n_fluid; b++)
        at = fill_box(c->fluid[b].min, c->fluid[b].max, c->dim, c->dp, 0, NULL, NULL, at);
    if (c->has_tank)
        at = fill_tank(c, NULL, NULL, at);
    for (size_t b = 0; b < c->n_walls; b++) {
        first[b] = at;
        at = end[b] = fill_box(c->walls[b].min, c->walls[b].max, c->dim, c->dp, 1, NULL, NULL, at);
    }
}

uint32_t clp__sph_lattice_neighbours(const clp_sph_case *c, double radius) {
    const long reach = (long)floor(radius / c->dp);
    const double r2 = (radius / c->dp) * (radius / c->dp);
    uint32_t count = 0;
    for (long k = c->dim == 3 ? -reach : 0; k <= (c->dim == 3 ? reach : 0); k++)
        for (long j = -reach; j <= reach; j++)
            for (long i = -reach; i <= reach; i++)
                count += (double)(i * i + j * j + k * k) <= r2;
    return count - 1;
}

uint32_t clp__sph_cell_words(const clp_sph_case *c, const clp_grid_geometry *geo) {
    double most = 1;
    for (int a = 0; a < c->dim; a++) /* lattice points along a cell, at most */
        most *= floor(geo->cell_size[a] / c->dp) + 1;
    /* more than a list of bits holds fails at the first build, with the count */
    return (uint32_t)fmin(ceil(1.1 * most / 32), CLP_GRID_BITS_MOST_CELL_WORDS);
}

clp_status clp__sph_particles(const clp_sph_case *c, size_t n, double **xyz, uint32_t **types,
                              clp_error *err) {
    *xyz = malloc(3 * n * sizeof(double));
    *types = malloc(n * sizeof(uint32_t));
    if (!*xyz || !*types) {
        free(*xyz);
        free(*types);
        *xyz = NULL; /* the caller frees what it holds */
        *types = NULL;
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for %zu particles", n);
    }
    size_t at = 0;
    for (size_t b = 0; b < c->n_fluid; b++)
        at = fill_box(c->fluid[b].min, c->fluid[b].max, c->dim, c->dp, 0, *xyz, *types, at);
    fill_walls(c, *xyz, *types, at);
    return CLP_OK;
}

/* Whether box b holds point x on the first dim axes: its faces included when `closed`. */
static bool box_holds(const clp_box *b, const double *x, int dim, bool closed) {
    for (int a = 0; a < dim; a++)
        if (closed ? x[a] < b->min[a] || x[a] > b->max[a] : x[a] <= b->min[a] || x[a] >= b->max[a])
            return false;
    return true;
}

bool clp__sph_in_fluid_space(const clp_sph_case *c, const double *x) {
    if (c->has_tank && !box_holds(&c->tank, x, c->dim, true))
        return false;
    for (size_t b = 0; b < c->n_walls; b++)
        if (box_holds(&c->walls[b], x, c->dim, false))
            return false;
    return true;
}

bool clp__sph_ghost(const clp_sph_case *c, const double x[3], double to_ghost[3]) {
    to_ghost[0] = to_ghost[1] = to_ghost[2] = 0;
    if (c->has_tank && !box_holds(&c->tank, x, c->dim, true)) {
        /* through the closest point of the tank's inside: a corner's ghost is diagonal */
        for (int a = 0; a < c->dim; a++)
            to_ghost[a] = 2 * (fmin(fmax(x[a], c->tank.min[a]), c->tank.max[a]) - x[a]);
        return true;
    }
    for (size_t b = 0; b < c->n_walls; b++) {
        const clp_box *w = &c->walls[b];
        if (!box_holds(w, x, c->dim, true))
            continue;
        /* across the nearest face that has fluid space behind it */
        double nearest = INFINITY;
        for (int a = 0; a < c->dim; a++)
            for (int side = 0; side < 2; side++) {
                const double face = side ? w->max[a] : w->min[a], distance = fabs(face - x[a]);
                double mirror[3] = {x[0], x[1], x[2]};
                mirror[a] = 2 * face - x[a];
                if (distance < nearest && clp__sph_in_fluid_space(c, mirror)) {
                    nearest = distance;
                    to_ghost[0] = to_ghost[1] = to_ghost[2] = 0;
                    to_ghost[a] = mirror[a] - x[a];
                }
            }
        return nearest < INFINITY;
    }
    return false;
}

/* The highest fluid column above the lowest fluid point, for the speed of sound. */
static double fluid_height(const clp_sph_case *c) {
    const int up = c->dim - 1;
    double low = INFINITY, high = -INFINITY;
    for (size_t b = 0; b < c->n_fluid; b++) {
        low = fmin(low, c->fluid[b].min[up]);
        high = fmax(high, c->fluid[b].max[up]);
    }
    return high - low;
}

void clp__sph_physics(const clp_sph_case *c, clp__sph_physics_values *p) {
    double g = sqrt(c->gravity[0] * c->gravity[0] + c->gravity[1] * c->gravity[1] +
                    c->gravity[2] * c->gravity[2]);
    p->h = c->h_over_dp * c->dp;
    p->mass = c->rho0 * pow(c->dp, c->dim);
    /* Weakly compressible: sound ten times faster than a free fall from the top. */
    p->c0 = c->c0 > 0 ? c->c0 : 10.0 * sqrt(2.0 * g * fluid_height(c));
    p->dt = c->cfl * p->h / p->c0;
    if (c->nu > 0)
        p->dt = fmin(p->dt, 0.125 * p->h * p->h / c->nu);
}

size_t clp__sph_constants(const clp_sph_case *c, const clp_options *opts,
                          const clp__sph_physics_values *p, clp_constant *out) {
    const bool wendland = clp__sph_kernel_of(opts) == CLP_SPH_KERNEL_WENDLAND;
    /* Kernel normalisation over h^d: Wendland C2 7/(4 pi), 21/(16 pi); cubic 10/(7 pi), 1/pi */
    double sigma = wendland ? (c->dim == 3 ? 21.0 / (16 * M_PI) : 7.0 / (4 * M_PI))
                            : (c->dim == 3 ? 1.0 / M_PI : 10.0 / (7 * M_PI));
    sigma /= pow(p->h, c->dim);
    const struct {
        const char *name;
        double value;
    } physical[] = {
        {"CLP_SPH_H", p->h},
        {"CLP_SPH_RHO0", c->rho0},
        {"CLP_SPH_C0", p->c0},
        {"CLP_SPH_MASS", p->mass},
        {"CLP_SPH_VOLUME", p->mass / c->rho0},
        {"CLP_SPH_ALPHA", c->alpha},
        {"CLP_SPH_NU", c->nu},
        {"CLP_SPH_GX", c->gravity[0]},
        {"CLP_SPH_GY", c->gravity[1]},
        {"CLP_SPH_GZ", c->gravity[2]},
        {"CLP_SPH_DT", p->dt},
        {"CLP_SPH_CFL", c->cfl},
        {"CLP_SPH_SIGMA", sigma},
        {"CLP_SPH_GRAD_SCALE", sigma / (p->h * p->h)},
        {"CLP_SPH_TAIT_B", p->c0 * p->c0 * c->rho0 / 7.0},
        {"CLP_SPH_ETA2", 0.01 * p->h * p->h},
        {"CLP_SPH_SUPPORT2", 4.0 * p->h * p->h},
        {"CLP_SPH_DP", c->dp},
        /* DualSPHysics' free-surface thresholds of the divergence of position */
        {"CLP_SPH_SURFACE_DIVERGENCE", c->dim == 3 ? 2.75 : 1.5},
    };
    size_t n = 0;
    for (size_t k = 0; k < sizeof physical / sizeof physical[0]; k++)
        out[n++] = (clp_constant){physical[k].name, CLP_CONST_FLOAT, physical[k].value, 0, true};
    return n;
}

void clp__sph_outlier_reasons(const clp_sph_case *c, const clp_options *opts,
                              const clp__sph_physics_values *p, unsigned reasons, char *out,
                              size_t size) {
    const char *sep = "";
    size_t at = 0;
    out[0] = '\0';
    if (reasons & CLP_SPH_OUT_DOMAIN) {
        at += (size_t)snprintf(out + at, size - at, "left the domain");
        sep = ", ";
    }
    if ((reasons & CLP_SPH_OUT_SPEED) && at < size) {
        at += (size_t)snprintf(out + at, size - at, "%smoved faster than %g m/s (sph.speed_limit)",
                               sep, clp__sph_speed_limit_of(opts) * p->c0);
        sep = ", ";
    }
    if ((reasons & CLP_SPH_OUT_DENSITY) && at < size)
        snprintf(out + at, size - at,
                 "%shad a density outside [%g, %g] kg/m^3 (sph.density_min, sph.density_max)", sep,
                 clp__sph_density_min_of(opts) * c->rho0, clp__sph_density_max_of(opts) * c->rho0);
}

double clp__sph_stored_density(const clp_sph_case *c, bool centred, double rho) {
    return centred ? rho / c->rho0 - 1.0 : rho;
}

double clp__sph_density_from_stored(const clp_sph_case *c, bool centred, double stored) {
    return centred ? c->rho0 * (1.0 + stored) : stored;
}
