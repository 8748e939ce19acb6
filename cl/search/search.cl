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
 * to their new cell by the next grid_keys. Per axis, in scalars: Oclgrind 21.10's check of
 * uninitialised values crashes inside itself on the same steps written with float3. */
__kernel void search_move(__global float4 *restrict pos, __global const uint *restrict id,
                          const uint step) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    const uint4 bits = philox4x32_10((uint4)(id[i], step, 0u, 0u),
                                     (uint2)(CLP_SEARCH_SEED_LO, CLP_SEARCH_SEED_HI));
    float4 p = pos[i];
    p.x += CLP_SEARCH_MOVE * (2.0f * uniform_from_bits(bits.x) - 1.0f);
    p.y += CLP_SEARCH_MOVE * (2.0f * uniform_from_bits(bits.y) - 1.0f);
    p.z += CLP_SEARCH_MOVE * (2.0f * uniform_from_bits(bits.z) - 1.0f);
#if CLP_GRID_POSITIONS == CLP_GRID_POSITIONS_GLOBAL
    p.x -= CLP_GRID_SIZE_X * floor((p.x - CLP_GRID_ORIGIN_X) / CLP_GRID_SIZE_X);
    p.y -= CLP_GRID_SIZE_Y * floor((p.y - CLP_GRID_ORIGIN_Y) / CLP_GRID_SIZE_Y);
    p.z -= CLP_GRID_SIZE_Z * floor((p.z - CLP_GRID_ORIGIN_Z) / CLP_GRID_SIZE_Z);
#endif
    pos[i] = p;
}
