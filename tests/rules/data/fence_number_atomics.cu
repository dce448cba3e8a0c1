// A floating-point atomic carries a number, not a signal: PageRank's residual push takes a node's
// residual with `atomicExch(&residual[node], 0.0f)`, skips the node when it was zero, adds it to
// the node's rank and pushes shares to the neighbours with `atomicAdd` on floats. Nothing waits on
// those values, so there is no hand-off to fence (groute's pr_async). The same shape with an
// integer flag that a thread swaps out and then reads the data behind it is a hand-off, and an
// unfenced one.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 fence_number_atomics.cu

extern "C" __global__ void ok_residual_push(int first, int work_size, const int *row_start,
                                            const int *edges, float *rank, float *residual,
                                            int *out_list, int *out_size) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = tid; i < work_size; i += gridDim.x * blockDim.x) {
    int node = first + i;  // a range of nodes as the work source
    float res = atomicExch(&residual[node], 0.0f);
    if (res == 0) continue;
    rank[node] += res;
    int begin = row_start[node], end = row_start[node + 1];
    if (end == begin) continue;
    float update = res * 0.85f / (end - begin);
    for (int e = begin; e < end; ++e) {
      int dest = edges[e];
      float prev = atomicAdd(&residual[dest], update);
      if (prev + update > 0.01f && prev < 0.01f) out_list[atomicAdd(out_size, 1)] = dest;
    }
  }
}

extern "C" __global__ void bad_integer_flag_swapped_out(const int *work, int work_size, float *value,
                                                        int *ready) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = tid; i < work_size; i += gridDim.x * blockDim.x) {
    int node = work[i];
    value[node + 1] = 2.0f * i;
    atomicExch(&ready[node + 1], 1);  // EXPECT FENCE001
    if (atomicExch(&ready[node], 0) != 0) {  // EXPECT FENCE001
      value[node] += 1.0f;  // EXPECT FENCE002
    }
  }
}

int main() {
  int *p;
  cudaMalloc(&p, 1 << 24);
  ok_residual_push<<<64, 256>>>(0, 1000, p + 4096, p + 8192, (float *)p + 16384, (float *)p + 32768,
                                p + 65536, p + 131072);
  bad_integer_flag_swapped_out<<<64, 256>>>(p, 1000, (float *)p + 16384, p + 32768);
  return 0;
}
