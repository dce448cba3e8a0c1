// Shared-memory mbarriers: cuda::barrier + cuda::memcpy_async, and raw PTX mbarrier ops (sm_90).
#include <cuda/barrier>
#include <cstdint>
#define BLOCK 256

// ptxlint-block: 256x1
// Block-wide async copy completed through a cuda::barrier, then every thread reads the tile (correct).
__global__ void barrierCopy(const float *in, float *out)
{
    __shared__ __align__(16) float tile[BLOCK];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&tile[0], in + blockIdx.x * BLOCK, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * BLOCK + threadIdx.x] = tile[BLOCK - 1 - threadIdx.x];
}

// ptxlint-block: 256x1
// Hand-written mbarrier: init by thread 0, every thread stores then arrives, waits on phase 0
// with try_wait.parity before reading its neighbour's word (correct).
__global__ void rawMbarrier(const int *in, int *out)
{
    __shared__ int buf[BLOCK];
    __shared__ __align__(8) uint64_t mbar;
    uint32_t bar = (uint32_t)__cvta_generic_to_shared(&mbar);
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(blockDim.x) : "memory");
    __syncthreads();
    buf[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
    [[maybe_unused]] uint64_t state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
    asm volatile("{\n\t.reg .pred done;\n"
                 "WAIT_%=:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra WAIT_%=;\n}\n" :: "r"(bar), "r"(0) : "memory");
    out[blockIdx.x * BLOCK + threadIdx.x] = buf[(threadIdx.x + 1) % BLOCK];
}
