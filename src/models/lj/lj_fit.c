/* Memory before the atoms are made, and lj.fit_device: a case whose stored neighbour list would
 * not fit the device runs with the cell search instead (neighbors.mode=jit), as SPH's
 * sph.fit_device does. The list is sized before it is built, from the atoms within the search
 * radius at the case's mean density, and counted with the grid's other buffers and the
 * model's. */
#include "models/lj/lj.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What the grid and the model take on the device for `n` atoms, with a list as `sized` sizes it
 * in list mode. */
static clp_memory_need need_of(const clp_options *opts, const clp_grid_geometry *sized, size_t n) {
    return clp__memory_need_add(clp_grid_memory_need(sized, opts, n), clp__lj_own_need(n));
}

/* A copy of `opts` (new, in *out) that searches the cells instead of a stored list. */
static clp_status with_cell_search(const clp_options *opts, clp_options **out, clp_error *err) {
    const clp_status st = clp_options_dup(opts, out, err);
    return st == CLP_OK ? clp__neighbors_mode_set(*out, CLP_NEIGHBORS_MODE_JIT, err) : st;
}

clp_status clp__lj_fit_device(clp_worker *w, clp__comm *comm, clp_options *opts,
                              const clp_grid_geometry *geo, size_t n, double density,
                              clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *cell_search = NULL;
    if (!clp__lj_fit_device_of(opts) || geo->max_neighbors > 0 ||
        clp__neighbors_mode_of(opts) != CLP_NEIGHBORS_MODE_LIST)
        return CLP_OK; /* a fixed list size is the user's */
    const clp_device_info *dev = clp_worker_device(w);
    const double r = geo->search_radius;
    clp_grid_geometry sized = *geo;
    sized.max_neighbors =
        clp_grid_list_room((uint32_t)ceil(density * 4.0 / 3.0 * M_PI * r * r * r));
    const clp_memory_need with_list = need_of(opts, &sized, n);
    double refused = !clp__memory_need_fits(&with_list, dev);
    if (comm) /* the ranks run alike: without a list on all where one has no room for it */
        CLP_TRY(clp__comm_allreduce(comm, &refused, 1, CLP_COMM_MAX, err));
    if (!refused)
        return CLP_OK;
    CLP_TRY(with_cell_search(opts, &cell_search, err));
    const clp_memory_need without = need_of(cell_search, geo, n);
    if (!clp__memory_need_fits(&without, dev))
        goto fail; /* refused as it is, with the list's figures */
    const double gib = 1024.0 * 1024.0 * 1024.0;
    char rank[32];
    clp__comm_rank_label(comm, rank, sizeof rank);
    if (!clp__memory_need_fits(&with_list, dev))
        CLP_WARN(CLP_LOG_BUFFER,
                 "%s%zu atoms with a stored neighbour list (room for %u neighbours an atom) "
                 "would take %.2f GiB, %.2f GiB in its largest buffer, where device '%s' has "
                 "%.2f GiB and allows %.2f GiB in one buffer: running with the cell search "
                 "(neighbors.mode=jit%s) in %.2f GiB; -s lj.fit_device=false refuses the case "
                 "instead",
                 rank, n, sized.max_neighbors, with_list.total / gib, with_list.largest / gib,
                 dev->name, dev->global_mem_size / gib, dev->max_mem_alloc_size / gib,
                 comm ? " on every rank" : "", without.total / gib);
    CLP_TRY(clp__neighbors_mode_set(opts, CLP_NEIGHBORS_MODE_JIT, err));
fail:
    clp_options_destroy(cell_search);
    return st;
}

/* Host bytes an atom takes while a run holds it: the state (positions and velocities in
 * double), the diagnostics' read-back (forces, energy, velocities), a snapshot's copies
 * (positions and velocities in double, velocities in float, its ID) and the upload's float4
 * positions and velocities. */
enum { HOST_BYTES_PER_ATOM = 6 * 8 + 7 * 8 + 6 * 8 + 3 * 4 + 4 + 2 * 16 };

clp_status clp__lj_check_memory(clp_worker *w, bool split, const clp_options *opts, size_t n,
                                double box, const clp__lj_params *p, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *cell_search = NULL;
    char what[64];
    snprintf(what, sizeof what, "%zu atoms", n);
    CLP_TRY(clp__host_memory_check((double)n * HOST_BYTES_PER_ATOM, what, err));
    if (split)
        goto fail; /* each rank holds a slab: checked once cut */
    CLP_TRY(with_cell_search(opts, &cell_search, err));
    const clp__lj_state header = {.n = n, .box = box};
    clp_grid_geometry geo;
    CLP_TRY(clp__lj_geometry(cell_search, &header, p, &geo, err));
    const clp_memory_need least = need_of(cell_search, &geo, n);
    const clp_device_info *dev = clp_worker_device(w);
    const double gib = 1024.0 * 1024.0 * 1024.0;
    CLP_REQUIRE(clp__memory_need_fits(&least, dev), err, CLP_DEVICE_MEMORY,
                "%zu atoms need at least %.2f GiB of device memory (%.2f GiB in one buffer, "
                "without a neighbour list), where device '%s' has %.2f GiB and allows %.2f GiB "
                "in one buffer: use fewer atoms, or split the case over devices (--devices)",
                n, least.total / gib, least.largest / gib, dev->name, dev->global_mem_size / gib,
                dev->max_mem_alloc_size / gib);
fail:
    clp_options_destroy(cell_search);
    return st;
}
