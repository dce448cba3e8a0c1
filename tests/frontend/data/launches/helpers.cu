// Kernels launched through host template helpers: the block is a template argument of the helper
// (`launch_rows<32, T, fill_lanes<T>>`), the kernel a template whose argument is a device function,
// and the element type is deduced from the caller's argument (`run(y, ...)` with a float*).

template <typename T>
__device__ void fill_lanes(T *y, int tid) { y[tid % 32] = (T)tid; }

template <typename T>
__device__ void fill_wide(T *y, int tid) { y[tid % 32] = (T)tid; } // EXPECT RACE003

// each thread writes y[tid % 32] of its block's row: distinct for 32 threads, shared by threads
// tid and tid + 32 in a wider block
template <typename T, void (*fill)(T *, int)>
__global__ void rows(T *y) { fill(y + blockIdx.x * 32, threadIdx.x); }

template <int block, typename T, void (*fill)(T *, int)>
static void launch_rows(T *y, int n) {
    const dim3 block_dims(block, 1, 1);
    rows<T, fill><<<n, block_dims>>>(y);
}

template <typename T>
static void run(T *y, int n, int kind) {
    if (kind == 0) {
        launch_rows<32, T, fill_lanes<T>>(y, n);  // ok: 32 threads, one per element
    } else {
        launch_rows<64, T, fill_wide<T>>(y, n);   // bad: threads 0 and 32 write y[0]
    }
}

void host(float *y, int n, int kind) { run(y, n, kind); }
