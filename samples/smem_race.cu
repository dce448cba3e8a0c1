// Neighbour exchange through shared memory: missing vs present barrier.
// Meant for 1D blocks of 256 threads.
#define BLOCK 256

// ptxlint-block: 256x1
// Each thread reads the word written by its right neighbour (possibly in another warp)
// with no __syncthreads in between (buggy: shared-memory race).
__global__ void shiftNoSync(const int *in, int *out)
{
    __shared__ int buf[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    buf[threadIdx.x] = in[i];
    out[i] = buf[(threadIdx.x + 1) % BLOCK]; // EXPECT(RACE001): reads neighbour's store without a barrier
}

// ptxlint-block: 256x1
// Same exchange with the barrier, then a second barrier before the buffer is reused (correct).
__global__ void shiftSync(const int *in, int *out, int iters)
{
    __shared__ int buf[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int v = in[i];
    for (int it = 0; it < iters; it++) {
        buf[threadIdx.x] = v;
        __syncthreads();
        v = buf[(threadIdx.x + 1) % BLOCK];
        __syncthreads();
    }
    out[i] = v;
}
