// __syncthreads placement: uniform control flow vs thread-dependent branches and early exits.
// Meant for 1D blocks of 256 threads.
#define BLOCK 256

// ptxlint-block: 256x1
// Tiled dot-product style loop: trip count depends only on n (uniform), barriers each iteration (correct).
__global__ void tiledSum(const float *a, float *out, int n)
{
    __shared__ float tile[BLOCK];
    float acc = 0.0f;
    for (int base = 0; base < n; base += BLOCK) {
        int k = base + threadIdx.x;
        tile[threadIdx.x] = (k < n) ? a[k] : 0.0f;
        __syncthreads();
        for (int j = 0; j < BLOCK; j++)
            acc += tile[j];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ptxlint-block: 256x1
// Barrier inside `if (threadIdx.x < 16)`: most of the block never reaches it (buggy: deadlock/UB).
__global__ void halfBarrier(int *data)
{
    __shared__ int buf[BLOCK];
    buf[threadIdx.x] = data[blockIdx.x * BLOCK + threadIdx.x];
    if (threadIdx.x < 16) {
        buf[threadIdx.x] *= 2;
        __syncthreads(); // EXPECT(SYNC001): barrier under threadIdx.x < 16
        data[blockIdx.x * BLOCK + threadIdx.x] = buf[threadIdx.x];
    }
}

// ptxlint-block: 256x1
// Bounds-check `return` before a barrier: threads past n exit, the rest wait at the barrier (buggy).
__global__ void earlyExitBarrier(const float *in, float *out, int n)
{
    __shared__ float buf[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    buf[threadIdx.x] = in[i];
    __syncthreads(); // EXPECT(SYNC002): barrier after thread-dependent return (i >= n)
    int r = (threadIdx.x + 1) % BLOCK;
    out[i] = buf[threadIdx.x] + buf[r];
}
