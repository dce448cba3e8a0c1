// A kernel that forms its index as `blockIdx.x * K + threadIdx.x` with a constant K and never reads
// blockDim.x is written for blocks of K threads in x: in a wider block thread K would take the index
// of the next block's thread 0. With no launch found, such wider shapes are not admitted and K is
// tried instead, so an update of each thread's own element is no race across blocks; an update that
// reaches the next thread's element is one under K too. A kernel that also reads blockDim.x keeps
// every candidate.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 block_stride_index.cu -o block_stride_index.sm_90.ptx
#define PATTERN_BLOCK 16
#define ROW_BLOCK 48

// ok: each thread adds to its own pattern's total (BEAGLE's factor accumulation, launched elsewhere
// with PATTERN_BLOCK threads).
extern "C" __global__ void ok_own_element_update(float *totals, const float *factors, int count) {
  int pattern = threadIdx.x + blockIdx.x * PATTERN_BLOCK;
  if (pattern < count)
    totals[pattern] += factors[pattern];
}

// ok: a stride that is no power of two (a multiply-add), each thread updating its own element.
extern "C" __global__ void ok_stride48_update(float *c, const float *a) {
  int i = blockIdx.x * ROW_BLOCK + threadIdx.x;
  c[i] += a[i];
}

// bad: the update reads the next pattern's total, which the next thread (the next block's first
// thread at the block's end) writes: a race at the kernel's own stride.
extern "C" __global__ void bad_next_element_update(float *totals, int count) {
  int pattern = threadIdx.x + blockIdx.x * PATTERN_BLOCK;
  if (pattern + 1 < count)
    totals[pattern] += totals[pattern + 1];  // EXPECT RACE003
}

// bad: the kernel also reads blockDim.x, so its stride is not its block: a block wider than 16 makes
// two blocks update one total.
extern "C" __global__ void bad_stride_beside_block_dim(float *totals, const float *factors, int count) {
  int pattern = threadIdx.x + blockIdx.x * PATTERN_BLOCK;
  if (pattern < count && threadIdx.x < blockDim.x)
    totals[pattern] += factors[pattern];  // EXPECT RACE003
}

int main(int argc, char **argv) {
  float *p;
  cudaMalloc(&p, 1 << 20);
  int threads = argc > 1 ? atoi(argv[1]) : 0;  // no compile-time block: the launches are unknown
  ok_own_element_update<<<64, threads>>>(p, p + 4096, 1000);
  ok_stride48_update<<<16, threads>>>(p, p + 4096);
  bad_next_element_update<<<64, threads>>>(p, 1000);
  bad_stride_beside_block_dim<<<64, threads>>>(p, p + 4096, 1000);
  cudaDeviceSynchronize();
  return 0;
}
