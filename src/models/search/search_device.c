/* The neighbour-search system on the device: the program (the grid's files, the neighbour pass
 * of grid/collect.cl and the displacement of cl/search/search.cl), the lattice in the grid, the
 * steps (displacement, update, passes), and the host's reads and checks of the sorted state. */
#include "models/models.h"
#include "models/search/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CONSTANTS = 48, MAX_FILES = CLP_GRID_CL_FILES + 3 };

clp_status clp__search_geometry(const clp_options *opts, const clp__search_params *p,
                                clp_grid_geometry *out, clp_error *err) {
    const bool periodic = clp__grid_periodic_x_of(opts) && clp__grid_periodic_y_of(opts) &&
                          clp__grid_periodic_z_of(opts);
    if (clp__core_dim_of(opts) != 3 || !periodic)
        return CLP_FAIL(err, CLP_CASE,
                        "model search places its lattice in a periodic cube: it needs core.dim=3 "
                        "and grid.periodic_x, grid.periodic_y and grid.periodic_z true (core.dim "
                        "is %lld)",
                        clp__core_dim_of(opts));
    const double side = (double)p->side;
    const clp_grid_desc desc = {{0, 0, 0}, {side, side, side}, p->radius};
    return clp_grid_geometry_make(opts, &desc, out, err);
}

/* The program's constants (the grid's, then the displacement's) and files. */
typedef struct program_parts {
    clp_constant constants[MAX_CONSTANTS];
    const char *files[MAX_FILES];
    clp_program_spec spec;
} program_parts;

static void program_spec(const clp__search_params *p, const clp_grid_geometry *geo,
                         program_parts *parts) {
    const size_t n = p->side * p->side * p->side;
    size_t nc = clp_grid_constants(geo, n, parts->constants, MAX_CONSTANTS - 3);
    parts->constants[nc++] = (clp_constant){"CLP_SEARCH_MOVE", CLP_CONST_FLOAT, p->move, 0, false};
    parts->constants[nc++] = (clp_constant){"CLP_SEARCH_SEED_LO", CLP_CONST_INT, 0,
                                            (long long)(p->seed & 0xffffffffu), false};
    parts->constants[nc++] =
        (clp_constant){"CLP_SEARCH_SEED_HI", CLP_CONST_INT, 0, (long long)(p->seed >> 32), false};
    size_t nf = 0;
    parts->files[nf++] = "common/philox.cl";
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        parts->files[nf++] = *f;
    parts->files[nf++] = "grid/collect.cl";
    parts->files[nf++] = "search/search.cl";
    size_t n_modules;
    const char *const *modules = clp__model_modules("search", &n_modules);
    parts->spec =
        (clp_program_spec){"search", modules, n_modules, parts->files, nf, parts->constants, nc};
}

clp_status clp__search_source(const clp_options *opts, const clp__search_params *p, char **out,
                              clp_error *err) {
    clp_grid_geometry geo;
    clp_status st = clp__search_geometry(opts, p, &geo, err);
    if (st != CLP_OK)
        return st;
    program_parts parts;
    program_spec(p, &geo, &parts);
    return clp_source_assemble(opts, clp_data_dir(), &parts.spec, out, err);
}

struct clp__search_system {
    clp_worker *worker;
    clp__search_params params;
    clp_grid_geometry geo;
    clp_grid *grid;
    size_t n;
    uint64_t step;       /* steps done */
    clp_step move, pass; /* the displacement and a neighbour pass */
    clp_buffer *count;   /* the pass's neighbours per particle, by ID: its own argument */
    bool counted;        /* the counts are those of the current positions */
};

const char *const clp__search_buffers[] = {"collect.count", NULL};

/* A neighbour pass: the grid's buffers and the IDs, then the counts. */
static clp_status pass(clp__search_system *sys, double *seconds, clp_error *err) {
    clp_status st = clp_worker_set_step_buffers(sys->worker, &sys->pass, &sys->count, 1, err);
    return st == CLP_OK ? clp_worker_run_step(sys->worker, &sys->pass, seconds, err) : st;
}

/* The displacement of the current step: its buffers, then the step number. */
static clp_status move(clp__search_system *sys, double *seconds, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel kernel;
    const cl_uint step = (cl_uint)sys->step;
    CLP_TRY(clp_worker_kernel(sys->worker, sys->move.kernel, &kernel, err));
    CLP_CL_CHECK(clSetKernelArg(kernel, 2, sizeof step, &step), err,
                 "kernel '%s' argument 2 (step %u): clSetKernelArg", sys->move.kernel, step);
    CLP_TRY(clp_worker_run_step(sys->worker, &sys->move, seconds, err));
fail:
    return st;
}

clp_status clp__search_system_open(clp_worker *w, const clp_options *opts, clp_cache *cache,
                                   const clp__search_params *p, clp__search_system **out,
                                   clp_error *err) {
    clp_status st = CLP_OK;
    char *source = NULL;
    double *xyz = NULL;
    clp__search_system *sys = calloc(1, sizeof *sys);
    CLP_REQUIRE_ALLOC(sys, err);
    *sys = (clp__search_system){.worker = w, .params = *p, .n = p->side * p->side * p->side};
    CLP_TRY(clp__search_geometry(opts, p, &sys->geo, err));
    CLP_TRY(clp__search_source(opts, p, &source, err));
    CLP_TRY(clp_worker_build_for(w, source, opts, cache, NULL, err));
    CLP_TRY(clp_grid_create(w, opts, &sys->geo, sys->n, &sys->grid, err));
    const size_t count_bytes = sys->n * sizeof(cl_uint);
    CLP_TRY(clp_worker_buffers_create(w, clp__search_buffers, &count_bytes, 1, &sys->count, err));
    CLP_TRY(clp__search_lattice(p, &xyz, err));
    CLP_TRY(clp_grid_set_particles(sys->grid, xyz, NULL, err));
    sys->move = (clp_step){"search_move", CLP_BUF_POS | CLP_BUF_ID, sys->n, 0};
    sys->pass = (clp_step){"grid_count_neighbors", clp_grid_iteration_buffers(opts) | CLP_BUF_ID,
                           sys->n, 0};
    /* the start sorted, and a list sized, before the steps that are timed */
    CLP_TRY(clp_grid_update(sys->grid, err));
    *out = sys;
    sys = NULL;
fail:
    free(xyz);
    free(source);
    clp__search_system_close(sys);
    return st;
}

void clp__search_system_close(clp__search_system *sys) {
    if (!sys)
        return;
    clp_worker_buffer_free(sys->worker, sys->count);
    clp_grid_destroy(sys->grid);
    free(sys);
}

clp_status clp__search_system_step(clp__search_system *sys, clp_run_timing *timing,
                                   clp_error *err) {
    clp_status st = CLP_OK;
    clp_run_timing unused = {0};
    clp_run_timing *t = timing ? timing : &unused;
    double seconds = 0;
    CLP_TRY(move(sys, &seconds, err));
    t->integration += seconds;
    sys->counted = false;
    if (clp_grid_rebuilds_at(sys->grid, sys->step)) {
        CLP_TRY(clp_grid_update(sys->grid, err));
        const clp_grid_timing g = clp_grid_last_timing(sys->grid);
        t->keys += g.keys;
        t->sort += g.sort;
        t->reorder += g.reorder;
        t->list += g.list;
        t->rebuilds++;
    }
    for (unsigned k = 0; k < sys->params.passes; k++) {
        seconds = 0;
        CLP_TRY(pass(sys, &seconds, err));
        t->forces += seconds;
        sys->counted = true;
    }
    t->steps++;
    sys->step++;
fail:
    return st;
}

clp_status clp__search_system_count(clp__search_system *sys, clp_error *err) {
    if (sys->counted)
        return CLP_OK;
    clp_status st = pass(sys, NULL, err);
    sys->counted = st == CLP_OK;
    return st;
}

clp_status clp__search_system_read(clp__search_system *sys, double *xyz, uint32_t *neighbours,
                                   clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = sys->n;
    double *sorted = xyz ? malloc(3 * n * sizeof *sorted) : NULL;
    uint32_t *ids = xyz ? malloc(n * sizeof *ids) : NULL;
    CLP_REQUIRE(!xyz || (sorted && ids), err, CLP_NOMEM, "out of host memory for %zu particles", n);
    if (neighbours)
        CLP_TRY(clp_worker_buffer_read(sys->worker, sys->count, neighbours, err));
    if (xyz) {
        CLP_TRY(clp_grid_read_particles(sys->grid, sorted, ids, err));
        const double side = (double)sys->params.side;
        for (size_t i = 0; i < n; i++) {
            CLP_REQUIRE(ids[i] < n, err, CLP_CHECK, "slot %zu holds particle %u of %zu", i, ids[i],
                        n);
            for (int a = 0; a < 3; a++) { /* local positions may stand a hair outside */
                const double x = sorted[3 * i + (size_t)a];
                xyz[3 * (size_t)ids[i] + (size_t)a] = x - side * floor(x / side);
            }
        }
    }
fail:
    free(sorted);
    free(ids);
    return st;
}

/* Violations of the sorted order in `key` and `id` (n slots) and of the ranges of the `cells`
 * keys in `start` and `end`; `seen` (n) and `per_cell` (cells) are zeroed scratch. */
static uint64_t count_violations(const cl_uint *key, const cl_uint *id, const cl_uint *start,
                                 const cl_uint *end, size_t n, size_t cells, uint32_t *seen,
                                 uint32_t *per_cell) {
    uint64_t violations = 0;
    for (size_t i = 0; i < n; i++) {
        violations += i > 0 && key[i] < key[i - 1];
        violations += !(id[i] < n && !seen[id[i]]);
        if (id[i] < n)
            seen[id[i]] = 1;
        if (key[i] < cells)
            per_cell[key[i]]++;
    }
    /* each key's range holds the slots of that key, and as many as there are */
    for (size_t k = 0; k < cells; k++) {
        bool same = start[k] <= end[k] && end[k] <= n && end[k] - start[k] == per_cell[k];
        for (size_t i = start[k]; same && i < end[k]; i++)
            same = key[i] == k;
        violations += !same;
    }
    return violations;
}

clp_status clp__search_system_check(clp__search_system *sys, clp__search_check *out,
                                    clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = sys->n, cells = sys->geo.key_count;
    cl_uint *count = malloc(n * sizeof *count), *key = malloc(n * sizeof *key),
            *id = malloc(n * sizeof *id), *seen = calloc(n, sizeof *seen),
            *start = malloc((cells + 1) * sizeof *start), *end = malloc((cells + 1) * sizeof *end),
            *per_cell = calloc(cells, sizeof *per_cell);
    CLP_REQUIRE(count && key && id && seen && start && end && per_cell, err, CLP_NOMEM,
                "out of host memory to check %zu particles", n);
    CLP_TRY(clp__search_system_count(sys, err));
    clp_worker *w = sys->worker;
    CLP_TRY(clp_worker_buffer_read(w, sys->count, count, err));
    CLP_TRY(clp_worker_read(w, CLP_BUF_KEY, key, err));
    CLP_TRY(clp_worker_read(w, CLP_BUF_ID, id, err));
    CLP_TRY(clp_worker_read(w, CLP_BUF_CELL_START, start, err));
    CLP_TRY(clp_worker_read(w, CLP_BUF_CELL_END, end, err));
    clp__search_check c = {.min_neighbours = UINT32_MAX};
    for (size_t i = 0; i < n; i++) {
        c.mean_neighbours += count[i];
        c.min_neighbours = count[i] < c.min_neighbours ? count[i] : c.min_neighbours;
        c.max_neighbours = count[i] > c.max_neighbours ? count[i] : c.max_neighbours;
    }
    c.mean_neighbours /= (double)n;
    c.violations = count_violations(key, id, start, end, n, cells, seen, per_cell);
    *out = c;
fail:
    free(count);
    free(key);
    free(id);
    free(seen);
    free(start);
    free(end);
    free(per_cell);
    return st;
}
