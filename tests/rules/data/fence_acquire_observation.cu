// An atomic that is itself an acquire (`atom.exch.acquire.gpu`, libcu++'s
// `exchange(..., memory_order_acquire)`) orders the loads after it: a lock taken that way needs no
// separate fence before reading what the previous holder wrote. The same lock taken with a relaxed
// exchange does. The holder fences before it unlocks with a relaxed store, so only the taker's side
// differs. Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 fence_acquire_observation.cu
#include <cuda/atomic>

extern "C" __global__ void ok_lock_taken_with_acquire_exchange(int *lock, int *pair, int *out) {
  if (threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> l(*lock);
    while (l.exchange(1, cuda::memory_order_acquire) != 0) {
    }
    int a = pair[0], b = pair[1];
    pair[0] = a + 1;
    pair[1] = b + 1;
    __threadfence();
    l.store(0, cuda::memory_order_relaxed);
    out[blockIdx.x] = a + b;
  }
}

extern "C" __global__ void bad_lock_taken_with_relaxed_exchange(int *lock, int *pair, int *out) {
  if (threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> l(*lock);
    while (l.exchange(1, cuda::memory_order_relaxed) != 0) {
    }
    int a = pair[0], b = pair[1];  // EXPECT FENCE002
    pair[0] = a + 1;
    pair[1] = b + 1;
    __threadfence();
    l.store(0, cuda::memory_order_relaxed);
    out[blockIdx.x] = a + b;
  }
}

int main() {
  int *p;
  cudaMalloc(&p, 64);
  ok_lock_taken_with_acquire_exchange<<<8, 32>>>(p, p + 2, p + 4);
  bad_lock_taken_with_relaxed_exchange<<<8, 32>>>(p, p + 2, p + 4);
  return 0;
}
