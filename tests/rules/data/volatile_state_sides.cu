// A block keeps loop state in `volatile` shared memory (a pivot index, a mask, a failure flag) that
// one thread writes and every thread reads after the next barrier. The threads read one value when
// no write may run between the same two barriers as the read. Two things do not count as such
// writes: a store through a pointer the kernel loaded from global memory, when the kernel never
// lets a shared address out into memory (the host cannot hand a kernel a block's shared memory),
// and a write on the other side of a branch every thread of the block takes the same way (a
// failure flag read after the barrier that follows its last write: the failing block leaves the
// loop, the others read the mask). A shared address that the kernel stores into memory may come
// back as such a pointer, and a write that one thread makes beside the reads is a write the reads
// may or may not see: the loop's trip count then differs between threads, and the barrier in it
// splits the block.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 volatile_state_sides.cu -o volatile_state_sides.sm_90.ptx

struct Job {
  float *out;
  int *aux;
  int stride;
};

// The pivot loop shared by the kernels below: the pivot index `jps` is read at the top, thread 0
// marks the pivot row and resets the index, the threads vote for the next pivot with atomicMin,
// and every thread then skips the rows marked so far. `atomicMin((int *)&jps, ...)` takes a
// generic address of shared memory, which keeps nvcc's stores through loaded pointers generic.

// ok: after the loop the results go out through a pointer loaded from the job table: global
// memory, since no shared address is ever written to memory.
extern "C" __global__ void ok_state_then_loaded_pointers(Job *jobs, const float *a, int n) {
  __shared__ volatile int jps;
  __shared__ volatile int mask[128];
  mask[threadIdx.x] = 0;
  if (threadIdx.x == 0) jps = 0;
  __syncthreads();
  Job *j = &jobs[blockIdx.x];
  float v = 0.0f;
  for (int row = 0; row < n;) {
    int jp = jps;
    v = a[jp * 128 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
      mask[jp % 128] = 1;
      jps = 127;
    }
    __syncthreads();
    atomicMin((int *)&jps, (int)(v * 4.0f) & 127);
    __syncthreads();
    row = jp + 1;
    while (row < n && row < 128 && mask[row]) row++;
  }
  float *p = j->out;
  for (int i = 0; i < n; i++, p += j->stride) p[threadIdx.x] = v;
}

// bad: the kernel parks the address of the shared mask in the job table; the stores through the
// pointer read back from it may land on the mask while the other threads skip marked rows.
extern "C" __global__ void bad_shared_address_escapes(Job *jobs, const float *a, int n) {
  __shared__ volatile int jps;
  __shared__ volatile int mask[128];
  mask[threadIdx.x] = 0;
  if (threadIdx.x == 0) {
    jps = 0;
    jobs[blockIdx.x].aux = (int *)&mask[0];
  }
  __syncthreads();
  Job *j = &jobs[blockIdx.x];
  float v = 0.0f;
  for (int row = 0; row < n;) {
    int jp = jps;
    v = a[jp * 128 + threadIdx.x];
    __syncthreads();  // EXPECT SYNC001
    if (threadIdx.x == 0) {
      mask[jp % 128] = 1;
      jps = 127;
    }
    __syncthreads();  // EXPECT SYNC001
    atomicMin((int *)&jps, (int)(v * 4.0f) & 127);
    __syncthreads();  // EXPECT SYNC001
    row = jp + 1;
    while (row < n && row < 128 && mask[row]) row++;
  }
  int *q = j->aux;
  for (int i = 0; i < n; i++, q += j->stride) q[threadIdx.x] = (int)v;
}

// ok: a thread whose pivot fails sets `quit`; after the barrier every thread reads one flag, so a
// failing block unmarks the row and leaves the loop together, and the others skip a marked row.
extern "C" __global__ void ok_failure_flag_sides(Job *jobs, const float *a, int n) {
  __shared__ volatile int jps, quit;
  __shared__ volatile int mask[128];
  mask[threadIdx.x] = 0;
  if (threadIdx.x == 0) jps = quit = 0;
  __syncthreads();
  Job *j = &jobs[blockIdx.x];
  float v = 0.0f;
  for (int row = 0; row < n;) {
    int jp = jps;
    v = a[jp * 128 + threadIdx.x];
    if (v < 0.0f) quit = 1;
    __syncthreads();
    if (threadIdx.x == 0) {
      mask[jp % 128] = 1;
      jps = 127;
    }
    __syncthreads();
    if (quit) {
      if (threadIdx.x == 0) mask[jp % 128] = 0;
      __syncthreads();
      break;
    }
    atomicMin((int *)&jps, (int)(v * 4.0f) & 127);
    row = jp + 1;
    if (row < 128 && mask[row]) row++;
    __syncthreads();
  }
  float *p = j->out;
  for (int i = 0; i < n; i++, p += j->stride) p[threadIdx.x] = v;
}

// bad: thread 0 unmarks the next row while the others test it to skip it: some see the old value,
// some the new, and run the loop a different number of times.
extern "C" __global__ void bad_mask_written_beside_reads(Job *jobs, const float *a, int n) {
  __shared__ volatile int jps, quit;
  __shared__ volatile int mask[128];
  mask[threadIdx.x] = 0;
  if (threadIdx.x == 0) jps = quit = 0;
  __syncthreads();
  Job *j = &jobs[blockIdx.x];
  float v = 0.0f;
  for (int row = 0; row < n;) {
    int jp = jps;
    v = a[jp * 128 + threadIdx.x];
    if (v < 0.0f) quit = 1;
    __syncthreads();  // EXPECT SYNC001
    if (threadIdx.x == 0) {
      mask[jp % 128] = 1;
      jps = 127;
    }
    __syncthreads();  // EXPECT SYNC001
    if (quit) break;
    if (threadIdx.x == 0) mask[(jp + 1) % 128] = 0;
    atomicMin((int *)&jps, (int)(v * 4.0f) & 127);
    row = jp + 1;
    if (row < 128 && mask[row]) row++;
    __syncthreads();  // EXPECT SYNC001
  }
  float *p = j->out;
  for (int i = 0; i < n; i++, p += j->stride) p[threadIdx.x] = v;
}

int main() {
  Job *jobs;
  float *a;
  cudaMalloc(&jobs, 64 * sizeof(Job));
  cudaMalloc(&a, 1 << 22);
  ok_state_then_loaded_pointers<<<64, 128>>>(jobs, a, 100);
  bad_shared_address_escapes<<<64, 128>>>(jobs, a, 100);
  ok_failure_flag_sides<<<64, 128>>>(jobs, a, 100);
  bad_mask_written_beside_reads<<<64, 128>>>(jobs, a, 100);
  return 0;
}
