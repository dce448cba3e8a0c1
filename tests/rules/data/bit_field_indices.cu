// Indices built from bit fields of thread and block ids: nvcc writes the unsigned
// `threadIdx.x % 32 + blockIdx.x * 32` as one `bfi` (blockIdx.x inserted above the lane's five
// bits), and tests `x % 8 == 0 && y % 8 == 0 && z % 8 == 0` as `((x | y | z) & 7) == 0`. The block
// parts are multiples of 8, so the low three bits of the or are the thread's own: only threads
// whose x, y and z are multiples of 8 write, one anchor each (a grid sampled every eighth point,
// as cuSZ's spline interpolation gathers its anchors). Sampling x every fourth point makes two
// threads of a warp write one anchor.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 bit_field_indices.cu
#include <cstdlib>

extern "C" __global__ void ok_anchor_every_eighth(const float *data, float *anchor, unsigned nx, unsigned ny,
                                                  unsigned nz) {
  unsigned x = threadIdx.x % 32 + blockIdx.x * 32;
  unsigned y = (threadIdx.x / 32) % 8 + blockIdx.y * 8;
  unsigned z = (threadIdx.x / 32) / 8 + blockIdx.z * 8;
  if (x % 8 == 0 && y % 8 == 0 && z % 8 == 0 && x < nx && y < ny && z < nz)
    anchor[x / 8 + (y / 8) * (nx / 8) + (z / 8) * (nx / 8) * (ny / 8)] = data[x + y * nx + z * nx * ny];
}

extern "C" __global__ void bad_anchor_every_fourth_x(const float *data, float *anchor, unsigned nx, unsigned ny,
                                                     unsigned nz) {
  unsigned x = threadIdx.x % 32 + blockIdx.x * 32;
  unsigned y = (threadIdx.x / 32) % 8 + blockIdx.y * 8;
  unsigned z = (threadIdx.x / 32) / 8 + blockIdx.z * 8;
  if (x % 4 == 0 && y % 8 == 0 && z % 8 == 0 && x < nx && y < ny && z < nz)
    anchor[x / 8 + (y / 8) * (nx / 8) + (z / 8) * (nx / 8) * (ny / 8)] = data[x + y * nx + z * nx * ny];  // EXPECT RACE003
}

int main() {
  const char *env = getenv("N");
  unsigned n = env ? atoi(env) : 0;  // a run-time value
  float *p;
  cudaMalloc(&p, 1 << 26);
  dim3 grid(n / 32, n / 8, n / 8);
  ok_anchor_every_eighth<<<grid, 384>>>(p, p + (1 << 24), n, n, n);
  bad_anchor_every_fourth_x<<<grid, 384>>>(p, p + (1 << 24), n, n, n);
  return 0;
}
