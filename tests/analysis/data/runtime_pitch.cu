// A run-time pitch between the lanes of a warp (issue 17, item 8): the naive transpose read
// `in[x * w + y]` in a 16x16 block puts each warp's lanes in 16 rows of w floats, two columns per row.
// Whether a row's two floats share a sector depends on w, so the count is a range (16 to 18 sectors
// per request, ideal 4), and COAL001 reports the best case ("at least") since even it is over twice
// the ideal. In a 32x8 block every lane has its own row: 32 sectors whatever w is.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 runtime_pitch.cu

__global__ void transpose_read_16x16(const float *in, float *out, int w) {
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  out[y * w + x] = in[x * w + y];
}

__global__ void transpose_read_32x8(const float *in, float *out, int w) {
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
  out[y * w + x] = in[x * w + y];
}

void run(const float *in, float *out, int w) {  // w: a run-time width
  transpose_read_16x16<<<dim3(w / 16, w / 16), dim3(16, 16)>>>(in, out, w);
  transpose_read_32x8<<<dim3(w / 32, w / 8), dim3(32, 8)>>>(in, out, w);
}
