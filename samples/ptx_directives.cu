// Declarations and performance directives that nvcc emits less often (.maxnreg, .minnctapersm,
// .explicitcluster, .reqnctapercluster, .maxclusterrank, texture/surface handles, an aliased
// device function, a __trap() helper); its PTX feeds the parser test. One rdc build (-rdc=true).
#include <cuda_runtime.h>

__device__ int counter;
__device__ __attribute__((weak)) int weak_flag;
__constant__ float coefficients[4] = {0.25f, 0.5f, 0.75f, 1.0f};

extern "C" __device__ void scale_impl(float *p) { *p *= 2.0f; }
extern "C" __device__ void scale_alias(float *p) __attribute__((alias("scale_impl")));

__device__ __noinline__ void fail_hard() { __trap(); }

__device__ __noinline__ float pick(float a, float b) { return a > b ? a : b; }

// ptxlint-block: 256x1
// `coefficients[i & 3]`: 4 distinct constant addresses per warp (i = blockIdx.x * blockDim.x + threadIdx.x).
__global__ void __launch_bounds__(256, 2) boundedKernel(float *data, cudaTextureObject_t tex,
                                                          cudaSurfaceObject_t surf)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = tex1Dfetch<float>(tex, i) * coefficients[i & 3];  // EXPECT(CONST001): 4 addresses per warp
    surf1Dwrite(v, surf, i * 4);
    scale_alias(&data[i]);
    data[i] = pick(data[i], v);
    if (data[i] < 0.0f) fail_hard();
    atomicAdd(&counter, weak_flag);
}

__global__ void __maxnreg__(64) registerCapped(float *data)
{
    data[threadIdx.x] += 1.0f;
}

__global__ void __cluster_dims__(2, 1, 1) clusterFixed(float *data)
{
    data[blockIdx.x * blockDim.x + threadIdx.x] *= 3.0f;
}

__global__ void __launch_bounds__(128, 1, 4) clusterBounded(float *data)
{
    data[threadIdx.x] -= 1.0f;
}
