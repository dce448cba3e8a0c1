// Threads whose reach of an access hangs on a value the kernel computed at run time (read back
// from shared memory, an atomic's result) are no race witnesses: RACE001 counts such pairs as not
// checked. Conditions on input data (global memory, parameters) still count: some input lets any
// two threads pass them together. (tests/rules/test_run_time_reach.py)
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 run_time_reach.cu -o run_time_reach.sm_90.ptx
// Launch: 256 threads per block.

#define BLOCK 256

// A segmented inclusive sum over one block. Step 1 finds each thread's segment head with a
// max-scan over words (index << 1 | 1) of the flagged threads; the head and whether it is a real
// flag (or only the block's first thread, a segment carried in from the left) come back packed
// in one shared word. Step 2 sums over a ping-pong pair of buffers: a thread adds the element
// `offset` to its left only while that element is in its segment, `t - head >= offset`. The head
// is never above t, so the guard also keeps threads t < offset away from the index t - offset,
// which would fall in the other half of the buffer: thread 0 never reads sum[256 - 2] in the pass
// where thread 254 writes it. ptxlint has no range for the head (a value read back from shared
// memory): it cannot decide the guard, and reports nothing.
__global__ void ok_segmented_scan(const int* in, const int* flags, int* out, int* carried_in) {
    __shared__ int word[2 * BLOCK];
    __shared__ int sum[2 * BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    int x = in[i];
    int w = 0;
    word[t] = flags[i] ? (t << 1) | 1 : 0;
    __syncthreads();
#pragma unroll
    for (int offset = 1, half = 0; offset < BLOCK; offset <<= 1) {
        w = word[half + t];
        if (t >= offset) w = max(w, word[half + t - offset]);
        half = BLOCK - half;
        word[half + t] = w;
        __syncthreads();
    }
    int packed = word[t];                // the scan's result, read back (8 passes: the first half)
    int head = packed >> 1;
    carried_in[i] = !(packed & 1);       // no flag at or before t in this block
    int half = 0;
    sum[t] = x;
    __syncthreads();
#pragma unroll
    for (int offset = 1; offset < BLOCK; offset <<= 1) {
        if (t - head >= offset) x += sum[half + t - offset];
        half = BLOCK - half;
        sum[half + t] = x;
        __syncthreads();
    }
    out[i] = x;
}

// The same sum over one buffer, the heads given as input: thread t + offset reads sum[t] while
// thread t overwrites it (all flags clear: every head is 0 and every thread t >= offset reads).
// The guard is on input data, so the pair counts.
__global__ void bad_segmented_scan_one_buffer(const int* in, const int* heads, int* out) {
    __shared__ int sum[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    int x = in[i];
    int head = heads[i];
    sum[t] = x;
    __syncthreads();
#pragma unroll
    for (int offset = 1; offset < BLOCK; offset <<= 1) {
        if (t - head >= offset) x += sum[t - offset];
        sum[t] = x;  // EXPECT RACE001
        __syncthreads();
    }
    out[i] = x;
}

// The ping-pong kernel's exclusive result, read from the left neighbour with no barrier after
// the last pass's writes: the reader and the writer reach their accesses whatever the heads are.
__global__ void bad_exclusive_without_barrier(const int* in, const int* flags, int* out) {
    __shared__ int word[BLOCK];
    __shared__ int sum[2 * BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    int x = in[i];
    word[t] = flags[i] ? t : 0;
    __syncthreads();
    int head = word[t];
    int half = 0;
    sum[t] = x;
    __syncthreads();
#pragma unroll
    for (int offset = 1; offset < BLOCK; offset <<= 1) {
        if (t - head >= offset) x += sum[half + t - offset];
        half = BLOCK - half;
        sum[half + t] = x;
        if (offset < BLOCK / 2) __syncthreads();
    }
    out[i] = t ? sum[half + t - 1] : 0;  // EXPECT RACE001
}

// One thread is elected by an atomic ticket and publishes its index: the ticket is 0 in one
// thread only, so no two threads write `leader`.
__global__ void ok_elected_by_ticket(int* out) {
    __shared__ int tickets;
    __shared__ int leader;
    int t = threadIdx.x;
    if (t == 0) tickets = 0;
    __syncthreads();
    if (atomicAdd(&tickets, 1) == 0) leader = t;
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = leader;
}
