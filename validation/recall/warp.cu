// Recall suite, warp-synchronous code on shared and global memory (see README.md). No launch here:
// any block of 64 threads or more, any grid. Since Volta the lanes of a warp are scheduled
// independently: lanes that exchange data through memory need `__syncwarp()` between the write and
// the read (it orders memory among the participating lanes), `volatile` is not enough. `bad:` names
// two lanes of one warp that touch one element, one writing, with nothing ordering them.
#define T threadIdx.x
#define B blockDim.x
#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// bad: the classic volatile last-warp reduction on shared memory: lane t reads v[t + 16] while lane
// t + 16 adds into it, with no __syncwarp between steps.
extern "C" __global__ void bad_volatile_reduce_shared(float *out, const float *in) {
  __shared__ float s[64];
  if (T < 64)
    s[T] = in[GID];
  __syncthreads();
  if (T < 32) {
    volatile float *v = s;
    v[T] += v[T + 32];
    v[T] += v[T + 16];
    v[T] += v[T + 8];
    v[T] += v[T + 4];
    v[T] += v[T + 2];
    v[T] += v[T + 1];
  }
  if (T == 0)
    out[blockIdx.x] = s[0];
}

// ok: each step reads into a register, then __syncwarp, then writes, then __syncwarp.
extern "C" __global__ void ok_volatile_reduce_shared(float *out, const float *in) {
  __shared__ float s[64];
  if (T < 64)
    s[T] = in[GID];
  __syncthreads();
  if (T < 32) {
    float x = s[T];
    for (int o = 32; o > 0; o >>= 1) {
      x += s[T + o];
      __syncwarp();
      s[T] = x;
      __syncwarp();
    }
  }
  if (T == 0)
    out[blockIdx.x] = s[0];
}

// bad: the same volatile warp reduction on global memory (the block's 64-element slab of work):
// lane t reads w[t + 16] while lane t + 16 adds into it.
extern "C" __global__ void bad_volatile_reduce_global(float *work, float *out) {
  volatile float *w = work + blockIdx.x * 64;
  if (T < 32) {
    w[T] += w[T + 32];
    w[T] += w[T + 16];
    w[T] += w[T + 8];
    w[T] += w[T + 4];
    w[T] += w[T + 2];
    w[T] += w[T + 1];
  }
  if (T == 0)
    out[blockIdx.x] = w[0];
}

// ok: the global warp reduction with __syncwarp between each read and write.
extern "C" __global__ void ok_volatile_reduce_global(float *work, float *out) {
  float *w = work + blockIdx.x * 64;
  if (T < 32) {
    float x = w[T];
    for (int o = 32; o > 0; o >>= 1) {
      x += w[T + o];
      __syncwarp();
      w[T] = x;
      __syncwarp();
    }
  }
  if (T == 0)
    out[blockIdx.x] = w[0];
}

// bad: lane 0 of each warp writes the warp's value to shared memory; the other lanes read it with
// no __syncwarp (lane 0 writes bcast[w], lane 1 reads it).
extern "C" __global__ void bad_lane0_broadcast_shared(float *out, const float *in) {
  __shared__ float bcast[32];
  if (T % 32 == 0)
    bcast[T / 32] = in[GID];
  out[GID] = bcast[T / 32];
}

// ok: __syncwarp between lane 0's write and the other lanes' reads.
extern "C" __global__ void ok_lane0_broadcast_shared(float *out, const float *in) {
  __shared__ float bcast[32];
  if (T % 32 == 0)
    bcast[T / 32] = in[GID];
  __syncwarp();
  out[GID] = bcast[T / 32];
}

// bad: the same broadcast through global memory (one slot per warp of the grid).
extern "C" __global__ void bad_lane0_broadcast_global(float *slots, float *out, const float *in) {
  if (T % 32 == 0)
    slots[GID / 32] = in[GID];
  out[GID] = slots[GID / 32];
}

// ok: __syncwarp orders lane 0's global write before the other lanes' reads.
extern "C" __global__ void ok_lane0_broadcast_global(float *slots, float *out, const float *in) {
  if (T % 32 == 0)
    slots[GID / 32] = in[GID];
  __syncwarp();
  out[GID] = slots[GID / 32];
}

// bad: lanes exchange with their xor-1 partner through shared memory with no __syncwarp.
extern "C" __global__ void bad_pair_swap_shared(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  out[GID] = s[T ^ 1];
}

// ok: __syncwarp between the writes and the partner reads (the partner is in the same warp).
extern "C" __global__ void ok_pair_swap_shared(float *out, const float *in) {
  __shared__ float s[1024];
  s[T] = in[GID];
  __syncwarp();
  out[GID] = s[T ^ 1];
}

// bad: the xor-1 exchange through global memory, with no __syncwarp.
extern "C" __global__ void bad_pair_swap_global(float *buf, float *out, const float *in) {
  buf[GID] = in[GID];
  out[GID] = buf[GID ^ 1];
}

// ok: __syncwarp orders the partner's global write before the read.
extern "C" __global__ void ok_pair_swap_global(float *buf, float *out, const float *in) {
  buf[GID] = in[GID];
  __syncwarp();
  out[GID] = buf[GID ^ 1];
}

template <int W>
__device__ void warp_sum_volatile(volatile float *v) {
  for (int o = W / 2; o > 0; o >>= 1)
    v[threadIdx.x] += v[threadIdx.x + o];
}

template <int W>
__device__ void warp_sum_synced(float *v) {
  float x = v[threadIdx.x];
  for (int o = W / 2; o > 0; o >>= 1) {
    x += v[threadIdx.x + o];
    __syncwarp();
    v[threadIdx.x] = x;
    __syncwarp();
  }
}

// bad: a templated device-function warp reduction on shared memory, volatile, no __syncwarp.
extern "C" __global__ void bad_template_warp_sum(float *out, const float *in) {
  __shared__ float s[64];
  if (T < 64)
    s[T] = in[GID];
  __syncthreads();
  if (T < 32)
    warp_sum_volatile<32>(s);
  if (T == 0)
    out[blockIdx.x] = s[0];
}

// ok: the templated reduction with __syncwarp.
extern "C" __global__ void ok_template_warp_sum(float *out, const float *in) {
  __shared__ float s[64];
  if (T < 64)
    s[T] = in[GID];
  __syncthreads();
  if (T < 32)
    warp_sum_synced<32>(s);
  if (T == 0)
    out[blockIdx.x] = s[0];
}

// bad: an in-warp shift on global memory: lane t writes w[t] while lane t - 1 reads it.
extern "C" __global__ void bad_warp_shift_global(float *w) {
  int i = GID;
  if (T % 32 != 31)
    w[i] = w[i + 1] * 0.5f;
}

// ok: the shift reads into a register and waits at __syncwarp before writing.
extern "C" __global__ void ok_warp_shift_global(float *w) {
  int i = GID;
  float v = (T % 32 != 31) ? w[i + 1] * 0.5f : 0.0f;
  __syncwarp();
  if (T % 32 != 31)
    w[i] = v;
}

// bad: any lane that sees a positive input writes its lane number to the warp's slot: different
// values from lanes of one warp (WAW), and lane 0 reads the slot with no __syncwarp.
extern "C" __global__ void bad_warp_vote_store(int *out, const float *in) {
  __shared__ int slot[32];
  if (T % 32 == 0)
    slot[T / 32] = -1;
  __syncwarp();
  if (in[GID] > 0.0f)
    slot[T / 32] = T % 32;
  if (T % 32 == 0)
    out[GID / 32] = slot[T / 32];
}

// ok (same-value stores): any lane with a positive input writes 1 to the warp's slot; __syncwarp
// before lane 0 reads it.
extern "C" __global__ void ok_warp_vote_store(int *out, const float *in) {
  __shared__ int slot[32];
  if (T % 32 == 0)
    slot[T / 32] = 0;
  __syncwarp();
  if (in[GID] > 0.0f)
    slot[T / 32] = 1;
  __syncwarp();
  if (T % 32 == 0)
    out[GID / 32] = slot[T / 32];
}
