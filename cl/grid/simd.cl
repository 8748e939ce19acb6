/* Eight candidates at a time in float8 vectors, for CPUs: PoCL runs a float4 kernel's
 * work-items one at a time, each in scalar or 4-wide code (docs/benchmarks/cpu.md), while a
 * float8 expression becomes one AVX instruction. A neighbouring cell's particles lie together
 * after the sort, so 8 candidates are 8 consecutive particles; lanes past the cell's end load
 * its last particle again, and the caller masks them off. */

/* Axis a of the positions p0 to p7 of eight particles. */
#define CLP_GATHER8(a) gather8(p0.a, p1.a, p2.a, p3.a, p4.a, p5.a, p6.a, p7.a)
float8 gather8(float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7) {
    float lanes[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
    return vload8(0, lanes);
}

/* The positions p0 to p7 of particles j to j + 7, none past `last`. */
#define CLP_LOAD8(pos, j, last)                                                                    \
    const float4 p0 = pos[j], p1 = pos[min((j) + 1, last)], p2 = pos[min((j) + 2, last)],          \
                 p3 = pos[min((j) + 3, last)], p4 = pos[min((j) + 4, last)],                       \
                 p5 = pos[min((j) + 5, last)], p6 = pos[min((j) + 6, last)],                       \
                 p7 = pos[min((j) + 7, last)]

/* One axis of x_j - x_i for eight j of a cell dc cells away along it: local positions add
 * the cell step; global ones take the periodic image that the cell's wrap says, `image` box
 * sizes away (-1, 0 or 1), which for a pair closer than half the box is the one
 * particle_delta takes, by the same operations. */
float8 particle_delta8(float8 x_j, float x_i, int dc, int image, float cell, float size) {
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_LOCAL
    (void)image, (void)size;
    return (float)dc * cell + (x_j - x_i);
#else
    (void)dc, (void)cell;
    return (x_j - x_i) - (float)image * size;
#endif
}

/* Per axis, x_j - x_i for the eight particles p0 to p7 of cell `source`, dc from particle
 * i's cell c: d_x, d_y and d_z (in 2D, 0). */
#define CLP_DELTA8(p_i, c, dc, source)                                                             \
    const int4 image_ = ((source) - ((c) + (dc))) / CLP_GRID_CELLS;                                \
    const float8 d_x = particle_delta8(CLP_GATHER8(x), (p_i).x, (dc).x, image_.x, CLP_GRID_CELL_X, \
                                       CLP_GRID_SIZE_X);                                           \
    const float8 d_y = particle_delta8(CLP_GATHER8(y), (p_i).y, (dc).y, image_.y, CLP_GRID_CELL_Y, \
                                       CLP_GRID_SIZE_Y);                                           \
    const float8 d_z = particle_delta8(CLP_GATHER8(z), (p_i).z, (dc).z, image_.z, CLP_GRID_CELL_Z, \
                                       CLP_GRID_SIZE_Z)
