// A trap ends the whole launch: `__trap()` (and a failed `assert()`, which traps) stops every thread
// of the grid, so a thread that takes it has not "left" while the others go on to a barrier or a
// full-mask shuffle; the paths that trap are left out. A thread that returns does leave.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 trap_ends_launch.cu
#include <cassert>

// Thread 0 walks a list into shared memory and traps when it overflows the table, as ACSpGEMM's
// merge kernels do; the block meets at the barrier and scans the table with full-mask shuffles.
extern "C" __global__ void ok_thread_0_traps_on_overflow(const int *next, const int *value, int head, int *out) {
  __shared__ int table[64];
  __shared__ int count;
  if (threadIdx.x == 0) {
    int n = 0;
    for (int node = head; node >= 0; node = next[node]) {
      if (n >= 64) {
        __trap();
        break;
      }
      table[n++] = value[node];
    }
    count = n;
  }
  __syncthreads();
  int v = threadIdx.x < count ? table[threadIdx.x] : 0;
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(0xffffffff, v, d);
    if (threadIdx.x % 32 >= d) v += up;
  }
  out[blockIdx.x * 64 + threadIdx.x] = v;
}

__device__ float activate(float x, int kind) {
  switch (kind) {
    case 0: return x > 0 ? x : 0;
    case 1: return tanhf(x);
    default: __trap();
  }
  return x;
}

// An activation that traps on an unknown kind, called by the threads of a guarded layer (lc0's
// squeeze-excitation layer): the barrier after the guard is reached by every thread that goes on.
extern "C" __global__ void ok_guarded_layer_traps_on_unknown_kind(const float *in, float *out, int k, int kind) {
  __shared__ float hidden[128];
  int c = threadIdx.x;
  if (c < k) hidden[c] = activate(in[blockIdx.x * 128 + c], kind);
  __syncthreads();
  out[blockIdx.x * 128 + c] = hidden[(c + 1) % 128];
}

// An assertion inside a lane-dependent branch, then a barrier for the whole block.
extern "C" __global__ void ok_assert_in_a_branch(const int *in, int *out) {
  __shared__ int s[128];
  int v = in[blockIdx.x * 128 + threadIdx.x];
  if (threadIdx.x < 16) assert(v >= 0);
  s[threadIdx.x] = v;
  __syncthreads();
  out[blockIdx.x * 128 + threadIdx.x] = s[127 - threadIdx.x];
}

// A launch whose every thread fails the kernel's own check traps at once: nothing after the check
// runs (llm.c's layernorm_backward_kernel9, launched with C = 1600 where it checks C % 256 == 0).
// The chunk loop that would split the block for n = 100 never starts.
extern "C" __global__ void ok_launch_fails_the_kernels_check(const float *in, float *out, int n) {
  if (n % 64 != 0) __trap();
  __shared__ float s[64];
  for (int i = 0;; i++) {
    int g = threadIdx.x + i * 64 + (threadIdx.x % 32 >= 16 ? 1 : 0);
    if (g >= n) break;
    s[threadIdx.x] = in[g];
    __syncthreads();
    out[threadIdx.x + i * 64] = s[63 - threadIdx.x];
    __syncthreads();
  }
}

// bad: the same loop without the check, launched with n = 100: lanes 16..31 of the second warp
// leave the loop before lanes 0..15 reach its barriers.
extern "C" __global__ void bad_bound_not_checked(const float *in, float *out, int n) {
  __shared__ float s[64];
  for (int i = 0;; i++) {
    int g = threadIdx.x + i * 64 + (threadIdx.x % 32 >= 16 ? 1 : 0);
    if (g >= n) break;
    s[threadIdx.x] = in[g];
    __syncthreads();  // EXPECT SYNC001
    out[threadIdx.x + i * 64] = s[63 - threadIdx.x];
    __syncthreads();  // EXPECT SYNC001
  }
}

// bad: thread 0 returns (it leaves; the launch goes on) where the first kernel trapped.
extern "C" __global__ void bad_thread_0_returns_on_overflow(const int *next, const int *value, int head, int *out) {
  __shared__ int table[64];
  __shared__ int count;
  if (threadIdx.x == 0) {
    int n = 0;
    for (int node = head; node >= 0; node = next[node]) {
      if (n >= 64) return;
      table[n++] = value[node];
    }
    count = n;
  }
  __syncthreads();  // EXPECT SYNC001
  out[blockIdx.x * 64 + threadIdx.x] = threadIdx.x < count ? table[threadIdx.x] : 0;
}

// bad: a barrier inside a lane-dependent branch is divergent whether or not that branch may trap.
extern "C" __global__ void bad_barrier_inside_a_branch_that_may_trap(const int *in, int *out) {
  __shared__ int s[128];
  int v = in[blockIdx.x * 128 + threadIdx.x];
  if (threadIdx.x < 16) {
    if (v < 0) __trap();
    s[threadIdx.x] = v;
    __syncthreads();  // EXPECT SYNC001
  }
  out[blockIdx.x * 128 + threadIdx.x] = s[threadIdx.x % 16];  // EXPECT RACE001
}

int main() {
  int *p;
  float *f;
  cudaMalloc(&p, 1 << 20);
  cudaMalloc(&f, 1 << 20);
  ok_thread_0_traps_on_overflow<<<8, 64>>>(p, p + 1024, 0, p + 4096);
  ok_guarded_layer_traps_on_unknown_kind<<<8, 128>>>(f, f + 4096, 32, 0);
  ok_assert_in_a_branch<<<8, 128>>>(p, p + 4096);
  ok_launch_fails_the_kernels_check<<<8, 64>>>(f, f + 4096, 100);
  bad_bound_not_checked<<<8, 64>>>(f, f + 4096, 100);
  bad_thread_0_returns_on_overflow<<<8, 64>>>(p, p + 1024, 0, p + 4096);
  bad_barrier_inside_a_branch_that_may_trap<<<8, 128>>>(p, p + 4096);
  return 0;
}
