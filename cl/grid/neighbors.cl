/* Neighbour search: the cell search, the build of a list of indices, and the candidates
 * that the iteration of cl/grid/iterate.cl takes from such a list or from the cell search.
 * List layout (Bilotta et al. 2018, 4.2, 4.4.1): S slots per particle,
 * slot k of particle p at neib_list[k*N + p], N = CLP_GRID_PARTICLES. S is the host's
 * (neighbors.max, or sized from the counts as the run goes), passed to the build only: every
 * list ends with CLP_NEIB_END, so the iteration needs no bound. A plain list fills slots 0 up.
 * A split list keeps S - 1 in slot 0; type-0 neighbours fill from slot 1 up and the others
 * from slot S - 1 down, each side ended by its own CLP_NEIB_END. A plain list read by
 * CLP_GRID_LIST_LANES work-items together, each taking every LANES-th slot from its own
 * lane, ends in that many CLP_NEIB_END, so that every lane meets one. */

#ifndef CLP_NEIGHBORS_MODE
#define CLP_NEIGHBORS_MODE 0 /* 0 stored lists, 1 search the neighbouring cells each time */
#define CLP_NEIGHBORS_MODE_LIST 0
#define CLP_NEIGHBORS_MODE_JIT 1
#endif
#ifndef CLP_NEIGHBORS_FORMAT
#define CLP_NEIGHBORS_FORMAT 0 /* a stored list: 1 neighbour indices, 2 bits; auto (0) is 1 */
#define CLP_NEIGHBORS_FORMAT_AUTO 0
#define CLP_NEIGHBORS_FORMAT_INDEX 1
#define CLP_NEIGHBORS_FORMAT_BITS 2
#endif
#define CLP_NEIGHBORS_BITS                                                                        \
    (CLP_NEIGHBORS_MODE == CLP_NEIGHBORS_MODE_LIST && CLP_NEIGHBORS_FORMAT == CLP_NEIGHBORS_FORMAT_BITS)
#ifndef CLP_NEIGHBORS_SPLIT
#define CLP_NEIGHBORS_SPLIT 0 /* 1: type-0 neighbours from the front, others from the back */
#endif

#define CLP_NEIB_END 0xffffffffu
#ifndef CLP_GRID_LIST_LANES
#define CLP_GRID_LIST_LANES 1 /* work-items that read one particle's list together */
#endif
#define CLP_NEIGHBOR_CELLS (CLP_CORE_DIM == 3 ? 27 : 9)
#define CLP_RADIUS2 (CLP_GRID_RADIUS * CLP_GRID_RADIUS)
#define CLP_SEARCH_RADIUS2 (CLP_GRID_SEARCH_RADIUS * CLP_GRID_SEARCH_RADIUS)

#if CLP_NEIGHBORS_BITS
/* the bits say which of the cells' particles are neighbours: the cells' ranges go with them */
#define CLP_GRID_PARAMS                                                                           \
    __global float4 *restrict pos, __global uint *restrict key, __global uint *restrict type,   \
        __global const uint *restrict cell_start, __global const uint *restrict cell_end,       \
        __global const uint *restrict neib_list
#define CLP_GRID_FN_PARAMS                                                                        \
    __global float4 *pos, __global uint *key, __global uint *type,                              \
        __global const uint *cell_start, __global const uint *cell_end,                         \
        __global const uint *neib_list
#define CLP_GRID_ARGS pos, key, type, cell_start, cell_end, neib_list
#elif CLP_NEIGHBORS_MODE == CLP_NEIGHBORS_MODE_LIST
#define CLP_GRID_PARAMS                                                                           \
    __global float4 *restrict pos, __global uint *restrict key, __global uint *restrict type,   \
        __global const uint *restrict neib_list
#define CLP_GRID_FN_PARAMS                                                                        \
    __global float4 *pos, __global uint *key, __global uint *type, __global const uint *neib_list
#define CLP_GRID_ARGS pos, key, type, neib_list
#else
#define CLP_GRID_PARAMS                                                                           \
    __global float4 *restrict pos, __global uint *restrict key, __global uint *restrict type,   \
        __global const uint *restrict cell_start, __global const uint *restrict cell_end
#define CLP_GRID_FN_PARAMS                                                                        \
    __global float4 *pos, __global uint *key, __global uint *type,                              \
        __global const uint *cell_start, __global const uint *cell_end
#define CLP_GRID_ARGS pos, key, type, cell_start, cell_end
#endif
/* Helper functions take the same buffers without restrict: Oclgrind 21.10 cannot run the
 * noalias scope intrinsics that inlining restrict parameters leaves behind. */
/* The search of the neighbouring cells, which the list build uses in either mode. */
#define CLP_CELL_PARAMS                                                                           \
    __global const float4 *pos, __global const uint *key, __global const uint *cell_start,      \
        __global const uint *cell_end

/* Where a cell search stands: the step from the particle's cell to the cell being searched,
 * counted like an odometer over {-1, 0, 1}^d, and the range left in that cell. No division
 * (Oclgrind 21.10 cannot check the freeze LLVM puts on paired divisions), and structs are
 * filled through pointers, not returned (Oclgrind cannot run the noalias scopes that
 * inlining a struct return leaves behind). */
typedef struct {
    uint i;
    float4 pos_i;
    int4 cell_i;
    int4 step;
    bool started, done;
    uint j, j_end;
} cell_search;

/* A search from pos_i (a pos[] entry: global, or the offset from the centre of cell_i),
 * skipping particle i; done at once when `nothing`. */
void cell_search_start(cell_search *s, uint i, float4 pos_i, int4 cell_i, bool nothing) {
    s->i = i;
    s->pos_i = pos_i;
    s->cell_i = cell_i;
    s->step = (int4)(-1, -1, CLP_CORE_DIM == 3 ? -1 : 0, 0);
    s->started = false;
    s->done = nothing;
    s->j = s->j_end = 0;
}

void cell_search_begin(cell_search *s, uint i, __global const float4 *pos,
                       __global const uint *key) {
    /* an outside particle searches nothing */
    cell_search_start(s, i, pos[i], key_cell(key[i]), key[i] == CLP_GRID_OUTSIDE);
}

/* A search around a point x (a global position) that is no particle, such as a ghost node or
 * a gauge: from the cell holding x, with x as a pos[] entry would give it. A point outside
 * the domain finds nothing. */
void cell_search_begin_at(cell_search *s, float4 x) {
    int4 cell = convert_int4(floor((x - CLP_GRID_ORIGIN) / CLP_GRID_CELL));
    cell.w = 0;
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_LOCAL
    float4 p = x - (CLP_GRID_ORIGIN + (convert_float4(cell) + 0.5f) * CLP_GRID_CELL);
#else
    float4 p = x;
#endif
    p.w = 0.0f;
    if (CLP_CORE_DIM == 2) { /* as every particle's in 2D */
        cell.z = 0;
        p.z = 0.0f;
    }
    cell_search_start(s, CLP_NEIB_END, p, cell, !position_in_domain(x));
}

/* Moves the odometer to the next neighbouring cell; false after the last. */
bool next_step(int4 *step) {
    if (++step->x <= 1)
        return true;
    step->x = -1;
    if (++step->y <= 1)
        return true;
    step->y = -1;
    return CLP_CORE_DIM == 3 && ++step->z <= 1;
}

/* Moves the search on to the range of its next cell (empty outside a walled domain); false
 * after the last cell. */
bool cell_search_next_cell(cell_search *s, __global const uint *cell_start,
                           __global const uint *cell_end) {
    if (s->done || (s->started && !next_step(&s->step))) {
        s->done = true;
        return false;
    }
    s->started = true;
    int4 c = wrap_cell(s->cell_i + s->step);
    bool inside = cell_inside(c);
    uint k = inside ? cell_key(c) : 0;
    s->j = inside ? cell_start[k] : 0;
    s->j_end = inside ? cell_end[k] : 0;
    return true;
}

/* The next particle j != i within sqrt(radius2) of i, with r_ij; false when none is left. */
bool cell_search_next(cell_search *s, CLP_CELL_PARAMS, float radius2, uint *j, float4 *r_ij) {
    (void)key;
    do {
        while (s->j < s->j_end) {
            uint candidate = s->j++;
            if (candidate == s->i)
                continue;
            float4 d = particle_delta(s->pos_i, pos[candidate], s->step);
            if (dot(d.xyz, d.xyz) <= radius2) {
                *j = candidate;
                *r_ij = d;
                return true;
            }
        }
    } while (cell_search_next_cell(s, cell_start, cell_end));
    return false;
}

/* Ends particle i's plain list at slot `front`, with an end marker for each lane. */
void list_end(__global uint *neib_list, uint i, uint front) {
    for (uint lane = 0; lane < CLP_GRID_LIST_LANES; lane++)
        neib_list[CLP_LIST_SLOT(front + lane, i)] = CLP_NEIB_END;
}

/* Builds the list of `slots` slots per particle with the search radius: stores what fits,
 * records the largest count in status[2] and the number of particles over capacity in
 * status[3]. The capacity is slots - CLP_GRID_LIST_LANES (slots - 3 split): the end markers
 * always fit. The stores into the interleaved list cost more than the search itself (H200, 1M particles: 6.5 ms with them,
 * 1.3 ms without); staging each group's lists in local memory to write them row by row was
 * measured slower still (10.3 ms), so the plain stores stay. */
#if !CLP_NEIGHBORS_BITS /* cl/grid/list_bits.cl builds those */
__kernel void grid_build_list(__global const float4 *restrict pos,
                              __global const uint *restrict key,
                              __global const uint *restrict type,
                              __global const uint *restrict cell_start,
                              __global const uint *restrict cell_end,
                              __global uint *restrict neib_list, __global uint *restrict status,
                              const uint slots) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    cell_search s;
    cell_search_begin(&s, i, pos, key);
    uint j, found = 0;
    float4 r;
#if CLP_NEIGHBORS_SPLIT
    const uint capacity = slots - 3, top = slots - 1;
    uint front = 1, back = 0;
    neib_list[i] = top;
    while (cell_search_next(&s, pos, key, cell_start, cell_end, CLP_SEARCH_RADIUS2, &j, &r)) {
        if (found++ >= capacity)
            continue;
        if (type[j] == 0)
            neib_list[CLP_LIST_SLOT(front++, i)] = j;
        else
            neib_list[CLP_LIST_SLOT(top - back++, i)] = j;
    }
    neib_list[CLP_LIST_SLOT(front, i)] = CLP_NEIB_END;
    neib_list[CLP_LIST_SLOT(top - back, i)] = CLP_NEIB_END;
#else
    const uint capacity = slots - CLP_GRID_LIST_LANES;
    uint front = 0;
    (void)type;
    while (cell_search_next(&s, pos, key, cell_start, cell_end, CLP_SEARCH_RADIUS2, &j, &r)) {
        found++;
        if (front < capacity)
            neib_list[CLP_LIST_SLOT(front++, i)] = j;
    }
    list_end(neib_list, i, front);
#endif
    atomic_max(&status[2], found);
    if (found > capacity)
        atomic_inc(&status[3]);
}
#endif

/* ---- The candidates of the iteration (cl/grid/iterate.cl), for lists of indices; lists of
 * bits have theirs in cl/grid/list_bits.cl. want_type -1 means every neighbour. */

#if CLP_NEIGHBORS_MODE == CLP_NEIGHBORS_MODE_LIST
/* What a list's iteration holds of the candidate after the current one, which it loads
 * ahead, and of the current neighbour. */
#define CLP_NEIB_AHEAD_FIELDS                                                                     \
    float4 pos_ahead;  /* the next candidate's pos[] entry */                                     \
    float4 data_ahead; /* its entry of the array the loop carries, if any */                      \
    int4 step_ahead;   /* the step from the particle's cell to its cell */                        \
    float4 pos_j;      /* the current neighbour's pos[] entry */                                  \
    uint ahead;        /* the next candidate, CLP_NEIB_END after the last */
#endif

#if CLP_NEIGHBORS_MODE == CLP_NEIGHBORS_MODE_LIST && !CLP_NEIGHBORS_BITS

typedef struct {
    float4 pos_i;
    int4 cell_i;
    CLP_NEIB_AHEAD_FIELDS
    uint i;
    int k;      /* next list slot */
    int stride; /* slots from one read to the next: the lanes reading the list */
    int side;   /* split lists: 0 the front (type 0), 1 the back (other types) */
    int want_type;
} neib_iter;

void neib_start(neib_iter *it, uint i, int want_type, CLP_GRID_FN_PARAMS) {
    (void)type;
    it->i = i;
    it->pos_i = pos[i];
    it->cell_i = key_cell(key[i]);
    it->want_type = want_type;
    it->side = CLP_NEIGHBORS_SPLIT && want_type > 0;
    it->k = it->side ? (int)neib_list[i] : CLP_NEIGHBORS_SPLIT;
    it->stride = 1;
}

/* The next stored candidate, or CLP_NEIB_END. */
uint neib_list_next(neib_iter *it, __global const uint *neib_list) {
#if CLP_NEIGHBORS_SPLIT
    while (it->side == 0) {
        uint j = neib_list[CLP_LIST_SLOT(it->k++, it->i)];
        if (j != CLP_NEIB_END)
            return j;
        if (it->want_type == 0)
            return CLP_NEIB_END;
        it->side = 1;
        it->k = (int)neib_list[it->i];
    }
    return neib_list[CLP_LIST_SLOT(it->k--, it->i)];
#else
    const uint j = neib_list[CLP_LIST_SLOT(it->k, it->i)];
    it->k += it->stride;
    return j;
#endif
}

/* The next stored candidate with the step to its cell, or CLP_NEIB_END. */
uint neib_candidate(neib_iter *it, CLP_GRID_FN_PARAMS, int4 *step) {
    (void)pos, (void)type;
    const uint candidate = neib_list_next(it, neib_list);
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_LOCAL
    *step = candidate == CLP_NEIB_END ? (int4)(0) : cell_step(it->cell_i, key_cell(key[candidate]));
#else
    (void)key;
    *step = (int4)(0);
#endif
    return candidate;
}

#elif CLP_NEIGHBORS_MODE == CLP_NEIGHBORS_MODE_JIT

typedef struct {
    cell_search search;
    float4 pos_j; /* the current neighbour's pos[] entry */
    int want_type;
} neib_iter;

neib_iter *neib_begin(neib_iter *it, uint i, int want_type, CLP_GRID_FN_PARAMS,
                      __global const float4 *data, bool carries) {
    (void)type, (void)cell_start, (void)cell_end, (void)data, (void)carries;
    cell_search_begin(&it->search, i, pos, key);
    it->want_type = want_type;
    return it;
}

/* The next neighbour found by the cell search, its entry of `data` (when the loop carries
 * one) loaded after it; false after the last. */
bool neib_step(neib_iter *it, CLP_GRID_FN_PARAMS, __global const float4 *data, bool carries,
               uint *j, float4 *r_ij, float4 *d_j) {
    while (cell_search_next(&it->search, pos, key, cell_start, cell_end, CLP_RADIUS2, j, r_ij))
        if (it->want_type < 0 || type[*j] == (uint)it->want_type) {
            it->pos_j = pos[*j];
            if (carries)
                *d_j = data[*j];
            return true;
        }
    return false;
}

/* Every neighbour the cell search hands out is one. */
bool neib_accepts(const neib_iter *it, __global uint *type, uint j, float4 r_ij) {
    (void)it, (void)type, (void)j, (void)r_ij;
    return true;
}

#endif
