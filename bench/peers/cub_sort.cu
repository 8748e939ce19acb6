// The peer of clpart's cell sort: CUB's DeviceRadixSort::SortPairs of N 32-bit keys (random
// below 2^BITS, as cell keys are below the cell count) with 32-bit values (the slots), the
// median of 20 sorts after a warm-up, checked sorted and stable against std::stable_sort.
// usage: cub-sort N [BITS]   (BITS default 32)
#include "cuda_timing.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <numeric>
#include <vector>

static const char *const program = "cub-sort";

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: cub-sort N [BITS]\n");
        return 2;
    }
    const size_t n = strtoull(argv[1], NULL, 10);
    const int bits = argc == 3 ? atoi(argv[2]) : 32;
    if (n < 1 || bits < 1 || bits > 32) {
        fprintf(stderr, "cub-sort: N at least 1, BITS 1 to 32\n");
        return 2;
    }
    std::vector<unsigned> keys(n), values(n);
    unsigned long long state = 42;
    for (unsigned &k : keys) { // a 64-bit LCG: the same keys on every run
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        k = (unsigned)(state >> 32) & (bits == 32 ? ~0u : (1u << bits) - 1);
    }
    std::iota(values.begin(), values.end(), 0u);
    unsigned *k_in, *k_out, *v_in, *v_out;
    check(cudaMalloc(&k_in, n * 4), program, "cudaMalloc");
    check(cudaMalloc(&k_out, n * 4), program, "cudaMalloc");
    check(cudaMalloc(&v_in, n * 4), program, "cudaMalloc");
    check(cudaMalloc(&v_out, n * 4), program, "cudaMalloc");
    check(cudaMemcpy(k_in, keys.data(), n * 4, cudaMemcpyHostToDevice), program, "cudaMemcpy");
    check(cudaMemcpy(v_in, values.data(), n * 4, cudaMemcpyHostToDevice), program, "cudaMemcpy");
    size_t temp_bytes = 0;
    void *temp = NULL;
    check(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k_in, k_out, v_in, v_out, (int)n, 0,
                                          bits),
          program, "SortPairs (size)");
    check(cudaMalloc(&temp, temp_bytes), program, "cudaMalloc");
    const double ms = median_ms(program, [&] {
        check(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k_in, k_out, v_in, v_out, (int)n, 0,
                                              bits),
              program, "SortPairs");
    });
    std::vector<unsigned> got_k(n), got_v(n);
    check(cudaMemcpy(got_k.data(), k_out, n * 4, cudaMemcpyDeviceToHost), program, "cudaMemcpy");
    check(cudaMemcpy(got_v.data(), v_out, n * 4, cudaMemcpyDeviceToHost), program, "cudaMemcpy");
    std::stable_sort(values.begin(), values.end(),
                     [&](unsigned a, unsigned b) { return keys[a] < keys[b]; });
    for (size_t i = 0; i < n; i++)
        if (got_v[i] != values[i] || got_k[i] != keys[values[i]]) {
            fprintf(stderr, "cub-sort: slot %zu differs from the host's stable sort\n", i);
            return 1;
        }
    printf("cub SortPairs: %zu pairs, %d key bits, %.4f ms (median of 20)\n", n, bits, ms);
    return 0;
}
