// A race between one thread's last iteration and the next thread's first needs the trip count:
// each thread walks its own row of m elements (`for (j = 0; j < m; j++)`) and writes one past it,
// into the next thread's row, which that thread reads in its first iteration. With m unknown the
// loop is checked with m taken as a few values (5 and 8: a remainder after nvcc's unrolling by four,
// and none), and the race found under each is reported with that condition. A row walk that stays
// inside its row (`j + 1 < m`), a grid-stride loop, and a loop bounded by a parameter the launch
// passes are not affected; a bound tried as 8 also decides guards such as `p < np` for p =
// blockIdx.x * 32 + threadIdx.x (blockIdx.x >= 0), so threads past it take no part.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 loop_bound_overrun.cu

extern "C" __global__ void bad_shared_rows_overrun(float *out, int m) {
  __shared__ float rows[4096];
  int t = threadIdx.x;
  for (int j = 0; j < m; j++)
    rows[t * m + j + 1] = rows[t * m + j] * 0.5f;  // EXPECT RACE001
  __syncthreads();
  out[t] = rows[t];
}

extern "C" __global__ void ok_shared_rows_inside(float *out, int m) {
  __shared__ float rows[4096];
  int t = threadIdx.x;
  for (int j = 0; j + 1 < m; j++)
    rows[t * m + j + 1] = rows[t * m + j] * 0.5f;
  __syncthreads();
  out[t] = rows[t];
}

extern "C" __global__ void ok_grid_stride_scale(float *y, const float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = 2.0f * x[i];
}

extern "C" __global__ void ok_rows_summed_in_place(float *y, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 1; j < m; j++)
    y[i * m + j] += y[i * m + j - 1];
}

// each thread owns sum[q * np + p] for p < np: with np tried as 8, threads of x >= 8 (in any
// block: blockIdx.x >= 0) fail the guard, so the accumulation loop has one writer per element
extern "C" __global__ void ok_guarded_rows_accumulated(float *sum, const float *a, const float *c, int nq, int np) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int q = blockIdx.y * blockDim.y + threadIdx.y;
  if (p < np && q < nq) {
    sum[q * np + p] = 0.f;
    for (int s = 0; s < np; s++)
      sum[q * np + p] = sum[q * np + p] + a[q * np + s] * c[s * np + p];
  }
}

void run(float *p, int m) {  // m: a run-time row length
  bad_shared_rows_overrun<<<1, 64>>>(p, m);
  ok_shared_rows_inside<<<1, 64>>>(p, m);
  ok_grid_stride_scale<<<64, 256>>>(p, p + 65536, m);
  ok_rows_summed_in_place<<<16, 128>>>(p, m);
  ok_guarded_rows_accumulated<<<dim3(4, 16), dim3(32, 8)>>>(p, p + 65536, p + 131072, 128, m);
}
