// SYNC002 on early returns: when the split of the block depends on a run-time value (no launch here).
#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// bad: threads past n return before the barrier; only the block in which n falls is split, and
// only when n is not a multiple of the block's thread count.
extern "C" __global__ void bad_exit_past_n(float *a, int n) {
  __shared__ float s[1024];
  if (GID >= n)
    return;
  s[threadIdx.x] = a[GID];
  __syncthreads();
  a[GID] = s[blockDim.x - 1 - threadIdx.x];
}

// bad: threads 40 and above of every block return: every block is split, whatever the input.
extern "C" __global__ void bad_exit_past_constant(float *a) {
  __shared__ float s[1024];
  if (threadIdx.x >= 40)
    return;
  s[threadIdx.x] = a[GID];
  __syncthreads();
  a[GID] = s[39 - threadIdx.x];
}

// bad: the bound is a parameter but the test is on threadIdx alone: blocks split when m is below
// the block's thread count.
extern "C" __global__ void bad_exit_past_m_in_block(float *a, int m) {
  __shared__ float s[1024];
  if (threadIdx.x >= m)
    return;
  s[threadIdx.x] = a[GID];
  __syncthreads();
  a[GID] = s[0];
}
