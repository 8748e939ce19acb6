// The peer of clpart's copy probe: a plain CUDA float4 copy of `floats` floats, timed with
// events, the median of 20 launches after a warm-up, in bytes read and written per second.
// usage: cuda-copy FLOATS
#include <algorithm>
#include <cstdio>
#include <cstdlib>

__global__ void copy4(const float4 *__restrict__ a, float4 *__restrict__ c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i];
}

static void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "cuda-copy: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: cuda-copy FLOATS\n");
        return 2;
    }
    const size_t floats = strtoull(argv[1], NULL, 10), n = floats / 4;
    float4 *a, *c;
    check(cudaMalloc(&a, n * 16), "cudaMalloc");
    check(cudaMalloc(&c, n * 16), "cudaMalloc");
    check(cudaMemset(a, 0, n * 16), "cudaMemset");
    cudaEvent_t start, end;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    float ms[21];
    for (int r = 0; r < 21; r++) { // the first is the warm-up
        check(cudaEventRecord(start), "cudaEventRecord");
        copy4<<<(unsigned)((n + 255) / 256), 256>>>(a, c, n);
        check(cudaEventRecord(end), "cudaEventRecord");
        check(cudaEventSynchronize(end), "cudaEventSynchronize");
        check(cudaEventElapsedTime(&ms[r], start, end), "cudaEventElapsedTime");
    }
    std::sort(ms + 1, ms + 21);
    const double median = 0.5 * (ms[10] + ms[11]) * 1e-3;
    printf("cuda float4 copy: %zu floats, %.1f GB/s (median of 20)\n", floats,
           2.0 * floats * sizeof(float) / median * 1e-9);
    return 0;
}
