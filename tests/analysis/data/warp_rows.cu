// Kernels bounded by __launch_bounds__(128), which nvcc emits as `.maxntid 128, 1, 1`: the bound is on
// the number of threads, not on each dimension, so a warp-per-row block of 32x4 is allowed.
// No launch in this file: ptxlint checks them under candidate shapes.

// ok: one warp per row (threadIdx.y), a lane per column (threadIdx.x < 32 in a 32xN block): every
// thread writes its own element. Two threads collide only in a block wider than 32 in x, a shape
// this kernel is not written for.
__global__ void __launch_bounds__(128) warpRows(float *out, const float *in)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    out[row * 32 + (threadIdx.x & 31)] = in[row * 32 + threadIdx.x] * 2.0f;
}

// bad: every thread of a row writes the row's one element with its own value, whatever the shape
__global__ void __launch_bounds__(128) warpRowsOneSlot(float *out, const float *in)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    out[row] = in[row * 32 + threadIdx.x]; // EXPECT RACE003
}

// conditional: a lane per element of a 32-wide row, blockDim.x never read and no barrier: written for
// one warp in x. In a wider block threads tid and tid + 32 write one element: reported with that
// condition, as a warning.
__global__ void oneWarpLanes(float *out, const float *in)
{
    out[blockIdx.x * 32 + (threadIdx.x & 31)] = in[blockIdx.x * 64 + threadIdx.x]; // EXPECT RACE003
}

// bad: the same collision in a kernel that sizes its rows by blockDim.x, so it is written for wider
// blocks: an error with no condition
__global__ void blockLanes(float *out, const float *in)
{
    out[blockIdx.x * blockDim.x + (threadIdx.x & 31)] = in[blockIdx.x * blockDim.x + threadIdx.x]; // EXPECT RACE003
}
