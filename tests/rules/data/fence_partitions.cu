// FENCE on kernels that take partition indices from a counter, spin with a time-out, or keep the
// flag in the same buffer as the data. Each kernel is launched by main() below (launch discovery
// gives its block shape). Compiled with: nvcc -ptx -lineinfo -arch=sm_90 fence_partitions.cu
#define TILE 256

// A single-pass scan: each block takes the next partition from `next`, reads and scans its own
// partition, publishes its total (flag and value in one word, fenced), adds the predecessor's
// total and writes its partition back in place. The partition it reads is written only by itself,
// after it took the index: the counter hands over no data.
extern "C" __global__ void ok_scan_own_partition_after_taking_its_index(unsigned *data, volatile unsigned *totals,
                                                                         unsigned *next) {
  __shared__ unsigned part_s, sums[TILE];
  if (threadIdx.x == 0)
    part_s = atomicAdd(next, 1u);
  __syncthreads();
  unsigned part = part_s;
  unsigned v = part < gridDim.x - 1 ? data[part * TILE + threadIdx.x] : 0u;
  sums[threadIdx.x] = v;
  __syncthreads();
  for (unsigned d = 1; d < TILE; d *= 2) {
    unsigned add = threadIdx.x >= d ? sums[threadIdx.x - d] : 0u;
    __syncthreads();
    sums[threadIdx.x] += add;
    __syncthreads();
  }
  __shared__ unsigned before;
  if (threadIdx.x == 0) {
    __threadfence();
    atomicExch((unsigned *)&totals[part], (sums[TILE - 1] << 1) | 1u);
    unsigned prev = 0;
    if (part > 0) {
      unsigned word;
      while (((word = totals[part - 1]) & 1u) == 0) {
      }
      __threadfence();
      prev = word >> 1;
    }
    before = prev;
  }
  __syncthreads();
  if (part < gridDim.x - 1)
    data[part * TILE + threadIdx.x] = sums[threadIdx.x] + before;
}

// The predecessor's flag is polled a bounded number of times; on a time-out the block reduces the
// predecessor's input itself. That input is written back only at the very end, after every flag of
// the kernel is published: the flag hands over nothing the fallback reads.
extern "C" __global__ void ok_fallback_reads_input_after_a_timed_out_spin(unsigned *data, volatile unsigned *flags) {
  __shared__ unsigned ready, red[TILE];
  unsigned part = blockIdx.x;
  if (threadIdx.x == 0) {
    unsigned spins = 0;
    ready = 0;
    if (part > 0)
      while (spins < 1000 && !(ready = flags[part - 1]))
        ++spins;
  }
  __syncthreads();
  unsigned x = data[part * TILE + threadIdx.x];
  if (part > 0 && !ready)
    x += data[(part - 1) * TILE + threadIdx.x];
  red[threadIdx.x] = x;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicExch((unsigned *)&flags[part], 1u);
  }
  data[part * TILE + threadIdx.x] = red[(threadIdx.x + 1) % TILE];
}

// bad: blocks accumulate into sums[0..n) with atomicAdd and take a ticket from sums[n], in the same
// buffer, with no __threadfence() on either side; the last block reads the sums.
extern "C" __global__ void bad_last_block_reads_atomic_sums_beside_the_counter(const float *in, float *sums,
                                                                              float *out, int n) {
  __shared__ unsigned ticket;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    atomicAdd(&sums[i], in[blockIdx.x * n + i]);
  __syncthreads();
  if (threadIdx.x == 0)
    ticket = atomicAdd((unsigned *)(sums + n), 1u);  // EXPECT FENCE001
  __syncthreads();
  if (ticket == gridDim.x - 1)
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      out[i] = sums[i];  // EXPECT FENCE002
}

int main() {
  unsigned *u, *t, *c;
  float *f, *g;
  cudaMalloc(&u, (1 << 20) * sizeof(unsigned));
  cudaMalloc(&t, 4096 * sizeof(unsigned));
  cudaMalloc(&c, sizeof(unsigned));
  cudaMalloc(&f, (1 << 20) * sizeof(float));
  cudaMalloc(&g, 4096 * sizeof(float));
  ok_scan_own_partition_after_taking_its_index<<<64, TILE>>>(u, t, c);
  ok_fallback_reads_input_after_a_timed_out_spin<<<64, TILE>>>(u, t);
  bad_last_block_reads_atomic_sums_beside_the_counter<<<64, 128>>>(f, g, g + 2048, 1024);
  cudaDeviceSynchronize();
  return 0;
}
