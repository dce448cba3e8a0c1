// A block whose x is fixed by the launch and whose y is a run-time value: rows of a sequence
// handled one token per block in x (blockDim.x == 1), its features along y. The early return on
// `seq_id` is taken by the whole block or by none, so the barrier after it is reached by all.
// `scale_tokens_wide` is launched with the tokens along x (a run-time width, y fixed to 1): when
// seq_len is not a multiple of the width its return splits the last block, and the barrier after
// it is the bug SYNC002 reports.
template <typename T>
__global__ void scale_tokens(T *out, const T *in, int seq_len, int dim);

template <>
__global__ void scale_tokens<float>(float *out, const float *in, int seq_len, int dim) {
  __shared__ float total[1];
  int seq_id = blockIdx.y * blockDim.x + threadIdx.x;
  if (seq_id >= seq_len) return;
  if (threadIdx.y == 0) total[0] = 0.f;
  __syncthreads();
  for (int i = threadIdx.y; i < dim; i += blockDim.y) atomicAdd(&total[0], in[seq_id * dim + i]);
  __syncthreads();
  for (int i = threadIdx.y; i < dim; i += blockDim.y) out[seq_id * dim + i] = in[seq_id * dim + i] / total[0];
}

__global__ void scale_tokens_wide(float *out, const float *in, int seq_len, int dim) {
  __shared__ float total[1];
  int seq_id = blockIdx.y * blockDim.x + threadIdx.x;
  if (seq_id >= seq_len) return;
  if (threadIdx.x == 0) total[0] = 0.f;
  __syncthreads();
  atomicAdd(&total[0], in[seq_id * dim]);
  __syncthreads();
  out[seq_id * dim] = in[seq_id * dim] / total[0];
}

template <typename T>
void launch_scale_tokens(T *out, const T *in, int batch, int seq_len, int dim);

template <>
void launch_scale_tokens<float>(float *out, const float *in, int batch, int seq_len, int dim) {
  int threads_per_token = dim < 1024 ? dim : 1024;
  int tokens_per_block = 1;
  dim3 grid(batch, seq_len);
  dim3 block(tokens_per_block, threads_per_token);
  scale_tokens<float><<<grid, block>>>(out, in, seq_len, dim);
  dim3 wide(threads_per_token, 1);
  scale_tokens_wide<<<dim3(batch, (seq_len + threads_per_token - 1) / threads_per_token), wide>>>(out, in, seq_len, dim);
}
