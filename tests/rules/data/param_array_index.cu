// A kernel parameter is one value for the whole grid, and so is each element of an array inside a
// by-value struct parameter; read at an index that is one value per block (`batch.count[blockIdx.y]`),
// the element is one value per block, so an early return on it takes whole blocks. Read at an index
// that depends on the thread, it differs between threads.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 param_array_index.cu -o param_array_index.sm_90.ptx
struct Batch {
  const float *in[32];
  unsigned count[32];
};

// ok: each block works on batch blockIdx.y; a block with an empty batch returns whole.
extern "C" __global__ void ok_batch_per_block(Batch batch, float *out) {
  __shared__ float s[256];
  unsigned n = batch.count[blockIdx.y];
  if (n == 0) return;
  const float *in = batch.in[blockIdx.y];
  s[threadIdx.x] = threadIdx.x < n ? in[threadIdx.x] : 0.0f;
  __syncthreads();
  out[blockIdx.y * 256 + threadIdx.x] = s[255 - threadIdx.x];
}

// bad: the batch is picked by the thread: threads of one block see different counts.
extern "C" __global__ void bad_batch_per_thread(Batch batch, float *out) {
  __shared__ float s[256];
  unsigned n = batch.count[threadIdx.x % 32];
  if (n == 0) return;
  const float *in = batch.in[threadIdx.x % 32];
  s[threadIdx.x] = in[0];
  __syncthreads();  // EXPECT SYNC002
  out[blockIdx.y * 256 + threadIdx.x] = s[255 - threadIdx.x];
}

int main() {
  Batch b = {};
  float *out = nullptr;
  ok_batch_per_block<<<dim3(1, 32), 256>>>(b, out);
  bad_batch_per_thread<<<dim3(1, 32), 256>>>(b, out);
}
