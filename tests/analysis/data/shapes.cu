// Kernels whose findings depend on the block shape they are launched with (no launch here).

// Sized for one warp: under a guessed 256-thread block, thread 32 would write past `s` and
// warp 1 would read what warp 0 wrote; with the 32 threads it is written for, it is correct.
__global__ void oneWarpRotate(float *out, const float *in) {
    __shared__ float s[32];
    s[threadIdx.x] = in[threadIdx.x];
    __syncwarp();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}

// A barrier only the first 16 threads reach: wrong for every block shape.
__global__ void halfWarpBarrier(float *out) {
    __shared__ float s[1024];
    s[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 16) {
        __syncthreads();
    }
    out[threadIdx.x] = s[threadIdx.x];
}

// The same divergent barrier in every instantiation: one finding that names them all.
template <typename T, int N>
__global__ void scaled(T *out) {
    __shared__ T s[1024];
    s[threadIdx.x] = (T)N;
    if (threadIdx.x < 16) {
        __syncthreads();
    }
    out[threadIdx.x] = s[threadIdx.x];
}

template __global__ void scaled<float, 1>(float *);
template __global__ void scaled<int, 2>(int *);
template __global__ void scaled<double, 3>(double *);

// Written for 64 threads: thread t reads s[t + 64] only as far as the block reaches. Under 64
// threads nothing is read that another thread writes; a 128-thread block would race between warps
// (thread 0 reads s[64], which thread 64 writes). The race depends on the unknown shape.
__global__ void halfOfSharedRotate(float *out, const float *in) {
    __shared__ float s[128];
    s[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = (threadIdx.x + 64 < blockDim.x) ? s[threadIdx.x + 64] : 0.0f;
}
