// The whole unit is compiled only when the build passes -DFEATURE_GPU (as nvcc did for the .ptx
// beside it): ptxlint does not know the build's -D options when it reads a .ptx's host code, so the
// `#ifdef` keeps its branch and the launch (one warp) is found.
#ifdef FEATURE_GPU
#define THREADS 32
__global__ void shift(float *x, int n) {
  __shared__ float s[THREADS];
  int i = blockIdx.x * THREADS + threadIdx.x;
  s[threadIdx.x % THREADS] = i < n ? x[i] : 0.0f;
  __syncwarp();
  if (i < n) x[i] = s[(threadIdx.x + 1) % THREADS];
}
void run(float *x, int n) { shift<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n); }
#endif
