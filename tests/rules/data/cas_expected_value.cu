// A compare-and-swap retry loop reads the word plainly for its first expected value (`old = *p;
// ... atomicCAS(p, old, new)`): a stale value only makes the CAS fail and the loop retry, so that
// read is no race with the atomics that change the word (the programming guide's atomic-max
// idiom). A plain read whose value is used for something else, or a plain store, still races.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 cas_expected_value.cu

extern "C" __global__ void ok_cas_max_global(unsigned *best, const unsigned *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = in[i], old;
    do {
      old = *best;
      if (v <= old) break;
    } while (atomicCAS(best, old, v) != old);
  }
}

extern "C" __global__ void ok_cas_max_shared(unsigned *out, const unsigned *in, int n) {
  __shared__ unsigned best;
  if (threadIdx.x == 0) best = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = in[i], old;
    do {
      old = best;
      if (v <= old) break;
    } while (atomicCAS(&best, old, v) != old);
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = best;
}

// The plain read's value is kept (a running snapshot), not checked by a CAS: it races with the adds.
extern "C" __global__ void bad_snapshot_global(unsigned *total, unsigned *seen, const unsigned *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    seen[i] = *total;  // EXPECT RACE003
    atomicAdd(total, in[i]);  // EXPECT RACE003
  }
}

int main() {
  unsigned *p;
  cudaMalloc(&p, 1 << 20);
  ok_cas_max_global<<<64, 256>>>(p, p + 1024, 4096);
  ok_cas_max_shared<<<64, 256>>>(p, p + 1024, 4096);
  bad_snapshot_global<<<64, 256>>>(p, p + 16, p + 8192, 4096);
  return 0;
}
