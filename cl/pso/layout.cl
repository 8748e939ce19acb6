/* Where the PSO fields live (Bilotta et al. 2018, 4.1, 4.2): position,
 * velocity and best position of N particles in D dimensions. In 3 dimensions pso.layout
 * picks an array of structures {pos, vel, best} (in pso.pos; written whole or only the
 * changed members) or a structure of arrays of 3 or 4 floats; in any other, pso.wide_layout
 * picks particle-major, component-major, or component-major chunks of K floats. The kernels
 * read and write a field a chunk at a time (chunk_load, chunk_store) and the objectives one
 * component at a time (pso_index). Padding components stay 0. */

#ifndef CLP_PSO_LAYOUT
#define CLP_PSO_LAYOUT 3
#define CLP_PSO_LAYOUT_AOS 0
#define CLP_PSO_LAYOUT_AOS_SELECTIVE 1
#define CLP_PSO_LAYOUT_SOA 2
#define CLP_PSO_LAYOUT_SOA_PADDED 3
#endif
#ifndef CLP_PSO_WIDE_LAYOUT
#define CLP_PSO_WIDE_LAYOUT 3
#define CLP_PSO_WIDE_LAYOUT_NAIVE 0
#define CLP_PSO_WIDE_LAYOUT_TRANSPOSED 1
#define CLP_PSO_WIDE_LAYOUT_CHUNK2 2
#define CLP_PSO_WIDE_LAYOUT_CHUNK4 3
#define CLP_PSO_WIDE_LAYOUT_CHUNK8 4
#define CLP_PSO_WIDE_LAYOUT_CHUNK16 5
#endif
/* Host constants; these defaults only let the file compile alone. */
#ifndef CLP_PSO_PARTICLES
#define CLP_PSO_PARTICLES 64 /* N */
#define CLP_PSO_DIM 3        /* D */
#endif

#define FIELD_POS 0u
#define FIELD_VEL 1u
#define FIELD_BEST 2u
#define N CLP_PSO_PARTICLES

#if CLP_PSO_DIM == 3 && CLP_PSO_LAYOUT <= CLP_PSO_LAYOUT_AOS_SELECTIVE
#define PSO_AOS 1 /* one struct of 9 floats per particle, in pso.pos */
#define CHUNK float3
#define CHUNK_WIDTH 3
#elif CLP_PSO_DIM == 3 && CLP_PSO_LAYOUT == CLP_PSO_LAYOUT_SOA
#define CHUNK float3
#define CHUNK_WIDTH 3
#elif CLP_PSO_DIM == 3
#define CHUNK float4
#define CHUNK_WIDTH 4
#define CHUNK_LOAD vload4
#define CHUNK_STORE vstore4
#elif CLP_PSO_WIDE_LAYOUT <= CLP_PSO_WIDE_LAYOUT_TRANSPOSED
#define CHUNK float
#define CHUNK_WIDTH 1
#elif CLP_PSO_WIDE_LAYOUT == CLP_PSO_WIDE_LAYOUT_CHUNK2
#define CHUNK float2
#define CHUNK_WIDTH 2
#define CHUNK_LOAD vload2
#define CHUNK_STORE vstore2
#elif CLP_PSO_WIDE_LAYOUT == CLP_PSO_WIDE_LAYOUT_CHUNK4
#define CHUNK float4
#define CHUNK_WIDTH 4
#define CHUNK_LOAD vload4
#define CHUNK_STORE vstore4
#elif CLP_PSO_WIDE_LAYOUT == CLP_PSO_WIDE_LAYOUT_CHUNK8
#define CHUNK float8
#define CHUNK_WIDTH 8
#define CHUNK_LOAD vload8
#define CHUNK_STORE vstore8
#else
#define CHUNK float16
#define CHUNK_WIDTH 16
#define CHUNK_LOAD vload16
#define CHUNK_STORE vstore16
#endif
#ifndef PSO_AOS
#define PSO_AOS 0
#endif
/* The dimension padded to whole chunks, and the chunks of a particle's field. */
#define DIM_PADDED ((CLP_PSO_DIM + CHUNK_WIDTH - 1) / CHUNK_WIDTH * CHUNK_WIDTH)
#define CHUNKS (DIM_PADDED / CHUNK_WIDTH)

/* The buffer that holds `field`: the AoS layouts keep every field in pso.pos. */
__global float *field_buffer(uint field, __global float *pos, __global float *vel,
                             __global float *best) {
    if (PSO_AOS || field == FIELD_POS)
        return pos;
    return field == FIELD_VEL ? vel : best;
}

/* The float index of component c of particle p's `field` in its buffer. */
uint pso_index(uint field, uint p, uint c) {
#if PSO_AOS
    return p * 9u + field * 3u + c;
#elif CLP_PSO_DIM == 3
    (void)field;
    return p * (uint)CHUNK_WIDTH + c;
#elif CLP_PSO_WIDE_LAYOUT == CLP_PSO_WIDE_LAYOUT_NAIVE
    (void)field;
    return p * (uint)CLP_PSO_DIM + c;
#else
    (void)field;
    const uint chunk = c / CHUNK_WIDTH;
    return (chunk * N + p) * CHUNK_WIDTH + (c - chunk * CHUNK_WIDTH);
#endif
}

/* Chunk k of particle p's `field`, whose buffer is `buf`. */
CHUNK chunk_load(__global const float *buf, uint field, uint p, uint k) {
#if CHUNK_WIDTH == 3
    (void)k;
    return vload3(0, buf + pso_index(field, p, 0));
#elif CHUNK_WIDTH == 1
    return buf[pso_index(field, p, k)];
#else
    (void)field;
    return CHUNK_LOAD(CLP_PSO_DIM == 3 ? p : k * N + p, buf);
#endif
}

void chunk_store(__global float *buf, uint field, uint p, uint k, CHUNK value) {
#if CHUNK_WIDTH == 3
    (void)k;
    vstore3(value, 0, buf + pso_index(field, p, 0));
#elif CHUNK_WIDTH == 1
    buf[pso_index(field, p, k)] = value;
#else
    (void)field;
    CHUNK_STORE(value, CLP_PSO_DIM == 3 ? p : k * N + p, buf);
#endif
}

/* Chunk k of the swarm's best position, stored plainly, component by component. */
CHUNK global_chunk(__global const float *global_best, uint k) {
#if CHUNK_WIDTH == 1
    return global_best[k];
#elif CHUNK_WIDTH == 3
    return vload3(k, global_best);
#else
    return CHUNK_LOAD(k, global_best);
#endif
}
