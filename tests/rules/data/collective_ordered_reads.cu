// A lane's read of shared memory is over once a full-mask warp collective has taken the value it
// returned: no lane passes `__shfl_xor_sync(0xffffffff, v, o)` before every lane has executed it,
// and each lane's `v` is what its read returned. A write that every lane reaches only through that
// collective therefore comes after every lane's read (as after `__syncwarp()`): lane 0 storing the
// warp's total over the word lane 1 read is no race. When the collective reduces some other value,
// the read may still be in flight when lane 0 writes. The same holds for a row of global memory.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 collective_ordered_reads.cu

extern "C" __global__ void ok_total_over_read_words(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x & 31;
  s[lane] = in[blockIdx.x * 32 + lane];
  __syncwarp();
  int v = s[lane];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if (lane == 0) s[1] = v;
  __syncwarp();
  out[blockIdx.x * 32 + lane] = s[lane];
}

extern "C" __global__ void bad_total_over_unread_words(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x & 31;
  s[lane] = in[blockIdx.x * 32 + lane];
  __syncwarp();
  int v = s[lane];
  int w = lane;
  for (int o = 16; o > 0; o >>= 1) w += __shfl_xor_sync(0xffffffff, w, o);
  if (lane == 0) s[1] = w;  // EXPECT WARP001
  __syncwarp();
  out[blockIdx.x * 32 + lane] = s[lane] + v;
}

extern "C" __global__ void ok_global_total_over_read_words(int *cells) {
  int lane = threadIdx.x & 31;
  int *row = cells + (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32;
  int v = row[lane];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if (lane == 0) row[1] = v;
}

extern "C" __global__ void bad_global_total_over_unread_words(int *cells, int *out) {
  int lane = threadIdx.x & 31;
  int *row = cells + (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32;
  int v = row[lane];
  int w = lane;
  for (int o = 16; o > 0; o >>= 1) w += __shfl_xor_sync(0xffffffff, w, o);
  if (lane == 0) row[1] = w;  // EXPECT WARP001
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

int main() {
  int *d;
  cudaMalloc(&d, 1 << 20);
  ok_total_over_read_words<<<64, 32>>>(d, d + 4096);
  bad_total_over_unread_words<<<64, 32>>>(d, d + 4096);
  ok_global_total_over_read_words<<<64, 256>>>(d);
  bad_global_total_over_unread_words<<<64, 256>>>(d, d + 65536);
  return 0;
}
