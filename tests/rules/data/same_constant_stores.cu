// Same-value stores (issue 17): every thread that finds an update stores the same constant to one flag,
// also from one loop iteration to the next; whichever store lands last, the flag holds it, so the
// write-write pair is no race (RACE001 shared, RACE003 global, silent). The bad_ twins store a value
// that differs between threads (the loop index), which is a race.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 same_constant_stores.cu -o same_constant_stores.sm_90.ptx

#include <cuda_runtime.h>

// one vertex per block: any thread whose neighbour has a smaller label raises the block's flag
extern "C" __global__ void ok_block_flag_raised_in_loop(const int *nindex, const int *nlist, int *label) {
  __shared__ bool updated;
  int v = blockIdx.x;
  int mine = label[v];
  if (threadIdx.x == 0) updated = false;
  __syncthreads();
  for (int i = nindex[v] + threadIdx.x; i < nindex[v + 1]; i += blockDim.x) {
    int other = label[nlist[i]];
    if (other < mine) {
      mine = other;
      updated = true;
    }
  }
  __syncthreads();
  if (updated && threadIdx.x == 0) atomicMin(&label[v], mine);
}

// the same loop records which edge improved: different threads store different indices
extern "C" __global__ void bad_block_slot_written_in_loop(const int *nindex, const int *nlist, int *label, int *where) {
  __shared__ int improved;
  int v = blockIdx.x;
  int mine = label[v];
  if (threadIdx.x == 0) improved = -1;
  __syncthreads();
  for (int i = nindex[v] + threadIdx.x; i < nindex[v + 1]; i += blockDim.x) {
    int other = label[nlist[i]];
    if (other < mine) {
      mine = other;
      improved = i;  // EXPECT RACE001
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) where[v] = improved;
}

// the global flag of the same idea: one word per block, raised by any thread
extern "C" __global__ void ok_global_flag_raised_in_loop(const int *nindex, const int *nlist, const int *label, int *changed) {
  int v = blockIdx.x;
  int mine = label[v];
  for (int i = nindex[v] + threadIdx.x; i < nindex[v + 1]; i += blockDim.x)
    if (label[nlist[i]] < mine) changed[v] = 1;
}

// storing the index instead: a write-write race on changed[v]
extern "C" __global__ void bad_global_slot_written_in_loop(const int *nindex, const int *nlist, const int *label, int *changed) {
  int v = blockIdx.x;
  int mine = label[v];
  for (int i = nindex[v] + threadIdx.x; i < nindex[v + 1]; i += blockDim.x)
    if (label[nlist[i]] < mine) changed[v] = i;  // EXPECT RACE003
}

int main() {
  int *p = nullptr;
  ok_block_flag_raised_in_loop<<<256, 256>>>(p, p, p);
  bad_block_slot_written_in_loop<<<256, 256>>>(p, p, p, p);
  ok_global_flag_raised_in_loop<<<256, 256>>>(p, p, p, p);
  bad_global_slot_written_in_loop<<<256, 256>>>(p, p, p, p);
  cudaDeviceSynchronize();
  return 0;
}
