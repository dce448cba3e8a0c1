// A pointer the host passes past the start of an allocation (`d_in + RADIUS`, a stencil's halo):
// the kernel's loads start 12 bytes into a sector, so each warp's 128 bytes touch 5 sectors, not 4.
// The same kernel launched at two offsets has a range; one launched with the allocation itself is
// aligned. Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 pointer_offset.cu
#define RADIUS 3

extern "C" __global__ void copy_shifted(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

extern "C" __global__ void copy_two_offsets(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

int main() {
  float *d_in, *d_out;
  cudaMalloc(&d_in, 1 << 22);
  cudaMalloc(&d_out, 1 << 22);
  copy_shifted<<<1024, 256>>>(d_in + RADIUS, d_out);
  copy_two_offsets<<<1024, 256>>>(d_in, d_out);
  copy_two_offsets<<<1024, 256>>>(&d_in[1], d_out);
  return 0;
}
