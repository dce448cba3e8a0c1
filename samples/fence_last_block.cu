// "Last block done" reduction: each block publishes a partial sum, the last block to finish
// (found with an atomic ticket) adds all partials. Meant for 1D blocks of 256 threads.
#define BLOCK 256

__device__ unsigned int g_retirementCount = 0;

__device__ float blockSum(float v)
{
    __shared__ float sdata[BLOCK];
    sdata[threadIdx.x] = v;
    __syncthreads();
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    return sdata[0];
}

// ptxlint-block: 256x1
// Partial stored, __threadfence() before taking the ticket -> last block sees every partial (correct).
__global__ void sumLastBlock(const float *in, volatile float *partial, float *result, int n)
{
    __shared__ bool amLast;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = blockSum(i < n ? in[i] : 0.0f);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s;
        __threadfence();
        unsigned int ticket = atomicInc(&g_retirementCount, gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast) {
        float t = 0.0f;
        for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            t += partial[b];
        t = blockSum(t);
        if (threadIdx.x == 0) {
            *result = t;
            g_retirementCount = 0;
        }
    }
}

// ptxlint-block: 256x1
// Same without the fence: the ticket can become visible before the partial (buggy).
__global__ void sumLastBlockNoFence(const float *in, volatile float *partial, float *result, int n)
{
    __shared__ bool amLast;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = blockSum(i < n ? in[i] : 0.0f);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s;
        unsigned int ticket = atomicInc(&g_retirementCount, gridDim.x); // EXPECT(FENCE001): partial published to other blocks via atomic ticket with no fence
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast) {
        float t = 0.0f;
        for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            t += partial[b];
        t = blockSum(t);
        if (threadIdx.x == 0) {
            *result = t;
            g_retirementCount = 0;
        }
    }
}
