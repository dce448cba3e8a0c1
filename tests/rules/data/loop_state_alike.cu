// A value a loop updates in a way no step describes stays the same in every thread when every
// thread updates it alike: a list walked with `node = next[node]` (each lane loads the same
// address) or a stack popped under a test of a value every lane read at the same place, also when
// nvcc repeats the update inside `if (threadIdx.x == 0)`. A loop over it bounded by a multiple of
// the warp (`(size + 31) / 32 * 32`) then keeps the warp together at its shuffles. Lanes that walk
// different lists (`next[node + (threadIdx.x & 1)]`) or pop under a lane-dependent test do not.
// (GenomeWorks' Hirschberg-Myers aligner pops its recursion stack so; found in test7's triage,
// built after test7.) Such a value is not known from one iteration to the next: a double buffer
// whose stage flips (`stage ^= 1`) is not taken to write the tile the last iteration read, while a
// single buffer refilled without a barrier after the reads still races. (The flip loop is kept
// rolled: unrolled by nvcc, its copies' stages are still taken for one another.)
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 loop_state_alike.cu
#include <cstdio>

__device__ void scan_row(int *out, int size) {
  int rounded = (size + 31) / 32 * 32;
  for (int i = threadIdx.x; i < rounded; i += 32) {
    int v = i < size ? out[i] : 0;
    v += __shfl_xor_sync(0xffffffff, v, 1);
    if (i < size) out[i] = v;
  }
}

extern "C" __global__ void ok_list_walked_alike(const int *next, const int *sizes, int head, int *out) {
  for (int node = head; node >= 0; node = next[node])
    scan_row(out, sizes[node]);
}

extern "C" __global__ void bad_lists_walked_per_lane(const int *next, const int *sizes, int head, int *out) {
  for (int node = head; node >= 0; node = next[node + (threadIdx.x & 1)]) {
    int size = sizes[node];
    int rounded = (size + 31) / 32 * 32;
    for (int i = threadIdx.x; i < rounded; i += 32) {
      int v = i < size ? out[i] : 0;
      v += __shfl_xor_sync(0xffffffff, v, 1);  // EXPECT SHFL001
      if (i < size) out[i] = v;
    }
  }
}

extern "C" __global__ void ok_stack_popped_alike(const int *stack, int top, int *out) {
  while (top > 0) {
    int task = stack[top - 1];
    if (task < 0) {
      if (threadIdx.x == 0) printf("skipped %d\n", top);
      top = stack[top - 2];
    } else {
      top -= 1;
      scan_row(out, task);
    }
  }
}

extern "C" __global__ void bad_stack_popped_per_lane(const int *stack, int top, int *out) {
  while (top > 0) {
    int task = stack[top - 1];
    if (task < (int)threadIdx.x) {
      top = stack[top - 2];
    } else {
      top -= 1;
      int rounded = (task + 31) / 32 * 32;
      for (int i = threadIdx.x; i < rounded; i += 32) {
        int v = i < task ? out[i] : 0;
        v += __shfl_xor_sync(0xffffffff, v, 1);  // EXPECT SHFL001
        if (i < task) out[i] = v;
      }
    }
  }
}

extern "C" __global__ void ok_double_buffer_flipped(const float *in, float *out, int n) {
  __shared__ float tile[2][256];
  tile[0][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  float acc = 0.f;
  int write_stage = 1;
  int k = 0;
#pragma unroll 1
  do {
    k += 256;
    float next = 0.f;
    if (k < n) next = in[k + threadIdx.x];
    int load_stage = write_stage ^ 1;
    acc += tile[load_stage][(threadIdx.x + 1) % 256];
    if (k < n) {
      tile[write_stage][threadIdx.x] = next;
      __syncthreads();
      write_stage ^= 1;
    }
    acc += tile[load_stage ^ 1][(threadIdx.x + 2) % 256];
  } while (k < n);
  out[threadIdx.x] = acc;
}

extern "C" __global__ void bad_single_buffer_refilled(const float *in, float *out, int tiles) {
  __shared__ float tile[256];
  float acc = 0.f;
  for (int k = 0; k < tiles; k++) {
    tile[threadIdx.x] = in[k * 256 + threadIdx.x];  // EXPECT RACE001
    __syncthreads();
    acc += tile[(threadIdx.x + 32) % 256];
  }
  out[threadIdx.x] = acc;
}

int main() {
  int *p;
  cudaMalloc(&p, 1 << 20);
  ok_list_walked_alike<<<1, 32>>>(p, p + 1024, 0, p + 2048);
  bad_lists_walked_per_lane<<<1, 32>>>(p, p + 1024, 0, p + 2048);
  ok_stack_popped_alike<<<1, 32>>>(p, 16, p + 2048);
  bad_stack_popped_per_lane<<<1, 32>>>(p, 16, p + 2048);
  return 0;
}

void run_tiles(float *p, int tiles) {  // tiles: a run-time count
  ok_double_buffer_flipped<<<64, 256>>>(p, p + 65536, tiles * 256);
  bad_single_buffer_refilled<<<64, 256>>>(p, p + 65536, tiles);
}
