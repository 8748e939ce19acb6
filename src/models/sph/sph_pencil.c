/* The layout of the x-pencil force kernel (cl/sph/sph_pencil.cl) on a device: pencil length,
 * work-group, staging capacity, sized as the LJ x_pencil strategy is (seed
 * Algis et al. 2024, 5.2) from the fullest cell of the lattice
 * the case starts on and the device's local memory. */
#include "models/sph/sph_pencil.h"

#include <math.h>

/* Work-items of a group at most: one per target particle; the NVIDIA driver runs any kernel's
 * registers at 256 work-items a group. Hits per work-item held at once: a row's candidates
 * within the support are about a fifth of 3 cells' particles, so 32 rarely take two passes. */
enum { GROUP_MOST = 256, HITS = 32, STAGED_BYTES = 2 * 16 + 5 * 4 };

static size_t local_bytes(int cells, size_t group, size_t capacity) {
    const size_t row = (size_t)cells + 2;
    return capacity * STAGED_BYTES + 2 * HITS * group + 4 * (2 * row + 1) + 16 * row +
           4 * (2 * (size_t)cells + 1);
}

/* The most lattice points a cell can hold: per axis those a cell's width spans. */
static unsigned lattice_per_cell(const clp_sph_case *c, const clp_grid_geometry *geo) {
    unsigned most = 1;
    for (int a = 0; a < c->dim; a++)
        most *= (unsigned)floor(geo->cell_size[a] / c->dp + 1e-9) + 1;
    return most;
}

static size_t pencils(const clp_grid_geometry *geo, int cells) {
    return (size_t)((geo->cells[0] + cells - 1) / cells) * (size_t)geo->cells[1] *
           (size_t)geo->cells[2];
}

clp_status clp__sph_pencil_make(const clp_device_info *dev, const clp_grid_geometry *geo,
                                const clp_sph_case *c, clp__sph_pencil *out, clp_error *err) {
    const size_t cap =
        dev->max_work_group_size < GROUP_MOST ? dev->max_work_group_size : GROUP_MOST;
    const unsigned mc = lattice_per_cell(c, geo);
    int cells = geo->cells[0];
    while (cells >= 1 && ((size_t)mc * cells > cap ||
                          local_bytes(cells, clp__warp_group((size_t)mc * cells, cap),
                                      (size_t)mc * (cells + 2)) > dev->local_mem_size))
        cells--;
    if (cells < 1)
        return CLP_FAIL(err, CLP_CASE,
                        "sph.strategy=x_pencil: a pencil of one cell of up to %u particles "
                        "needs %u work-items and %zu bytes of local memory; '%s' allows %zu and "
                        "has %llu",
                        mc, mc, local_bytes(1, mc, 3 * (size_t)mc), dev->name, cap,
                        (unsigned long long)dev->local_mem_size);
    while (cells > 1 && pencils(geo, cells) < dev->compute_units)
        cells--;
    const size_t group = (size_t)mc * cells;
    *out = (clp__sph_pencil){
        .cells = cells,
        .group = clp__warp_group(group, cap),
        .capacity = (size_t)mc * (cells + 2),
        .hits = HITS,
        .groups = pencils(geo, cells),
    };
    out->local_bytes = local_bytes(cells, out->group, out->capacity);
    return CLP_OK;
}

size_t clp__sph_pencil_constants(const clp__sph_pencil *p, clp_constant *out) {
    const struct {
        const char *name;
        size_t value;
    } values[] = {{"CLP_SPH_PENCIL_X", (size_t)p->cells},
                  {"CLP_SPH_PENCIL_GROUP", p->group},
                  {"CLP_SPH_PENCIL_CAPACITY", p->capacity},
                  {"CLP_SPH_PENCIL_HITS", p->hits}};
    for (size_t k = 0; k < 4; k++)
        out[k] =
            (clp_constant){values[k].name, CLP_CONST_INT, 0, (long long)values[k].value, false};
    return 4;
}
