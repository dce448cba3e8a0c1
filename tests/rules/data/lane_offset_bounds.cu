// A loop test with the lane on both sides, `i < n + lane` where i = 32 * group + lane, is
// `32 * group < n` for integers that do not overflow: every lane of a warp takes it alike (sparse
// kernels write it so to keep each warp's shuffles whole past the end, with dummy values for the
// lanes past n). The same loop tested against n alone splits the warp where n falls.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 lane_offset_bounds.cu -o lane_offset_bounds.sm_90.ptx
#define FULL 0xffffffffu

// ok: warps share work in groups of `per` (a run-time count), the lane offset cancels in the test.
extern "C" __global__ void ok_lane_on_both_sides(const float *v, float *out, int n, int per) {
  int tid = 256 * blockIdx.x + threadIdx.x;
  int lane = tid & 31;
  int i = ((tid >> 5) / per << 5) + lane;
  int stride = 256 * gridDim.x / per;
  float sum = 0.0f;
  for (; i < n + lane; i += stride) {
    float x = i < n ? v[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o);
    sum += x;
  }
  if (lane == 0) out[tid >> 5] = sum;
}

// ok: the same with a plain grid-stride index, one difference per warp.
extern "C" __global__ void ok_lane_on_both_sides_grid_stride(const float *v, float *out, int n) {
  int tid = 256 * blockIdx.x + threadIdx.x;
  int lane = tid & 31;
  float sum = 0.0f;
  for (int i = tid; i < n + lane; i += 256 * gridDim.x) {
    float x = i < n ? v[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o);
    sum += x;
  }
  if (lane == 0) out[tid >> 5] = sum;
}

// bad: tested against n alone, lanes past n leave the loop while the others shuffle.
extern "C" __global__ void bad_lane_on_one_side(const float *v, float *out, int n, int per) {
  int tid = 256 * blockIdx.x + threadIdx.x;
  int lane = tid & 31;
  int i = ((tid >> 5) / per << 5) + lane;
  int stride = 256 * gridDim.x / per;
  float sum = 0.0f;
  for (; i < n; i += stride) {
    float x = v[i];
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o);  // EXPECT SHFL001
    sum += x;
  }
  if (lane == 0) out[tid >> 5] = sum;
}
