// A read-modify-write of one global word by one thread of every block races across blocks unless
// a lock makes it a critical section: a spin on atomicCAS(lock, 0, 1) (then __threadfence()) before
// it and __threadfence() + atomicExch(lock, 0) after it leave one block at a time inside.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 lock_critical_section.cu

extern "C" __global__ void ok_sum_updated_under_a_spin_lock(const double *in, double *sum, int *lock) {
  if (threadIdx.x == 0) {
    double v = in[blockIdx.x];
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *sum += v;
    __threadfence();
    atomicExch(lock, 0);
  }
}

extern "C" __global__ void bad_sum_updated_without_the_lock(const double *in, double *sum, int *lock) {
  if (threadIdx.x == 0) {
    double v = in[blockIdx.x];
    *sum += v;  // EXPECT RACE003
  }
}

int main() {
  double *p;
  cudaMalloc(&p, 1 << 20);
  ok_sum_updated_under_a_spin_lock<<<64, 128>>>(p, p + 1024, (int *)(p + 2048));
  bad_sum_updated_without_the_lock<<<64, 128>>>(p, p + 1024, (int *)(p + 2048));
  return 0;
}
