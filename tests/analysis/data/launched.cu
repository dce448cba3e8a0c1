// Kernels whose block shapes come from the launches in main(): ptxlint reads them from here.
#include <cstdio>

#define TILE 16
constexpr int kThreads = 128;

// Correct for its launch (a 32-thread block): only warp 0 exists, so the neighbour's write is
// ordered by __syncwarp(). Launched with 64 threads it would race across warps.
__global__ void rotate(float *out, const float *in) {
    __shared__ float s[64];
    s[threadIdx.x] = in[threadIdx.x];
    __syncwarp();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}

// A cross-warp race under its real launch of 128 threads: warp 1 reads what warp 0 writes.
__global__ void shiftLeft(float *out, const float *in) {
    __shared__ float s[kThreads];
    s[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 32) % kThreads];
}

// 2-D tile, launched as TILE x TILE: bank-conflict-free row reads.
__global__ void tileCopy(float *out, const float *in) {
    __shared__ float t[TILE][TILE + 1];
    t[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * TILE + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 1024 * sizeof(float));
    cudaMalloc(&out, 1024 * sizeof(float));
    rotate<<<1, 32>>>(out, in);
    shiftLeft<<<4, kThreads>>>(out, in);
    dim3 block(TILE, TILE);
    tileCopy<<<1, block>>>(out, in);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
