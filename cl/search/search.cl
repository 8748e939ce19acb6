/* The neighbour-search model's own kernel (src/models/search): every step moves each particle
 * by a small random displacement, so that every sort has particles to move between cells.
 * Layouts: pos[i] float4 as cl/grid/grid.cl keeps it (the global position, or the offset from
 * the centre of the particle's cell), id[i] the particle's index at set-up. Lengths in lattice
 * spacings. Least bytes per particle: pos read and written (32), id read (4); 36 in all
 * (src/models/search/search_cost.c). */

/* Host constants; these defaults only let the file compile alone. */
#ifndef CLP_SEARCH_MOVE
#define CLP_SEARCH_MOVE 0.05f  /* the largest displacement per axis and step */
#define CLP_SEARCH_SEED_LO 1u  /* the case's seed, low and high 32 bits */
#define CLP_SEARCH_SEED_HI 0u
#endif

/* Particle id's displacement at step `step`: move (2 u - 1) per axis, u from words 0 to 2 of
 * Philox4x32-10 of the counter (id, step, 0, 0) under the seed, so it follows the particle
 * through every sort and is the same on every device and in every option set. Global
 * positions are wrapped back into the cube (every axis is periodic); local offsets are moved
 * to their new cell by the next grid_keys. */
__kernel void search_move(__global float4 *restrict pos, __global const uint *restrict id,
                          const uint step) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const uint4 bits =
        philox4x32_10((uint4)(id[i], step, 0u, 0u), (uint2)(CLP_SEARCH_SEED_LO, CLP_SEARCH_SEED_HI));
    const float3 u = (float3)(uniform_from_bits(bits.x), uniform_from_bits(bits.y),
                              uniform_from_bits(bits.z));
    float4 p = pos[i];
    float3 x = p.xyz + CLP_SEARCH_MOVE * (2.0f * u - 1.0f);
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_GLOBAL
    const float3 origin = CLP_GRID_ORIGIN.xyz, size = CLP_GRID_SIZE.xyz;
    x -= size * floor((x - origin) / size);
#endif
    p.xyz = x;
    pos[i] = p;
}
