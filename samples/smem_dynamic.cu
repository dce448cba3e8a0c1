// Dynamic shared memory (extern __shared__) with manually linearised 2D indices.
// Launched as kernel<<<grid, dim3(32, 32), 32 * (32 + pad) * sizeof(int)>>>.
#define IPAD 1

// ptxlint-block: 32x32
// Row write, column read through a flat dynamic buffer: stride blockDim.y words -> 32-way (buggy: slow).
__global__ void setRowReadColDyn(int *out)
{
    extern __shared__ int dyn[];
    unsigned int row_idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int col_idx = threadIdx.x * blockDim.y + threadIdx.y;
    dyn[row_idx] = row_idx;
    __syncthreads();
    out[row_idx] = dyn[col_idx]; // EXPECT(BANK001): column read of a dynamic 32x32 int tile: 32-way
}

// ptxlint-block: 32x32
// Same with one word of padding per row: read address x*33+y -> conflict-free (correct).
__global__ void setRowReadColDynPad(int *out)
{
    extern __shared__ int dyn[];
    unsigned int row_idx = threadIdx.y * (blockDim.x + IPAD) + threadIdx.x;
    unsigned int col_idx = threadIdx.x * (blockDim.x + IPAD) + threadIdx.y;
    unsigned int g_idx = threadIdx.y * blockDim.x + threadIdx.x;
    dyn[row_idx] = g_idx;
    __syncthreads();
    out[g_idx] = dyn[col_idx];
}

// ptxlint-block: 256x1
// 1D dynamic buffer used as a block-local staging area, reversed in place (correct).
__global__ void reverseDyn(float *data, int n)
{
    extern __shared__ float stage[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    if (base + t < n)
        stage[t] = data[base + t];
    __syncthreads();
    int r = blockDim.x - 1 - t;
    if (base + r < n)
        data[base + t] = stage[r];
}
