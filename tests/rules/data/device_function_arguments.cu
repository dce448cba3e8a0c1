// A device function that nvcc keeps as a function of its own (`__noinline__`, a call through a
// pointer, external linkage) is also checked on its own, where nothing says what its callers pass.
// Its parameters are taken to be alike in every thread of the block: a gate step that branches on
// the gate it was handed (`if (g->kind == 1)`) around barriers splits no block, since every thread
// applies the same gate. A split the function makes itself (`if (threadIdx.x < n)`) is reported.
// Where a caller passes values that differ between threads, the kernel is checked with them
// wherever nvcc inlines the call.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 device_function_arguments.cu -o device_function_arguments.sm_90.ptx

struct Gate {
  int kind;
  int shift;
};

// ok: every thread applies the gate it is handed, the same one in the whole block.
extern "C" __device__ __noinline__ void apply_gate(const Gate *g, float *state) {
  __shared__ float tile[256];
  if (g->kind == 1) {
    tile[threadIdx.x] = state[threadIdx.x];
    __syncthreads();
    state[threadIdx.x] = tile[(threadIdx.x + g->shift) % 256];
    __syncthreads();
  }
}

// bad: the function itself sends only the threads below n to the barriers.
extern "C" __device__ __noinline__ void apply_partial(const Gate *g, float *state, int n) {
  __shared__ float tile[256];
  if (threadIdx.x < n) {
    tile[threadIdx.x] = state[threadIdx.x];
    __syncthreads();  // EXPECT SYNC001
    state[threadIdx.x] = tile[(threadIdx.x + g->shift) % 256];
    __syncthreads();  // EXPECT SYNC001
  }
}

extern "C" __global__ void run_gates(const Gate *gates, int count, float *state, int n) {
  for (int i = 0; i < count; i++) {
    apply_gate(&gates[i], state + blockIdx.x * 256);
    apply_partial(&gates[i], state + blockIdx.x * 256, n);
  }
}

int main() {
  Gate *g;
  float *s;
  cudaMalloc(&g, 64 * sizeof(Gate));
  cudaMalloc(&s, 1 << 22);
  run_gates<<<64, 256>>>(g, 64, s, 256);
  return 0;
}
