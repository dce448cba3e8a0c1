// Padding a 32x32 shared tile to remove column-access bank conflicts.
// Meant for a 32x32 block (warp = one threadIdx.y, lanes = threadIdx.x).
#define BDIMX 32
#define BDIMY 32

// ptxlint-block: 32x32
// [32][33]: column read address x*33+y -> bank (x+y)%32, all distinct -> conflict-free (correct).
__global__ void setRowReadColPad(int *out)
{
    __shared__ int tile[BDIMY][BDIMX + 1];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();
    out[idx] = tile[threadIdx.x][threadIdx.y];
}

// ptxlint-block: 32x32
// [32][33] with column write and column read: both conflict-free thanks to the pad (correct).
__global__ void setColReadColPad(int *out)
{
    __shared__ int tile[BDIMX][BDIMY + 1];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    tile[threadIdx.x][threadIdx.y] = idx;
    __syncthreads();
    out[idx] = tile[threadIdx.x][threadIdx.y];
}

// ptxlint-block: 32x32
// [32][34]: an even pad only halves the problem: bank (2x+y)%32 -> 2-way conflict (buggy: slow).
__global__ void setRowReadColPad2(int *out)
{
    __shared__ int tile[BDIMY][BDIMX + 2];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();
    out[idx] = tile[threadIdx.x][threadIdx.y]; // EXPECT(BANK001): column read of a [32][34] int tile: 2-way
}
