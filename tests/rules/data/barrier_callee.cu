// A __syncthreads() inside a __noinline__ device function: the call is the barrier.
// Compiled with: nvcc -ptx -arch=sm_90 -lineinfo barrier_callee.cu -o barrier_callee.sm_90.ptx
__device__ __noinline__ void stage(float *buf, const float *in)
{
    buf[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
}

__global__ void bad_barrier_in_callee_under_divergence(const float *in, float *out)
{
    __shared__ float buf[128];
    if (threadIdx.x < 64)
        stage(buf, in);
    out[threadIdx.x] = buf[(threadIdx.x + 1) % 128];
}

__global__ void ok_barrier_in_callee_uniform(const float *in, float *out)
{
    __shared__ float buf[128];
    stage(buf, in);
    out[threadIdx.x] = buf[(threadIdx.x + 1) % 128];
}

// one level deeper: the barrier is in a function that the called function calls
__device__ __noinline__ void stage_twice(float *buf, const float *in)
{
    stage(buf, in);
    stage(buf + 64, in);
}

__global__ void bad_nested_callee_barrier_after_return(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    if (threadIdx.x >= n)
        return;
    stage_twice(buf, in);
    out[threadIdx.x] = buf[threadIdx.x];
}
