// One warp waits for another's signal by spinning on a `volatile` shared flag: the loop ends whichever
// order the warps run in, so the spin-wait and the store it waits for are no race (as on global
// memory). A volatile flag read once, not waited on, is: what the reader sees depends on the order;
// so is a shared counter that a work loop's test reads while thread 0 moves it on.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 volatile_spin_shared.cu -o volatile_spin_shared.sm_90.ptx

// ok: warp 1 waits until warp 0 has posted how many items it produced (to global memory).
extern "C" __global__ void ok_spin_on_flag(const int *in, int *out, int *count, int n) {
  __shared__ volatile int posted;
  if (threadIdx.x == 0) posted = -1;
  __syncthreads();
  if (threadIdx.x < 32) {
    int c = 0;
    for (int i = threadIdx.x; i < n; i += 32) c += in[i] > 0;
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
    if (threadIdx.x == 0) posted = c;
  } else if (threadIdx.x == 32) {
    while (posted < 0) {}
    count[blockIdx.x] = 1;
  }
}

// bad: warp 1 reads the flag once; it may run before warp 0 posts.
extern "C" __global__ void bad_flag_read_once(const int *in, int *out, int *count, int n) {
  __shared__ volatile int posted;
  if (threadIdx.x == 0) posted = -1;
  __syncthreads();
  if (threadIdx.x < 32) {
    int c = 0;
    for (int i = threadIdx.x; i < n; i += 32) c += in[i] > 0;
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
    if (threadIdx.x == 0) posted = c;
  } else if (threadIdx.x == 32) {
    count[blockIdx.x] = posted;  // EXPECT RACE001
  }
}

// bad: the loop does work and thread 0 moves the shared chunk index on while other warps may still
// be reading it for this chunk (nvCOMP's hlif loop): a work loop, not a spin-wait.
extern "C" __global__ void bad_work_loop_counter(const int *in, int *out, int *next, int n) {
  __shared__ volatile int chunk;
  if (threadIdx.x == 0) chunk = blockIdx.x;
  __syncthreads();
  while (chunk < n) {
    out[chunk * 64 + threadIdx.x] = in[chunk * 64 + threadIdx.x];
    if (threadIdx.x == 0) chunk = atomicAdd(next, 1);  // EXPECT RACE001
    __syncthreads();
  }
}

int main(int argc, char **argv) {
  int *in = nullptr, *out = nullptr, *count = nullptr;
  ok_spin_on_flag<<<8, 64>>>(in, out, count, argc);
  bad_flag_read_once<<<8, 64>>>(in, out, count, argc);
  bad_work_loop_counter<<<8, 64>>>(in, out, count, argc);
}
