// A guard against `min(k, x)` admits no thread at or past k, whatever x is: `tx < min(32, n)` keeps
// a 68-thread block's warps 1 and 2 out of a ring buffer whose slots are 32 floats, one column per
// thread (CudaSift's ScaleDown), so no two threads meet. With `min(64, n)` threads 32..63 write the
// slot threads 0..31 read in the same pass.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 min_bounded_guard.cu

extern "C" __global__ void ok_min_guard(const float *in, float *out, int width, int xs) {
  __shared__ float ring[5 * 32];
  int tx = threadIdx.x;
  int maxtx = min(32, width / 2 - xs);
  for (int k = 0; k < 4; k++) {
    if (tx < maxtx) {
      ring[tx + 32 * (k % 5)] = in[tx + k];
      out[tx + k] = ring[tx + 32 * ((k + 4) % 5)];
    }
    __syncthreads();
  }
}

extern "C" __global__ void bad_min_guard_past_a_slot(const float *in, float *out, int width, int xs) {
  __shared__ float ring[5 * 32];
  int tx = threadIdx.x;
  int maxtx = min(64, width / 2 - xs);
  for (int k = 0; k < 4; k++) {
    if (tx < maxtx) {
      ring[tx + 32 * (k % 5)] = in[tx + k];
      out[tx + k] = ring[tx + 32 * ((k + 4) % 5)];  // EXPECT RACE001
    }
    __syncthreads();
  }
}

int main() {
  float *d;
  int width;  // the image's width, a run-time value
  cudaMalloc(&d, 1 << 20);
  cudaMemcpy(&width, d, sizeof width, cudaMemcpyDeviceToHost);
  ok_min_guard<<<16, 68>>>(d, d + 4096, width, 0);
  bad_min_guard_past_a_slot<<<16, 68>>>(d, d + 4096, width, 0);
  return 0;
}
