/* The grid's geometry from the options and the domain: cells per axis at least the search
 * radius wide, the key space of linear or Morton keys, and the constants the cl/grid files
 * get inlined. */
#include "grid/grid_private.h"

#include <math.h>
#include <string.h>

static const char axis_names[3] = {'x', 'y', 'z'};

bool clp__grid_periodic_of(const clp_options *opts, int axis) {
    return axis == 0   ? clp__grid_periodic_x_of(opts)
           : axis == 1 ? clp__grid_periodic_y_of(opts)
                       : clp__grid_periodic_z_of(opts);
}

clp_status clp__grid_periodic_set(clp_options *opts, int axis, bool periodic, clp_error *err) {
    return axis == 0   ? clp__grid_periodic_x_set(opts, periodic, err)
           : axis == 1 ? clp__grid_periodic_y_set(opts, periodic, err)
                       : clp__grid_periodic_z_set(opts, periodic, err);
}

static const char *const grid_files[] = {
    "grid/grid.cl",        "grid/scan.cl",      "grid/radix.cl",     "grid/sort.cl",
    "grid/neighbors.cl",   "grid/list_bits.cl", "grid/iterate.cl",   "grid/sub_box.cl",
    "grid/list_pencil.cl", "grid/simd.cl",      "grid/list_simd.cl", NULL};

_Static_assert(sizeof grid_files / sizeof grid_files[0] == CLP_GRID_CL_FILES + 1,
               "CLP_GRID_CL_FILES counts grid_files");

const char *const *clp_grid_cl_files(void) {
    return grid_files;
}

clp_buffer_set clp_grid_iteration_buffers(const clp_options *opts) {
    clp_buffer_set set = CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE;
    if (clp__neighbors_mode_of(opts) != CLP_NEIGHBORS_MODE_LIST)
        return set | CLP_BUF_CELL_START | CLP_BUF_CELL_END;
    /* bits say which of the cells' particles are neighbours */
    const clp_buffer_set cells = clp__neighbors_format_of(opts) == CLP_NEIGHBORS_FORMAT_BITS
                                     ? CLP_BUF_CELL_START | CLP_BUF_CELL_END
                                     : 0;
    return set | cells | CLP_BUF_NEIB_LIST;
}

/* Bits per axis of a Morton key: enough for the longest axis. */
static int morton_bits(const int cells[3]) {
    int longest = cells[0] > cells[1] ? cells[0] : cells[1];
    longest = longest > cells[2] ? longest : cells[2];
    int bits = 0;
    while ((1 << bits) < longest)
        bits++;
    return bits;
}

static clp_status check_axes(const clp_grid_geometry *g, clp_error *err) {
    for (int a = 0; a < g->dim; a++) {
        if (!(g->size[a] > 0) || !isfinite(g->size[a]) || !isfinite(g->origin[a]))
            return CLP_FAIL(err, CLP_CASE,
                            "domain: the %c axis needs a finite origin and a "
                            "positive size (origin %g, size %g)",
                            axis_names[a], g->origin[a], g->size[a]);
        if (g->cells[a] < 1)
            return CLP_FAIL(err, CLP_CASE,
                            "domain: the %c axis (size %g) is shorter than the search radius %g",
                            axis_names[a], g->size[a], g->search_radius);
        if (g->periodic[a] && g->cells[a] < 3)
            return CLP_FAIL(err, CLP_CASE,
                            "domain: the periodic %c axis (size %g) needs at least 3 cells of "
                            "the search radius %g, it has %d",
                            axis_names[a], g->size[a], g->search_radius, g->cells[a]);
    }
    return CLP_OK;
}

clp_status clp_grid_geometry_make(const clp_options *opts, const clp_grid_desc *desc,
                                  clp_grid_geometry *out, clp_error *err) {
    clp_grid_geometry g = {0};
    g.dim = (int)clp__core_dim_of(opts);
    g.radius = desc->radius;
    g.search_radius = desc->radius * (1.0 + clp__neighbors_skin_of(opts));
    if (!(desc->radius > 0) || !isfinite(desc->radius))
        return CLP_FAIL(err, CLP_CASE, "the influence radius must be positive and finite, not %g",
                        desc->radius);
    for (int a = 0; a < 3; a++) {
        bool used = a < g.dim;
        g.origin[a] = used ? desc->origin[a] : 0.0;
        g.size[a] = used ? desc->size[a] : 1.0;
        g.periodic[a] = used && clp__grid_periodic_of(opts, a);
        /* A hair wider than the search radius, so rounding never puts a neighbour two
         * cells away. */
        g.cells[a] = used ? (int)fmin(floor(g.size[a] / (g.search_radius * (1 + 1e-6))), 1e9) : 1;
        g.cell_size[a] = g.size[a] / g.cells[a];
    }
    clp_status st = check_axes(&g, err);
    if (st != CLP_OK)
        return st;
    double keys;
    if (clp__grid_key_of(opts) == CLP_GRID_KEY_MORTON) {
        int bits = morton_bits(g.cells);
        if (bits > (g.dim == 3 ? 10 : 16))
            return CLP_FAIL(err, CLP_CASE,
                            "grid.key=morton holds at most %d cells per axis; this domain needs %d "
                            "(use grid.key=linear)",
                            g.dim == 3 ? 1024 : 65536, 1 << bits);
        keys = ldexp(1.0, bits * g.dim);
    } else {
        keys = (double)g.cells[0] * g.cells[1] * g.cells[2];
    }
    if (keys > 2147483647.0)
        return CLP_FAIL(err, CLP_CASE,
                        "the grid has %.0f cell keys, more than 2^31: use a larger radius or a "
                        "smaller domain",
                        keys);
    g.key_count = (uint32_t)keys;
    g.bits = clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST &&
             clp__neighbors_format_of(opts) == CLP_NEIGHBORS_FORMAT_BITS;
    g.max_neighbors = clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST && !g.bits
                          ? (uint32_t)clp__neighbors_max_of(opts)
                          : 0;
    g.list_lanes = 1;
    g.cell_words = 1;
    g.list_pieces = (uint32_t)clp__neighbors_pieces_of(opts);
    *out = g;
    return CLP_OK;
}

size_t clp__grid_bits_words(int dim, uint32_t cell_words) {
    return 1 + (size_t)(dim == 3 ? 27 : 9) * cell_words;
}

size_t clp_grid_bits_words(const clp_grid_geometry *g) {
    return clp__grid_bits_words(g->dim, g->cell_words);
}

size_t clp_grid_list_stride(const clp_grid_geometry *g, size_t particles) {
    enum { ALIGN = 1024 };
    const size_t pieces = g->list_pieces > 1 ? g->list_pieces : 1;
    const size_t each = (particles + pieces - 1) / pieces;
    /* large pieces begin at multiples of 1024 particles, so that the work-groups of a launch a
       piece fill it (the last may then be smaller, or empty) */
    return pieces > 1 && each >= 16 * ALIGN ? (each + ALIGN - 1) / ALIGN * ALIGN : each;
}

size_t clp_grid_constants(const clp_grid_geometry *g, size_t particles, clp_constant *out,
                          size_t max) {
    static const char *const cells[3] = {"CLP_GRID_CELLS_X", "CLP_GRID_CELLS_Y",
                                         "CLP_GRID_CELLS_Z"};
    static const char *const cell[3] = {"CLP_GRID_CELL_X", "CLP_GRID_CELL_Y", "CLP_GRID_CELL_Z"};
    static const char *const origin[3] = {"CLP_GRID_ORIGIN_X", "CLP_GRID_ORIGIN_Y",
                                          "CLP_GRID_ORIGIN_Z"};
    static const char *const size[3] = {"CLP_GRID_SIZE_X", "CLP_GRID_SIZE_Y", "CLP_GRID_SIZE_Z"};
    clp_constant all[32];
    size_t n = 0;
    all[n++] = (clp_constant){"CLP_GRID_PARTICLES", CLP_CONST_INT, 0, (long long)particles, false};
    for (int a = 0; a < 3; a++) {
        all[n++] = (clp_constant){cells[a], CLP_CONST_INT, 0, g->cells[a], false};
        all[n++] = (clp_constant){cell[a], CLP_CONST_FLOAT, g->cell_size[a], 0, false};
        all[n++] = (clp_constant){origin[a], CLP_CONST_FLOAT, g->origin[a], 0, false};
        all[n++] = (clp_constant){size[a], CLP_CONST_FLOAT, g->size[a], 0, false};
    }
    all[n++] = (clp_constant){"CLP_GRID_KEY_COUNT", CLP_CONST_INT, 0, g->key_count, false};
    all[n++] = (clp_constant){"CLP_GRID_RADIUS", CLP_CONST_FLOAT, g->radius, 0, false};
    all[n++] =
        (clp_constant){"CLP_GRID_SEARCH_RADIUS", CLP_CONST_FLOAT, g->search_radius, 0, false};
    all[n++] = (clp_constant){"CLP_GRID_SCAN_GROUP", CLP_CONST_INT, 0, CLP_GRID_SCAN_GROUP, false};
    all[n++] = (clp_constant){"CLP_GRID_LIST_GROUP", CLP_CONST_INT, 0, CLP_GRID_LIST_GROUP, false};
    all[n++] = (clp_constant){"CLP_GRID_LIST_LANES", CLP_CONST_INT, 0,
                              g->list_lanes > 1 ? g->list_lanes : 1, false};
    all[n++] = (clp_constant){"CLP_GRID_LIST_PIECES", CLP_CONST_INT, 0,
                              g->list_pieces > 1 ? g->list_pieces : 1, false};
    all[n++] = (clp_constant){"CLP_GRID_LIST_STRIDE", CLP_CONST_INT, 0,
                              (long long)clp_grid_list_stride(g, particles), false};
    all[n++] = (clp_constant){"CLP_GRID_CELL_WORDS", CLP_CONST_INT, 0, g->cell_words, false};
    for (size_t i = 0; i < n && i < max; i++)
        out[i] = all[i];
    return n;
}
