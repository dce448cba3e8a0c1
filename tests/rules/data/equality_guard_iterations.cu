// In a grid-stride loop each index is one thread's in one iteration: a store under `i == n - 1`
// has one writer in the whole launch, even though its address no longer shows the index. A range
// guard (`i >= n - 2`) admits two indices, and a loop whose step is smaller than the block
// (`i += 32` in 64 threads) hands one index to two threads in different iterations.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 equality_guard_iterations.cu -o equality_guard_iterations.sm_90.ptx

// ok (no launch): only the thread holding the last index of an odd count raises its scalar tail.
extern "C" __global__ void ok_odd_tail(int n, bool odd, const float2 *src, float power, float2 *dst) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (odd && i == n - 1) {
      const float *src1 = (const float *)src;
      float *dst1 = (float *)dst;
      float result = 1.0f;
      for (int k = 0; k < power; ++k) result *= src1[i * 2];
      dst1[i * 2] = result;
    } else {
      dst[i] = make_float2(src[i].x * power, src[i].y * power);
    }
  }
}

// bad: the two last indices both store the tail.
extern "C" __global__ void bad_two_last_indices(const float *v, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (i >= n - 2) out[0] = v[i] * 2.0f;  // EXPECT RACE003
    else out[i + 1] = v[i];
  }
}

// bad: a step of 32 in blocks of 64 threads: thread 0 in one iteration and thread 32 in the one
// before meet the last index, and each stores its own thread number.
extern "C" __global__ void bad_short_step(float *out, int n) {
  // nvcc keeps the guarded store in the loop's latch: the finding is on the loop's line
  for (int i = threadIdx.x; i < n; i += 32) {  // EXPECT RACE003
    if (i == n - 1) out[0] = threadIdx.x;
  }
}

int main(int argc, char **argv) {
  int blocks = argc * 16;  // a grid known only at run time
  float *v, *out;
  cudaMalloc(&v, 1 << 20);
  cudaMalloc(&out, 1 << 20);
  bad_two_last_indices<<<blocks, 256>>>(v, out, 100000);
  bad_short_step<<<1, 64>>>(out, 1000);
  return 0;
}
