// Global-memory races in a block under guards, and warp-synchronous code on global memory (no launch).
#define T threadIdx.x
#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// ok: the writer runs only in blocks with blockIdx.x < n, the readers only in the others: in one
// block the two guards contradict, and blocks touch only their own element.
extern "C" __global__ void ok_block_guard_split(float *y, float *out, int n) {
  int b = blockIdx.x;
  if (b < n) {
    if (T == 0)
      y[b] = 1.0f;
  } else {
    out[GID] = y[b];
  }
}

// bad: the same element, both guards on the input: thread 0 writes y[b] when b < n, every thread
// reads it when b < m; some n, m let both run in one block.
extern "C" __global__ void bad_block_guard_overlap(float *y, float *out, int n, int m) {
  int b = blockIdx.x;
  if (b < n && T == 0)
    y[b] = 1.0f;
  if (b < m)
    out[GID] = y[b];
}

// ok: lane 0 of each warp raises a volatile flag that the warp's other lanes poll: a polling
// protocol, not a warp-synchronous exchange (volatile reads see the store; nothing is lost).
extern "C" __global__ void ok_volatile_poll_in_warp(volatile int *flags, float *out) {
  int w = GID / 32;
  if (T % 32 == 0)
    flags[w] = 1;
  else
    while (flags[w] == 0) {
    }
  out[GID] = 1.0f;
}

// ok: warps of a block hand a value through a volatile global flag (a polling protocol between
// warps, FENCE's domain): no RACE003 in a block.
extern "C" __global__ void ok_volatile_flag_between_warps(volatile int *flag, float *out) {
  if (T == 0)
    flag[blockIdx.x] = 1;
  if (T == 32)
    while (flag[blockIdx.x] == 0) {
    }
  out[GID] = 1.0f;
}
