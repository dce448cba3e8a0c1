// Occupancy validation suite: kernels whose registers (about 16 to 170), static and dynamic
// shared memory and __launch_bounds__ span what the occupancy model must get right.
// measure.sh builds this file for sm_90, records ptxas's resource usage, and asks the CUDA
// runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor) how many blocks of each kernel fit
// on one SM for every block size 32..1024 (step 32) and several dynamic shared memory sizes.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// N accumulators that all stay live through the loop: registers grow with N.
template <int N>
__device__ __forceinline__ void accumulate(const float *__restrict__ in, float *out, int iters) {
    float acc[N];
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = in[i] * (float)threadIdx.x;
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
        float x = in[it];
#pragma unroll
        for (int i = 0; i < N; ++i) acc[i] = fmaf(acc[i], x, acc[(i + 1) % N]);
    }
#pragma unroll
    for (int i = 0; i < N; ++i) out[threadIdx.x + i * 1024] = acc[i];
}

template <int N>
__global__ void occ_regs(const float *__restrict__ in, float *out, int iters) { accumulate<N>(in, out, iters); }

template __global__ void occ_regs<1>(const float *__restrict__, float *, int);
template __global__ void occ_regs<16>(const float *__restrict__, float *, int);
template __global__ void occ_regs<22>(const float *__restrict__, float *, int);
template __global__ void occ_regs<28>(const float *__restrict__, float *, int);
template __global__ void occ_regs<40>(const float *__restrict__, float *, int);
template __global__ void occ_regs<52>(const float *__restrict__, float *, int);
template __global__ void occ_regs<60>(const float *__restrict__, float *, int);
template __global__ void occ_regs<72>(const float *__restrict__, float *, int);
template __global__ void occ_regs<88>(const float *__restrict__, float *, int);
template __global__ void occ_regs<96>(const float *__restrict__, float *, int);
template __global__ void occ_regs<104>(const float *__restrict__, float *, int);
template __global__ void occ_regs<120>(const float *__restrict__, float *, int);
template __global__ void occ_regs<140>(const float *__restrict__, float *, int);
template __global__ void occ_regs<156>(const float *__restrict__, float *, int);

// Static shared memory of BYTES (a multiple of 4), few registers.
template <int BYTES>
__global__ void occ_smem(const float *__restrict__ in, float *out) {
    __shared__ float buf[BYTES / 4];
    for (int i = threadIdx.x; i < BYTES / 4; i += blockDim.x) buf[i] = in[i];
    __syncthreads();
    out[threadIdx.x] = buf[(threadIdx.x * 7) % (BYTES / 4)];
}

template __global__ void occ_smem<1024>(const float *__restrict__, float *);
template __global__ void occ_smem<10000>(const float *__restrict__, float *);
template __global__ void occ_smem<24576>(const float *__restrict__, float *);
template __global__ void occ_smem<40000>(const float *__restrict__, float *);
template __global__ void occ_smem<49152>(const float *__restrict__, float *);

// Dynamic shared memory only (the launch gives its size).
__global__ void occ_dynamic(const float *__restrict__ in, float *out, int n) {
    extern __shared__ float dyn[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) dyn[i] = in[i];
    __syncthreads();
    out[threadIdx.x] = dyn[(threadIdx.x * 5) % n];
}

// Static and dynamic shared memory, and a register-heavy body.
__global__ void occ_mixed(const float *__restrict__ in, float *out, int iters, int n) {
    __shared__ float stat[3000];
    extern __shared__ float dyn[];
    for (int i = threadIdx.x; i < 3000; i += blockDim.x) stat[i] = in[i];
    for (int i = threadIdx.x; i < n; i += blockDim.x) dyn[i] = in[i + 3000];
    __syncthreads();
    out[blockIdx.x] = stat[threadIdx.x % 3000] + dyn[threadIdx.x % n];
    accumulate<64>(in, out + 4096, iters);
}

// __launch_bounds__: ptxas caps registers (and may spill) to fit the requested blocks.
__global__ void __launch_bounds__(256, 4) occ_lb_256x4(const float *__restrict__ in, float *out, int iters) {
    accumulate<96>(in, out, iters);
}
__global__ void __launch_bounds__(1024) occ_lb_1024(const float *__restrict__ in, float *out, int iters) {
    accumulate<72>(in, out, iters);
}
__global__ void __launch_bounds__(128, 1) occ_lb_128x1(const float *__restrict__ in, float *out, int iters) {
    accumulate<140>(in, out, iters);
}
__global__ void __launch_bounds__(512, 2) occ_lb_512x2(const float *__restrict__ in, float *out, int iters) {
    __shared__ float stat[2048];
    stat[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = stat[(threadIdx.x + 1) % 512];
    accumulate<40>(in, out + 1024, iters);
}
__global__ void __launch_bounds__(384) occ_lb_384(const float *__restrict__ in, float *out, int iters) {
    accumulate<120>(in, out, iters);
}

struct Entry {
    const char *name;
    const void *fn;
};

#define K(f) {#f, (const void *)f}
static const Entry kEntries[] = {
    K(occ_regs<1>),      K(occ_regs<16>),     K(occ_regs<22>),     K(occ_regs<28>),     K(occ_regs<40>),     K(occ_regs<52>),
    K(occ_regs<60>),     K(occ_regs<72>),     K(occ_regs<88>),     K(occ_regs<96>),     K(occ_regs<104>),    K(occ_regs<120>),    K(occ_regs<140>),
    K(occ_regs<156>),    K(occ_smem<1024>),   K(occ_smem<10000>),  K(occ_smem<24576>),  K(occ_smem<40000>),
    K(occ_smem<49152>),  K(occ_dynamic),      K(occ_mixed),        K(occ_lb_256x4),     K(occ_lb_1024),
    K(occ_lb_128x1),     K(occ_lb_512x2),     K(occ_lb_384),
};

int main() {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    printf("# device\t%s\tcc %d.%d\tSMs %d\tdriver_api %d\truntime %d\n", p.name, p.major, p.minor,
           p.multiProcessorCount, driver, runtime);
    printf("# props\tregsPerMultiprocessor %d\tregsPerBlock %d\tsharedMemPerMultiprocessor %zu\t"
           "sharedMemPerBlock %zu\tsharedMemPerBlockOptin %zu\treservedSharedMemPerBlock %zu\t"
           "maxThreadsPerMultiProcessor %d\tmaxThreadsPerBlock %d\tmaxBlocksPerMultiProcessor %d\twarpSize %d\n",
           p.regsPerMultiprocessor, p.regsPerBlock, p.sharedMemPerMultiprocessor, p.sharedMemPerBlock,
           p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock, p.maxThreadsPerMultiProcessor,
           p.maxThreadsPerBlock, p.maxBlocksPerMultiProcessor, p.warpSize);
    const int dyn_sizes[] = {0, 4096, 20000, 49152, 100000, 200000};
    printf("kernel\tmangled_attrs\tblock\tdynamic_smem\tstatus\tblocks_per_sm\n");
    for (const Entry &e : kEntries) {
        cudaFuncAttributes a;
        if (cudaFuncGetAttributes(&a, e.fn) != cudaSuccess) {
            printf("# %s: cudaFuncGetAttributes failed\n", e.name);
            return 1;
        }
        // opt in to the largest dynamic shared memory this kernel can have (above 48 KB needs it)
        int max_dyn = (int)(p.sharedMemPerBlockOptin - a.sharedSizeBytes);
        cudaError_t set = cudaFuncSetAttribute(e.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn);
        printf("# attrs\t%s\tnumRegs %d\tsharedSizeBytes %zu\tlocalSizeBytes %zu\tmaxThreadsPerBlock %d\t"
               "maxDynamicSharedSizeBytes %d\tsetMaxDynamic %d\n",
               e.name, a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock, max_dyn, (int)set);
        for (int dyn : dyn_sizes) {
            for (int block = 32; block <= 1024; block += 32) {
                int blocks = -1;
                cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, e.fn, block, dyn);
                printf("%s\t-\t%d\t%d\t%d\t%d\n", e.name, block, dyn, (int)err, err == cudaSuccess ? blocks : -1);
                cudaGetLastError();
            }
        }
    }
    return 0;
}
