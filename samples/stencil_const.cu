// 1D 9-point stencil: shared-memory halo plus coefficients in __constant__ memory.
// Meant for 1D blocks of 256 threads; n must be a multiple of 256.
#define RADIUS 4
#define BLOCK 256

__constant__ float c_coef[RADIUS + 1];

// ptxlint-block: 256x1
// Every lane reads c_coef[k] with the same k (unrolled loop) -> uniform constant access;
// halo loaded by the first RADIUS lanes, barrier outside the branch (correct).
__global__ void stencil1d(const float *in, float *out, int n)
{
    __shared__ float smem[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int s = threadIdx.x + RADIUS;
    smem[s] = in[g];
    if (threadIdx.x < RADIUS) {
        smem[s - RADIUS] = (g >= RADIUS) ? in[g - RADIUS] : 0.0f;
        smem[s + BLOCK] = (g + BLOCK < n) ? in[g + BLOCK] : 0.0f;
    }
    __syncthreads();
    float acc = c_coef[0] * smem[s];
#pragma unroll
    for (int k = 1; k <= RADIUS; k++)
        acc += c_coef[k] * (smem[s + k] + smem[s - k]);
    out[g] = acc;
}

// ptxlint-block: 256x1
// Runtime radius (uniform kernel argument) still indexes constant memory uniformly (correct).
__global__ void stencil1dRuntime(const float *in, float *out, int n, int radius)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < radius || g >= n - radius)
        return;
    float acc = c_coef[0] * in[g];
    for (int k = 1; k <= radius; k++)
        acc += c_coef[k] * (in[g + k] + in[g - k]);
    out[g] = acc;
}
