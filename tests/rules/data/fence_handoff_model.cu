// FENCE's model of a hand-off: a PRODUCER block writes data, then publishes a flag or ticket; a
// CONSUMER in another block of the same launch waits on that flag (or tests the ticket) and then
// reads the data. Each class below has a kernel that is a hand-off (bad_: a fence is missing) and a
// near miss that is not one (ok_). main() gives each launch.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 fence_handoff_model.cu
#define BLOCK 128

// ---- work queue: the counter's value is the index of the item a thread takes, not a signal.
// Items are updated in place; the next atomicAdd follows the unfenced store, but what the thread
// reads after taking an index is the item at that index, which only it touches in this launch.
extern "C" __global__ void ok_work_queue_updates_items_in_place(int *items, unsigned *head, unsigned n) {
  for (;;) {
    unsigned i = atomicAdd(head, 1u);
    if (i >= n)
      break;
    items[i] = items[i] * 3 + 1;
  }
}

// The same queue, and a second counter of finished items: the thread that finishes the last item
// sums every item. Its ticket is compared with the count, then everyone's items are read: a
// hand-off, and the item stores are not fenced before the ticket.
extern "C" __global__ void bad_work_queue_last_finisher_sums_items(int *items, unsigned *head, unsigned *done,
                                                                  unsigned n, int *total) {
  for (;;) {
    unsigned i = atomicAdd(head, 1u);
    if (i >= n)
      break;
    items[i] = items[i] * 3 + 1;
    if (atomicAdd(done, 1u) == n - 1) {  // EXPECT FENCE001
      __threadfence();
      int s = 0;
      for (unsigned k = 0; k < n; ++k)
        s += items[k];
      *total = s;
    }
  }
}

// Items that share bins (`i % 4`): the finish ticket publishes bins that other blocks wrote, unfenced
// (FENCE001); the last finisher's read is fenced. The next item's read runs whatever the ticket said.
extern "C" __global__ void bad_work_queue_items_share_bins(int *bins, unsigned *head, unsigned *done, unsigned n,
                                                          int *total) {
  for (;;) {
    unsigned i = atomicAdd(head, 1u);
    if (i >= n)
      break;
    bins[i % 4] = bins[i % 4] * 3 + 1;
    if (atomicAdd(done, 1u) == n - 1) {  // EXPECT FENCE001
      __threadfence();
      *total = bins[0] + bins[1] + bins[2] + bins[3];
    }
  }
}

// ---- unique ids: an atomic that hands out slots (its value is an address) publishes nothing.
// `scratch` is written before the id is taken and read after the capacity check: no block waits
// for the id, so no other block's scratch is read through it.
extern "C" __global__ void ok_unique_id_then_capacity_check(const int *in, int *scratch, int *list,
                                                           unsigned *count, unsigned cap, unsigned n) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[g] = in[g] * 2;
  unsigned id = atomicAdd(count, 1u);
  if (id < cap)
    list[id] = scratch[(g + 1) % n];
}

// The same id also tells the thread that it was the last one (`==`): that thread reads everyone's
// scratch, a hand-off through the counter with no fence before it.
extern "C" __global__ void bad_unique_id_last_reads_all(const int *in, int *scratch, int *list, unsigned *count,
                                                       unsigned n, int *total) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[g] = in[g] * 2;
  unsigned id = atomicAdd(count, 1u);  // EXPECT FENCE001
  list[id] = g;
  if (id == n - 1) {
    __threadfence();
    int s = 0;
    for (unsigned k = 0; k < n; ++k)
      s += scratch[k];
    *total = s;
  }
}

// ---- locks: taking a lock (an atomic retried until it sees the lock free) publishes nothing; the
// release does. Both acquires here fence after taking the lock and before releasing it.
extern "C" __global__ void ok_cas_lock_acquire_then_fence(const float *in, float *partial, float *total,
                                                         int *lock) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  partial[blockIdx.x * blockDim.x + threadIdx.x] = v;
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *total += partial[blockIdx.x * blockDim.x];
    __threadfence();
    atomicExch(lock, 0);
  }
}

extern "C" __global__ void ok_or_lock_acquire_then_fence(const float *in, float *partial, float *total,
                                                        unsigned *lock) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  partial[blockIdx.x * blockDim.x + threadIdx.x] = v;
  if (threadIdx.x == 0) {
    while (atomicOr(lock, 1u) & 1u) {
    }
    __threadfence();
    *total += partial[blockIdx.x * blockDim.x];
    __threadfence();
    atomicAnd(lock, ~1u);
  }
}

// The release is not fenced: the next holder of the lock may read `total` older than this one's
// update.
extern "C" __global__ void bad_lock_release_without_fence(const float *in, float *total, int *lock) {
  float v = in[blockIdx.x];
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *total += v;
    atomicExch(lock, 0);  // EXPECT FENCE001
  }
}

// ---- owner-only data: a block that reads back only what it wrote itself receives nothing from
// other blocks, whatever it learnt from the ticket.
extern "C" __global__ void ok_ticket_then_block_reads_its_own_rows(const float *in, float *rows, unsigned *count,
                                                                  float *out) {
  __shared__ unsigned ticket;
  unsigned g = blockIdx.x * BLOCK + threadIdx.x;
  rows[g] = in[g] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    ticket = atomicAdd(count, 1u);
  __syncthreads();
  if (ticket == gridDim.x - 1)
    out[g] = rows[g] + 1.0f;
}

// The near miss: the last block reads the row of the block before it.
extern "C" __global__ void bad_ticket_then_last_block_reads_a_neighbours_rows(const float *in, float *rows,
                                                                             unsigned *count, float *out) {
  __shared__ unsigned ticket;
  unsigned g = blockIdx.x * BLOCK + threadIdx.x;
  rows[g] = in[g] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0)
    ticket = atomicAdd(count, 1u);  // EXPECT FENCE001
  __syncthreads();
  if (ticket == gridDim.x - 1 && blockIdx.x > 0)
    out[g] = rows[g - BLOCK] + 1.0f;  // EXPECT FENCE002
}

// ---- decoupled look-back: each block publishes its aggregate and a flag; the next block spins on
// the flag and reads the aggregate. The partition index comes from a slot counter (that counter is
// no hand-off), the aggregate read is indexed by it: still another block's data.
extern "C" __global__ void bad_lookback_aggregate_not_fenced(const unsigned *in, unsigned *aggregate,
                                                            volatile unsigned *flags, unsigned *next,
                                                            unsigned *out) {
  __shared__ unsigned part_s;
  if (threadIdx.x == 0)
    part_s = atomicAdd(next, 1u);
  __syncthreads();
  unsigned part = part_s;
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (int k = 0; k < BLOCK; ++k)
      s += in[part * BLOCK + k];
    aggregate[part] = s;
    flags[part] = 1u;  // EXPECT FENCE001
    unsigned prev = 0;
    if (part > 0) {
      while (flags[part - 1] == 0) {
      }
      prev = aggregate[part - 1];  // EXPECT FENCE002
    }
    out[part] = prev + s;
  }
}

extern "C" __global__ void ok_lookback_fenced_both_sides(const unsigned *in, unsigned *aggregate,
                                                        volatile unsigned *flags, unsigned *next, unsigned *out) {
  __shared__ unsigned part_s;
  if (threadIdx.x == 0)
    part_s = atomicAdd(next, 1u);
  __syncthreads();
  unsigned part = part_s;
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (int k = 0; k < BLOCK; ++k)
      s += in[part * BLOCK + k];
    aggregate[part] = s;
    __threadfence();
    flags[part] = 1u;
    unsigned prev = 0;
    if (part > 0) {
      while (flags[part - 1] == 0) {
      }
      __threadfence();
      prev = aggregate[part - 1];
    }
    out[part] = prev + s;
  }
}

// ---- a flag whose only reader is a later launch: the kernel boundary orders it. The flags and the
// data are module variables, so the second kernel names the same memory; it runs after the first
// one has finished (same stream), not beside it.
__device__ int g_data[64 * BLOCK];
__device__ unsigned g_ready[64];

extern "C" __global__ void ok_flag_for_the_next_launch(const int *in) {
  g_data[blockIdx.x * BLOCK + threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    *(volatile unsigned *)&g_ready[blockIdx.x] = 1u;
}

extern "C" __global__ void ok_next_launch_reads_flagged_data(int *out) {
  __shared__ unsigned go;
  if (threadIdx.x == 0)
    go = *(volatile unsigned *)&g_ready[(blockIdx.x + 1) % gridDim.x];
  __syncthreads();
  if (go)
    out[blockIdx.x * BLOCK + threadIdx.x] = g_data[((blockIdx.x + 1) % gridDim.x) * BLOCK + threadIdx.x];
}

int main() {
  int *i1, *i2, *i3;
  unsigned *u1, *u2, *u3, *u4;
  float *f1, *f2, *f3, *f4;
  cudaMalloc(&i1, 1 << 20);
  cudaMalloc(&i2, 1 << 20);
  cudaMalloc(&i3, 1 << 20);
  cudaMalloc(&u1, 1 << 20);
  cudaMalloc(&u2, 1 << 20);
  cudaMalloc(&u3, 1 << 20);
  cudaMalloc(&u4, 1 << 20);
  cudaMalloc(&f1, 1 << 20);
  cudaMalloc(&f2, 1 << 20);
  cudaMalloc(&f3, 1 << 20);
  cudaMalloc(&f4, 1 << 20);
  ok_work_queue_updates_items_in_place<<<64, BLOCK>>>(i1, u1, 4096);
  bad_work_queue_last_finisher_sums_items<<<64, BLOCK>>>(i1, u1, u2, 4096, i2);
  bad_work_queue_items_share_bins<<<64, BLOCK>>>(i1, u1, u2, 4096, i2);
  ok_unique_id_then_capacity_check<<<64, BLOCK>>>(i1, i2, i3, u1, 4096, 8192);
  bad_unique_id_last_reads_all<<<64, BLOCK>>>(i1, i2, i3, u1, 8192, i3);
  ok_cas_lock_acquire_then_fence<<<64, BLOCK>>>(f1, f2, f3, i1);
  ok_or_lock_acquire_then_fence<<<64, BLOCK>>>(f1, f2, f3, u1);
  bad_lock_release_without_fence<<<64, BLOCK>>>(f1, f3, i1);
  ok_ticket_then_block_reads_its_own_rows<<<64, BLOCK>>>(f1, f2, u1, f4);
  bad_ticket_then_last_block_reads_a_neighbours_rows<<<64, BLOCK>>>(f1, f2, u1, f4);
  bad_lookback_aggregate_not_fenced<<<64, BLOCK>>>(u1, u2, u3, u4, u1);
  ok_lookback_fenced_both_sides<<<64, BLOCK>>>(u1, u2, u3, u4, u1);
  ok_flag_for_the_next_launch<<<64, BLOCK>>>(i1);
  ok_next_launch_reads_flagged_data<<<64, BLOCK>>>(i3);
  cudaDeviceSynchronize();
  return 0;
}
