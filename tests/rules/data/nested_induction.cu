// A loop nested in another: going round the inner loop's own back edge advances its counter while
// the outer one stays put, so an access at the same offset from the inner counter is at another
// address in the inner loop's next iteration (ACSpGEMM's merge kernels: a warp per chunk,
// `for (wip = warp; wip < chunks; wip += warps)`, inside the kernel's round loop). Around the outer
// loop the inner one starts again: nothing is claimed there.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 nested_induction.cu -o nested_induction.sm_90.ptx

// ok: each warp fills its own slots, one per inner iteration; the round ends at a barrier.
extern "C" __global__ void ok_inner_loop_advances(const int *in, int *out, int rounds, int n) {
  __shared__ int take[64];
  for (int r = 0; r < rounds; ++r) {
    for (int w = threadIdx.x / 32; w < n; w += blockDim.x / 32) {
      int v = in[r * 64 + w];
      take[w] = v + r;
    }
    __syncthreads();
    out[r * blockDim.x + threadIdx.x] = take[threadIdx.x % 64];
    __syncthreads();
  }
}

// bad: the lanes of the first warp walk the slots one apart, so lane 1 in one inner iteration and
// lane 0 in the next store to the same slot, with nothing keeping the lanes in step.
extern "C" __global__ void bad_lanes_one_slot_apart(const int *in, int *out, int rounds, int n) {
  __shared__ int take[64];
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x < 32) {
      for (int w = threadIdx.x; w < n; w += 1) {
        take[w] = in[r * 64 + w] + threadIdx.x;  // EXPECT WARP001
      }
    }
    __syncthreads();
    out[r * blockDim.x + threadIdx.x] = take[threadIdx.x % 64];
    __syncthreads();
  }
}
