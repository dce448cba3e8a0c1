// A guard that compares the row index with one value (`if (y == ny - 1)`) admits one row of the
// block: two threads of a block that store the same `out[x]` have the same x, so they differ in y
// and cannot both pass it (a stencil's boundary copy). A range guard (`y >= ny - 2`) admits two rows,
// whose threads do store one address, with different values.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 equality_guard_rows.cu

extern "C" __global__ void ok_boundary_row_copied_once(const float *in, float *out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    if (y == ny - 1)
      out[x] = in[y * nx + x];
  }
}

extern "C" __global__ void bad_two_rows_copied_to_one(const float *in, float *out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    if (y >= ny - 2)
      out[x] = in[y * nx + x];  // EXPECT RACE003
  }
}

int main() {
  float *p;
  cudaMalloc(&p, 1 << 22);
  dim3 block(32, 8), grid(16, 16);
  ok_boundary_row_copied_once<<<grid, block>>>(p, p + (1 << 20), 512, 128);
  bad_two_rows_copied_to_one<<<grid, block>>>(p, p + (1 << 20), 512, 128);
  return 0;
}
