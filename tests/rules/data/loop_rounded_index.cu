// An index computed from a loop's induction variable through nvcc's rounding (`c / 8` of an int
// c = lane * 8 + k * 256 becomes `((c + ((c >> 31) >>> 29)) << 1) & -16` bytes) still moves with
// the loop: two warps that write the same weights to the same slots in the same iteration (the
// same value, from the same address) do not meet a later iteration's slot (llm.c's fused residual
// kernel loads its weights this way, one copy per threadIdx.y). Folded back into 32 slots
// (`% 32` of an unsigned index), the slot repeats every iteration and the warps' writes of
// different iterations race.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 loop_rounded_index.cu

struct alignas(16) Vec { float x, y, z, w; };

extern "C" __global__ void ok_copy_per_warp_row(const Vec *weights, float *out, int C) {
  __shared__ Vec s[1024];
  int c0 = threadIdx.x * 4;  // blockDim (32, 2): both rows of warps copy the same weights
  for (int c = c0; c < C; c += 128)
    s[c / 4] = weights[c / 4];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x].x;
}

extern "C" __global__ void bad_copy_folded_into_a_warp(const Vec *weights, float *out, unsigned C) {
  __shared__ Vec s[32];
  unsigned c0 = threadIdx.x * 4;
  for (unsigned c = c0; c < C; c += 128)
    s[(c / 4) % 32] = weights[c / 4];  // EXPECT RACE001
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x].x;
}

int main() {
  Vec *w;
  float *o;
  int C;  // the model's width, a run-time value
  cudaMalloc(&w, 1 << 20);
  cudaMalloc(&o, 1 << 20);
  cudaMemcpy(&C, w, sizeof C, cudaMemcpyDeviceToHost);
  ok_copy_per_warp_row<<<16, dim3(32, 2)>>>(w, o, C);
  bad_copy_folded_into_a_warp<<<16, dim3(32, 2)>>>(w, o, C);
  return 0;
}
