// Lane patterns offset by a uniform unknown (a parameter or a loop counter), masked or not:
// CONST001 and BANK001 count them exactly (tests/rules/test_uniform_offset.py).
__constant__ float c_table[256];
// lane-dependent index plus a run-time offset and a loop counter
extern "C" __global__ void const_offset(float *out, int off, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i)
    s += c_table[threadIdx.x % 8 + off + i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void const_masked(float *out, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i)
    s += c_table[(threadIdx.x + i) & 63];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void bank_offset(float *out, const float *in, int off) {
  __shared__ float tile[1024];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x * 2 + off) % 512];
}
extern "C" __global__ void bank_offset_plain(float *out, const float *in, int off) {
  __shared__ float tile[1024];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x * 2 + off];
}
