// What the CUDA peers share: a checked CUDA call, and the median time of a launch.
#ifndef CLPART_BENCH_PEERS_CUDA_TIMING_CUH
#define CLPART_BENCH_PEERS_CUDA_TIMING_CUH

#include <algorithm>
#include <cstdio>
#include <cstdlib>

// Ends the program with `program: what: CUDA's message` unless `e` is cudaSuccess.
static void check(cudaError_t e, const char *program, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s: %s\n", program, what, cudaGetErrorString(e));
        exit(1);
    }
}

// Milliseconds `launch()` takes on the device, timed with events: the median of 20 runs after
// one to warm up.
template <typename Launch> static double median_ms(const char *program, Launch launch) {
    cudaEvent_t start, end;
    check(cudaEventCreate(&start), program, "cudaEventCreate");
    check(cudaEventCreate(&end), program, "cudaEventCreate");
    float ms[21];
    for (int r = 0; r < 21; r++) {
        check(cudaEventRecord(start), program, "cudaEventRecord");
        launch();
        check(cudaGetLastError(), program, "the launch");
        check(cudaEventRecord(end), program, "cudaEventRecord");
        check(cudaEventSynchronize(end), program, "cudaEventSynchronize");
        check(cudaEventElapsedTime(&ms[r], start, end), program, "cudaEventElapsedTime");
    }
    std::sort(ms + 1, ms + 21);
    return 0.5 * (ms[10] + ms[11]);
}

#endif
