// const_cost.cu -- cost of an indexed constant-memory load (ld.const / SASS LDC)
// as a function of how many distinct addresses the 32 lanes of a warp touch.
//
// Each lane chases a chain of dependent loads  idx = c_tab[off + idx]  where the
// table is all zeros, so idx stays 0 and every load goes to c_tab[off].  The
// lane's offset is  off = (lane % k) * stride_words:  k distinct addresses,
// stride_words apart (1 word = 4 B: k <= 16 share one 64-B line; 64 words =
// 256 B: every address in its own line).
//
//   latency    : 1 warp, clock64() around CHAIN dependent loads -> cycles/load
//   throughput : one 1024-thread block per SM, 32 independent warps -> SM cycles
//                per warp-level load (the IDC's issue/replay cost)
//
// Build: nvcc -arch=sm_90 -lineinfo const_cost.cu -o const_cost
// Run:   ./const_cost [json_path]      ./const_cost ncu   (one short launch per config)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>

#define TAB_WORDS 8192  // 32 KiB of the 64 KiB constant bank
__constant__ __align__(256) unsigned c_tab[TAB_WORDS];

#define UNROLL 16

extern "C" __global__ void const_chase(int iters, int k, int stride_words, long long* cycles, unsigned* sink) {
    unsigned lane = threadIdx.x & 31;
    unsigned off = (lane % k) * stride_words;
    unsigned idx = 0;
    // warm the constant caches with the same addresses
    for (int i = 0; i < 8; ++i) idx = c_tab[off + idx];
    __syncwarp();
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) idx = c_tab[off + idx];
    }
    long long t1 = clock64();
    unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (lane == 0) cycles[gw] = t1 - t0;
    if (idx == 12345u) sink[0] = idx;  // never true; keeps the chain alive
}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

struct Cfg { int k; int stride; const char* layout; };

int main(int argc, char** argv) {
    bool ncu_mode = argc > 1 && !strcmp(argv[1], "ncu");
    const char* json_path = (argc > 1 && !ncu_mode) ? argv[1] : nullptr;
    std::vector<unsigned> zeros(TAB_WORDS, 0u);
    check(cudaMemcpyToSymbol(c_tab, zeros.data(), TAB_WORDS * sizeof(unsigned)), "memcpyToSymbol");
    int nsm = 0, clk = 0;
    check(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0), "attr");
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    const int maxWarps = nsm * 32;
    long long* d_cyc;
    unsigned* d_sink;
    check(cudaMalloc(&d_cyc, maxWarps * sizeof(long long)), "malloc");
    check(cudaMalloc(&d_sink, 64), "malloc");

    std::vector<Cfg> cfgs;
    const int ks[] = {1, 2, 4, 8, 16, 32};
    for (int k : ks) cfgs.push_back({k, 1, "same_line"});                       // 4-B stride (k=32 spans 128 B)
    for (int k : ks) if (k > 1) cfgs.push_back({k, 16, "distinct_lines"});      // 64-B stride: adjacent lines
    for (int k : ks) if (k > 1) cfgs.push_back({k, 64, "distinct_lines_256B"});  // 256-B stride
    // probes: where does distance start to matter (cache sets), and is it per line or per address?
    const int probe2[] = {2, 4, 8, 32, 128};
    for (int s : probe2) cfgs.push_back({2, s, "probe"});
    const int probe16[] = {32, 128, 256, 512};
    for (int s : probe16) cfgs.push_back({16, s, "probe"});
    cfgs.push_back({32, 32, "probe"});
    const int kk[] = {9, 10, 12, 14};
    for (int k : kk) cfgs.push_back({k, 64, "probe"});

    if (ncu_mode) {
        for (auto& c : cfgs) {
            printf("NCU_CFG k=%d stride_words=%d layout=%s\n", c.k, c.stride, c.layout);
            const_chase<<<1, 32>>>(64, c.k, c.stride, d_cyc, d_sink);
            check(cudaDeviceSynchronize(), "ncu launch");
        }
        return 0;
    }

    FILE* js = json_path ? fopen(json_path, "w") : nullptr;
    if (js) fprintf(js, "{\"sm_count\": %d, \"clock_khz\": %d, \"unroll\": %d, \"rows\": [\n", nsm, clk, UNROLL);
    printf("%-15s %3s %7s %14s %14s\n", "layout", "k", "strideB", "lat_cyc/load", "thr_cyc/wload");
    const int iters = 256;  // 4096 dependent loads per warp
    std::vector<long long> h(maxWarps);
    for (size_t ci = 0; ci < cfgs.size(); ++ci) {
        const Cfg& c = cfgs[ci];
        // latency: 1 warp, median of 7
        std::vector<double> lat;
        for (int r = 0; r < 7; ++r) {
            const_chase<<<1, 32>>>(iters, c.k, c.stride, d_cyc, d_sink);
            check(cudaDeviceSynchronize(), "lat");
            long long v;
            check(cudaMemcpy(&v, d_cyc, sizeof(v), cudaMemcpyDeviceToHost), "cpy");
            lat.push_back((double)v / (iters * UNROLL));
        }
        std::sort(lat.begin(), lat.end());
        // throughput: one 1024-thread block per SM; per block take the slowest warp
        std::vector<double> thr;
        for (int r = 0; r < 5; ++r) {
            const_chase<<<nsm, 1024>>>(iters, c.k, c.stride, d_cyc, d_sink);
            check(cudaDeviceSynchronize(), "thr");
            check(cudaMemcpy(h.data(), d_cyc, maxWarps * sizeof(long long), cudaMemcpyDeviceToHost), "cpy");
            std::vector<double> per_block;
            for (int b = 0; b < nsm; ++b) {
                long long mx = 0;
                for (int w = 0; w < 32; ++w) mx = std::max(mx, h[b * 32 + w]);
                per_block.push_back((double)mx / (32.0 * iters * UNROLL));
            }
            std::sort(per_block.begin(), per_block.end());
            thr.push_back(per_block[per_block.size() / 2]);
        }
        std::sort(thr.begin(), thr.end());
        double l = lat[lat.size() / 2], t = thr[thr.size() / 2];
        printf("%-15s %3d %7d %14.2f %14.3f\n", c.layout, c.k, c.stride * 4, l, t);
        if (js)
            fprintf(js, "  {\"layout\": \"%s\", \"distinct_addresses\": %d, \"stride_bytes\": %d, "
                        "\"latency_cycles_per_load\": %.3f, \"latency_min\": %.3f, \"latency_max\": %.3f, "
                        "\"throughput_sm_cycles_per_warp_load\": %.4f}%s\n",
                    c.layout, c.k, c.stride * 4, l, lat.front(), lat.back(), t, ci + 1 < cfgs.size() ? "," : "");
    }
    if (js) { fprintf(js, "]}\n"); fclose(js); }
    return 0;
}
