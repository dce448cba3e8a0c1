// Every x-thread of a row stores to the row's one word (`f[j] = acc`, j from threadIdx.y): a
// write-write race only where the threads store different values. A sum carried round a loop whose
// terms (texture fetches, read-only loads) and trip count hang on j and the kernel's parameters
// alone is one value in every x-thread, whichever thread stores last; a term or a trip count that
// depends on threadIdx.x is not, and neither is a read of the word the threads write.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 value_free_of_dimension.cu -o value_free_of_dimension.sm_90.ptx

// ok: a weighted sum of texture fetches at (s, j), the same in every x-thread of row j.
extern "C" __global__ void ok_texture_row_sum(cudaTextureObject_t g, float *f, int nx, int n, float w) {
  int i = threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx) return;
  float acc = 0.0f;
  for (int s = 0; s < n; s++) acc += w * tex2D<float>(g, s + 0.5f, j + 0.5f);
  f[j] = acc * 0.5f;
}

// ok: the same sum over read-only global memory.
extern "C" __global__ void ok_readonly_row_sum(const float *__restrict__ in, float *f, int nx, int ny, int n) {
  int i = threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx) return;
  float acc = 0.0f;
  for (int s = 0; s < n; s++) acc += in[s * ny + j];
  f[j] = acc;
}

// bad: the fetch is at (s + i, j): each x-thread sums other texels.
extern "C" __global__ void bad_texture_lane_term(cudaTextureObject_t g, float *f, int nx, int n) {
  int i = threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx) return;
  float acc = 0.0f;
  for (int s = 0; s < n; s++) acc += tex2D<float>(g, s + i + 0.5f, j + 0.5f);
  f[j] = acc;  // EXPECT RACE003
}

// bad: the terms are the row's, but x-thread i sums i more of them.
extern "C" __global__ void bad_lane_trip_count(const float *__restrict__ in, float *f, int nx, int ny, int n) {
  int i = threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx) return;
  float acc = 0.0f;
  for (int s = 0; s < n + i; s++) acc += in[s * ny + j];
  f[j] = acc;  // EXPECT RACE003
}

// bad: every x-thread adds one to the row's word: each reads what another may be writing.
extern "C" __global__ void bad_row_counter(float *f, int nx) {
  int i = threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx) return;
  f[j] = f[j] + 1.0f;  // EXPECT RACE003
}

int main() {
  float *f, *in;
  cudaMalloc(&f, 1 << 20);
  cudaMalloc(&in, 1 << 20);
  cudaTextureObject_t g = 0;
  dim3 grid(1, 4), block(8, 8);
  ok_texture_row_sum<<<grid, block>>>(g, f, 8, 16, 0.5f);
  ok_readonly_row_sum<<<grid, block>>>(in, f, 8, 32, 16);
  bad_texture_lane_term<<<grid, block>>>(g, f, 8, 16);
  bad_lane_trip_count<<<grid, block>>>(in, f, 8, 32, 16);
  bad_row_counter<<<grid, dim3(64, 2)>>>(f, 64);
  return 0;
}
