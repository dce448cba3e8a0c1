// A plain read of a word that atomics change is only a guess when its value decides nothing but
// when to try an atomic whose result the thread then tests, or how long to wait: a semaphore's
// fast path (`if (count() >= n) { old = atomicAdd(&v, -n); if (old < n) atomicAdd(&v, n); }`) or a
// poll before an atomic (`while (count() < n) __nanosleep(t); atomicSub(...)`). A stale value then
// costs a retry or a wait; every change is decided by what an atomic returned, so the read is no
// race with those atomics. A read whose value leads to an unchecked write does race: an early exit
// on a flag others set with atomicExch, a cap in front of an unchecked atomicAdd, a guess stored
// as data.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 optimistic_atomic_reads.cu

__device__ __forceinline__ int count_of(const int *sem) { return *sem; }

extern "C" __global__ void ok_semaphore_fast_path(int *sem, int *out, int n) {
  int take = (threadIdx.x & 3) + 1;
  for (int tries = 0; tries < n; ++tries) {
    if (count_of(sem) >= take) {
      int old = atomicAdd(sem, -take);
      if (old >= take) {
        out[blockIdx.x * blockDim.x + threadIdx.x] = tries;
        return;
      }
      atomicAdd(sem, take);  // undo: the guess was stale
    }
  }
}

extern "C" __global__ void ok_poll_then_take(int *sem, int *out, int n) {
  unsigned wait = 8;
  while (count_of(sem) < n) {
    __nanosleep(wait);
    wait *= 2;
  }
  int old = atomicSub(sem, 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = old;
}

extern "C" __global__ void bad_flag_early_exit(const float *a, const float *b, int *same, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (*same == 0) return;  // EXPECT RACE003
    if (a[i] != b[i]) atomicExch(same, 0);  // EXPECT RACE003
  }
}

extern "C" __global__ void bad_guess_kept(int *sem, int *out, int n) {
  int seen = *sem;
  if (seen >= n) {
    int old = atomicAdd(sem, -n);  // EXPECT RACE003
    if (old < n) atomicAdd(sem, n);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = seen;
}

int main() {
  int *d;
  float *f;
  cudaMalloc(&d, 1 << 20);
  cudaMalloc(&f, 1 << 20);
  ok_semaphore_fast_path<<<64, 256>>>(d, d + 1024, 16);
  ok_poll_then_take<<<64, 256>>>(d, d + 1024, 4);
  bad_flag_early_exit<<<64, 256>>>(f, f + 65536, d, 65536);
  bad_guess_kept<<<64, 256>>>(d, d + 1024, 4);
  return 0;
}
