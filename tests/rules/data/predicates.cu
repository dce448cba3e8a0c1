// Three-valued predicates: threads that provably skip an access take no part in a race.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 predicates.cu -o predicates.sm_90.ptx
// Launch: 256 threads per block.

// `t >= 32 || v == 0` is true in warps 1..7 whatever v is (or.pred with one side known true):
// only warp 0 stores, and warp 0 reads its own slots back.
__global__ void ok_or_known_true(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    if (!(t >= 32 || v == 0)) s[t & 31] = v;
    if (t < 32) out[blockIdx.x * 32 + t] = s[t];
}

// the same, but warp 1 reads warp 0's slots: a real race
__global__ void bad_or_known_true(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    if (!(t >= 32 || v == 0)) s[t & 31] = v;
    if (t >= 32 && t < 64) out[blockIdx.x * 32 + t - 32] = s[t - 32];  // EXPECT RACE001
}

// `t < 32 && v != 0` is false outside warp 0 (and.pred / setp with a combiner)
__global__ void ok_and_known_false(const int* in, int* out, int n) {
    __shared__ int s[32];
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    bool mine = (t < 32) & (v < n);
    if (mine) s[t & 31] = v;
    if (t < 32) out[blockIdx.x * 32 + t] = s[t];
}

// nvcc lowers this `bool` to `selp.u16 1, 0` and `or.b16`: a side known non-zero makes the `or`
// non-zero, so threads 128.. provably skip the store into the 128 slots
__global__ void ok_bool_or_lowered(const int* in, int* out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    bool skip = t >= 128 || v < 0;
    if (!skip) s[t & 127] = v;
    if (t < 128) out[blockIdx.x * 128 + t] = s[t];
}
