// A warp that takes its work item from a counter (`if (lane == 0) item = atomicAdd(&next, 1);` then
// `item = __shfl_sync(~0u, item, 0)`, in a loop until the items run out) holds an item no other warp
// holds: each atomicAdd returns another value. Inside the loop the shuffle reads the new item in
// lane 0 and the previous one in the other lanes; every lane then works on lane 0's item, so the
// rows one warp writes are not another warp's. Warps that read the cursor with a plain load all get
// the same item and write the same row with different values.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 counter_work_items.cu

__device__ unsigned next_item;

extern "C" __global__ void ok_warps_draw_items(const unsigned *start, const unsigned *end, float *out,
                                               unsigned items) {
  unsigned lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  unsigned item = 0;
  while (true) {
    if (lane == 0) item = atomicAdd(&next_item, 1);
    item = __shfl_sync(0xffffffff, item, 0);
    if (item >= items) return;
    unsigned i = start[item] + lane;
    if (i >= end[item]) continue;
    out[i] = (float)warp;
  }
}

extern "C" __global__ void bad_warps_read_one_cursor(const unsigned *cursor, const unsigned *start,
                                                     const unsigned *end, float *out, unsigned items) {
  unsigned lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  unsigned item = 0;
  if (lane == 0) item = *cursor;
  item = __shfl_sync(0xffffffff, item, 0);
  if (item >= items) return;
  unsigned i = start[item] + lane;
  if (i < end[item]) out[i] = (float)warp;  // EXPECT RACE003
}

int main() {
  unsigned *u;
  float *f;
  cudaMalloc(&u, 1 << 20);
  cudaMalloc(&f, 1 << 20);
  ok_warps_draw_items<<<64, 256>>>(u, u + 4096, f, 1000);
  bad_warps_read_one_cursor<<<64, 256>>>(u + 8192, u, u + 4096, f, 1000);
  return 0;
}
