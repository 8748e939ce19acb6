// The peer of clpart's copy probe: a plain CUDA float4 copy of `floats` floats, timed with
// events, the median of 20 launches after a warm-up, in bytes read and written per second.
// usage: cuda-copy FLOATS
#include "cuda_timing.cuh"

__global__ void copy4(const float4 *__restrict__ a, float4 *__restrict__ c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i];
}

static const char *const program = "cuda-copy";

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: cuda-copy FLOATS\n");
        return 2;
    }
    const size_t floats = strtoull(argv[1], NULL, 10), n = floats / 4;
    float4 *a, *c;
    check(cudaMalloc(&a, n * 16), program, "cudaMalloc");
    check(cudaMalloc(&c, n * 16), program, "cudaMalloc");
    check(cudaMemset(a, 0, n * 16), program, "cudaMemset");
    const double median =
        1e-3 * median_ms(program, [&] { copy4<<<(unsigned)((n + 255) / 256), 256>>>(a, c, n); });
    printf("cuda float4 copy: %zu floats, %.1f GB/s (median of 20)\n", floats,
           2.0 * floats * sizeof(float) / median * 1e-9);
    return 0;
}
