#include "tiles/config.cuh"

__global__ void transposeTile(float *out, const float *in) {
    __shared__ float tile[TILE_DIM][TILE_DIM];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * kTile + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * kTile + threadIdx.x] = column_of(tile, threadIdx.y, threadIdx.x);
}

void launchTranspose(float *out, const float *in) {
    transposeTile<<<1, dim3(TILE_DIM, TILE_DIM)>>>(out, in);
}
