/* Particle swarm optimisation with inertia weight (Kennedy & Eberhart; Shi & Eberhart): each
 * iteration moves every particle (pso_move), evaluates the objective where it lands and keeps
 * its best (pso_evaluate), and reduces the swarm's best on the device (pso_reduce_groups,
 * pso_reduce_final), which appends it to the history: the host reads nothing per iteration.
 * Random numbers come from Philox keyed by the seed and counted by (component pair,
 * particle, iteration), so every layout and device draws the same ones, and with contraction
 * off every layout computes the same trajectory. Layouts are in layout.cl. */

#pragma OPENCL FP_CONTRACT OFF

#ifndef CLP_PSO_TOPOLOGY
#define CLP_PSO_TOPOLOGY 0
#define CLP_PSO_TOPOLOGY_GLOBAL 0
#define CLP_PSO_TOPOLOGY_RING 1
#endif
/* Host constants; these defaults only let the file compile alone. */
#ifndef CLP_PSO_INERTIA
#define CLP_PSO_INERTIA 0.7298f /* w */
#define CLP_PSO_COGNITIVE 1.49618f /* c1, towards the particle's best */
#define CLP_PSO_SOCIAL 1.49618f    /* c2, towards the swarm's (or ring's) best */
#define CLP_PSO_LOWER -5.0f        /* the search box, per component */
#define CLP_PSO_UPPER 5.0f
#define CLP_PSO_VMAX 2.0f /* the largest speed per component */
#define CLP_PSO_SEED_LO 1
#define CLP_PSO_SEED_HI 0
#define CLP_PSO_GROUPS 4 /* work-groups of the first reduction pass */
#endif
#define PSO_GROUP 256 /* work-items of a reduction group */
#define PSO_RING (CLP_PSO_TOPOLOGY == CLP_PSO_TOPOLOGY_RING)

/* Launch parameters: the fields in buffer-bit order (pso.vel and pso.best_pos unused by the
 * AoS layouts, which keep everything in pso.pos). */
#define PSO_FIELDS                                                                                \
    __global float *restrict pso_pos, __global float *restrict pso_vel,                         \
        __global float *restrict pso_best_pos

/* Uniform numbers for components c0 .. c0 + count - 1 (count <= 16) of particle p: r1 and r2
 * of component c are words 2(c % 2) and 2(c % 2) + 1 of Philox(c / 2, p, iteration, stream). */
void pso_randoms(uint stream, uint iteration, uint p, uint c0, uint count, float *r1, float *r2) {
    const uint2 key = (uint2)(CLP_PSO_SEED_LO, CLP_PSO_SEED_HI);
    for (uint j = 0; j < count;) {
        const uint c = c0 + j;
        const uint4 w = philox4x32_10((uint4)(c / 2u, p, iteration, stream), key);
        if ((c & 1u) == 0u) {
            r1[j] = uniform_from_bits(w.x);
            r2[j] = uniform_from_bits(w.y);
            if (++j == count)
                break;
        }
        r1[j] = uniform_from_bits(w.z);
        r2[j] = uniform_from_bits(w.w);
        j++;
    }
}

/* A chunk from a private array, component by component (Oclgrind 21.10's uninitialised-value
 * check crashes on vector loads from private arrays). */
#define FROM2(a, i) (a)[i], (a)[i + 1]
#define FROM4(a, i) FROM2(a, i), FROM2(a, i + 2)
#define FROM8(a, i) FROM4(a, i), FROM4(a, i + 4)
#if CHUNK_WIDTH == 1
#define CHUNK_FROM(a) ((a)[0])
#elif CHUNK_WIDTH == 3
#define CHUNK_FROM(a) ((float3)(FROM2(a, 0), (a)[2]))
#elif CHUNK_WIDTH == 2
#define CHUNK_FROM(a) ((float2)(FROM2(a, 0)))
#elif CHUNK_WIDTH == 4
#define CHUNK_FROM(a) ((float4)(FROM4(a, 0)))
#elif CHUNK_WIDTH == 8
#define CHUNK_FROM(a) ((float8)(FROM8(a, 0)))
#else
#define CHUNK_FROM(a) ((float16)(FROM8(a, 0), FROM8(a, 8)))
#endif

/* Positions uniform in the box, speeds uniform in [-VMAX, VMAX]; bests not yet known. */
__kernel void pso_init(PSO_FIELDS, __global float *restrict pso_best_val) {
    const uint p = get_global_id(0);
    if (p >= N)
        return;
    __global float *vel = field_buffer(FIELD_VEL, pso_pos, pso_vel, pso_best_pos);
    for (uint k = 0; k < CHUNKS; k++) {
        float u[CHUNK_WIDTH], s[CHUNK_WIDTH];
        pso_randoms(1u, 0u, p, k * CHUNK_WIDTH, CHUNK_WIDTH, u, s);
        for (uint j = 0; j < CHUNK_WIDTH; j++) { /* padding components stay 0 */
            const bool used = k * CHUNK_WIDTH + j < CLP_PSO_DIM;
            u[j] = used ? CLP_PSO_LOWER + (CLP_PSO_UPPER - CLP_PSO_LOWER) * u[j] : 0.0f;
            s[j] = used ? CLP_PSO_VMAX * (2.0f * s[j] - 1.0f) : 0.0f;
        }
        chunk_store(pso_pos, FIELD_POS, p, k, CHUNK_FROM(u));
        chunk_store(vel, FIELD_VEL, p, k, CHUNK_FROM(s));
    }
    pso_best_val[p] = INFINITY;
}

#if PSO_RING
/* The best of particle p and its two neighbours on the ring, before this iteration's move. */
__kernel void pso_ring(__global const float *restrict pso_best_val,
                       __global uint *restrict pso_local_best) {
    const uint p = get_global_id(0);
    if (p >= N)
        return;
    const uint left = p == 0 ? N - 1 : p - 1, right = p + 1 == N ? 0 : p + 1;
    uint best = p;
    if (pso_best_val[left] < pso_best_val[best])
        best = left;
    if (pso_best_val[right] < pso_best_val[best])
        best = right;
    pso_local_best[p] = best;
}
#define PSO_LOCAL_BEST_PARAM , __global const uint *restrict pso_local_best
#else
#define PSO_LOCAL_BEST_PARAM
#endif

/* The position update: v = w v + c1 r1 (best - x) + c2 r2 (guide - x), each component's speed
 * clamped to VMAX, and x + v clamped to the box. The seed's Tables 1 and 2 time this. */
__kernel void pso_move(PSO_FIELDS PSO_LOCAL_BEST_PARAM, __global const float *restrict pso_global,
                       __global const uint *restrict pso_state) {
    const uint p = get_global_id(0);
    if (p >= N)
        return;
    const uint iteration = pso_state[0] - 1u;
    __global float *vel = field_buffer(FIELD_VEL, pso_pos, pso_vel, pso_best_pos);
    __global float *best = field_buffer(FIELD_BEST, pso_pos, pso_vel, pso_best_pos);
    for (uint k = 0; k < CHUNKS; k++) {
        float a[CHUNK_WIDTH], b[CHUNK_WIDTH];
        pso_randoms(0u, iteration, p, k * CHUNK_WIDTH, CHUNK_WIDTH, a, b);
        const CHUNK r1 = CHUNK_FROM(a), r2 = CHUNK_FROM(b);
        const CHUNK x = chunk_load(pso_pos, FIELD_POS, p, k);
        const CHUNK own = chunk_load(best, FIELD_BEST, p, k);
#if PSO_RING
        const CHUNK guide = chunk_load(best, FIELD_BEST, pso_local_best[p], k);
#else
        const CHUNK guide = global_chunk(pso_global, k);
#endif
        CHUNK v = chunk_load(vel, FIELD_VEL, p, k);
        v = CLP_PSO_INERTIA * v + CLP_PSO_COGNITIVE * r1 * (own - x) +
            CLP_PSO_SOCIAL * r2 * (guide - x);
        v = clamp(v, -CLP_PSO_VMAX, CLP_PSO_VMAX);
        const CHUNK moved = clamp(x + v, CLP_PSO_LOWER, CLP_PSO_UPPER);
        chunk_store(pso_pos, FIELD_POS, p, k, moved);
        chunk_store(vel, FIELD_VEL, p, k, v);
#if CLP_PSO_DIM == 3 && CLP_PSO_LAYOUT == CLP_PSO_LAYOUT_AOS
        chunk_store(best, FIELD_BEST, p, k, own); /* the whole struct is written back */
#endif
    }
#if PSO_RING
    (void)pso_global;
#endif
}

/* The objective at each particle's position; a better value becomes its best. */
__kernel void pso_evaluate(PSO_FIELDS, __global float *restrict pso_best_val) {
    const uint p = get_global_id(0);
    if (p >= N)
        return;
    const float value = pso_objective(p, pso_pos);
    if (!(value < pso_best_val[p])) /* NaN is never better */
        return;
    pso_best_val[p] = value;
    __global float *best = field_buffer(FIELD_BEST, pso_pos, pso_vel, pso_best_pos);
    for (uint k = 0; k < CHUNKS; k++)
        chunk_store(best, FIELD_BEST, p, k, chunk_load(pso_pos, FIELD_POS, p, k));
}

/* The better of two (value, index) pairs: the lower value, then the lower index, so that the
 * result does not depend on the order of the reduction. */
void keep_better(float *value, uint *index, float other_value, uint other_index) {
    if (other_value < *value || (other_value == *value && other_index < *index)) {
        *value = other_value;
        *index = other_index;
    }
}

/* The reduction's tree in local memory over one group's pairs; the winner in slot 0. */
void reduce_group(__local float *values, __local uint *indices, float value, uint index) {
    const uint lid = get_local_id(0);
    values[lid] = value;
    indices[lid] = index;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = PSO_GROUP / 2; stride > 0; stride /= 2) {
        if (lid < stride) {
            float v = values[lid];
            uint i = indices[lid];
            keep_better(&v, &i, values[lid + stride], indices[lid + stride]);
            values[lid] = v;
            indices[lid] = i;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Pass 1: each of CLP_PSO_GROUPS groups takes every CLP_PSO_GROUPS-th stretch of particles. */
__kernel __attribute__((reqd_work_group_size(PSO_GROUP, 1, 1))) void
pso_reduce_groups(__global const float *restrict pso_best_val, __global float *restrict pso_partial) {
    __local float values[PSO_GROUP];
    __local uint indices[PSO_GROUP];
    float value = INFINITY;
    uint index = 0xffffffffu;
    for (uint p = get_global_id(0); p < N; p += get_global_size(0))
        keep_better(&value, &index, pso_best_val[p], p);
    reduce_group(values, indices, value, index);
    if (get_local_id(0) == 0) { /* two stores: Oclgrind 21.10 crashes on a vstore2 of these */
        pso_partial[2 * get_group_id(0)] = values[0];
        pso_partial[2 * get_group_id(0) + 1] = as_float(indices[0]);
    }
}

/* Pass 2, one group: the swarm's best over the partials, appended to the history, and its
 * position copied to pso_global for the next move. */
__kernel __attribute__((reqd_work_group_size(PSO_GROUP, 1, 1))) void
pso_reduce_final(PSO_FIELDS, __global float *restrict pso_global,
                 __global const float *restrict pso_partial, __global float *restrict pso_history,
                 __global uint *restrict pso_state) {
    __local float values[PSO_GROUP];
    __local uint indices[PSO_GROUP];
    float value = INFINITY;
    uint index = 0xffffffffu;
    for (uint g = get_local_id(0); g < CLP_PSO_GROUPS; g += PSO_GROUP) {
        keep_better(&value, &index, pso_partial[2 * g], as_uint(pso_partial[2 * g + 1]));
    }
    reduce_group(values, indices, value, index);
    const uint winner = indices[0];
    __global float *best = field_buffer(FIELD_BEST, pso_pos, pso_vel, pso_best_pos);
    for (uint c = get_local_id(0); winner < N && c < DIM_PADDED; c += PSO_GROUP)
        pso_global[c] = best[pso_index(FIELD_BEST, winner, c)];
    if (get_local_id(0) == 0) {
        const uint entry = pso_state[0];
        if (entry < pso_state[3]) /* the history's capacity */
            pso_history[entry] = values[0];
        pso_state[0] = entry + 1;
        pso_state[1] = winner;
    }
}
