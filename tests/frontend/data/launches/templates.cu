// Template kernels and the host code that launches them: find_launches reads this file, and the
// test matches its launches with the real mangled names nvcc gave them in templates.sm_90.ptx:
//   nvcc -ptx -lineinfo -arch=sm_90 templates.cu -o templates.sm_90.ptx
#include <cstdint>
#include <cuda_fp16.h>

namespace blas {
template <typename T, int BLOCK>
__global__ void scale(T *x, T a, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) x[i] = x[i] * a;
}
}  // namespace blas

template <unsigned int B, bool WIDE>
__global__ void fill(int *x) { x[blockIdx.x * B + threadIdx.x] = WIDE; }

template <typename T>
__global__ void copy2d(const T *in, T *out) { out[threadIdx.x] = in[threadIdx.x]; }

constexpr int blockFor(int warps) { return warps * 32; }

template <int B>
void runFill(int *i) { fill<B, false><<<1, B>>>(i); }

void run(float *f, int *i, __half *h, uint32_t *u, const float **pp, int n, int threads)
{
    blas::scale<float, 256><<<n / 256, 256>>>(f, 2.0f, n);
    blas::scale<float, 128><<<n / 128, dim3(128)>>>(f, 2.0f, n);
    blas::scale<int, 256u><<<n / 256, 256>>>(i, 2, n);
    blas::scale<half, 64><<<n / 64, 64>>>(h, __float2half(1.0f), n);
    blas::scale<uint32_t, 32><<<1, 32>>>(u, 3u, n);
    blas::scale<float, blockFor(8)><<<n / 256, blockFor(8)>>>(f, 3.0f, n);
    fill<512, true><<<1, 512>>>(i);
    runFill<64>(i);
    runFill<96>(i);
    copy2d<const float *><<<1, dim3(16, 16)>>>(pp, pp);
    switch (threads) {
    case 32:
        copy2d<float><<<1, threads>>>(f, f);
        break;
    }
}
