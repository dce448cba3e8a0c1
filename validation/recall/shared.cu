// Recall suite, shared memory (see README.md). No launch here: every kernel is meant for any block
// of 64 threads or more (1-D unless it reads threadIdx.y) and any grid. The comment above each
// kernel labels it by the CUDA memory model: `bad:` names two threads of one block that touch one
// shared element, one writing, with no barrier between; `ok:` says why no such pair exists.
#define T threadIdx.x
#define B blockDim.x
#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// bad: thread t writes s[t]; thread B-1-t reads it with no barrier between (warps 0 and last differ).
extern "C" __global__ void bad_reverse(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  out[GID] = s[B - 1 - T];
}

// ok: the barrier orders every write of s before every read.
extern "C" __global__ void ok_reverse(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  __syncthreads();
  out[GID] = s[B - 1 - T];
}

// bad: the tree reduction has no barrier between steps: in the first step (h = B/2) thread 0 reads
// s[h] while thread h (another warp) adds into it.
extern "C" __global__ void bad_tree_reduction(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  __syncthreads();
  for (unsigned h = B / 2; h > 0; h >>= 1) {
    if (T < h)
      s[T] += s[T + h];
  }
  if (T == 0)
    out[blockIdx.x] = s[0];
}

// ok: a barrier ends every step of the reduction.
extern "C" __global__ void ok_tree_reduction(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  __syncthreads();
  for (unsigned h = B / 2; h > 0; h >>= 1) {
    if (T < h)
      s[T] += s[T + h];
    __syncthreads();
  }
  if (T == 0)
    out[blockIdx.x] = s[0];
}

// bad: carried across iterations of the outer loop: thread t writes s[t] in iteration k + 1 while
// thread B-1-t may still read it in iteration k (only one barrier per iteration).
extern "C" __global__ void bad_outer_loop_one_barrier(float *out, const float *in, int tiles) {
  __shared__ float s[1024];
  float acc = 0.0f;
  for (int k = 0; k < tiles; k++) {
    s[T] = in[k * B + T];
    __syncthreads();
    acc += s[B - 1 - T];
  }
  out[GID] = acc;
}

// ok: a second barrier ends each iteration, so the next write waits for every read.
extern "C" __global__ void ok_outer_loop_one_barrier(float *out, const float *in, int tiles) {
  __shared__ float s[1024];
  float acc = 0.0f;
  for (int k = 0; k < tiles; k++) {
    s[T] = in[k * B + T];
    __syncthreads();
    acc += s[B - 1 - T];
    __syncthreads();
  }
  out[GID] = acc;
}

// bad: under an input guard: every thread with i < n writes s[t], thread B-1-t reads it, no barrier.
extern "C" __global__ void bad_guarded_shared(float *out, const float *in, int n) {
  __shared__ float s[1024];
  int i = GID;
  if (i < n) {
    s[T] = in[i];
    out[i] = s[B - 1 - T];
  }
}

// ok: each guarded thread reads only the element it wrote itself.
extern "C" __global__ void ok_guarded_shared(float *out, const float *in, int n) {
  __shared__ float s[1024];
  int i = GID;
  if (i < n) {
    s[T] = in[i];
    out[i] = 2.0f * s[T];
  }
}

// bad: through a pointer into the array: thread t reads p[32] = s[t + 32], written by thread t + 32
// (the next warp), with no barrier.
extern "C" __global__ void bad_pointer_offset(float *out, const float *in) {
  __shared__ float s[1024 + 32];
  float *p = &s[T];
  p[0] = in[GID];
  out[GID] = p[32];
}

// ok: the same pointer, with a barrier between the write and the neighbour's read.
extern "C" __global__ void ok_pointer_offset(float *out, const float *in) {
  __shared__ float s[1024 + 32];
  float *p = &s[T];
  p[0] = in[GID];
  __syncthreads();
  out[GID] = p[32];
}

template <int R>
__global__ void bad_stencil_template(float *out, const float *in) {
  __shared__ float s[1024 + 2 * R];
  s[T + R] = in[GID];
  if (T < R) {
    s[T] = 0.0f;
    s[T + B + R] = 0.0f;
  }
  out[GID] = s[T] + s[T + 2 * R];
}

// bad: the template (R = 32) reads s[t] and s[t + 64], written by threads t - 32 and t + 32 (other
// warps), with no barrier.
template __global__ void bad_stencil_template<32>(float *, const float *);

template <int R>
__global__ void ok_stencil_template(float *out, const float *in) {
  __shared__ float s[1024 + 2 * R];
  s[T + R] = in[GID];
  if (T < R) {
    s[T] = 0.0f;
    s[T + B + R] = 0.0f;
  }
  __syncthreads();
  out[GID] = s[T] + s[T + 2 * R];
}

// ok: the same template with the barrier between the halo writes and the reads.
template __global__ void ok_stencil_template<32>(float *, const float *);

__device__ float *mirror_slot(float *s) { return s + (blockDim.x - 1 - threadIdx.x); }
__device__ float load_mirror(const float *s) { return s[blockDim.x - 1 - threadIdx.x]; }

// bad: a device function returns the address thread B-1-t writes; thread t reads it, no barrier.
extern "C" __global__ void bad_device_pointer(float *out, const float *in) {
  __shared__ float s[1024];
  *mirror_slot(s) = in[GID];
  out[GID] = s[T];
}

// ok: the same device function, with a barrier.
extern "C" __global__ void ok_device_pointer(float *out, const float *in) {
  __shared__ float s[1024];
  *mirror_slot(s) = in[GID];
  __syncthreads();
  out[GID] = s[T];
}

// bad: a device function returns the value at s[B-1-t], written by thread B-1-t with no barrier.
extern "C" __global__ void bad_device_value(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  out[GID] = load_mirror(s);
}

// ok: the same device function after a barrier.
extern "C" __global__ void ok_device_value(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  __syncthreads();
  out[GID] = load_mirror(s);
}

// bad: threads whose input is positive write different values (their index) to `winner`: WAW, and
// thread 0 reads it after the barrier, seeing whichever store came last.
extern "C" __global__ void bad_flag_value(int *out, const float *in) {
  __shared__ int winner;
  if (T == 0)
    winner = -1;
  __syncthreads();
  if (in[GID] > 0.0f)
    winner = T;
  __syncthreads();
  if (T == 0)
    out[blockIdx.x] = winner;
}

// ok (same-value stores): every writer stores the same 1, so the value read after the barrier is
// one no matter which store lands last; no harmful WAW.
extern "C" __global__ void ok_flag_value(int *out, const float *in) {
  __shared__ int found;
  if (T == 0)
    found = 0;
  __syncthreads();
  if (in[GID] > 0.0f)
    found = 1;
  __syncthreads();
  if (T == 0)
    out[blockIdx.x] = found;
}

// bad: thread 0 resets the counter while every thread atomically adds to it, no barrier between.
extern "C" __global__ void bad_reset_and_atomic(int *out) {
  __shared__ int count;
  if (T == 0)
    count = 0;
  atomicAdd(&count, 1);
  __syncthreads();
  if (T == 0)
    out[blockIdx.x] = count;
}

// ok: a barrier between the reset and the atomics.
extern "C" __global__ void ok_reset_and_atomic(int *out) {
  __shared__ int count;
  if (T == 0)
    count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  __syncthreads();
  if (T == 0)
    out[blockIdx.x] = count;
}

// bad: a 2-D tile read transposed with no barrier: thread (x, y) reads tile[x][y], which thread
// (y, x) writes; for x != y in different warps (e.g. (0, 4) and (4, 0) of an 8x8 block).
extern "C" __global__ void bad_transpose_tile(float *out, const float *in) {
  __shared__ float tile[32][33];
  int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[(blockIdx.x * blockDim.y + y) * blockDim.x + x];
  out[(blockIdx.x * blockDim.y + y) * blockDim.x + x] = tile[x][y];
}

// ok: the same tile, with the barrier.
extern "C" __global__ void ok_transpose_tile(float *out, const float *in) {
  __shared__ float tile[32][33];
  int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[(blockIdx.x * blockDim.y + y) * blockDim.x + x];
  __syncthreads();
  out[(blockIdx.x * blockDim.y + y) * blockDim.x + x] = tile[x][y];
}

// bad: the last element of each warp's chunk is read by the next warp's first lane (a scan carry)
// with no barrier: lane 0 of warp w + 1 reads s[32(w + 1) - 1], which lane 31 of warp w writes.
extern "C" __global__ void bad_warp_carry(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  float carry = (T % 32 == 0 && T > 0) ? s[T - 1] : 0.0f;
  out[GID] = s[T] + carry;
}

// ok: the carry is read after a barrier.
extern "C" __global__ void ok_warp_carry(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  __syncthreads();
  float carry = (T % 32 == 0 && T > 0) ? s[T - 1] : 0.0f;
  out[GID] = s[T] + carry;
}

// bad: one thread per warp writes the warp's partial sum; thread 0 then sums them with no barrier
// (lane 0 of warp 1 writes partial[1] while thread 0 reads it).
extern "C" __global__ void bad_warp_partials(float *out, const float *in) {
  __shared__ float partial[32];
  float v = in[GID];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if (T % 32 == 0)
    partial[T / 32] = v;
  if (T == 0) {
    float sum = 0.0f;
    for (int w = 0; w < B / 32; w++)
      sum += partial[w];
    out[blockIdx.x] = sum;
  }
}

// ok: the partial sums are read after a barrier.
extern "C" __global__ void ok_warp_partials(float *out, const float *in) {
  __shared__ float partial[32];
  float v = in[GID];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if (T % 32 == 0)
    partial[T / 32] = v;
  __syncthreads();
  if (T == 0) {
    float sum = 0.0f;
    for (int w = 0; w < B / 32; w++)
      sum += partial[w];
    out[blockIdx.x] = sum;
  }
}

// bad: a grid-stride loop over tiles that stages each tile in shared memory with one barrier: the
// next tile's write of s[t] races with thread B-1-t's read of the previous tile.
extern "C" __global__ void bad_grid_stride_tiles(float *out, const float *in, int n) {
  __shared__ float s[1024];
  for (int base = blockIdx.x * B; base < n; base += gridDim.x * B) {
    s[T] = in[base + T];
    __syncthreads();
    out[base + T] = s[B - 1 - T];
  }
}

// ok: the same loop with a barrier after the reads as well.
extern "C" __global__ void ok_grid_stride_tiles(float *out, const float *in, int n) {
  __shared__ float s[1024];
  for (int base = blockIdx.x * B; base < n; base += gridDim.x * B) {
    s[T] = in[base + T];
    __syncthreads();
    out[base + T] = s[B - 1 - T];
    __syncthreads();
  }
}
