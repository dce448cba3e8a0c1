// BANK001 fix hints in the declaration's own shape (tests/rules/test_bank_fix_hints.py gives each
// kernel its block). Each kernel says what the bank model finds for it.

// block 16x1: each warp is one column of the tile; [16][17] makes it conflict-free (8-way now).
__global__ void column_16x16(float *out, const float *in, int k) {
    __shared__ float As[16][16];
    As[threadIdx.x][k] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = As[threadIdx.x][(k + 1) % 16];
}

// block 16x16: each warp spans two rows, so [16][17] leaves the column read 2-way (measured on an
// H100, validation/bank: "[16][17] = 2"); [16][18] is conflict-free for the read.
__global__ void column_16x17(float *out, const float *in) {
    __shared__ float As[16][17];
    As[threadIdx.y][threadIdx.x] = in[threadIdx.y * 16 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 16 + threadIdx.x] = As[threadIdx.x][threadIdx.y];
}

// block 16x16, near miss of the above: a tile padded to 18 has no conflicting read.
__global__ void column_16x18(float *out, const float *in) {
    __shared__ float As[16][18];
    As[threadIdx.y][threadIdx.x] = in[threadIdx.y * 16 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 16 + threadIdx.x] = As[threadIdx.x][threadIdx.y];
}

// block 256: a 1-D array read at a stride of 32 words; its padding lives in the index.
__global__ void strided_1d(float *out, const float *in) {
    __shared__ float sdata[256];
    unsigned t = threadIdx.x;
    sdata[t] = in[t];
    __syncthreads();
    out[t] = sdata[(t * 32) % 256 + t / 8];
}

// block 256: every lane of a warp adds to one word of shared memory: warp aggregation.
__global__ void same_word_atomic(int *out) {
    __shared__ int count[32];
    if (threadIdx.x < 32) count[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&count[threadIdx.x / 32 % 4], 1);
    __syncthreads();
    if (threadIdx.x < 32) out[threadIdx.x] = count[threadIdx.x];
}

// block 256, near miss: each lane adds to its own word: no conflict, nothing to aggregate.
__global__ void own_word_atomic(int *out) {
    __shared__ int count[256];
    count[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&count[threadIdx.x], 1);
    __syncthreads();
    out[threadIdx.x] = count[threadIdx.x];
}

// block 32: four adjacent 32-bit loads from the start of each lane's row, which ptxas merges into
// one LDS.128 (as it does for bank_suite's c19): every lane on banks 0-3, 8 wavefronts per quarter
// warp (32 per warp, ideal 4; c16 measures this pattern at 32).
__global__ void merged_rows(int *out, const int *in) {
    __shared__ __align__(16) int s[32][32];
    unsigned t = threadIdx.x;
    for (int r = 0; r < 32; ++r) s[r][t] = in[r * 32 + t];
    __syncthreads();
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[t][0]);
    int x0, x1, x2, x3;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x0) : "r"(a));
    asm volatile("ld.shared.u32 %0, [%1+4];" : "=r"(x1) : "r"(a));
    asm volatile("ld.shared.u32 %0, [%1+8];" : "=r"(x2) : "r"(a));
    asm volatile("ld.shared.u32 %0, [%1+12];" : "=r"(x3) : "r"(a));
    out[t] = x0 + x1 + x2 + x3;
}

// block 32, near miss: the same four loads at s[4t..4t+3]: the merged load is conflict-free.
__global__ void merged_adjacent(int *out, const int *in) {
    __shared__ __align__(16) int s[32][32];
    unsigned t = threadIdx.x;
    for (int r = 0; r < 32; ++r) s[r][t] = in[r * 32 + t];
    __syncthreads();
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[0][4 * t]);
    int x0, x1, x2, x3;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x0) : "r"(a));
    asm volatile("ld.shared.u32 %0, [%1+4];" : "=r"(x1) : "r"(a));
    asm volatile("ld.shared.u32 %0, [%1+8];" : "=r"(x2) : "r"(a));
    asm volatile("ld.shared.u32 %0, [%1+12];" : "=r"(x3) : "r"(a));
    out[t] = x0 + x1 + x2 + x3;
}
