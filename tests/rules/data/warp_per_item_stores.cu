// A warp per item: `src = (threadIdx.x + blockIdx.x * blockDim.x) / 32` is one value per warp (the
// division drops the lane), so every lane of a warp stores the same value to out[src] (a load at
// the warp's own index, times a constant): no race between the lanes. In a grid-stride loop over
// such items, the next iteration's src has moved on by the stride: a lane's store in one
// iteration and another lane's in the next are at different addresses. A value that still
// depends on the lane makes the same store a write-write race inside the warp.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 warp_per_item_stores.cu
#define BLOCK 256

extern "C" __global__ void ok_every_lane_stores_its_warps_item(const float *in, float *out, int n) {
  int first = (threadIdx.x + blockIdx.x * BLOCK) / 32;
  for (int src = first; src < n; src += gridDim.x * (BLOCK / 32))
    out[src] = in[src] * 2.f;
}

extern "C" __global__ void bad_every_lane_stores_its_own_value(const float *in, float *out, int n) {
  int first = (threadIdx.x + blockIdx.x * BLOCK) / 32;
  for (int src = first; src < n; src += gridDim.x * (BLOCK / 32))
    out[src] = in[src] * 2.f + threadIdx.x % 32;  // EXPECT RACE003
}

int main() {
  float *p;
  cudaMalloc(&p, 1 << 20);
  ok_every_lane_stores_its_warps_item<<<64, BLOCK>>>(p, p + 65536, 4096);
  bad_every_lane_stores_its_own_value<<<64, BLOCK>>>(p, p + 65536, 4096);
  return 0;
}
