/* Neighbour lists as bits (neighbors.format=bits). A particle's candidates are the particles
 * of the 3^d cells around its own, in the cell search's order (the cells counted like an
 * odometer, each its range of the sorted particles), and its list has CLP_GRID_CELL_WORDS
 * words for each of those cells: bit b of a cell's words says whether its particle b lay
 * within the search radius at the build. Word w of particle i is at neib_list[w*N + i],
 * N = CLP_GRID_PARTICLES. Cell ranges change only at a rebuild, so the bits keep their
 * meaning until the next one. The host sizes the words of a cell from the fullest cell it
 * expects; a fuller one fails the build. In a 3D SPH case (cells of 2.2h, h = 1.3 dp) a cell
 * holds some 23 particles and one word each does: 27 words take 108 bytes a particle where
 * its 100 neighbours as indices take 400. The forces then read a word for each cell, and
 * the cell's start where the word has a bit set: a warp's work-items move from cell to cell
 * at different neighbours, and taking the cells' bits in any finer pieces (a stream of
 * candidates across cells) made the forces of that case twice as slow as with indices
 * (H200), where a word a cell makes them 1.3 times as slow. */
#ifndef CLP_GRID_CELL_WORDS
#define CLP_GRID_CELL_WORDS 1 /* 32-bit words a cell takes in a list of bits */
#endif
#define CLP_NEIGHBOR_WORDS (CLP_NEIGHBOR_CELLS * CLP_GRID_CELL_WORDS)
#if CLP_NEIGHBORS_BITS

/* Builds the bits, CLP_NEIGHBOR_WORDS words a particle: records the largest number of
 * neighbours in status[2] and the most particles in a cell searched in status[5], and counts
 * the particles that met a cell too full for its words in status[3]. */
__kernel void grid_build_list(__global const float4 *restrict pos,
                              __global const uint *restrict key,
                              __global const uint *restrict type,
                              __global const uint *restrict cell_start,
                              __global const uint *restrict cell_end,
                              __global uint *restrict neib_list, __global uint *restrict status) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    (void)type;
    cell_search s;
    cell_search_begin(&s, i, pos, key);
    uint w = 0, found = 0, fullest = 0;
    while (cell_search_next_cell(&s, cell_start, cell_end)) {
        fullest = max(fullest, s.j_end - s.j);
        for (uint part = 0; part < CLP_GRID_CELL_WORDS; part++, w++) {
            const uint from = s.j + 32 * part, to = min(s.j_end, from + 32);
            uint word = 0;
            for (uint j = from; j < to; j++) {
                const float4 d = particle_delta(s.pos_i, pos[j], s.step);
                const bool near = j != i && dot(d.xyz, d.xyz) <= CLP_SEARCH_RADIUS2;
                word |= (uint)near << (j - from);
                found += near;
            }
            neib_list[w * CLP_GRID_PARTICLES + i] = word;
        }
    }
    atomic_max(&status[2], found);
    atomic_max(&status[5], fullest);
    if (fullest > 32 * CLP_GRID_CELL_WORDS)
        atomic_inc(&status[3]);
}

/* ---- The iteration API (cl/grid/neighbors.cl): the set bits of each cell's word, lowest
 * first. want_type -1 means every neighbour. */

typedef struct {
    uint i;
    float4 pos_i;
    int4 cell_i;
    int4 step;  /* to the cell of the current word */
    uint word;  /* the word after the current one */
    uint bits;  /* the current word's bits not yet taken */
    uint first; /* the particle of its lowest bit */
    int want_type;
} neib_iter;

neib_iter *neib_begin(neib_iter *it, uint i, int want_type, CLP_GRID_FN_PARAMS) {
    (void)type, (void)cell_start, (void)cell_end, (void)neib_list;
    it->i = i;
    it->pos_i = pos[i];
    it->cell_i = key_cell(key[i]);
    it->step = (int4)(0);
    /* an outside particle has no list */
    it->word = key[i] == CLP_GRID_OUTSIDE ? CLP_NEIGHBOR_WORDS : 0;
    it->bits = 0;
    it->first = 0;
    it->want_type = want_type;
    return it;
}

/* The next candidate whose bit is set, or CLP_NEIB_END after the last word. A word of 0
 * costs its load only. */
uint neib_bits_next(neib_iter *it, __global const uint *cell_start,
                    __global const uint *neib_list) {
    if (it->bits == 0) {
        uint w = it->word, bits = 0;
        while (bits == 0 && w < CLP_NEIGHBOR_WORDS)
            bits = neib_list[w++ * CLP_GRID_PARTICLES + it->i];
        if (bits == 0) {
            it->word = CLP_NEIGHBOR_WORDS;
            return CLP_NEIB_END;
        }
        /* the step to the word's cell: the cell's number in base 3, from (-1, -1, -1); the
           remainders written out (a % beside a / makes LLVM emit a freeze, which Oclgrind
           21.10 cannot check) */
        const int cell = (int)(w - 1) / CLP_GRID_CELL_WORDS, q = cell / 3, r = q / 3;
        const uint part = (w - 1) - (uint)cell * CLP_GRID_CELL_WORDS;
        it->step = (int4)(cell - 3 * q - 1, q - 3 * r - 1, CLP_CORE_DIM == 3 ? r - 1 : 0, 0);
        it->first = cell_start[cell_key(wrap_cell(it->cell_i + it->step))] + 32 * part;
        it->word = w;
        it->bits = bits;
    }
    const uint lowest = it->bits & (0u - it->bits);
    it->bits ^= lowest;
    return it->first + 31 - clz(lowest);
}

bool neib_next(neib_iter *it, CLP_GRID_FN_PARAMS, uint *j, float4 *r_ij) {
    (void)key, (void)cell_end;
    for (uint candidate; (candidate = neib_bits_next(it, cell_start, neib_list)) != CLP_NEIB_END;) {
        if (it->want_type >= 0 && type[candidate] != (uint)it->want_type)
            continue;
        float4 d = particle_delta(it->pos_i, pos[candidate], it->step);
        if (dot(d.xyz, d.xyz) <= CLP_RADIUS2) {
            *j = candidate;
            *r_ij = d;
            return true;
        }
    }
    return false;
}

#endif
