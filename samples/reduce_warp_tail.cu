// Unrolled reductions whose last 6 steps run inside one warp (templated on the block size).
// Meant for 1D blocks of blockSize (>= 64) threads.

// ptxlint-block: 256x1
// Classic volatile warp tail with no __syncwarp: relies on implicit warp-synchronous
// execution, which independent thread scheduling (sm_70+) does not guarantee (buggy).
template <unsigned int blockSize>
__global__ void reduceUnrollWarp(const float *in, float *out, unsigned int n)
{
    __shared__ float sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    float sum = (i < n) ? in[i] : 0.0f;
    if (i + blockSize < n)
        sum += in[i + blockSize];
    sdata[tid] = sum;
    __syncthreads();
#pragma unroll
    for (unsigned int s = blockSize / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile float *vs = sdata;
        vs[tid] += vs[tid + 32]; // EXPECT(WARP001@reduceUnrollWarp<256>): volatile warp-synchronous tail without __syncwarp
        vs[tid] += vs[tid + 16];
        vs[tid] += vs[tid + 8];
        vs[tid] += vs[tid + 4];
        vs[tid] += vs[tid + 2];
        vs[tid] += vs[tid + 1];
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// ptxlint-block: 256x1
// Same tail made safe: read into a register, __syncwarp, write, __syncwarp (correct).
template <unsigned int blockSize>
__global__ void reduceSyncwarp(const float *in, float *out, unsigned int n)
{
    __shared__ float sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    float sum = (i < n) ? in[i] : 0.0f;
    if (i + blockSize < n)
        sum += in[i + blockSize];
    sdata[tid] = sum;
    __syncthreads();
#pragma unroll
    for (unsigned int s = blockSize / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float v = sdata[tid] + sdata[tid + 32];
        __syncwarp();
        for (int off = 16; off > 0; off >>= 1) {
            sdata[tid] = v;
            __syncwarp();
            v += sdata[tid + off];
            __syncwarp();
        }
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

template __global__ void reduceUnrollWarp<256>(const float *, float *, unsigned int);
template __global__ void reduceSyncwarp<256>(const float *, float *, unsigned int);
