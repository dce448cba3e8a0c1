// A pair of accesses is no race when the conditions under which the two threads reach them
// contradict each other; conditions on thread-dependent values do not contradict across threads.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 contradictions.cu -o contradictions.sm_90.ptx
// Launch: 256 threads per block.

// blockIdx.x < n and blockIdx.x >= n cannot both hold in one block: a block writes or reads
__global__ void ok_complementary_block_conditions(const int* in, int* out, int n) {
    __shared__ int s[256];
    int t = threadIdx.x;
    int b = blockIdx.x;
    if (b < n) s[t] = in[b * 256 + t];
    if (b >= n) out[b * 256 + t] = s[(t + 32) & 255];
}

// the same with work between the two `if`s, so that nvcc keeps two branches in one path
__global__ void ok_complementary_conditions_apart(const int* in, int* out, int* seen, int n) {
    __shared__ int s[256];
    int t = threadIdx.x;
    int b = blockIdx.x;
    if (b < n) s[t] = in[b * 256 + t];
    seen[b * 256 + t] = t;
    if (b >= n) out[b * 256 + t] = s[(t + 32) & 255];
}

// the same conditions in both threads: a block that writes also reads, so this one races
__global__ void bad_same_block_condition(const int* in, int* out, int n) {
    __shared__ int s[256];
    int t = threadIdx.x;
    int b = blockIdx.x;
    if (b < n) s[t] = in[b * 256 + t];
    if (b < n + 1) out[b * 256 + t] = s[(t + 32) & 255];  // EXPECT RACE001
}

// tid == 0 writes, tid != 0 reads: different threads meet these conditions together
__global__ void bad_writer_and_readers(const int* in, int* out) {
    __shared__ int flag;
    int t = threadIdx.x;
    if (t == 0) flag = in[blockIdx.x];
    if (t != 0) out[blockIdx.x * 256 + t] = flag;  // EXPECT RACE001
}

// a condition on per-thread data: thread 0's value and thread 32's are different unknowns
__global__ void bad_data_conditions(const int* in, int* out, int n) {
    __shared__ int s[256];
    int t = threadIdx.x;
    int v = in[blockIdx.x * 256 + t];
    if (v < n) s[t] = v;
    if (v >= n) out[blockIdx.x * 256 + t] = s[(t + 32) & 255];  // EXPECT RACE001
}
