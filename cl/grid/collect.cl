/* Test and benchmark kernels over the iteration API: each particle writes the IDs of its
 * neighbours and the squared distances, so a host brute-force search can check the sets.
 * Rows are by ID, the particle's index at set-up: ids[id*CLP_GRID_COLLECT_MAX + n], r2
 * likewise, count[id] (may exceed the capacity: then only the first CLP_GRID_COLLECT_MAX are
 * written). grid_collect_by_type writes the type-0 neighbours, then the others with bit 31
 * of the ID set; grid_count_neighbors only counts. */

#ifndef CLP_GRID_COLLECT_MAX
#define CLP_GRID_COLLECT_MAX 256 /* IDs written per particle */
#endif

void collect(uint row, uint n, uint j_id, float4 r_ij, __global uint *ids, __global float *r2) {
    if (n < CLP_GRID_COLLECT_MAX) {
        ids[row * CLP_GRID_COLLECT_MAX + n] = j_id;
        r2[row * CLP_GRID_COLLECT_MAX + n] = dot(r_ij, r_ij);
    }
}

/* The iteration's carried array and neighbour position checked too: the positions carried
 * as data must be the neighbour's, or the count is CLP_NEIB_END. */
__kernel void grid_collect(CLP_GRID_PARAMS, __global const uint *restrict id,
                           __global uint *restrict ids, __global float *restrict r2,
                           __global uint *restrict count) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    uint j, n = 0;
    bool carried = true;
    float4 r_ij, pos_j;
    CLP_FOR_EACH_NEIGHBOR_WITH(i, j, r_ij, pos, pos_j) {
        collect(id[i], n++, id[j], r_ij, ids, r2);
        carried = carried && all(pos_j == pos[j]) && all(CLP_NEIGHBOR_POS(j) == pos[j]);
    }
    count[id[i]] = carried ? n : CLP_NEIB_END;
}

__kernel void grid_collect_by_type(CLP_GRID_PARAMS, __global const uint *restrict id,
                                   __global uint *restrict ids, __global float *restrict r2,
                                   __global uint *restrict count) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    uint j, n = 0;
    float4 r_ij;
    CLP_FOR_EACH_NEIGHBOR_OF_TYPE(i, 0, j, r_ij) {
        collect(id[i], n++, id[j], r_ij, ids, r2);
    }
    CLP_FOR_EACH_NEIGHBOR_OF_TYPE(i, 1, j, r_ij) {
        collect(id[i], n++, id[j] | 0x80000000u, r_ij, ids, r2);
    }
    count[id[i]] = n;
}

/* One pass over every neighbour, as an interaction kernel makes: counts them (benchmarks). */
__kernel void grid_count_neighbors(CLP_GRID_PARAMS, __global const uint *restrict id,
                                   __global uint *restrict count) {
    const uint i = get_global_id(0);
    if (i >= CLP_GRID_PARTICLES)
        return;
    uint j, n = 0;
    float4 r_ij;
    CLP_FOR_EACH_NEIGHBOR(i, j, r_ij) {
        n++;
    }
    count[id[i]] = n;
}
