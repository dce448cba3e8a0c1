// A thread that marks a word only if it is not marked yet (`if (!mark[i]) mark[i] = 1;`) reads
// the word while other threads may store to it. When every write the kernel makes to that memory
// stores the same constant, and the read decides nothing but the store of that constant to the
// word it read, the read is no race: whatever it sees, the word ends up marked. A test that also
// decides other work (putting the item in a queue), or memory that some write sets to another
// value, makes the read's timing matter.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 same_value_marks.cu -o same_value_marks.sm_90.ptx

// ok: pairs of threads mark one cell of a global bitmap, skipping cells already marked.
extern "C" __global__ void ok_mark_once_global(const float *x, unsigned char *mark) {
  unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) / 2;
  if (x[i] > 0.0f && !mark[i]) mark[i] = 1;
}

// ok: threads of different warps (i = thread % 64) mark one cell.
extern "C" __global__ void ok_mark_once_across_warps(const float *x, unsigned char *mark) {
  unsigned i = blockIdx.x * 64 + threadIdx.x % 64;
  if (x[blockIdx.x * blockDim.x + threadIdx.x] > 0.0f && !mark[i]) mark[i] = 1;
}

// ok: the same in shared memory, then the block copies the marks out.
extern "C" __global__ void ok_mark_once_shared(const float *x, unsigned char *out) {
  __shared__ unsigned char seen[64];
  if (threadIdx.x < 64) seen[threadIdx.x] = 0;
  __syncthreads();
  unsigned i = threadIdx.x / 2;
  if (x[blockIdx.x * blockDim.x + threadIdx.x] > 0.0f && !seen[i]) seen[i] = 1;
  __syncthreads();
  if (threadIdx.x < 64) out[blockIdx.x * 64 + threadIdx.x] = seen[threadIdx.x];
}

// bad: the thread that finds the cell unmarked also queues it: two threads may both see 0 and
// queue the cell twice.
extern "C" __global__ void bad_mark_and_queue(const float *x, unsigned char *mark, unsigned *queue,
                                              unsigned *tail) {
  unsigned i = blockIdx.x * 64 + threadIdx.x % 64;
  if (x[blockIdx.x * blockDim.x + threadIdx.x] > 0.0f && !mark[i]) {
    mark[i] = 1;  // EXPECT RACE003
    queue[atomicAdd(tail, 1)] = i;
  }
}

// bad: some threads clear the cell while others mark it: what a reader sees decides the outcome.
extern "C" __global__ void bad_mark_and_clear(const float *x, unsigned char *mark) {
  unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) / 2;
  if (threadIdx.x & 1) {
    if (x[i] < 0.0f) mark[i] = 0;
  } else if (x[i] > 0.0f && !mark[i]) {  // EXPECT WARP001
    mark[i] = 1;
  }
}

int main() {
  float *x;
  unsigned char *m;
  unsigned *q;
  cudaMalloc(&x, 1 << 22);
  cudaMalloc(&m, 1 << 22);
  cudaMalloc(&q, 1 << 22);
  ok_mark_once_global<<<64, 256>>>(x, m);
  ok_mark_once_across_warps<<<64, 256>>>(x, m);
  ok_mark_once_shared<<<64, 128>>>(x, m);
  bad_mark_and_queue<<<64, 256>>>(x, m, q, q + 1000);
  bad_mark_and_clear<<<64, 256>>>(x, m);
  return 0;
}
