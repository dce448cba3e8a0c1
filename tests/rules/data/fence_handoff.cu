// FENCE001 needs a hand-off: data is read after observing the flag or ticket by another block of the
// same launch. Compiled with: nvcc -arch=sm_90 -lineinfo -ptx fence_handoff.cu
#include <cuda/atomic>

__device__ int g_data[64];
__device__ unsigned g_ready;

// Producer: publishes g_data through g_ready with no fence. The only reader is the next kernel, which
// the launch boundary orders after this one: no hand-off inside this launch.
extern "C" __global__ void ok_producer_for_other_kernel(const int* in) {
    if (threadIdx.x < 64) g_data[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) *(volatile unsigned*)&g_ready = 1;
}

// The later kernel: spins on g_ready, fences, reads g_data.
extern "C" __global__ void ok_consumer_of_other_kernel(int* out) {
    if (threadIdx.x == 0) {
        while (*(volatile unsigned*)&g_ready == 0) {}
        __threadfence();
    }
    __syncthreads();
    if (threadIdx.x < 64) out[threadIdx.x] = ((volatile int*)g_data)[threadIdx.x];
}

// Block 0 publishes with a volatile flag and no fence; block 1 polls it with an acquire load.
extern "C" __global__ void bad_publish_acquire_poll(const int* in, int* out, unsigned* flag) {
    if (blockIdx.x == 0) {
        if (threadIdx.x < 64) out[threadIdx.x] = in[threadIdx.x] + 1;
        __syncthreads();
        if (threadIdx.x == 0) *(volatile unsigned*)flag = 1;  // EXPECT FENCE001
    } else if (blockIdx.x == 1) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ready(*flag);
        if (threadIdx.x == 0) while (ready.load(cuda::memory_order_acquire) == 0) {}
        __syncthreads();
        if (threadIdx.x < 64) out[64 + threadIdx.x] = out[threadIdx.x];
    }
}

// Signals completion to the host only: nothing on the device waits for the flag.
extern "C" __global__ void ok_signal_to_host(const int* in, int* out, unsigned* done) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2;
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(done, 1u);
    if (threadIdx.x == 0) *(volatile unsigned*)(done + 1) = blockIdx.x;
}

// In-place compaction: the loop reads `a` after taking slots, but a slot decides nothing.
extern "C" __global__ void ok_in_place_compaction(int* a, unsigned* count, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int x = a[i];
        if (x > 0) a[n + atomicAdd(count, 1u)] = x;
    }
}

// A ticket taken with release: a fence for the partial before it; the winner reads after an acquire.
extern "C" __global__ void ok_ticket_release_then_fence(const int* in, int* partial, unsigned* count, int* out) {
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = in[blockIdx.x];
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(*count);
        if (ticket.fetch_add(1u, cuda::memory_order_release) == gridDim.x - 1) {
            cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
            int total = 0;
            for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
            out[0] = total;
        }
    }
}

// The same ticket taken at block scope by mistake: a CTA-scope atomic publishes nothing to other
// blocks, so ptxlint has no cross-block hand-off to check (it says nothing rather than guess).
extern "C" __global__ void ok_block_scope_counter(const int* in, int* partial, unsigned* count) {
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = in[blockIdx.x];
        cuda::atomic_ref<unsigned, cuda::thread_scope_block> c(count[blockIdx.x]);
        if (c.fetch_add(1u, cuda::memory_order_relaxed) == 0) partial[blockIdx.x] += partial[blockIdx.x];
    }
}
