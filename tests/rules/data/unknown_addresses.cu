// Addresses built from run-time data never collide: merge-path ranks, scan offsets, atomic slots.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 unknown_addresses.cu -o unknown_addresses.sm_90.ptx
// Launch: 256 threads per block.

__device__ int lower_bound(const int* a, int n, int x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// rank sort / merge: each key's place is its rank among the tile's keys, found by a binary search
// over a sorted copy in global memory; distinct keys give distinct places
__global__ void ok_merge_rank(const int* keys, const int* sorted, int n, int* out) {
    __shared__ int placed[256];
    int t = threadIdx.x;
    int x = keys[blockIdx.x * 256 + t];
    placed[lower_bound(sorted, n, x)] = x;
    __syncthreads();
    out[blockIdx.x * 256 + t] = placed[t];
}

// the rank alone (a search with a fixed number of steps over a sorted shared tile)
__global__ void ok_rank_fixed_steps(const int* a, const int* b, int* out) {
    __shared__ int keys[256];
    __shared__ int ranked[256];
    int t = threadIdx.x;
    keys[t] = b[blockIdx.x * 256 + t];
    int x = a[blockIdx.x * 256 + t];
    __syncthreads();
    int lo = 0;
    for (int step = 128; step > 0; step >>= 1)
        if (keys[lo + step - 1] < x) lo += step;
    ranked[lo] = x;
    __syncthreads();
    out[blockIdx.x * 256 + t] = ranked[t];
}

// stream compaction: offsets from a warp scan (shuffles) and per-warp totals
__global__ void ok_compact_scan(const int* in, int* out, int* count) {
    __shared__ int kept[256];
    __shared__ int warp_total[8];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int v = in[blockIdx.x * 256 + t];
    int keep = v > 0, incl = keep;
    for (int d = 1; d < 32; d <<= 1) {
        int y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
    }
    if (lane == 31) warp_total[warp] = incl;
    __syncthreads();
    int base = 0;
    for (int w = 0; w < warp; ++w) base += warp_total[w];
    if (keep) kept[base + incl - keep] = v;
    __syncthreads();
    if (t == 0) { int c = 0; for (int w = 0; w < 8; ++w) c += warp_total[w]; count[blockIdx.x] = c; }
    out[blockIdx.x * 256 + t] = kept[t];
}

// slots handed out by a shared atomic counter
__global__ void ok_atomic_slot(const int* in, int* out) {
    __shared__ int slots[256];
    __shared__ int next;
    if (threadIdx.x == 0) next = 0;
    __syncthreads();
    int v = in[blockIdx.x * 256 + threadIdx.x];
    if (v > 0) slots[atomicAdd(&next, 1)] = v;
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = slots[threadIdx.x];
}

// compaction in two phases: the slot comes from a scan (here a shared counter) in the first
// phase and is used after a barrier, only by the threads that got one
__global__ void ok_compact_two_phase(const int* in, int* out, int* total) {
    __shared__ int kept[256];
    __shared__ int counter;
    int t = threadIdx.x;
    if (t == 0) counter = 0;
    __syncthreads();
    int v = in[blockIdx.x * 256 + t];
    int slot = 0;
    if (v > 0) slot = atomicAdd(&counter, 1);
    __syncthreads();
    if (v > 0) kept[slot] = v;
    __syncthreads();
    if (t == 0) total[blockIdx.x] = counter;
    out[blockIdx.x * 256 + t] = kept[t];
}

// still a race: the neighbour's slot is read with no barrier, whatever the data
__global__ void bad_neighbour_after_search(const int* a, const int* b, int n, int* out) {
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = lower_bound(b, n, a[blockIdx.x * 256 + t]);
    out[blockIdx.x * 256 + t] = s[(t + 32) & 255];  // EXPECT RACE001
}
