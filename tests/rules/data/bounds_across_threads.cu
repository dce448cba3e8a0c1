// Two threads that share an unknown (a kernel parameter, their block's index) cannot both pass
// guards that want different things of it. The last item's thread (`i == n - 1`) also writes the
// end marker out[i + 1]; the thread whose own item that would be needs `i + 1 < n`, so n would be
// i + 1 and more than i + 1 at once: no thread writes that word twice. The item before the last
// (`i == n - 2`) writes a word the last item's thread writes too.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 bounds_across_threads.cu -o bounds_across_threads.sm_90.ptx

// ok: out[i + 1] of the last item is past every other thread's item.
extern "C" __global__ void ok_last_item_writes_end(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i];
    if (i == n - 1) out[i + 1] = in[i] + 1.0f;
  }
}

// bad: the item before the last writes the last item's word.
extern "C" __global__ void bad_second_last_writes_last(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i];
    if (i == n - 2) out[i + 1] = in[i] + 1.0f;  // EXPECT RACE003
  }
}

// bad: the same with unsigned indices, whose bounds are read as unsigned.
extern "C" __global__ void bad_unsigned_second_last(const float *in, float *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i];
    if (i == n - 2) out[i + 1] = in[i] + 1.0f;  // EXPECT RACE003
  }
}

int main() {
  float *d;
  int n;
  cudaMalloc(&d, 1 << 22);
  cudaMemcpy(&n, d, sizeof n, cudaMemcpyDeviceToHost);  // a count known only at run time
  ok_last_item_writes_end<<<64, 256>>>(d, d + (1 << 20), n);
  bad_second_last_writes_last<<<64, 256>>>(d, d + (1 << 20), n);
  bad_unsigned_second_last<<<64, 256>>>(d, d + (1 << 20), (unsigned)n);
  return 0;
}
