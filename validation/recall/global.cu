// Recall suite, global memory (see README.md). No launch here: every kernel is meant for any block
// of 64 threads or more and any grid of one block or more (cross-block labels say how many blocks
// they need). Distinct pointer parameters are taken not to alias. `bad:` names two threads of the
// grid that touch one element, one writing, with nothing ordering them; `ok:` says why none do.
#define T threadIdx.x
#define B blockDim.x
#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// bad: under the input guard, thread i writes y[i] and thread i - 1 reads it (y[(i - 1) + 1]).
extern "C" __global__ void bad_guarded_neighbour(float *y, const float *x, int n) {
  int i = GID;
  if (i < n)
    y[i] = x[i] + y[i + 1];
}

// ok: the neighbour is read from the input, which no thread writes.
extern "C" __global__ void ok_guarded_neighbour(float *y, const float *x, int n) {
  int i = GID;
  if (i < n)
    y[i] = x[i] + x[i + 1];
}

// bad: a guard on both ends (1 <= i < n - 1) does not order the in-place stencil: thread i writes
// a[i], which threads i - 1 and i + 1 read.
extern "C" __global__ void bad_guarded_stencil(float *a, int n) {
  int i = GID;
  if (i > 0 && i < n - 1)
    a[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
}

// ok: the stencil writes another array.
extern "C" __global__ void ok_guarded_stencil(float *b, const float *a, int n) {
  int i = GID;
  if (i > 0 && i < n - 1)
    b[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
}

// bad: a grid-stride loop updates in place from the right neighbour: thread i writes a[i] while
// thread i - 1 reads it in the same pass.
extern "C" __global__ void bad_grid_stride_neighbour(float *a, int n) {
  for (int i = GID; i < n - 1; i += gridDim.x * B)
    a[i] = a[i] + a[i + 1];
}

// ok: the grid-stride loop reads one array and writes another.
extern "C" __global__ void ok_grid_stride_neighbour(float *b, const float *a, int n) {
  for (int i = GID; i < n - 1; i += gridDim.x * B)
    b[i] = a[i] + a[i + 1];
}

// bad: through a pointer: z = &y[i], so z[1] is y[i + 1], written by thread i + 1.
extern "C" __global__ void bad_pointer_alias(float *y, int n) {
  int i = GID;
  float *z = &y[i];
  if (i < n)
    z[0] = 2.0f * z[1];
}

// ok: the pointer touches only the thread's own element.
extern "C" __global__ void ok_pointer_alias(float *y, int n) {
  int i = GID;
  float *z = &y[i];
  if (i < n)
    z[0] = 2.0f * z[0];
}

template <typename V>
__global__ void bad_shift_template(V *y, const V *x, int n) {
  int i = GID;
  if (i < n)
    y[i] = y[i + 1] + x[i];
}

// bad: the template (float): thread i writes y[i], which thread i - 1 reads.
template __global__ void bad_shift_template<float>(float *, const float *, int);

template <typename V>
__global__ void ok_shift_template(V *y, const V *x, int n) {
  int i = GID;
  if (i < n)
    y[i] = x[i + 1] + x[i];
}

// ok: the template reads the neighbour from the input only.
template __global__ void ok_shift_template<float>(float *, const float *, int);

__device__ float right_of(const float *a, int i) { return a[i + 1]; }
__device__ float *own(float *a) { return a + blockIdx.x * blockDim.x + threadIdx.x; }

// bad: a device function returns y[i + 1], which thread i + 1 writes.
extern "C" __global__ void bad_device_returns_value(float *y, int n) {
  int i = GID;
  if (i < n)
    y[i] = right_of(y, i);
}

// ok: the device function reads the input.
extern "C" __global__ void ok_device_returns_value(float *y, const float *x, int n) {
  int i = GID;
  if (i < n)
    y[i] = right_of(x, i);
}

// bad: a device function returns the thread's own element; the thread writes its neighbour's
// (own(y)[1] is y[i + 1], which thread i + 1 reads and writes).
extern "C" __global__ void bad_device_returns_pointer(float *y) {
  float *p = own(y);
  p[1] = p[0] * 2.0f;
}

// ok: each thread reads and writes only its own element through the returned pointer.
extern "C" __global__ void ok_device_returns_pointer(float *y) {
  float *p = own(y);
  p[0] = p[0] * 2.0f;
}

// bad: carried across the outer loop: thread t writes a[base + t] after the barrier of iteration k,
// while thread B-1-t reads it before the barrier of iteration k + 1.
extern "C" __global__ void bad_outer_loop_global(float *a, int steps) {
  int base = blockIdx.x * B;
  for (int k = 0; k < steps; k++) {
    float v = a[base + B - 1 - T];
    __syncthreads();
    a[base + T] = v + 1.0f;
  }
}

// ok: a barrier after the write as well (each block touches only its own slab).
extern "C" __global__ void ok_outer_loop_global(float *a, int steps) {
  int base = blockIdx.x * B;
  for (int k = 0; k < steps; k++) {
    float v = a[base + B - 1 - T];
    __syncthreads();
    a[base + T] = v + 1.0f;
    __syncthreads();
  }
}

// bad: in-place reversal of the block's slab with no barrier: thread t writes a[base + t] while
// thread B-1-t reads it.
extern "C" __global__ void bad_reverse_in_place(float *a) {
  int base = blockIdx.x * B;
  a[base + T] = a[base + B - 1 - T];
}

// ok: the reversal reads into a register, waits at a barrier, then writes.
extern "C" __global__ void ok_reverse_in_place(float *a) {
  int base = blockIdx.x * B;
  float v = a[base + B - 1 - T];
  __syncthreads();
  a[base + T] = v;
}

// bad (two blocks or more): block b writes out[k] and out[k + B] (k = bB + t): block b + 1's thread t
// writes out[(b + 1)B + t] too, with nothing ordering blocks.
extern "C" __global__ void bad_guarded_two_per_thread(float *out, const float *in, int n) {
  int k = GID;
  if (k < n)
    out[k] = in[k];
  if (k + B < n)
    out[k + B] = in[k + B];
}

// ok: each block owns 2B elements (k = 2bB + t), so blocks never meet.
extern "C" __global__ void ok_guarded_two_per_thread(float *out, const float *in, int n) {
  int k = blockIdx.x * 2 * B + T;
  if (k < n)
    out[k] = in[k];
  if (k + B < n)
    out[k + B] = in[k + B];
}

// bad: every thread of the block writes a different value to out[blockIdx.x] (WAW).
extern "C" __global__ void bad_block_slot(float *out, const float *in) {
  out[blockIdx.x] = in[GID];
}

// ok: only thread 0 of each block writes the block's slot.
extern "C" __global__ void ok_block_slot(float *out, const float *in) {
  if (T == 0)
    out[blockIdx.x] = in[GID];
}

// bad: threads with a positive input write their own index to *where: different values, WAW.
extern "C" __global__ void bad_found_flag(int *where, const float *in, int n) {
  int i = GID;
  if (i < n && in[i] > 0.0f)
    *where = i;
}

// ok (same-value stores): every writer stores 1; whichever lands last, *found is 1.
extern "C" __global__ void ok_found_flag(int *found, const float *in, int n) {
  int i = GID;
  if (i < n && in[i] > 0.0f)
    *found = 1;
}

// bad: a plain read-modify-write of one counter by every thread of the grid.
extern "C" __global__ void bad_counter(int *count) {
  count[0] = count[0] + 1;
}

// ok: the same update as an atomic.
extern "C" __global__ void ok_counter(int *count) {
  atomicAdd(&count[0], 1);
}

// bad: each thread walks its own row of m elements but writes one past it: thread i writes
// y[(i + 1)m], the first element thread i + 1 reads.
extern "C" __global__ void bad_row_overrun(float *y, int m) {
  int i = GID;
  for (int j = 0; j < m; j++)
    y[i * m + j + 1] = y[i * m + j] + 1.0f;
}

// ok: each thread writes only inside its own row (j + 1 < m).
extern "C" __global__ void ok_row_overrun(float *y, int m) {
  int i = GID;
  for (int j = 0; j + 1 < m; j++)
    y[i * m + j + 1] = y[i * m + j] + 1.0f;
}

// bad: a 2-D in-place shift along x: thread (x, y) writes g[y][x] which thread (x - 1, y) reads.
extern "C" __global__ void bad_2d_shift(float *g, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x + 1 < width)
    g[y * width + x] = g[y * width + x + 1];
}

// ok: the 2-D shift writes another array.
extern "C" __global__ void ok_2d_shift(float *h, const float *g, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x + 1 < width)
    h[y * width + x] = g[y * width + x + 1];
}

// bad: thread 0 of each block clears the block's accumulator while the other threads add to it
// atomically: the plain store and the atomics are unordered.
extern "C" __global__ void bad_clear_and_accumulate(float *acc, const float *in) {
  if (T == 0)
    acc[blockIdx.x] = 0.0f;
  atomicAdd(&acc[blockIdx.x], in[GID]);
}

// ok: the clear is ordered before the atomics by a barrier (a barrier orders global accesses of
// the block), and only this block touches acc[blockIdx.x].
extern "C" __global__ void ok_clear_and_accumulate(float *acc, const float *in) {
  if (T == 0)
    acc[blockIdx.x] = 0.0f;
  __syncthreads();
  atomicAdd(&acc[blockIdx.x], in[GID]);
}

// bad (two blocks or more): every block's thread t writes out[t]: blocks 0 and 1 write the same
// elements with different values.
extern "C" __global__ void bad_block_local_index(float *out, const float *in) {
  out[T] = in[GID];
}

// ok: the index includes the block.
extern "C" __global__ void ok_block_local_index(float *out, const float *in) {
  out[GID] = in[GID];
}
