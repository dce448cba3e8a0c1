// Not a translation unit: src/unity.cu #includes it (a unity build); compiled alone it has no TILE_DIM.
__global__ void reduceTile(const float *in, float *out) {
    __shared__ float partial[TILE_DIM * 8];
    partial[threadIdx.x] = in[threadIdx.x];
    // no __syncthreads(): threads read what other warps wrote
    out[threadIdx.x] = partial[threadIdx.x] + partial[(threadIdx.x + 32) % (TILE_DIM * 8)];
}
