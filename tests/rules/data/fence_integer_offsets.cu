// An integer parameter that only offsets indices (`parent = right + n`) is no buffer: stores and
// loads whose indices both add n do not share memory through it. A bottom-up tree build whose
// volatile node stores nobody waits on, and whose real hand-off is a fenced atomicAdd ticket, hands
// nothing over through them; a producer that stores data and then a flag another block spins on,
// with no fence between, still does, whatever integer offsets the indices carry.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 fence_integer_offsets.cu

extern "C" __global__ void ok_climb_with_offset_indices(int n, volatile int *ranges, volatile int *parents,
                                                        int *children, volatile int *bounds) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  for (;;) {
    int r = ranges[idx];
    if (r == n - 1) {
      parents[idx] = -1;
      break;
    }
    int parent = r + n;
    parents[idx] = parent;
    ranges[parent] = r;
    __threadfence();
    if (atomicAdd(&children[parent], 1) == 0) break;  // the first child stops; the second climbs
    bounds[parent] = bounds[idx] + 1;
    idx = parent;
  }
}

extern "C" __global__ void bad_flag_with_offset_indices(int n, float *data, volatile int *flags) {
  int b = blockIdx.x;
  if (threadIdx.x == 0) {
    if (b > 0) {
      while (flags[b - 1 + n] == 0) {
      }
      data[b + n] = data[b - 1 + n] + 1.0f;  // EXPECT FENCE002
    } else {
      data[n] = 1.0f;
    }
    flags[b + n] = 1;  // EXPECT FENCE001
  }
}

int main() {
  int *p;
  cudaMalloc(&p, 1 << 20);
  ok_climb_with_offset_indices<<<4, 256>>>(1000, p, p + 4096, p + 8192, p + 12288);
  bad_flag_with_offset_indices<<<8, 32>>>(16, (float *)p, p + 4096);
  return 0;
}
