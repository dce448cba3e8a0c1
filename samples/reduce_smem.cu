// Block-level sum reductions in shared memory: interleaved vs sequential addressing.
// Meant for 1D blocks of 256 threads; each block writes one partial sum.
#define BLOCK 256

// ptxlint-block: 256x1
// Interleaved addressing (index = 2*s*tid): lanes hit sdata[2*s*t] -> 2-way at s=1, worse
// as s grows (buggy: slow). Barriers are outside the branch (correct sync).
__global__ void reduceInterleaved(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s]; // EXPECT(BANK001*2): stride 2*s words across lanes: >=2-way (its loads and its store)
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// ptxlint-block: 256x1
// Sequential addressing: active lanes read contiguous words -> conflict-free (correct).
__global__ void reduceSequential(const int *in, int *out, unsigned int n)
{
    __shared__ int sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
