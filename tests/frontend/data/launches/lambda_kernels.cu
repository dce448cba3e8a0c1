// A kernel template launched with a lambda (`forEach<<<g, b>>>(n, [=] __device__(size_t i) {...})`):
// nvcc names each instance by the lambda's closure type, `setup(int*, int*)::{lambda(unsigned long)#2}`,
// the n-th lambda of that parameter count in the host function that writes it. Each launch is the
// block of its own lambda's instance.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 --extended-lambda lambda_kernels.cu -o lambda_kernels.sm_90.ptx
#include <cstddef>

template <typename Func, typename... Args>
__global__ void forEach(size_t n, Func f, Args... args) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i, args...);
}

void setup(int *flag, int *count) {
  forEach<<<1, 1>>>(1, [=] __device__(size_t) { *flag = 1; });
  forEach<<<4, 128>>>(512, [=] __device__(size_t i) { count[i] = 0; });
}

void scale(float *x, float s, size_t n) {
  forEach<<<(n + 255) / 256, 256>>>(n, [=] __device__(size_t i, float k) { x[i] *= k; }, s);
}
