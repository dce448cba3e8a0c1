// A kernel's own assert() or trap on a value every thread shares (a kernel parameter, the block
// size) holds for the rest of the launch: a launch that breaks it aborts at the check, so no thread
// goes on with another value. `assert(n <= 32)` bounds n the way a min(n, 32) would.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 assert_bounds.cu -o assert_bounds.sm_90.ptx
#include <cassert>

struct Tables {
  int head[32];
  int tail[32];
};

// ok: thread t < n fills head[t]; with n <= 32 no thread writes past head into tail, which the first
// 32 threads fill at the same time (TensorRT's PerClassNMS_kernel: assert(NClass + 1 < MaxClassNum)).
extern "C" __global__ void ok_assert_bounds_the_count(const int *in, int *out, int n) {
  __shared__ Tables t;
  int tid = threadIdx.x;
  assert(n <= 32);
  if (tid < n) t.head[tid] = in[tid];
  if (threadIdx.x < 32) t.tail[threadIdx.x] = in[32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = t.head[threadIdx.x % 32] + t.tail[threadIdx.x % 32];
}

// ok: the same bound from a trap, written as a check on n + 1.
extern "C" __global__ void ok_trap_bounds_the_count(const int *in, int *out, int n) {
  __shared__ Tables t;
  int tid = threadIdx.x;
  if (n + 1 > 33) __trap();
  if (tid < n) t.head[tid] = in[tid];
  if (threadIdx.x < 32) t.tail[threadIdx.x] = in[32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = t.head[threadIdx.x % 32] + t.tail[threadIdx.x % 32];
}

// bad: the assert allows n up to 64, so thread 32 + j writes head[32 + j], which is tail[j], while
// thread j writes tail[j].
extern "C" __global__ void bad_assert_too_loose(const int *in, int *out, int n) {
  __shared__ Tables t;
  int tid = threadIdx.x;
  assert(n <= 64);
  if (tid < n) t.head[tid] = in[tid];
  if (threadIdx.x < 32) t.tail[threadIdx.x] = in[32 + threadIdx.x];  // EXPECT RACE001
  __syncthreads();
  out[threadIdx.x] = t.head[threadIdx.x % 32] + t.tail[threadIdx.x % 32];
}

// bad: the check is made by thread 0 only, after the stores: the others have stored already
// (a check that not every thread passes before the access says nothing there).
extern "C" __global__ void bad_check_after_the_stores(const int *in, int *out, int n) {
  __shared__ Tables t;
  int tid = threadIdx.x;
  if (tid < n) t.head[tid] = in[tid];
  if (threadIdx.x < 32) t.tail[threadIdx.x] = in[32 + threadIdx.x];  // EXPECT RACE001
  if (threadIdx.x == 0) assert(n <= 32);
  __syncthreads();
  out[threadIdx.x] = t.head[threadIdx.x % 32] + t.tail[threadIdx.x % 32];
}

// ok: `assert(n >= 0 && n <= 32)` (one unsigned comparison in nvcc's code) bounds n for an unsigned
// test `threadIdx.x < n` as well as for a signed one.
extern "C" __global__ void ok_assert_bounds_both_ways(const int *in, int *out, int n) {
  __shared__ Tables t;
  assert(n >= 0 && n <= 32);
  if (threadIdx.x < n) t.head[threadIdx.x] = in[threadIdx.x];
  if ((int)threadIdx.x < n) t.head[threadIdx.x] += 1;
  if (threadIdx.x < 32) t.tail[threadIdx.x] = in[32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = t.head[threadIdx.x % 32] + t.tail[threadIdx.x % 32];
}

// bad: `assert(n <= 32)` alone does not bound an unsigned test: a negative n reads as a huge count,
// and every thread stores to head.
extern "C" __global__ void bad_signed_bound_unsigned_test(const int *in, int *out, int n) {
  __shared__ Tables t;
  assert(n <= 32);
  if (threadIdx.x < n) t.head[threadIdx.x] = in[threadIdx.x];
  if (threadIdx.x < 32) t.tail[threadIdx.x] = in[32 + threadIdx.x];  // EXPECT RACE001
  __syncthreads();
  out[threadIdx.x] = t.head[threadIdx.x % 32] + t.tail[threadIdx.x % 32];
}
