// A kernel argument the launch computes from its own grid and block holds whatever their run-time
// values: `k<<<blocks, threads>>>(blocks * threads)` passes the launch's thread count (with a block
// of `threads << 3`, an eighth of it), so `if (((blockIdx.x * blockDim.x + threadIdx.x) >> 3) >=
// total) return;` is never taken; a chunk offset stepped by `blocks * threads` from 0 is a multiple
// of the block, so lanes that return after `start + global index` is tested per quad return whole
// quads and a width-4 shuffle reads no returned lane; a grid of n / 32 blocks of 128 threads
// launches at most 4n threads, so `i >= 4 * n` is never true. An offset read at run time, an
// argument that is only the grid, or a bound of 2n keep their findings.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 launch_relative_arguments.cu
#include <cstdlib>

extern "C" __global__ void ok_chunk_offset_quads(unsigned start, const unsigned *in, unsigned *out, unsigned quads) {
  unsigned node = start + blockIdx.x * blockDim.x + threadIdx.x;
  if ((node >> 2) >= quads) return;
  unsigned v = in[node];
  v += __shfl_sync(0xffffffff, v, 0, 4);
  out[node] = v;
}

extern "C" __global__ void ok_chunk_offset_quad_index(unsigned start, const unsigned *in, unsigned *out, unsigned n) {
  // Ethash's DAG form: (node >> 1) & ~1 is one value per four consecutive nodes
  unsigned node = start + blockIdx.x * blockDim.x + threadIdx.x;
  if (((node >> 1) & ~1u) >= n) return;
  unsigned v = in[node];
  v += __shfl_sync(0xffffffff, v, 0, 4);
  out[node] = v;
}

extern "C" __global__ void bad_run_time_offset_quads(unsigned start, const unsigned *in, unsigned *out, unsigned quads) {
  unsigned node = start + blockIdx.x * blockDim.x + threadIdx.x;
  if ((node >> 2) >= quads) return;
  unsigned v = in[node];
  v += __shfl_sync(0xffffffff, v, 0, 4);  // EXPECT SHFL001
  out[node] = v;
}

extern "C" __global__ void ok_launch_thread_count(int total, const int *in, int *out) {
  __shared__ int s[1024];
  int item = (blockDim.x * blockIdx.x + threadIdx.x) >> 3;
  if (item >= total) return;
  s[threadIdx.x] = in[item];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x ^ 1];
}

extern "C" __global__ void bad_grid_count_only(int total, const int *in, int *out) {
  __shared__ int s[1024];
  int item = (blockDim.x * blockIdx.x + threadIdx.x) >> 3;
  if (item >= total) return;
  s[threadIdx.x] = in[item];
  __syncthreads();  // EXPECT SYNC002
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x ^ 1];
}

extern "C" __global__ void ok_scaled_floor_grid(const float *x, float *y, unsigned n) {
  __shared__ float s[128];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 4 * n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();
  y[i] = s[127 - threadIdx.x];
}

extern "C" __global__ void bad_half_scaled_floor_grid(const float *x, float *y, unsigned n) {
  __shared__ float s[128];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 2 * n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();  // EXPECT SYNC002
  y[i] = s[127 - threadIdx.x];
}

struct Device { int blocks; int threads; };

void generate(unsigned blocks, unsigned threads, unsigned work, const unsigned *in, unsigned *out) {
  const unsigned run = blocks * threads;
  unsigned base;
  for (base = 0; base + run <= work; base += run)
    ok_chunk_offset_quads<<<blocks, threads>>>(base, in, out, work / 4);
  for (base = 0; base + run <= work; base += run)
    ok_chunk_offset_quad_index<<<blocks, threads>>>(base, in, out, work / 2);
}

void resume(unsigned blocks, unsigned threads, unsigned first, unsigned work, const unsigned *in, unsigned *out) {
  for (unsigned base = first; base < work; base += blocks * threads)
    bad_run_time_offset_quads<<<blocks, threads>>>(base, in, out, work / 4);
}

void hash(const Device *dev, const int *in, int *out) {
  dim3 grid(dev->blocks);
  dim3 block8(dev->threads << 3);
  ok_launch_thread_count<<<grid, block8>>>(dev->blocks * dev->threads, in, out);
  bad_grid_count_only<<<grid, block8>>>(dev->blocks, in, out);
}

int main() {
  const char *env = getenv("N");
  unsigned n = env ? atoi(env) : 0;  // a run-time value with no known factor
  float *p;
  cudaMalloc(&p, 1 << 26);
  ok_scaled_floor_grid<<<n / 32, 128>>>(p, p + (1 << 22), n);
  bad_half_scaled_floor_grid<<<n / 32, 128>>>(p, p + (1 << 22), n);
  Device dev{(int)n, 32};
  hash(&dev, (int *)p, (int *)p + (1 << 22));
  generate(n, 256, 1 << 20, (unsigned *)p, (unsigned *)p + (1 << 22));
  resume(n, 256, n, 1 << 20, (unsigned *)p, (unsigned *)p + (1 << 22));
  return 0;
}
