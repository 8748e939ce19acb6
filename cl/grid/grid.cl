/* The cell grid: defaults of the grid options and host constants, cell keys (linear in a
 * chosen axis order, or Morton), and the vector between two particles with global or local
 * positions (Bilotta et al. 2018, 4.3 and 5.4).
 * Layouts: pos[i] float4, xyz the global position, or the offset from the centre of the
 * particle's cell (local positions), w unused; key[i] the cell key, CLP_GRID_OUTSIDE for a
 * particle outside a walled domain. Cells are int4 (x, y, z, unused), z = 0 in 2D. */

#ifndef CLP_CORE_DIM
#define CLP_CORE_DIM 3 /* spatial dimension, 2 or 3 */
#endif
#ifndef CLP_GRID_KEY
#define CLP_GRID_KEY 0 /* cell key: 0 linear, 1 Morton */
#define CLP_GRID_KEY_LINEAR 0
#define CLP_GRID_KEY_MORTON 1
#endif
#ifndef CLP_GRID_AXIS_ORDER
#define CLP_GRID_AXIS_ORDER 0 /* linear key axis order, fastest first: 0 xyz ... 5 zyx */
#define CLP_GRID_AXIS_ORDER_XYZ 0
#define CLP_GRID_AXIS_ORDER_XZY 1
#define CLP_GRID_AXIS_ORDER_YXZ 2
#define CLP_GRID_AXIS_ORDER_YZX 3
#define CLP_GRID_AXIS_ORDER_ZXY 4
#define CLP_GRID_AXIS_ORDER_ZYX 5
#endif
#ifndef CLP_GRID_POSITIONS
#define CLP_GRID_POSITIONS 0 /* 0 global coordinates, 1 cell plus offset from its centre */
#define CLP_GRID_POSITIONS_GLOBAL 0
#define CLP_GRID_POSITIONS_LOCAL 1
#endif
#ifndef CLP_GRID_PERIODIC_X
#define CLP_GRID_PERIODIC_X 0 /* 1: the x axis wraps around */
#endif
#ifndef CLP_GRID_PERIODIC_Y
#define CLP_GRID_PERIODIC_Y 0 /* 1: the y axis wraps around */
#endif
#ifndef CLP_GRID_PERIODIC_Z
#define CLP_GRID_PERIODIC_Z 0 /* 1: the z axis wraps around */
#endif
/* Host constants; these defaults only let the file compile alone. */
#ifndef CLP_GRID_PARTICLES
#define CLP_GRID_PARTICLES 64 /* particles */
#define CLP_GRID_CELLS_X 4    /* cells per axis */
#define CLP_GRID_CELLS_Y 4
#define CLP_GRID_CELLS_Z 4
#define CLP_GRID_CELL_X 1.0f /* cell size per axis, length units */
#define CLP_GRID_CELL_Y 1.0f
#define CLP_GRID_CELL_Z 1.0f
#define CLP_GRID_ORIGIN_X 0.0f /* lower corner of the domain */
#define CLP_GRID_ORIGIN_Y 0.0f
#define CLP_GRID_ORIGIN_Z 0.0f
#define CLP_GRID_SIZE_X 4.0f /* domain size per axis */
#define CLP_GRID_SIZE_Y 4.0f
#define CLP_GRID_SIZE_Z 4.0f
#define CLP_GRID_KEY_COUNT 64  /* keys 0..KEY_COUNT-1 */
#define CLP_GRID_RADIUS 1.0f   /* influence radius */
#define CLP_GRID_SEARCH_RADIUS 1.0f /* radius * (1 + skin) */
#define CLP_GRID_LIST_PIECES 1  /* buffers the neighbour list takes */
#define CLP_GRID_LIST_STRIDE 64 /* particles a piece of the list holds */
#endif

/* Derived values. */
#define CLP_GRID_OUTSIDE CLP_GRID_KEY_COUNT /* the key of a particle outside the domain */
/* The type of a particle a model has taken out of the computation: the next sort gives it the
 * key CLP_GRID_OUTSIDE, so no search finds it and it searches nothing. */
#define CLP_GRID_EXCLUDED 255u
#define CLP_GRID_CELLS ((int4)(CLP_GRID_CELLS_X, CLP_GRID_CELLS_Y, CLP_GRID_CELLS_Z, 1))
#define CLP_GRID_CELL ((float4)(CLP_GRID_CELL_X, CLP_GRID_CELL_Y, CLP_GRID_CELL_Z, 1.0f))
#define CLP_GRID_ORIGIN ((float4)(CLP_GRID_ORIGIN_X, CLP_GRID_ORIGIN_Y, CLP_GRID_ORIGIN_Z, 0.0f))
#define CLP_GRID_SIZE ((float4)(CLP_GRID_SIZE_X, CLP_GRID_SIZE_Y, CLP_GRID_SIZE_Z, 1.0f))
#define CLP_GRID_PERIODIC                                                                         \
    ((int4)(CLP_GRID_PERIODIC_X, CLP_GRID_PERIODIC_Y, CLP_CORE_DIM == 3 && CLP_GRID_PERIODIC_Z, 0))
/* Where entry k of particle i sits in an interleaved neighbour list: at row i of its piece
 * (a list too large for one buffer takes several, CLP_GRID_LIST_STRIDE particles each, and a
 * kernel reads or writes one piece a launch), in 64 bits, as a piece may hold more than 2^32
 * entries (28 words a particle of more than 153M particles). */
#if CLP_GRID_LIST_PIECES > 1
#define CLP_LIST_ROW(i) ((i) % CLP_GRID_LIST_STRIDE)
#else
#define CLP_LIST_ROW(i) (i)
#endif
#define CLP_LIST_AT(k, row) ((size_t)(k) * CLP_GRID_LIST_STRIDE + (row))
#define CLP_LIST_SLOT(k, i) CLP_LIST_AT(k, CLP_LIST_ROW(i))

#if CLP_GRID_KEY == CLP_GRID_KEY_MORTON

/* Spreads the low 10 (3D) or 16 (2D) bits of v so that they take every third or second bit. */
uint morton_spread(uint v) {
#if CLP_CORE_DIM == 3
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
#else
    v &= 0xffffu;
    v = (v | (v << 8)) & 0x00ff00ffu;
    v = (v | (v << 4)) & 0x0f0f0f0fu;
    v = (v | (v << 2)) & 0x33333333u;
    v = (v | (v << 1)) & 0x55555555u;
#endif
    return v;
}

/* The inverse of morton_spread. */
uint morton_compact(uint v) {
#if CLP_CORE_DIM == 3
    v &= 0x09249249u;
    v = (v | (v >> 2)) & 0x030c30c3u;
    v = (v | (v >> 4)) & 0x0300f00fu;
    v = (v | (v >> 8)) & 0x030000ffu;
    v = (v | (v >> 16)) & 0x3ffu;
#else
    v &= 0x55555555u;
    v = (v | (v >> 1)) & 0x33333333u;
    v = (v | (v >> 2)) & 0x0f0f0f0fu;
    v = (v | (v >> 4)) & 0x00ff00ffu;
    v = (v | (v >> 8)) & 0xffffu;
#endif
    return v;
}

uint cell_key(int4 c) {
#if CLP_CORE_DIM == 3
    return morton_spread(c.x) | morton_spread(c.y) << 1 | morton_spread(c.z) << 2;
#else
    return morton_spread(c.x) | morton_spread(c.y) << 1;
#endif
}

int4 key_cell(uint key) {
#if CLP_CORE_DIM == 3
    return (int4)(morton_compact(key), morton_compact(key >> 1), morton_compact(key >> 2), 0);
#else
    return (int4)(morton_compact(key), morton_compact(key >> 1), 0, 0);
#endif
}

#else /* linear keys: A0 varies fastest, then A1, then A2 */

#if CLP_GRID_AXIS_ORDER == CLP_GRID_AXIS_ORDER_XYZ
#define A0 x
#define A1 y
#define A2 z
#elif CLP_GRID_AXIS_ORDER == CLP_GRID_AXIS_ORDER_XZY
#define A0 x
#define A1 z
#define A2 y
#elif CLP_GRID_AXIS_ORDER == CLP_GRID_AXIS_ORDER_YXZ
#define A0 y
#define A1 x
#define A2 z
#elif CLP_GRID_AXIS_ORDER == CLP_GRID_AXIS_ORDER_YZX
#define A0 y
#define A1 z
#define A2 x
#elif CLP_GRID_AXIS_ORDER == CLP_GRID_AXIS_ORDER_ZXY
#define A0 z
#define A1 x
#define A2 y
#else
#define A0 z
#define A1 y
#define A2 x
#endif

uint cell_key(int4 c) {
    const int4 n = CLP_GRID_CELLS;
    return (uint)(c.A0 + n.A0 * (c.A1 + n.A1 * c.A2));
}

/* Remainders written out as key - q * n: a % beside a / of the same numbers makes LLVM
 * emit a freeze, which Oclgrind 21.10 cannot check. */
int4 key_cell(uint key) {
    const int4 n = CLP_GRID_CELLS;
    const uint q0 = key / (uint)n.A0, q1 = q0 / (uint)n.A1;
    int4 c = (int4)(0);
    c.A0 = (int)(key - q0 * (uint)n.A0);
    c.A1 = (int)(q0 - q1 * (uint)n.A1);
    c.A2 = (int)q1;
    return c;
}

#endif

/* A cell index moved back into the domain on periodic axes; on walled axes it is left as
 * it is, for cell_inside to judge. In integers: a float floor(c / n) is 0 for c = n where the
 * device divides to within an ulp (NVIDIA's does), which left cell n outside the grid. */
int4 wrap_cell(int4 c) {
    const int4 n = CLP_GRID_CELLS;
    int4 wrapped = c - n * (c / n);
    wrapped = select(wrapped, wrapped + n, wrapped < 0);
    return select(c, wrapped, CLP_GRID_PERIODIC != 0);
}

bool cell_inside(int4 c) {
    const int4 n = CLP_GRID_CELLS;
    return all(c.xyz >= 0) && all(c.xyz < n.xyz);
}

/* Loops over the 3^d cells around cell c, c included, that lie in the domain (periodic axes
 * wrapped): dc is the step to each, source the cell (int4 both). The body is the innermost
 * loop, so a continue in it goes on to the next cell, and so does a break. */
#define CLP_FOR_EACH_CELL_AROUND(c, dc, source)                                                    \
    for (int dz_ = CLP_CORE_DIM == 3 ? -1 : 0; dz_ <= (CLP_CORE_DIM == 3 ? 1 : 0); dz_++)          \
        for (int dy_ = -1; dy_ <= 1; dy_++)                                                        \
            for (int dx_ = -1; dx_ <= 1; dx_++)                                                    \
                for (int4 dc = (int4)(dx_, dy_, dz_, 0), source = wrap_cell((c) + dc),             \
                          inside_ = (int4)(cell_inside(source)); inside_.x; inside_.x = 0)

/* The vector from particle i to particle j: with local positions, the cell step between them
 * (dc, in cells, periodic wrap already applied) plus the difference of their offsets; with
 * global positions, the coordinate difference taken to the nearest periodic image. */
float4 particle_delta(float4 pos_i, float4 pos_j, int4 dc) {
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_LOCAL
    float4 d = convert_float4(dc) * CLP_GRID_CELL + (pos_j - pos_i);
#else
    (void)dc;
    float4 d = pos_j - pos_i;
    const float4 size = CLP_GRID_SIZE;
    d = select(d, d - size * rint(d / size), CLP_GRID_PERIODIC != 0);
#endif
    d.w = 0.0f;
    return d;
}

/* The global position of a particle from its pos[] entry and its key: with local positions,
 * the centre of its cell plus the offset. */
float4 particle_position(float4 p, uint key) {
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_LOCAL
    p += CLP_GRID_ORIGIN + (convert_float4(key_cell(key)) + 0.5f) * CLP_GRID_CELL;
#else
    (void)key;
#endif
    p.w = 0.0f;
    return p;
}

/* Whether a global position lies in the domain along every walled axis (NaN does not). */
bool position_in_domain(float4 x) {
    const float4 low = CLP_GRID_ORIGIN, high = CLP_GRID_ORIGIN + CLP_GRID_SIZE;
    const bool x_in = CLP_GRID_PERIODIC_X || (x.x >= low.x && x.x <= high.x);
    const bool y_in = CLP_GRID_PERIODIC_Y || (x.y >= low.y && x.y <= high.y);
    const bool z_in = CLP_CORE_DIM == 2 || CLP_GRID_PERIODIC_Z || (x.z >= low.z && x.z <= high.z);
    return x_in && y_in && z_in;
}

/* The cell step from cell a to neighbouring cell b, through the periodic boundary where that
 * is shorter (a grid has at least 3 cells along a periodic axis). Per axis, in scalars:
 * Oclgrind 21.10 turns a vector comparison used as a -1/0 mask into 1/0. */
int axis_step(int d, int n, bool periodic) {
    if (periodic && d > n / 2)
        return d - n;
    if (periodic && d < -(n / 2))
        return d + n;
    return d;
}

int4 cell_step(int4 a, int4 b) {
    return (int4)(axis_step(b.x - a.x, CLP_GRID_CELLS_X, CLP_GRID_PERIODIC_X),
                  axis_step(b.y - a.y, CLP_GRID_CELLS_Y, CLP_GRID_PERIODIC_Y),
                  axis_step(b.z - a.z, CLP_GRID_CELLS_Z, CLP_CORE_DIM == 3 && CLP_GRID_PERIODIC_Z),
                  0);
}
