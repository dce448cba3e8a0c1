// Shared-memory row vs column access on a 32x32 int tile.
// Meant for a 32x32 block: each warp is one threadIdx.y, its lanes are threadIdx.x 0..31.
#define BDIMX 32
#define BDIMY 32

// ptxlint-block: 32x32
// Row write, row read: each warp touches 32 consecutive words -> conflict-free (correct).
__global__ void setRowReadRow(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();
    out[idx] = tile[threadIdx.y][threadIdx.x];
}

// ptxlint-block: 32x32
// Row write, column read: the read strides by 32 words -> 32-way bank conflict (buggy: slow).
__global__ void setRowReadCol(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();
    out[idx] = tile[threadIdx.x][threadIdx.y]; // EXPECT(BANK001): column read of a 32x32 int tile: 32-way
}

// ptxlint-block: 32x32
// Column write, column read: store and load both stride by 32 words -> 32-way (buggy: slow).
__global__ void setColReadCol(int *out)
{
    __shared__ int tile[BDIMX][BDIMY];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    tile[threadIdx.x][threadIdx.y] = idx; // EXPECT(BANK001): column write of a 32x32 int tile: 32-way
    __syncthreads();
    out[idx] = tile[threadIdx.x][threadIdx.y]; // EXPECT(BANK001): column read of a 32x32 int tile: 32-way
}

// ptxlint-block: 32x32
// Row write, column read of a 32x32 double tile: 8-byte words, 256-byte stride -> 16-way per half-warp
// (32 wavefronts vs the ideal 2) (buggy: slow).
__global__ void setRowReadColDouble(double *out)
{
    __shared__ double tile[BDIMY][BDIMX];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = (double)idx;
    __syncthreads();
    out[idx] = tile[threadIdx.x][threadIdx.y]; // EXPECT(BANK001): column read of a 32x32 double tile: 32 wavefronts vs ideal 2
}
