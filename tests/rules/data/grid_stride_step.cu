// A grid-stride loop written as a range over an iterator (`for (auto i : grid_range(n))`, as ML
// libraries write it) compiles to two copies of the loop: nvcc keeps one for a stride of 0, where a
// thread with work would spin forever. gridDim.x * blockDim.x is never 0 (at least one block of at
// least one thread, and a grid of fewer than 2**31 threads along x, as a 32-bit index assumes), so
// no thread takes that copy and the barrier after the loop is reached by every thread.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 grid_stride_step.cu -o grid_stride_step.sm_90.ptx

struct grid_range {
  unsigned long first, last;
  struct position {
    unsigned long at;
    __device__ unsigned long operator*() const { return at; }
    __device__ position &operator++() {
      at += gridDim.x * blockDim.x;
      return *this;
    }
    __device__ bool operator!=(const position &other) const { return at < other.at; }
  };
  __device__ grid_range(unsigned long begin, unsigned long end) : first(begin), last(end) {}
  __device__ position begin() const { return {first + blockIdx.x * blockDim.x + threadIdx.x}; }
  __device__ position end() const { return {last}; }
};

// ok: one thread of the grid (j == 0 of each row's range) sets the row, then the block meets at the
// barrier and sums its own elements (dlib's `_cuda_inverse_norms`).
extern "C" __global__ void ok_barrier_after_grid_range(const float *in, float *out, unsigned long rows, float eps) {
  __shared__ float partial[1024];
  for (unsigned long r = blockIdx.y; r < rows; r += gridDim.y)
    for (auto j : grid_range(0, 1)) out[r] = eps;
  __syncthreads();
  float sum = 0;
  for (auto i : grid_range(0, rows)) sum += in[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) out[rows + blockIdx.x] = partial[0] + partial[blockDim.x - 1];
}

// bad: the barrier is inside the loop: threads with fewer elements leave it early.
extern "C" __global__ void bad_barrier_inside_grid_range(const float *in, float *out, unsigned long n) {
  __shared__ float partial[1024];
  for (auto i : grid_range(0, n)) {
    partial[threadIdx.x] = in[i];  // EXPECT RACE001
    __syncthreads();  // EXPECT SYNC001
    out[i] = partial[(threadIdx.x + 1) % blockDim.x];
  }
}
