// Labelled kernels for RACE003 (global-memory races). Launched with 256-thread blocks and a grid
// of several blocks. compute-sanitizer's racecheck checks shared memory only, so each label is
// decided by the comment above the kernel: the two threads and the element they both touch, or
// why no two threads of the grid touch one element with a write between unordered accesses.
#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// bad: thread 255 of block b reads a[256b + 256], which thread 0 of block b + 1 writes; the
// barrier orders the block's own threads only.
extern "C" __global__ void bad_shift_left_barrier(float *a) {
  float v = a[GID + 1];
  __syncthreads();
  a[GID] = v;
}

// bad: in a block, thread 31 reads a[32] which thread 32 (another warp) writes, unordered.
extern "C" __global__ void bad_shift_left(float *a) {
  a[GID] = a[GID + 1];
}

// bad: every block's thread t writes out[t]: blocks b and b + 1 write the same 256 elements.
extern "C" __global__ void bad_all_blocks_same_slots(float *out, const float *in) {
  out[threadIdx.x] = in[GID];
}

// bad: all 256 threads of a block write different values to out[blockIdx.x].
extern "C" __global__ void bad_block_slot_all_threads(float *out, const float *in) {
  out[blockIdx.x] = in[GID];
}

// bad: block b writes out[255b .. 255b + 255]: its thread 255 and thread 0 of block b + 1 both
// write out[255(b + 1)].
extern "C" __global__ void bad_overlapping_tiles(float *out, const float *in) {
  out[blockIdx.x * 255 + threadIdx.x] = in[GID];
}

// bad: an in-place 3-point stencil: thread t writes a[i] while thread t + 1 reads it (in a block),
// and thread 255 of block b reads a[256b + 256] that block b + 1's thread 0 writes.
extern "C" __global__ void bad_stencil_in_place(float *a) {
  int i = GID + 1;
  a[i] = 0.5f * (a[i - 1] + a[i + 1]);
}

// bad: a plain store and atomics on out[0]: thread 0's store is unordered with the other
// threads' atomicAdd (and with other blocks').
extern "C" __global__ void bad_store_and_atomic(int *out) {
  if (threadIdx.x == 0)
    out[0] = 0;
  atomicAdd(&out[0], 1);
}

// bad: every block reads table[t] while thread 0 of every block writes table[0].
extern "C" __global__ void bad_read_write_table(float *table, float *out) {
  out[GID] = table[threadIdx.x];
  if (threadIdx.x == 0)
    table[0] = (float)blockIdx.x;
}

// ok: each thread reads and writes only its own element.
extern "C" __global__ void ok_in_place_scale(float *a) {
  a[GID] = 2.0f * a[GID];
}

// ok: out of place (different pointer parameters are assumed not to alias).
extern "C" __global__ void ok_copy(float *out, const float *in) {
  out[GID] = in[GID + 1];
}

// ok: only thread 0 of each block writes out[blockIdx.x]: one writer per element.
extern "C" __global__ void ok_block_slot_one_thread(float *out, const float *in) {
  if (threadIdx.x == 0)
    out[blockIdx.x] = in[GID];
}

// ok: atomics against atomics are not races.
extern "C" __global__ void ok_atomic_counter(int *out) {
  atomicAdd(&out[blockIdx.x % 4], 1);
}

// ok: every block writes its own 256 elements, a barrier, then reads a neighbour inside its own range.
extern "C" __global__ void ok_barrier_own_range(float *a, float *out) {
  a[GID] = (float)threadIdx.x;
  __syncthreads();
  out[GID] = a[blockIdx.x * blockDim.x + (threadIdx.x + 1) % blockDim.x];
}

// bad: the same without the barrier: thread 31 reads a[32] which thread 32 writes, unordered.
extern "C" __global__ void bad_no_barrier_own_range(float *a, float *out) {
  a[GID] = (float)threadIdx.x;
  out[GID] = a[blockIdx.x * blockDim.x + (threadIdx.x + 1) % blockDim.x];
}

// ok: a 2-D block of 16x16 writes its own 16x16 tile of a 1024-wide matrix.
extern "C" __global__ void ok_tiles_2d(float *out, const float *in) {
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  out[y * 1024 + x] = in[x * 1024 + y];
}

// ok: an out-of-place stencil.
extern "C" __global__ void ok_stencil_out_of_place(float *out, const float *in) {
  int i = GID + 1;
  out[i] = 0.5f * (in[i - 1] + in[i + 1]);
}

// ok: every block reads the same table, nobody writes it.
extern "C" __global__ void ok_shared_read_only_table(float *out, const float *table) {
  out[GID] = table[threadIdx.x % 16];
}

// ok: a gather from run-time indices into a separate output (addresses not known: nothing claimed).
extern "C" __global__ void ok_gather(float *out, const float *in, const int *idx) {
  out[GID] = in[idx[GID]];
}
