// RACE003 across blocks when the accesses sit under conditions ptxlint cannot evaluate. A guard on
// an input (`k + blockDim.x < n`) lets two threads of neighbouring blocks through together for some
// n, so their collision is a race; a guard that singles out one block (`blockIdx.x == 0`) or guards
// that contradict on a kernel parameter (`mode == 0` against `mode == 1`) keep them apart. No launch
// is in the file: every finding must hold for the candidate blocks.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 race_grid_guarded.cu -o race_grid_guarded.sm_90.ptx

// Each thread copies element k and, when it exists, element k + blockDim.x: thread t of block b
// writes the element that thread t of block b + 1 writes as its first.
extern "C" __global__ void bad_guarded_second_element(float *out, const float *in, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n)
    out[k] = in[k];
  if (k + blockDim.x < n)
    out[k + blockDim.x] = 2.0f * in[k];  // EXPECT RACE003
}

// Each block owns 2 * blockDim.x elements: the same guards, and blocks never meet.
extern "C" __global__ void ok_guarded_owned_pair(float *out, const float *in, int n) {
  int k = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  if (k < n)
    out[k] = in[k];
  if (k + blockDim.x < n)
    out[k + blockDim.x] = 2.0f * in[k];
}

// Every block writes the same slots with its own values, under an input guard: a race.
extern "C" __global__ void bad_every_block_fills_header(float *out, const float *in, int n) {
  if (threadIdx.x < n)
    out[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];  // EXPECT RACE003
}

// Only block 0 fills the slots: no two blocks write them.
extern "C" __global__ void ok_first_block_fills_header(float *out, const float *in, int n) {
  if (blockIdx.x == 0 && threadIdx.x < n)
    out[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
}

// Two modes chosen by a kernel parameter: in one run only one of the two stores executes, and each
// store alone keeps to the block's own elements.
extern "C" __global__ void ok_exclusive_modes(float *out, const float *in, int mode, int split) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (mode < split)
    out[k + blockDim.x] = in[k];
  if (mode >= split)
    out[k] = in[k];
}

// The same stores under conditions that one mode satisfies together (mode < split and mode < 2).
extern "C" __global__ void bad_overlapping_modes(float *out, const float *in, int mode, int split) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (mode < split)
    out[k + blockDim.x] = in[k];
  if (mode < 2)
    out[k] = in[k];  // EXPECT RACE003
}

// Every block's first two threads write the results only when the work fits one block
// (`num_blocks` is the grid the host launches): an equality wanted true may be what makes the
// launch one block.
extern "C" __global__ void ok_single_block_result(float *result, const float *in, int num_blocks) {
  if (threadIdx.x < 2 && num_blocks == 1)
    result[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
}

// The same store under an ordered guard, which launches of many blocks pass: a race.
extern "C" __global__ void bad_small_input_result(float *result, const float *in, int n) {
  if (threadIdx.x < 2 && n < 4096)
    result[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];  // EXPECT RACE003
}

// Every block decides alone whether it is the last one (an atomic ticket read back from shared
// memory), and only that block's first thread writes: no input lets two blocks pass.
__device__ unsigned int ticket_count;
extern "C" __global__ void ok_last_block_writes(float *result, const float *in) {
  __shared__ bool last;
  if (threadIdx.x == 0)
    last = atomicAdd(&ticket_count, 1) == gridDim.x - 1;
  __syncthreads();
  if (last && threadIdx.x < 2)
    result[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
}
