/* Neighbour lists as bits (neighbors.format=bits). A particle's candidates are the particles
 * of the 3^d cells around its own, in the cell search's order (the cells counted like an
 * odometer, each its range of the sorted particles). Its list holds, after a first word,
 * `cell_words` words for each of those cells: bit b of a cell's words says whether its
 * particle b lay within the search radius at the build. The first word has a bit for each
 * cell with a bit set, from its lowest up. Word w of particle i is at
 * neib_list[CLP_LIST_SLOT(w, i)] (cl/grid/grid.cl). Cell ranges change only at a rebuild, so
 * the bits keep their meaning until the next one. The host sizes cell_words for the fullest
 * cell it expects and grows it when a build meets a fuller one; the build takes it as an
 * argument, the iteration as CLP_GRID_CELL_WORDS, which the host builds the program again
 * for after a growth (src/grid/neighbors.c). In a 3D SPH case
 * (cells of 2.2h, h = 1.3 dp) a cell holds some 23 particles and one word each does: 28
 * words take 112 bytes a particle where its 100 neighbours as indices take 400.
 * The iteration reads the first word, then for each cell it names that cell's words and its
 * first particle, and hands out the set bits lowest first. A warp's work-items move from cell
 * to cell at different neighbours, so every load before a pair term costs the whole warp:
 * the bits taken as one stream of candidates across cells made the forces of that case twice
 * as slow as with indices (H200), a word a cell 1.3 times, and with the first word, which
 * spares the loads of empty cells, 1.15 times, and with the words a cell a compile-time
 * constant, whose common case of one word takes no loop, 1.06 times (docs/benchmarks/sph.md). */
#ifndef CLP_GRID_CELL_WORDS
#define CLP_GRID_CELL_WORDS 1 /* the words a cell of the list the iteration reads */
#endif
#if CLP_NEIGHBORS_BITS

/* Builds the bits, `cell_words` words a cell: records the largest number of neighbours in
 * status[2] and the most particles in a cell searched in status[5], and counts the particles
 * that met a cell too full for its words in status[3]. */
__kernel void grid_build_list(__global const float4 *restrict pos,
                              __global const uint *restrict key,
                              __global const uint *restrict type,
                              __global const uint *restrict cell_start,
                              __global const uint *restrict cell_end,
                              __global uint *restrict neib_list, __global uint *restrict status,
                              const uint cell_words) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    (void)type;
    cell_search s;
    cell_search_begin(&s, i, pos, key);
    uint w = 1, cell = 0, cells = 0, found = 0, fullest = 0;
    while (cell_search_next_cell(&s, cell_start, cell_end)) {
        fullest = max(fullest, s.j_end - s.j);
        for (uint part = 0; part < cell_words; part++, w++) {
            const uint from = s.j + 32 * part, to = min(s.j_end, from + 32);
            /* A candidate's bit is the sign of r^2 - R^2, which the fused multiply-adds of r^2
               give at no cost, shifted in from the top: fewer instructions a candidate than a
               compare, a select and a shift by its place. Not unrolled: the NVIDIA driver's
               unrolling by four made the build 8 % slower (H200). */
            uint word = 0;
            _Pragma("unroll 1") for (__global const float4 *p = pos + from; p < pos + to; p++) {
                const float4 d = particle_delta(s.pos_i, *p, s.step);
                const float z_part = CLP_CORE_DIM == 3 ? fma(d.z, d.z, -CLP_SEARCH_RADIUS2)
                                                       : -CLP_SEARCH_RADIUS2;
                const float excess = fma(d.x, d.x, fma(d.y, d.y, z_part)); /* r^2 - R^2 */
                word = word >> 1 | (as_uint(excess) & 0x80000000u);
            }
            word = to > from ? word >> (32 - (to - from)) % 32 : 0;
            /* the particle's own bit cleared once, and the bits counted once, rather than
               a test and a count at every candidate */
            if (i - from < 32)
                word &= ~(1u << (i - from));
            found += popcount(word);
            neib_list[CLP_LIST_SLOT(w, i)] = word;
            cells |= (uint)(word != 0) << cell;
        }
        cell++;
    }
    neib_list[CLP_LIST_SLOT(0, i)] = cells;
    atomic_max(&status[2], found);
    atomic_max(&status[5], fullest);
    if (fullest > 32 * cell_words)
        atomic_inc(&status[3]);
}

/* ---- The candidates of the iteration (cl/grid/iterate.cl): the set bits of each cell's
 * words, lowest first. */

/* With linear keys and no periodic axis, the key of a neighbouring cell is that of the
 * cell at step (-1, -1, -1) plus the cell's number in base 3, its digits weighted by the
 * keys' strides along x, y and z: cheaper than taking the cell to its step and the step to
 * a key, which a warp pays at almost every candidate, as one of its work-items or another
 * moves on to a new cell. */
#define CLP_BITS_KEY_STRIDES                                                                      \
    (CLP_GRID_KEY != CLP_GRID_KEY_MORTON && !CLP_GRID_PERIODIC_X && !CLP_GRID_PERIODIC_Y &&       \
     !CLP_GRID_PERIODIC_Z)

typedef struct {
    float4 pos_i;
    int4 cell_i;
    int4 step;       /* to the cell of the current word */
    uint corner_key; /* with CLP_BITS_KEY_STRIDES: of the cell at step (-1, -1, -1) */
    CLP_NEIB_AHEAD_FIELDS
    /* the particle's word 0 of cell 0 in its piece of the list: word w of cell c at
       [(c * CLP_GRID_CELL_WORDS + w) * CLP_GRID_LIST_STRIDE], a single multiply-add from
       the cell's number at every new cell */
    __global const uint *cell_words;
    uint cells;      /* the cells not yet visited that have a bit set, a bit each */
    uint word;       /* the next word of the current cell */
    uint left;       /* the current cell's words not yet loaded */
    uint bits;       /* the current word's bits not yet taken */
    uint first;      /* the particle of its lowest bit */
    int want_type;
} neib_iter;

void neib_start(neib_iter *it, uint i, int want_type, CLP_GRID_FN_PARAMS) {
    (void)type, (void)cell_start, (void)cell_end;
    it->cell_words = neib_list + CLP_LIST_SLOT(1, i);
    it->pos_i = pos[i];
    it->cell_i = key_cell(key[i]);
    it->corner_key = key[i] - cell_key((int4)(1, 1, CLP_CORE_DIM == 3 ? 1 : 0, 0));
    it->step = (int4)(0);
    /* an outside particle has no list */
    it->cells = key[i] == CLP_GRID_OUTSIDE ? 0 : neib_list[CLP_LIST_SLOT(0, i)];
    it->word = it->left = it->bits = it->first = 0;
    it->want_type = want_type;
}

/* Moves on to the next cell with a bit set and returns its number; its first particle in
 * it->first. Unsigned arithmetic: signed divisions and indices cost a warp sign fix-ups at
 * almost every candidate. */
uint neib_bits_cell(neib_iter *it, __global const uint *cell_start) {
    const uint lowest = it->cells & (0u - it->cells);
    it->cells ^= lowest;
    /* its step: its number in base 3, from (-1, -1, -1); the remainders written out (a %
       beside a / makes LLVM emit a freeze, which Oclgrind 21.10 cannot check) */
    const uint cell = 31 - clz(lowest), q = cell / 3, r = q / 3;
    it->step = (int4)((int)(cell - 3 * q) - 1, (int)(q - 3 * r) - 1,
                      CLP_CORE_DIM == 3 ? (int)r - 1 : 0, 0);
#if CLP_BITS_KEY_STRIDES
    /* for cell = x + 3 y + 9 z: x sx + y sy + z sz = cell sx + q (sy - 3 sx) + r (sz - 3 sy) */
    const uint sx = cell_key((int4)(1, 0, 0, 0)), sy = cell_key((int4)(0, 1, 0, 0));
    const uint sz = CLP_CORE_DIM == 3 ? cell_key((int4)(0, 0, 1, 0)) : 0u;
    it->first = cell_start[it->corner_key + cell * sx + q * (sy - 3u * sx) + r * (sz - 3u * sy)];
#else
    it->first = cell_start[cell_key(wrap_cell(it->cell_i + it->step))];
#endif
    return cell;
}

/* The next candidate whose bit is set, or CLP_NEIB_END after the last, with the step to its
 * cell. Cells whose bits are all clear cost nothing: the first word says which have some. */
uint neib_candidate(neib_iter *it, CLP_GRID_FN_PARAMS, int4 *step) {
    (void)pos, (void)key, (void)type, (void)cell_end;
#if CLP_GRID_CELL_WORDS == 1
    /* a cell's only word has a bit set when the first word names the cell */
    if (it->bits == 0) {
        if (it->cells == 0)
            return CLP_NEIB_END;
        const uint cell = neib_bits_cell(it, cell_start);
        it->bits = it->cell_words[(size_t)cell * CLP_GRID_LIST_STRIDE];
    }
#else
    while (it->bits == 0) {
        if (it->left == 0) { /* on to the next cell with a bit set */
            if (it->cells == 0)
                return CLP_NEIB_END;
            it->word = neib_bits_cell(it, cell_start) * CLP_GRID_CELL_WORDS;
            it->left = CLP_GRID_CELL_WORDS;
        } else {
            it->first += 32;
        }
        it->bits = it->cell_words[(size_t)it->word++ * CLP_GRID_LIST_STRIDE];
        it->left--;
    }
#endif
    const uint lowest = it->bits & (0u - it->bits);
    it->bits ^= lowest;
    *step = it->step;
    return it->first + 31 - clz(lowest);
}

#endif
