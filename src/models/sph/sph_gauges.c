/* The gauges of an SPH run: the device sums the fluid's kernel-weighted values at each
 * point (sph_gauge_sample) and the pressure force on each boundary particle (sph_wall_force);
 * the host turns them into water heights, Shepard averages and forces per wall box. */
#include "models/sph/sph_gauges.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A height is where the fluid fraction sum_j V_j W falls through one half: full inside the
 * fluid, half at its surface; a lone splash particle reaches a third. */
#define SURFACE_FRACTION 0.5

/* The gauges' own buffers on the worker, in the order the kernels take them. */
enum { POINTS, SAMPLES, WALL_FORCE, OWN };
const char *const clp__sph_gauge_buffer_names[OWN + 1] = {CLP__SPH_GAUGE_BUFFERS, NULL};

struct clp__sph_gauges {
    const clp_sph_case *c;
    clp_worker *w;
    clp_buffer *own[OWN]; /* made at the first sample; the wall force again after a re-cut */
    const clp__sph_gauge_share *share; /* what this device owns: all of it, or a rank's part */
    cl_float4 *points;       /* written before each sample: a re-cut makes the buffers anew */
    size_t n_points, column; /* points sampled; of which per height column */
    double dry;              /* the fluid fraction below which a point reads dry */
    double floor, step;      /* the columns' first point and spacing on the vertical */
    size_t wall_first[CLP_CASE_MAX_BOXES], wall_end[CLP_CASE_MAX_BOXES];
    cl_float4 *samples, *force; /* read back: two per point; one per particle */
    cl_uint *ids;
    size_t slots; /* that force and ids hold */
    double *sums; /* split: the samples, then the wall forces, summed over the ranks */
    size_t n_columns;
    char **names;
    double *row;
    clp__csv *csv;
};

/* The columns' vertical extent: from the tank's floor (else the domain's bottom) to the
 * domain's top, every half spacing. */
static void column_extent(const clp_sph_case *c, double *floor_, double *step, size_t *count) {
    const int up = c->dim - 1;
    *floor_ = c->has_tank ? c->tank.min[up] : c->origin[up];
    *step = 0.5 * c->dp;
    *count = (size_t)floor((c->origin[up] + c->size[up] - *floor_) / *step) + 1;
}

size_t clp__sph_gauge_points(const clp_sph_case *c, cl_float4 *out) {
    const clp_sph_gauges *g = &c->gauges;
    const int up = c->dim - 1;
    double floor_, step;
    size_t column, at = 0;
    column_extent(c, &floor_, &step, &column);
    for (size_t k = 0; k < g->n_heights; k++)
        for (size_t m = 0; m < column; m++, at++)
            if (out) {
                double x[3] = {0, 0, 0};
                for (int a = 0; a < up; a++)
                    x[a] = g->heights[k][a];
                x[up] = floor_ + (double)m * step;
                out[at] = (cl_float4){{(float)x[0], (float)x[1], (float)x[2], 0}};
            }
    for (size_t k = 0; k < g->n_points; k++, at++)
        if (out)
            out[at] = (cl_float4){
                {(float)g->points[k][0], (float)g->points[k][1], (float)g->points[k][2], 0}};
    return at;
}

clp_constant clp__sph_gauge_constant(const clp_sph_case *c) {
    return (clp_constant){"CLP_SPH_GAUGE_POINTS", CLP_CONST_INT, 0,
                          (long long)clp__sph_gauge_points(c, NULL), false};
}

/* The bytes of each own buffer: one element at least, as a buffer cannot be empty. */
static void own_bytes(const clp_sph_case *c, size_t particles, size_t bytes[OWN]) {
    const size_t points = clp__sph_gauge_points(c, NULL);
    bytes[POINTS] = (points ? points : 1) * sizeof(cl_float4);
    bytes[SAMPLES] = (points ? 2 * points : 1) * sizeof(cl_float4);
    bytes[WALL_FORCE] = c->gauges.n_walls ? particles * sizeof(cl_float4) : 0;
}

clp_memory_need clp__sph_gauge_need(const clp_sph_case *c, size_t particles) {
    clp_memory_need need = {0, 0, NULL};
    size_t bytes[OWN];
    if (c->gauges.interval <= 0)
        return need;
    own_bytes(c, particles, bytes);
    for (int k = 0; k < OWN; k++) {
        need.total += bytes[k];
        if (bytes[k] > need.largest) {
            need.largest = bytes[k];
            need.largest_name = clp__sph_gauge_buffer_names[k];
        }
    }
    return need;
}

/* Adds the column name `base`_K, or `base` alone for a negative K, to g->names. */
static bool add_name(clp__sph_gauges *g, const char *base, long k) {
    char name[64];
    if (k < 0)
        snprintf(name, sizeof name, "%s", base);
    else
        snprintf(name, sizeof name, "%s_%ld", base, k);
    return (g->names[g->n_columns++] = strdup(name)) != NULL;
}

/* time, step, height_K, then pressure_K vx_K vy_K [vz_K], then force_x_K force_y_K
 * [force_z_K] for the K-th gauge of each kind. */
static clp_status name_columns(clp__sph_gauges *g, clp_error *err) {
    const clp_sph_gauges *s = &g->c->gauges;
    const int dim = g->c->dim == 3 ? 3 : 2;
    static const char *const velocity[] = {"vx", "vy", "vz"};
    static const char *const force[] = {"force_x", "force_y", "force_z"};
    g->names =
        calloc(2 + s->n_heights + (1 + dim) * s->n_points + dim * s->n_walls, sizeof(char *));
    g->row = calloc(2 + s->n_heights + (1 + dim) * s->n_points + dim * s->n_walls, sizeof(double));
    if (!g->names || !g->row)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    bool ok = add_name(g, "time", -1) && add_name(g, "step", -1);
    for (size_t k = 0; k < s->n_heights; k++)
        ok = ok && add_name(g, "height", (long)k);
    for (size_t k = 0; k < s->n_points; k++) {
        ok = ok && add_name(g, "pressure", (long)k);
        for (int a = 0; a < dim; a++)
            ok = ok && add_name(g, velocity[a], (long)k);
    }
    for (size_t k = 0; k < s->n_walls; k++)
        for (int a = 0; a < dim; a++)
            ok = ok && add_name(g, force[a], (long)k);
    return ok ? CLP_OK : CLP_FAIL(err, CLP_NOMEM, "out of host memory");
}

/* The whole case's gauges on one device: every point and slot, sums of one device. */
static clp_status settle_alone(const void *rank, clp_error *err) {
    (void)rank, (void)err;
    return CLP_OK;
}

static bool owns_alone(const void *rank, const cl_float4 *x) {
    (void)rank, (void)x;
    return true;
}

static void slots_alone(const void *rank, size_t slots, size_t *first, size_t *end) {
    (void)rank;
    *first = 0;
    *end = slots;
}

static clp_status run_alone(const void *rank, clp_worker *w, const clp_step *s, size_t first,
                            size_t end, clp_error *err) {
    (void)rank, (void)first, (void)end;
    return clp_worker_run_step(w, s, NULL, err);
}

static clp_status sum_alone(const void *rank, double *v, size_t n, clp_error *err) {
    (void)rank, (void)v, (void)n, (void)err;
    return CLP_OK;
}

static const clp__sph_gauge_share alone = {NULL,        settle_alone, owns_alone,
                                           slots_alone, run_alone,    sum_alone};

clp_status clp__sph_gauges_open(const clp_sph_case *c, clp_worker *w, double dry, const char *dir,
                                bool restart, uint64_t step, clp__sph_gauges **out,
                                clp_error *err) {
    clp_status st = CLP_OK;
    double *kept = NULL;
    size_t n_kept = 0;
    clp__sph_gauges *g = calloc(1, sizeof *g);
    CLP_REQUIRE_ALLOC(g, err);
    *g = (clp__sph_gauges){
        .c = c, .w = w, .share = &alone, .n_points = clp__sph_gauge_points(c, NULL), .dry = dry};
    column_extent(c, &g->floor, &g->step, &g->column);
    clp__sph_wall_ids(c, g->wall_first, g->wall_end);
    g->samples = malloc((2 * g->n_points + 1) * sizeof *g->samples);
    g->points = malloc((g->n_points + 1) * sizeof *g->points);
    g->sums = malloc((8 * g->n_points + 3 * c->gauges.n_walls + 1) * sizeof *g->sums);
    CLP_REQUIRE(g->samples && g->points && g->sums, err, CLP_NOMEM, "out of host memory");
    clp__sph_gauge_points(c, g->points);
    CLP_TRY(name_columns(g, err));
    const char *const *names = (const char *const *)g->names;
    if (!dir) {
        *out = g;
        return CLP_OK;
    }
    if (restart)
        CLP_TRY(clp__csv_continue_in(dir, "gauges.csv", names, g->n_columns, 1, (double)step, &kept,
                                     &n_kept, &g->csv, err));
    else
        CLP_TRY(clp__csv_open_in(dir, "gauges.csv", names, g->n_columns, &g->csv, err));
    *out = g;
    g = NULL;
fail:
    free(kept);
    clp__sph_gauges_close(g);
    return st;
}

void clp__sph_gauges_share(clp__sph_gauges *g, const clp__sph_gauge_share *share) {
    g->share = share ? share : &alone;
}

/* Makes the own buffers the gauges lack for `slots` particles: the points' and samples' once,
 * the wall force again when a re-cut changed the worker's slots. */
static clp_status make_own(clp__sph_gauges *g, size_t slots, clp_error *err) {
    clp_status st = CLP_OK;
    size_t bytes[OWN];
    own_bytes(g->c, slots, bytes);
    for (int k = 0; k < OWN; k++)
        if (bytes[k] && (!g->own[k] || clp_buffer_size(g->own[k]) != bytes[k]))
            CLP_TRY(clp_worker_buffer_create(g->w, clp__sph_gauge_buffer_names[k], bytes[k],
                                             &g->own[k], err));
fail:
    return st;
}

/* The samples of every point and the force on each wall box of this device, into g->sums
 * (8 per point, then dim per wall); split, this rank's share, summed over the ranks. */
static clp_status sample_sums(clp__sph_gauges *g, clp_buffer_set grid, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_sph_gauges *s = &g->c->gauges;
    const int dim = g->c->dim;
    const size_t slots = clp_worker_buffer_bytes(g->w, CLP_BUF_POS) / sizeof(cl_float4);
    const clp__sph_gauge_share *own = g->share;
    size_t first, end, at = 0;
    own->slots(own->rank, slots, &first, &end);
    CLP_TRY(make_own(g, slots, err));
    /* the model's velocities and densities come before the gauges' own */
    clp_buffer *vel = clp_worker_buffer_find(g->w, clp__sph_buffer_names[CLP__SPH_VEL]),
               *rho = clp_worker_buffer_find(g->w, clp__sph_buffer_names[CLP__SPH_RHO]);
    if (g->n_points) {
        const clp_step sample = {"sph_gauge_sample",
                                 CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_CELL_START |
                                     CLP_BUF_CELL_END | CLP_BUF_CONSTANTS,
                                 g->n_points, 0};
        clp_buffer *const args[] = {vel, rho, g->own[POINTS], g->own[SAMPLES]};
        CLP_TRY(clp_worker_buffer_write(g->w, g->own[POINTS], g->points, err));
        CLP_TRY(clp_worker_set_step_buffers(g->w, &sample, args, 4, err));
        CLP_TRY(clp_worker_run_step(g->w, &sample, NULL, err));
        CLP_TRY(clp_worker_buffer_read(g->w, g->own[SAMPLES], g->samples, err));
    }
    for (size_t k = 0; k < g->n_points; k++)
        for (int m = 0; m < 8; m++)
            g->sums[at++] =
                own->owns(own->rank, &g->points[k]) ? g->samples[2 * k + m / 4].s[m % 4] : 0.0;
    if (s->n_walls) {
        const clp_step force = {"sph_wall_force", grid | CLP_BUF_CONSTANTS, slots, 0};
        clp_buffer *const args[] = {rho, g->own[WALL_FORCE]};
        if (slots != g->slots) { /* first sample, or a re-cut */
            free(g->force);
            free(g->ids);
            g->force = malloc(slots * sizeof *g->force);
            g->ids = malloc(slots * sizeof *g->ids);
            g->slots = g->force && g->ids ? slots : 0;
            CLP_REQUIRE(g->slots, err, CLP_NOMEM, "out of host memory");
        }
        /* a rank's own particles only: it has no neighbour lists for its halo's */
        CLP_TRY(clp_worker_set_step_buffers(g->w, &force, args, 2, err));
        CLP_TRY(own->run(own->rank, g->w, &force, first, end, err));
        CLP_TRY(clp_worker_buffer_read(g->w, g->own[WALL_FORCE], g->force, err));
        CLP_TRY(clp_worker_read(g->w, CLP_BUF_ID, g->ids, err));
        for (size_t k = 0; k < s->n_walls; k++) {
            const size_t b = s->walls[k];
            double total[3] = {0, 0, 0};
            for (size_t i = first; i < end; i++)
                if (g->ids[i] >= g->wall_first[b] && g->ids[i] < g->wall_end[b])
                    for (int a = 0; a < dim; a++)
                        total[a] += g->force[i].s[a];
            for (int a = 0; a < dim; a++)
                g->sums[at++] = total[a];
        }
    }
    if (at)
        CLP_TRY(own->sum(own->rank, g->sums, at, err));
fail:
    return st;
}

/* The water height of column k from the fluid fractions along it: the elevation above the
 * floor where, coming down from the top, the fraction first reaches one half (linear between
 * samples); 0 where it never does. */
static double column_height(const clp__sph_gauges *g, size_t k) {
    const double *s = g->sums + 8 * k * g->column; /* fractions every 8 */
    for (size_t m = g->column; m-- > 0;) {
        const double f = s[8 * m];
        if (f < SURFACE_FRACTION)
            continue;
        if (m + 1 == g->column)
            return (double)m * g->step;
        const double above = s[8 * (m + 1)];
        return ((double)m + (f - SURFACE_FRACTION) / (f - above)) * g->step;
    }
    return 0.0;
}

clp_status clp__sph_gauges_sample(clp__sph_gauges *g, clp_buffer_set grid, double time,
                                  uint64_t step, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_sph_gauges *s = &g->c->gauges;
    const int dim = g->c->dim;
    size_t at = 0;
    CLP_TRY(g->share->settle(g->share->rank, err));
    CLP_TRY(sample_sums(g, grid, err));
    if (!g->csv)
        return CLP_OK;
    g->row[at++] = time;
    g->row[at++] = (double)step;
    for (size_t k = 0; k < s->n_heights; k++)
        g->row[at++] = column_height(g, k);
    for (size_t k = 0; k < s->n_points; k++) {
        /* Shepard averages of the fluid; a point with too little fluid around it (a fluid
           fraction sum_j V_j W below g->dry) is dry: missing values, empty fields */
        const double *p = g->sums + 8 * (s->n_heights * g->column + k);
        const double sum = p[0];
        const bool wet = sum > 0 && sum >= g->dry;
        g->row[at++] = wet ? p[1] / sum : NAN;
        for (int a = 0; a < dim; a++)
            g->row[at++] = wet ? p[4 + a] / sum : NAN;
    }
    for (size_t k = 0; k < (size_t)dim * s->n_walls; k++)
        g->row[at++] = g->sums[8 * g->n_points + k];
    CLP_TRY(clp__csv_row(g->csv, g->row, err));
fail:
    return st;
}

void clp__sph_gauges_close(clp__sph_gauges *g) {
    if (!g)
        return;
    clp_error ignored = CLP_ERROR_INIT;
    clp__csv_close(g->csv, &ignored);
    for (size_t i = 0; i < g->n_columns; i++)
        free(g->names[i]);
    free(g->names);
    free(g->row);
    free(g->samples);
    free(g->points);
    free(g->sums);
    free(g->force);
    free(g->ids);
    free(g);
}
