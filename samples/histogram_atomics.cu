// 256-bin byte histogram: privatised shared-memory atomics merged with global atomics.
#define NUM_BINS 256

// ptxlint-block: 256x1
// Shared atomics per block, grid-stride loop, then one global atomicAdd per bin (correct).
__global__ void histogramShared(const unsigned char *data, unsigned int *hist, int n)
{
    __shared__ unsigned int s_hist[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        s_hist[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s_hist[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned int c = s_hist[b];
        if (c)
            atomicAdd(&hist[b], c);
    }
}

// ptxlint-block: 256x1
// Global atomics only: contended but correct; atomicAdd result unused -> red.global (correct).
__global__ void histogramGlobal(const unsigned char *data, unsigned int *hist, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[data[i]], 1u);
}

// ptxlint-block: 256x1
// Float and 64-bit atomics plus atomicMax/atomicCAS on a global summary record (correct).
__global__ void histogramStats(const float *v, float *sum, unsigned long long *count,
                               int *maxBin, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(sum, v[i]);
        atomicAdd(count, 1ull);
        atomicMax(maxBin, (int)v[i]);
        atomicCAS(maxBin + 1, 0, 1);
    }
}
