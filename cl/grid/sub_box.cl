/* Sub-boxes of cells that one work-group takes (the LJ sub-box strategies, SPH's x-pencils):
 * a box of box.x x box.y x box.z target cells, the boxes numbered x fastest, and its frame,
 * the box grown by one cell on every side, whose cells are staged in local memory. Cells of a
 * frame are addressed by their frame position (fx, fy, fz), 0 .. box + 1 per axis. */

/* The first target cell of sub-box `index`, x fastest. Remainders as a - q b (see key_cell). */
int4 sub_box_corner(uint index, int4 box) {
    const uint boxes_x = (CLP_GRID_CELLS_X + box.x - 1) / box.x;
    const uint boxes_y = (CLP_GRID_CELLS_Y + box.y - 1) / box.y;
    const uint qx = index / boxes_x, qy = qx / boxes_y;
    return (int4)((int)(index - qx * boxes_x) * box.x, (int)(qx - qy * boxes_y) * box.y,
                  (int)qy * box.z, 0);
}

/* The cell at frame position (fx, fy, fz) of the sub-box at `corner`, unwrapped, and its
 * particle range; an empty range past a wall or past the domain's end, where a last sub-box
 * is cut short. */
int4 frame_cell(int4 corner, int4 box, int fx, int fy, int fz, __global const uint *cell_start,
                __global const uint *cell_end, uint *from, uint *count) {
    const int4 cells = CLP_GRID_CELLS;
    const int4 c = corner + (int4)(fx - 1, fy - 1, fz - 1, 0);
    /* a frame reaches one cell past its sub-box, and the sub-box stops at the domain's end */
    const bool in_frame = c.x <= min(corner.x + box.x, cells.x) &&
                          c.y <= min(corner.y + box.y, cells.y) &&
                          c.z <= min(corner.z + box.z, cells.z);
    const int4 w = wrap_cell(c);
    *from = *count = 0;
    if (in_frame && cell_inside(w)) {
        const uint k = cell_key(w);
        *from = cell_start[k];
        *count = cell_end[k] - cell_start[k];
    }
    return c;
}

/* Turns counts at lo[1..n] into offsets: lo[c] = the particles of cells before c. A single
 * work-item walks it: n is a few dozen cells, against thousands of pair terms per group. */
void offsets_from_counts(__local uint *lo, uint n) {
    if (get_local_id(0) != 0)
        return;
    lo[0] = 0;
    for (uint c = 1; c <= n; c++)
        lo[c] += lo[c - 1];
}

/* The cell c with lo[c] <= s < lo[c + 1], for s < lo[n]: a binary search over the offsets. */
uint cell_of_slot(__local const uint *lo, uint n, uint s) {
    uint low = 0, high = n; /* lo[low] <= s < lo[high] */
    while (high - low > 1) {
        const uint mid = (low + high) / 2;
        if (lo[mid] <= s)
            low = mid;
        else
            high = mid;
    }
    return low;
}

/* Pencils: sub-boxes of `cells` cells along x (box (cells, 1, 1)). The targets of the pencil
 * at `corner`: each cell's first particle into from[c] and the particles before it into
 * lo[c], lo[cells] the pencil's particles, which it returns. Every work-item of the group
 * calls it: it ends with a barrier. */
uint pencil_targets(int4 corner, uint cells, __global const uint *cell_start,
                    __global const uint *cell_end, __local uint *from, __local uint *lo) {
    const int4 box = (int4)((int)cells, 1, 1, 0);
    for (uint c = get_local_id(0); c < cells; c += get_local_size(0)) {
        uint start, count;
        const int4 cell =
            frame_cell(corner, box, (int)c + 1, 1, 1, cell_start, cell_end, &start, &count);
        from[c] = start;
        lo[c + 1] = cell.x < CLP_GRID_CELLS_X ? count : 0; /* no wrap for targets */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    offsets_from_counts(lo, cells);
    barrier(CLK_LOCAL_MEM_FENCE);
    return lo[cells];
}

/* The row of cells at (dy, dz) from the pencil at `corner`, frame x positions 0 .. cells + 1:
 * as pencil_targets, into from[0 .. cells + 1] and lo[0 .. cells + 2]. Every work-item calls
 * it once the last row is used up. */
uint pencil_row(int4 corner, uint cells, int dy, int dz, __global const uint *cell_start,
                __global const uint *cell_end, __local uint *from, __local uint *lo) {
    const int4 box = (int4)((int)cells, 1, 1, 0);
    for (uint c = get_local_id(0); c < cells + 2; c += get_local_size(0)) {
        uint start, count;
        frame_cell(corner, box, (int)c, dy + 1, dz + 1, cell_start, cell_end, &start, &count);
        from[c] = start;
        lo[c + 1] = count;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    offsets_from_counts(lo, cells + 2);
    barrier(CLK_LOCAL_MEM_FENCE);
    return lo[cells + 2];
}

/* The slot, among a staged row's, of target i in frame cell fx: in its own row (dy = dz = 0),
 * where its search skips it; UINT_MAX in the others. */
uint pencil_own_slot(int dy, int dz, uint fx, uint i, __local const uint *from,
                     __local const uint *lo) {
    return dy == 0 && dz == 0 ? lo[fx] + (i - from[fx]) : UINT_MAX;
}
