// Local memory is each thread's own: two threads loading one local address read what each of them
// stored there. A grid-stride iterator kept in a local struct (`it.index = start; it.index +=
// step`, indexed at run time so that nvcc keeps it in local memory) holds a different row in every
// thread, so `counts[it.index] += 1` by many threads touches many words. Where every local store
// writes a value the whole block shares (kernel arguments, constants, blockIdx), the threads of a
// block do read one value, and a store through it by every thread is still a race.
// (A load is matched with the stores of its own stack slot: tests/analysis/test_private_memory.py.)
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 private_memory_values.cu -o private_memory_values.sm_90.ptx

struct RowCursor {
  long index[4];
  long step;
};

__device__ __noinline__ void advance(RowCursor &c, int which) { c.index[which] += c.step; }

// ok: HeavyDB's row counter: each thread's cursor starts at its own row of a grid-stride slice.
extern "C" __global__ void ok_private_cursor(int *counts, const int *keys, int which, long n) {
  RowCursor c;
  for (int k = 0; k < 4; ++k) c.index[k] = threadIdx.x + (long)blockIdx.x * blockDim.x + k * n;
  c.step = (long)blockDim.x * gridDim.x;
  for (int round = 0; round < keys[0]; ++round) {
    counts[c.index[which & 3]] += 1;
    advance(c, which & 3);
  }
}

// ok: the cursor's rows come from a per-thread value loaded through the thread's index.
extern "C" __global__ void ok_private_loaded_rows(int *counts, const long *rows, int which) {
  long picked[4];
  for (int k = 0; k < 4; ++k) picked[k] = rows[4 * (threadIdx.x + blockIdx.x * blockDim.x) + k];
  counts[picked[which & 3]] += 1;
}

// bad: every local slot holds a kernel argument: every thread reads one row and increments it.
extern "C" __global__ void bad_shared_row_in_private_array(int *counts, long base, int which) {
  long rows[4];
  for (int k = 0; k < 4; ++k) rows[k] = base + k;
  counts[rows[which & 3]] += 1;  // EXPECT RACE003
}

// bad: the slots hold the block's row: the threads of one block all increment it.
extern "C" __global__ void bad_block_row_in_private_array(int *counts, int which) {
  long rows[4];
  for (int k = 0; k < 4; ++k) rows[k] = 4L * blockIdx.x + k;
  counts[rows[which & 3]] += 1;  // EXPECT RACE003
}

#include <cstdlib>

int main(int argc, char **argv) {
  int *counts, *keys;
  long *rows;
  cudaMalloc(&counts, 1 << 24);
  cudaMalloc(&keys, 64);
  cudaMalloc(&rows, 1 << 20);
  int which = atoi(argv[1]);
  ok_private_cursor<<<8, 256>>>(counts, keys, which, 1 << 16);
  ok_private_loaded_rows<<<8, 256>>>(counts, rows, which);
  bad_shared_row_in_private_array<<<8, 256>>>(counts, 7, which);
  bad_block_row_in_private_array<<<8, 256>>>(counts, which);
  cudaDeviceSynchronize();
  return 0;
}
