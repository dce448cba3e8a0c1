// Matrix transpose through a 32x32 shared tile, 32x8 threads per tile (each thread moves 4 elements).
// Meant for a 32x8 block: each warp is one threadIdx.y, lanes = threadIdx.x.
#define TILE_DIM 32
#define BLOCK_ROWS 8

// ptxlint-block: 32x8
// Naive transpose: no shared memory, uncoalesced global writes (correct, just slow on DRAM).
__global__ void transposeNaive(float *odata, const float *idata, int width, int height)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            odata[x * height + (y + j)] = idata[(y + j) * width + x]; // EXPECT(COAL001): the store: lanes `height` floats apart, 32 sectors per request
}

// ptxlint-block: 32x8
// Shared tile without padding: the transposed read tile[threadIdx.x][..] is a column -> 32-way (buggy: slow).
__global__ void transposeSmem(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j]; // EXPECT(BANK001): column read of a 32x32 float tile: 32-way
}

// ptxlint-block: 32x8
// Shared tile padded to [32][33]: the column read spreads over all banks (correct).
__global__ void transposeSmemPad(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
