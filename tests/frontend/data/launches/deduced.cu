// A kernel template launched with its type argument deduced from the call (`fill<<<g, b>>>(ptr)`),
// from a host template, and with its value argument written and its type deduced.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 deduced.cu -o deduced.sm_90.ptx
template <typename T>
__global__ void fill(T *out, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

template <int WIDTH, typename T>
__global__ void strided(const T *in, T *out) {
  out[blockIdx.x * WIDTH + threadIdx.x] = in[threadIdx.x];
}

template <typename T>
void fill_all(T *out, int n) {
  fill<<<(n + 127) / 128, 128>>>(out, T(1), n);
}

void run(float *f, double *d, int *k, int n) {
  fill<<<(n + 255) / 256, 256>>>(f, 0.5f, n);
  fill_all<double>(d, n);
  strided<64><<<n, 64>>>(k, k);
}
