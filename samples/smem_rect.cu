// Rectangular 32x16 shared tile (16 rows of 32 ints) read back transposed.
// Meant for a 32x16 block: warp w holds idx 32w..32w+31.
#define BDIMX 32
#define BDIMY 16
#define IPAD 2

// ptxlint-block: 32x16
// Row write, transposed read tile[idx%16][idx/16]: address icol*32+irow uses only 2 banks -> 16-way (buggy: slow).
__global__ void setRowReadColRect(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int irow = idx / BDIMY;
    unsigned int icol = idx % BDIMY;
    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();
    out[idx] = tile[icol][irow]; // EXPECT(BANK001): transposed read of a [16][32] int tile: 16-way
}

// ptxlint-block: 32x16
// Same with 2 words of padding per row: bank (2*icol+irow)%32 is distinct per lane (correct).
__global__ void setRowReadColRectPad(int *out)
{
    __shared__ int tile[BDIMY][BDIMX + IPAD];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int irow = idx / BDIMY;
    unsigned int icol = idx % BDIMY;
    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();
    out[idx] = tile[icol][irow];
}
