// An access in a loop whose every iteration ends at a barrier meets an access before the loop only
// in the loop's first iteration: later iterations come after the barrier. So a counter set by
// thread 0 before the loop and updated in iteration i by the owner of item i (thread i % blockDim.x)
// races only if the first item's owner is another thread (TensorRT's EfficientNMS pattern, test12).
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 first_iteration_owner.cu
extern "C" __global__ void ok_owner_per_iteration_after_init(int *out, int n) {
  __shared__ int counter;
  if (threadIdx.x == 0) counter = 0;
  for (int i = 0; i < n; i++) {
    if (threadIdx.x == i % blockDim.x) counter += i;  // item 0's owner is thread 0 itself
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = counter;
}

// The owners take turns from item 0 on a 2-D block: the owner of item i is thread (i % 32, i / 32).
extern "C" __global__ void ok_owner_in_a_2d_block(int *out, int n) {
  __shared__ int best;
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  if (t == 0) best = -1;
  for (int i = 0; i < n; i++) {
    if (t == i % (blockDim.x * blockDim.y) && out[i] > best) best = out[i];
    __syncthreads();
  }
  out[n + blockIdx.x * 256 + t] = best;
}

// bad: the first item is owned by thread 32 (another warp), which reads the counter thread 0 is
// still setting: no barrier between the initialisation and the first iteration.
extern "C" __global__ void bad_owner_starts_at_32(int *out, int n) {
  __shared__ int counter;
  if (threadIdx.x == 0) counter = 0;
  for (int i = 32; i < n; i++) {
    if (threadIdx.x == i % blockDim.x) counter += i;  // EXPECT RACE001
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = counter;
}

// bad: no barrier at the end of the iterations: the owner of item 40 may update the counter while
// the owner of item 39 still reads it.
extern "C" __global__ void bad_no_barrier_between_iterations(int *out, int n) {
  __shared__ int counter;
  if (threadIdx.x == 0) counter = 0;
  __syncthreads();
  for (int i = 0; i < n; i++) {
    if (threadIdx.x == i % blockDim.x) counter += i;  // EXPECT RACE001
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = counter;
}

int main() {
  int *p;
  cudaMalloc(&p, 1 << 20);
  ok_owner_per_iteration_after_init<<<4, 128>>>(p, 1000);
  ok_owner_in_a_2d_block<<<4, dim3(32, 8)>>>(p, 1000);
  bad_owner_starts_at_32<<<4, 128>>>(p, 1000);
  bad_no_barrier_between_iterations<<<4, 128>>>(p, 1000);
  return 0;
}
