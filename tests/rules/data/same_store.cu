// Lanes of one store: two threads writing *different* values to one address in the same store are a
// write-write race (racecheck: WAW hazard); the same value is benign; run-time data is not known
// to differ and is not reported.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 same_store.cu -o same_store.sm_90.ptx
// Launch: 256 threads per block.

// lanes 2k and 2k+1 of each warp write t to slot t/2: which one remains is undefined
__global__ void bad_pairs_write_their_ids(int* out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t / 2] = t;  // EXPECT RACE001
    __syncthreads();
    out[blockIdx.x * 256 + t] = s[t / 2];
}

// the same slots, the same value in both lanes of a pair
__global__ void ok_pairs_write_one_value(int* out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t / 2] = t / 2;
    __syncthreads();
    out[blockIdx.x * 256 + t] = s[t / 2];
}

// the same slots, values loaded from memory: not known to differ
__global__ void ok_pairs_write_loaded_values(const int* in, int* out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t / 2] = in[blockIdx.x * 256 + t];
    __syncthreads();
    out[blockIdx.x * 256 + t] = s[t / 2];
}

// every thread with a value above a threshold publishes its id: threads of different warps
__global__ void bad_last_writer_wins(const float* in, int* out) {
    __shared__ int who;
    if (threadIdx.x == 0) who = -1;
    __syncthreads();
    if (in[blockIdx.x * 256 + threadIdx.x] > 0.5f) who = threadIdx.x;  // EXPECT RACE001
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = who;
}

// every thread sets the same flag to 1: benign
__global__ void ok_everyone_sets_one(const float* in, int* out) {
    __shared__ int any;
    if (threadIdx.x == 0) any = 0;
    __syncthreads();
    if (in[blockIdx.x * 256 + threadIdx.x] > 0.5f) any = 1;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = any;
}

// a vector store: lanes 2k and 2k+1 write {t, 0} to one 8-byte slot
__global__ void bad_vector_pairs(int2* out) {
    __shared__ int2 s[128];
    int t = threadIdx.x;
    s[t / 2] = make_int2(t, 0);  // EXPECT RACE001
    __syncthreads();
    out[blockIdx.x * 256 + t] = s[t / 2];
}
