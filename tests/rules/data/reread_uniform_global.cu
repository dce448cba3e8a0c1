// Every thread stores one value to a global word (`slice = (rows / parallel) * width`, from the
// kernel's parameters only) and then reads it back in its own loop: whichever thread's copy of the
// store it sees, it reads the value it stored itself, so the store and the reads are no race, also
// round a loop the store is not in. A value that differs between threads (it depends on
// threadIdx.x) makes a thread read what another thread stored.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 reread_uniform_global.cu -o reread_uniform_global.sm_90.ptx

__device__ unsigned long long slice;
__device__ unsigned long long own_slice;

// ok: the slice width is one value for the whole block (and grid).
extern "C" __global__ void ok_uniform_slice(unsigned long long *state, unsigned rows, unsigned parallel,
                                            unsigned steps) {
  slice = (rows / parallel) * 12;
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned s = 0; s < steps; s++) {
    state[t * 64 + (s * slice) % 64] += s;
  }
}

// bad: each thread stores a width of its own, and reads what some other thread left.
extern "C" __global__ void bad_lane_slice(unsigned long long *state, unsigned rows, unsigned parallel,
                                          unsigned steps) {
  own_slice = (rows / parallel) * 12 + (threadIdx.x & 1);  // EXPECT RACE003
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned s = 0; s < steps; s++) {
    state[t * 64 + (s * own_slice) % 64] += s;  // EXPECT RACE003
  }
}

int main() {
  unsigned long long *d;
  cudaMalloc(&d, 1 << 24);
  ok_uniform_slice<<<16, 64>>>(d, 4096, 1024, 8);
  bad_lane_slice<<<16, 64>>>(d, 4096, 1024, 8);
  return 0;
}
