// A kernel that reads no thread or block index, takes no atomic's result and exchanges nothing
// between lanes does the same work in every thread it runs in; one that also loops is a serial
// program, written for one thread (a timer calibration, a debug walk over every element). With no
// launch found it is checked as one thread, and says so; a launch of more threads in the host code,
// a kernel that tells its threads apart, or one without a loop (the classic `count[0] += 1` by
// every thread) is checked as usual.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 one_thread_kernels.cu -o one_thread_kernels.sm_90.ptx

__device__ unsigned long long calibration;
__device__ unsigned next_item;

// ok (no launch): every thread would time the same loop and store its own count.
extern "C" __global__ void ok_clock_overhead(unsigned long long *overhead, unsigned iterations) {
  unsigned long long start = clock64();
  unsigned long long dependency = 0;
  for (unsigned i = 0; i < iterations; i++) dependency ^= clock64();
  *overhead = (clock64() - start) / iterations;
  calibration = dependency;
}

// ok (no launch): a walk over every element from 0, adding into one total.
extern "C" __global__ void ok_serial_total(const unsigned *values, unsigned n, unsigned *total) {
  for (unsigned i = 0; i < n; i++) *total += values[i];
}

// bad: the same walk, launched with a block of 64 threads: each adds into the total the others add into.
extern "C" __global__ void bad_serial_total_launched(const unsigned *values, unsigned n, unsigned *total) {
  for (unsigned i = 0; i < n; i++) *total += values[i];  // EXPECT RACE003
}

// bad (no launch): each thread takes an item from a counter and adds its item's values into one
// total: the atomic tells the threads apart, so it is written for many threads.
extern "C" __global__ void bad_counter_items(const unsigned *values, unsigned *total) {
  unsigned item = atomicAdd(&next_item, 1);
  *total = *total + values[item];  // EXPECT RACE003
}

// bad (no launch): no loop: every thread of the launch adds one to the count.
extern "C" __global__ void bad_counter_no_loop(unsigned *count) {
  count[0] = count[0] + 1;  // EXPECT RACE003
}

int main() {
  unsigned *v, *t;
  cudaMalloc(&v, 1 << 20);
  cudaMalloc(&t, 4);
  bad_serial_total_launched<<<1, 64>>>(v, 128, t);
  return 0;
}
