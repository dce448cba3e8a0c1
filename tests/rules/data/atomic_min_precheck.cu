// A plain read whose value only decides whether a thread issues an atomic min or max on the same
// word (`if (v < box[0]) atomicMin(&box[0], v)`, a bounding box grown by every thread) is no race
// with those atomics: the word only moves one way, so a stale value can only cause an atomic that
// changes nothing, or skip one that would change nothing. The same pre-check in front of an
// atomicAdd is a check-then-act race: two threads that both read `count < cap` both add, past the
// cap.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 atomic_min_precheck.cu

extern "C" __global__ void ok_grow_bounds(const int *values, int *box, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = values[i];
    if (v < box[0]) atomicMin(&box[0], v);
    if (v > box[1]) atomicMax(&box[1], v);
  }
}

extern "C" __global__ void bad_capped_count(const int *keys, int *count, int n, int cap) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && keys[i] > 0) {
    if (count[0] < cap) atomicAdd(&count[0], 1);  // EXPECT RACE003
  }
}

int main() {
  int *d;
  cudaMalloc(&d, 1 << 20);
  ok_grow_bounds<<<64, 256>>>(d, d + 4096, 16384);
  bad_capped_count<<<64, 256>>>(d, d + 4096, 16384, 100);
  return 0;
}
