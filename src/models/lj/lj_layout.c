/* The work layout of each Lennard-Jones strategy on a device: the force kernel's work size,
 * and for the sub-box strategies the sub-box and what they stage in local memory, sized as
 * Algis et al. 2024 do (5.1, 5.2 and 7.1) from the device's local memory and the most particles in
 * a cell. */
#include "models/lj/lj.h"

#include <math.h>
#include <string.h>

/* The strategies are lj.strategy's values before auto (clp__lj_strategy, generated). */
_Static_assert(CLP_LJ_STRATEGY_AUTO == CLP_LJ_STRATEGY_COUNT - 1, "auto is lj.strategy's last");

unsigned clp__lj_max_per_cell(const clp_grid_geometry *geo, const clp__lj_state *s) {
    const size_t cells = (size_t)geo->cells[0] * geo->cells[1] * geo->cells[2];
    unsigned *count = calloc(cells, sizeof *count), most = 0;
    if (!count)
        return UINT32_MAX; /* the sizing then refuses rather than guess */
    for (size_t i = 0; i < s->n; i++) {
        size_t key = 0;
        for (int a = 2; a >= 0; a--) {
            int c = (int)floor((s->xyz[3 * i + a] - geo->origin[a]) / geo->cell_size[a]);
            c = c < 0 ? 0 : c >= geo->cells[a] ? geo->cells[a] - 1 : c;
            key = key * (size_t)geo->cells[a] + (size_t)c;
        }
        if (++count[key] > most)
            most = count[key];
    }
    free(count);
    return most;
}

/* Work-items of each cell's work-group in par_cell: the paper's 128, halved for the few
 * particles a cell holds here. */
enum { CELL_GROUP = 64, PARTICLE_BYTES = 16 };
/* Work-items of a sub-box group, at most: one per target particle, as the paper has them.
 * The paper caps the particles of a group at 1024 (x_pencil, ghosts included) and 512
 * (all_in_sm); the NVIDIA driver allows this kernel 256 (H200, 580.159.04,
 * CL_KERNEL_WORK_GROUP_SIZE, for its registers), and the ghosts are staged by strided loads
 * here, so the targets alone count against 256. */
enum { SUB_BOX_GROUP_MOST = 256 };

/* Local memory of a sub-box kernel (cl/lj/lj_sub_box.cl): the staged particles and, per
 * staged and per target cell, an offset and a start. */
static size_t sub_box_bytes(const int box[3], size_t stage_rows, size_t capacity) {
    const size_t stage_cells = (size_t)(box[0] + 2) * stage_rows;
    const size_t box_cells = (size_t)box[0] * box[1] * box[2];
    return capacity * PARTICLE_BYTES + 4 * (2 * stage_cells + 1) + 4 * (2 * box_cells + 1);
}

static size_t sub_boxes(const clp_grid_geometry *geo, const int box[3]) {
    size_t n = 1;
    for (int a = 0; a < 3; a++)
        n *= (size_t)((geo->cells[a] + box[a] - 1) / box[a]);
    return n;
}

/* Section 5.2: the pencil, ghosts included, is as long as SM / (M_C x sizeof(Part)) cells
 * allow, with a work-item per target particle; shorter while there are fewer pencils than
 * compute units. */
static clp_status pencil(const clp_device_info *dev, const clp_grid_geometry *geo, unsigned mc,
                         size_t cap, clp__lj_layout *l, clp_error *err) {
    int box[3] = {geo->cells[0], 1, 1};
    if (mc > cap)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=x_pencil: the fullest cell has %u particles, more than the "
                        "%zu work-items a group may have on '%s'",
                        mc, cap, dev->name);
    while (box[0] >= 1 && ((size_t)mc * box[0] > cap ||
                           sub_box_bytes(box, 1, (size_t)mc * (box[0] + 2)) > dev->local_mem_size))
        box[0]--;
    if (box[0] < 1)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=x_pencil: a pencil of 3 cells of up to %u particles needs "
                        "%zu bytes of local memory; '%s' has %llu",
                        mc, sub_box_bytes((int[3]){1, 1, 1}, 1, 3 * (size_t)mc), dev->name,
                        (unsigned long long)dev->local_mem_size);
    while (box[0] > 1 && sub_boxes(geo, box) < dev->compute_units)
        box[0]--;
    memcpy(l->box, box, sizeof box);
    l->stage_rows = 1;
    l->capacity = (size_t)mc * (box[0] + 2);
    l->group = (size_t)mc * box[0];
    return CLP_OK;
}

/* Section 5.1: the frame, ghosts included, is the largest cube of cells that local memory
 * holds at M_C particles each; the sub-box inside it is cut, longest side first, while its
 * particles are more than a group's work-items or there are fewer sub-boxes than compute
 * units. */
static clp_status all_in_sm(const clp_device_info *dev, const clp_grid_geometry *geo, unsigned mc,
                            size_t cap, clp__lj_layout *l, clp_error *err) {
    int side = 1;
    while (side < geo->cells[0] + 2 &&
           sub_box_bytes((int[3]){side - 1, side - 1, side - 1}, (size_t)(side + 1) * (side + 1),
                         (size_t)mc * (side + 1) * (side + 1) * (side + 1)) <= dev->local_mem_size)
        side++; /* side: the frame's cells per axis */
    if (side < 3)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=all_in_sm: a frame of 3 x 3 x 3 cells of up to %u particles "
                        "needs %zu bytes of local memory; '%s' has %llu",
                        mc, sub_box_bytes((int[3]){1, 1, 1}, 9, 27 * (size_t)mc), dev->name,
                        (unsigned long long)dev->local_mem_size);
    if (mc > cap)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=all_in_sm: the fullest cell has %u particles, more than the "
                        "%zu work-items a group may have on '%s'",
                        mc, cap, dev->name);
    int box[3];
    for (int a = 0; a < 3; a++)
        box[a] = side - 2 < geo->cells[a] ? side - 2 : geo->cells[a];
    for (;;) {
        int longest = 0;
        for (int a = 1; a < 3; a++)
            longest = box[a] > box[longest] ? a : longest;
        const size_t cells = (size_t)box[0] * box[1] * box[2];
        if (box[longest] == 1 ||
            ((size_t)mc * cells <= cap && sub_boxes(geo, box) >= dev->compute_units))
            break;
        box[longest]--;
    }
    memcpy(l->box, box, sizeof box);
    l->stage_rows = (size_t)(box[1] + 2) * (box[2] + 2);
    l->capacity = (size_t)mc * (box[0] + 2) * l->stage_rows;
    l->group = (size_t)mc * box[0] * box[1] * box[2];
    return CLP_OK;
}

/* The automatic lanes: the most, up to 8, that keep the work-items at or under 4096 per
 * compute unit. On an H100 (132 SMs, 2048 resident work-items each) with the LJ liquid that
 * is 8 at 32000 atoms and 2 at 256000, each within 1 % of the fastest of 1 to 16 there, and
 * 1 from 1M atoms on, where more lanes only add the reduction (docs/benchmarks/lj.md). */
enum { LANE_FILL = 4096, LANES_AUTO_MOST = 8 };

bool clp__lj_strategy_searches_cells(clp__lj_strategy s) {
    return s >= CLP_LJ_STRATEGY_PAR_CELL && s != CLP_LJ_STRATEGY_SIMD;
}

clp_status clp__lj_lanes(const clp_options *opts, const clp_device_info *dev, size_t n,
                         clp__lj_strategy strategy, bool split, unsigned *out, clp_error *err) {
    const long long asked = clp__lj_threads_per_atom_of(opts);
    const bool listed = clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST;
    if (strategy == CLP_LJ_STRATEGY_SIMD && listed &&
        (split || clp__grid_positions_of(opts) != CLP_GRID_POSITIONS_GLOBAL))
        return CLP_FAIL(err, CLP_CASE,
                        "lj.strategy=simd with a stored list runs on one device with "
                        "grid.positions=global; set neighbors.mode=jit");
    const bool fits = strategy == CLP_LJ_STRATEGY_PAR_PART && listed && !split;
    if (asked & (asked - 1))
        return CLP_FAIL(err, CLP_CASE, "lj.threads_per_atom=%lld: a power of two, or 0", asked);
    if (asked > 1 && !fits)
        return CLP_FAIL(err, CLP_CASE,
                        "lj.threads_per_atom=%lld shares an atom's stored list between "
                        "work-items: it needs lj.strategy=par_part, neighbors.mode=list and one "
                        "device",
                        asked);
    unsigned lanes = asked > 0 ? (unsigned)asked : 1;
    if (asked == 0 && fits && !(dev->type & CL_DEVICE_TYPE_CPU))
        while (lanes < LANES_AUTO_MOST &&
               (double)n * lanes * 2 <= (double)LANE_FILL * dev->compute_units)
            lanes *= 2;
    *out = lanes;
    return CLP_OK;
}

/* A group of the lanes' kernel: 128 work-items, fewer where the device allows fewer, in
 * whole atoms. */
static size_t lane_group(const clp_device_info *dev, unsigned lanes) {
    const size_t most = dev->max_work_group_size < 128 ? dev->max_work_group_size : 128;
    return most / lanes * lanes;
}

clp_status clp__lj_layout_make(const clp_device_info *dev, const clp_grid_geometry *geo, size_t n,
                               unsigned max_per_cell, clp__lj_strategy strategy, unsigned lanes,
                               clp__lj_layout *out, clp_error *err) {
    clp__lj_layout l = {.strategy = strategy, .max_per_cell = max_per_cell, .lanes = 1};
    const size_t key_count = geo->key_count;
    switch (strategy) {
    case CLP_LJ_STRATEGY_PAR_PART:
        if (lanes > 1) {
            l.lanes = lanes;
            l.group = lane_group(dev, lanes);
            if (l.group == 0)
                return CLP_FAIL(err, CLP_CASE,
                                "lj.threads_per_atom=%u: '%s' allows groups of %zu work-items",
                                lanes, dev->name, dev->max_work_group_size);
            l.local = l.group;
            l.local_bytes = l.group * (PARTICLE_BYTES + 4);
            l.global = (n * lanes + l.group - 1) / l.group * l.group;
            break;
        }
        l.global = n;
        break;
    case CLP_LJ_STRATEGY_PAR_PART_LOOP: /* the paper's set-up: the same grid, a for in place of an
                                           if */
    case CLP_LJ_STRATEGY_SIMD:
        l.global = n;
        break;
    case CLP_LJ_STRATEGY_PAR_CELL:
    case CLP_LJ_STRATEGY_PAR_CELL_SM:
        l.group = CELL_GROUP;
        l.capacity = strategy == CLP_LJ_STRATEGY_PAR_CELL_SM ? CELL_GROUP : 0;
        l.local_bytes = l.capacity * PARTICLE_BYTES;
        l.global = key_count * CELL_GROUP;
        l.local = CELL_GROUP;
        break;
    case CLP_LJ_STRATEGY_X_PENCIL:
    case CLP_LJ_STRATEGY_ALL_IN_SM: {
        const size_t cap = dev->max_work_group_size < SUB_BOX_GROUP_MOST ? dev->max_work_group_size
                                                                         : SUB_BOX_GROUP_MOST;
        clp_status st = strategy == CLP_LJ_STRATEGY_X_PENCIL
                            ? pencil(dev, geo, max_per_cell, cap, &l, err)
                            : all_in_sm(dev, geo, max_per_cell, cap, &l, err);
        if (st != CLP_OK)
            return st;
        /* one work-item per target particle, in whole warps where the cap allows */
        l.group = clp__warp_group(l.group, cap);
        l.local_bytes = sub_box_bytes(l.box, l.stage_rows, l.capacity);
        l.local = l.group;
        l.global = sub_boxes(geo, l.box) * l.group;
        break;
    }
    default:
        return CLP_FAIL(err, CLP_CASE, "no layout for lj.strategy number %d", (int)strategy);
    }
    *out = l;
    return CLP_OK;
}
