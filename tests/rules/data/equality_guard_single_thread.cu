// A guard that compares a thread's global index with one value (`if (i == n)`) admits one thread
// of the whole grid, also when the index is widened to 64 bits (`const uint64_t i = blockIdx.x *
// blockDim.x + threadIdx.x`, a zero extension, which keeps distinct indices distinct): the store
// under it has no second writer, even when nvcc replaces i by n in its address. A range guard
// (`i + 2 > n`) admits two threads, which store one address with different values.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 equality_guard_single_thread.cu
#include <cstdint>

extern "C" __global__ void ok_extra_slot_written_once(uint64_t n, const unsigned *first, const unsigned *index,
                                                       unsigned *out) {
  const uint64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n + 1) return;
  if (i == n) {
    out[index[i]] = first[i];
  } else if (first[i] != first[i + 1]) {
    out[index[i] + 1] = first[i];
  }
}

extern "C" __global__ void ok_last_row_flag(int n, int *done) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n - 1) done[0] = i;
}

extern "C" __global__ void bad_last_two_write_one_slot(uint64_t n, const unsigned *first, unsigned *out) {
  const uint64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n + 1) return;
  if (i + 2 > n) out[0] = first[i];  // EXPECT RACE003
}

int main() {
  unsigned *p;
  cudaMalloc(&p, 1 << 22);
  ok_extra_slot_written_once<<<64, 128>>>(4000, p, p + 8192, p + 16384);
  ok_last_row_flag<<<64, 128>>>(4000, (int *)p);
  bad_last_two_write_one_slot<<<64, 128>>>(4000, p, p + 16384);
  return 0;
}
