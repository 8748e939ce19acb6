// The peer of clpart's tiled repulsive-particles force evaluation (cl/repulsive/repulsive.cl):
// the same pair terms (periodic difference to the nearest image, L^-q, the acceleration
// q Delta L^-(q+2), half of L^-q to the energy, q L^-(q+1) to the stress) in a plain CUDA
// all-pairs kernel, one target per thread with its sums in registers and tiles of sources in
// shared memory. N points uniform in the unit hypercube of D dimensions, q = D + 1 as in
// bench-repulsive. Prints interactions per second (N (N - 1) over the median of 20
// evaluations after a warm-up) and GFLOP/s by bench-repulsive's count, 10 D + floor(q / 2) + 9
// (+ 2 for odd q) per interaction, after checking 64 targets' accelerations against a
// double-precision sum on the host (relative error below 1e-3, else it fails).
// usage: cuda-repulsive D N
#include "cuda_timing.cuh"

#include <cmath>
#include <vector>

constexpr int TILE = 256;

static const char *const program = "cuda-repulsive";

template <int Q> __device__ float inverse_power_q(float l2) {
    const float inv2 = 1.0f / l2;
    float result = (Q & 1) ? rsqrtf(l2) : 1.0f;
#pragma unroll
    for (int k = 0; k < Q / 2; k++)
        result *= inv2;
    return result;
}

template <int D, int Q>
__global__ void forces(const float *__restrict__ pos, float *__restrict__ acc,
                       float *__restrict__ energy, float *__restrict__ stress, int n) {
    __shared__ float sources[TILE * D];
    const int i = blockIdx.x * TILE + threadIdx.x;
    float own[D], sum[D];
#pragma unroll
    for (int v = 0; v < D; v++) {
        own[v] = i < n ? pos[i * D + v] : 0.0f;
        sum[v] = 0.0f;
    }
    float e = 0.0f, s = 0.0f;
    for (int tile = 0; tile < n; tile += TILE) {
        __syncthreads();
        for (int k = threadIdx.x; k < TILE * D; k += TILE)
            sources[k] = tile * D + k < n * D ? pos[tile * D + k] : 0.0f;
        __syncthreads();
        const int count = min(TILE, n - tile);
        for (int j = 0; j < count; j++) {
            if (tile + j == i)
                continue;
            float delta[D], l2 = 0.0f;
#pragma unroll
            for (int v = 0; v < D; v++) {
                const float d = own[v] - sources[j * D + v];
                delta[v] = d - rintf(d);
                l2 += delta[v] * delta[v];
            }
            const float lq = inverse_power_q<Q>(l2), factor = Q * lq / l2;
#pragma unroll
            for (int v = 0; v < D; v++)
                sum[v] += factor * delta[v];
            e += 0.5f * lq;
            s += Q * lq * rsqrtf(l2);
        }
    }
    if (i >= n)
        return;
#pragma unroll
    for (int v = 0; v < D; v++)
        acc[i * D + v] = sum[v];
    energy[i] = e;
    stress[i] = s;
}

template <int D> static int run(int n) {
    constexpr int Q = D + 1;
    std::vector<float> pos((size_t)n * D), acc((size_t)n * D);
    unsigned long long state = 42;
    for (float &x : pos) { // a 64-bit LCG: the same points on every run
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        x = (float)((state >> 40) * 0x1.0p-24);
    }
    float *d_pos, *d_acc, *d_energy, *d_stress;
    check(cudaMalloc(&d_pos, pos.size() * 4), program, "cudaMalloc");
    check(cudaMalloc(&d_acc, acc.size() * 4), program, "cudaMalloc");
    check(cudaMalloc(&d_energy, (size_t)n * 4), program, "cudaMalloc");
    check(cudaMalloc(&d_stress, (size_t)n * 4), program, "cudaMalloc");
    check(cudaMemcpy(d_pos, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice), program,
          "cudaMemcpy");
    const unsigned groups = (unsigned)((n + TILE - 1) / TILE);
    const double seconds = 1e-3 * median_ms(program, [&] {
                               forces<D, Q><<<groups, TILE>>>(d_pos, d_acc, d_energy, d_stress, n);
                           });
    check(cudaMemcpy(acc.data(), d_acc, acc.size() * 4, cudaMemcpyDeviceToHost), program,
          "cudaMemcpy");
    double worst = 0;
    for (int t = 0; t < 64 && t < n; t++) {
        const int i = (int)((long long)t * n / 64);
        double want[D] = {0}, norm = 0, diff = 0;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            double delta[D], l2 = 0;
            for (int v = 0; v < D; v++) {
                const double d = (double)pos[i * D + v] - pos[j * D + v];
                delta[v] = d - std::nearbyint(d);
                l2 += delta[v] * delta[v];
            }
            const double factor = Q * std::pow(l2, -0.5 * Q) / l2;
            for (int v = 0; v < D; v++)
                want[v] += factor * delta[v];
        }
        for (int v = 0; v < D; v++) {
            norm += want[v] * want[v];
            diff += (acc[i * D + v] - want[v]) * (acc[i * D + v] - want[v]);
        }
        worst = std::max(worst, std::sqrt(diff / norm));
    }
    const double interactions = (double)n * (n - 1) / seconds;
    const double flops = 10.0 * D + Q / 2 + 9 + (Q % 2 ? 2 : 0);
    printf("cuda\t%d\t%d\t%.4e\t%.4e\t%.1f\t%d\t%.2e\n", D, n, seconds, interactions,
           interactions * flops / 1e9, TILE, worst);
    if (!(worst < 1e-3)) {
        fprintf(stderr, "cuda-repulsive: accelerations off by %.2e of the host's\n", worst);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cuda-repulsive D N\n");
        return 2;
    }
    const int dim = atoi(argv[1]), n = atoi(argv[2]);
    if (n < 2) {
        fprintf(stderr, "cuda-repulsive: N must be at least 2\n");
        return 2;
    }
    switch (dim) {
    case 2:
        return run<2>(n);
    case 3:
        return run<3>(n);
    case 5:
        return run<5>(n);
    case 10:
        return run<10>(n);
    default:
        fprintf(stderr, "cuda-repulsive: D is 2, 3, 5 or 10\n");
        return 2;
    }
}
