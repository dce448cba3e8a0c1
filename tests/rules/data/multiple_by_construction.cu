// A value rounded down to a multiple of the warp stays one: `size = (csize - csize % 128) / 4` is
// a multiple of 32 whatever csize is, so the 32 lanes of a warp (consecutive threads from a
// multiple of 32) pass `i < size` together and every full-mask shuffle in the loop is executed by
// the whole warp, also through nvcc's two-way unrolled loop, whose remainder test
// `(size - 1 - tid) & 512` is the same for all lanes of a warp (PFPL's bit transposition).
// The same holds for a size assembled from bytes (nvcc's `prmt` keeps the low byte in place, and
// its signed division of the rounded value by 4 is exact) and for loops unrolled by four, whose
// remainder iterations run by the trip count's low bits. Rounded to a multiple of 16
// (`csize % 64`) the bound can split a warp, unrolled or not.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 multiple_by_construction.cu

#define TPB 512

extern "C" __global__ void ok_rounded_down_bound(const int *sizes, int *data) {
  __shared__ int buf[4096];
  int csize = sizes[blockIdx.x];
  const int extra = csize % 128;
  const int size = (csize - extra) / 4;
  for (int i = threadIdx.x; i < size; i += TPB) {
    int a = buf[i];
    a += __shfl_xor_sync(0xffffffff, a, 16);
    a += __shfl_xor_sync(0xffffffff, a, 8);
    data[blockIdx.x * 4096 + i] = a;
  }
}

extern "C" __global__ void ok_masked_bound(const int *sizes, int *data) {
  __shared__ int buf[4096];
  int size = sizes[blockIdx.x] & ~63;
  for (int i = threadIdx.x; i < size; i += TPB) {
    int a = buf[i];
    a += __shfl_xor_sync(0xffffffff, a, 1);
    data[blockIdx.x * 4096 + i] = a;
  }
}

extern "C" __global__ void ok_unrolled_by_two(const int *sizes, int *data) {
  __shared__ int buf[4096];
  int size = (sizes[blockIdx.x] & ~127) / 4;
#pragma unroll 2
  for (int i = threadIdx.x; i < size; i += TPB) {
    int a = buf[i];
    a += __shfl_xor_sync(0xffffffff, a, 16);
    data[blockIdx.x * 4096 + i] = a;
  }
}

extern "C" __global__ void bad_unrolled_by_two_half_a_warp(const int *sizes, int *data) {
  __shared__ int buf[4096];
  int size = (sizes[blockIdx.x] & ~63) / 4;
#pragma unroll 2
  for (int i = threadIdx.x; i < size; i += TPB) {
    int a = buf[i];
    a += __shfl_xor_sync(0xffffffff, a, 16);  // EXPECT SHFL001
    data[blockIdx.x * 4096 + i] = a;
  }
}

extern "C" __global__ void ok_bytes_rounded_down(const unsigned char *headers, int *data) {
  __shared__ int buf[4096];
  volatile unsigned char *h = (volatile unsigned char *)headers + 2 * blockIdx.x;
  int csize = h[0] | (h[1] << 8);
  const int extra = csize % 128;
  const int size = (csize - extra) / 4;
  for (int i = threadIdx.x; i < size; i += TPB) {
    int a = buf[i];
    a += __shfl_xor_sync(0xffffffff, a, 16);
    data[blockIdx.x * 4096 + i] = a;
  }
}

extern "C" __global__ void ok_unrolled_by_four(const int *sizes, int *data) {
  __shared__ int buf[4096];
  int size = (sizes[blockIdx.x] & ~127) / 4;
#pragma unroll 4
  for (int i = threadIdx.x; i < size; i += TPB) {
    int a = buf[i];
    a += __shfl_xor_sync(0xffffffff, a, 16);
    data[blockIdx.x * 4096 + i] = a;
  }
}

extern "C" __global__ void bad_unrolled_by_four_half_a_warp(const int *sizes, int *data) {
  __shared__ int buf[4096];
  int size = (sizes[blockIdx.x] & ~63) / 4;
#pragma unroll 4
  for (int i = threadIdx.x; i < size; i += TPB) {
    int a = buf[i];
    a += __shfl_xor_sync(0xffffffff, a, 16);  // EXPECT SHFL001
    data[blockIdx.x * 4096 + i] = a;
  }
}

extern "C" __global__ void bad_rounded_to_half_a_warp(const int *sizes, int *data) {
  __shared__ int buf[4096];
  int csize = sizes[blockIdx.x];
  const int extra = csize % 64;
  const int size = (csize - extra) / 4;
  for (int i = threadIdx.x; i < size; i += TPB) {
    int a = buf[i];
    a += __shfl_xor_sync(0xffffffff, a, 16);  // EXPECT SHFL001
    data[blockIdx.x * 4096 + i] = a;
  }
}

int main() {
  int *d;
  cudaMalloc(&d, 1 << 24);
  ok_rounded_down_bound<<<64, TPB>>>(d, d + 4096);
  ok_masked_bound<<<64, TPB>>>(d, d + 4096);
  ok_unrolled_by_two<<<64, TPB>>>(d, d + 4096);
  bad_unrolled_by_two_half_a_warp<<<64, TPB>>>(d, d + 4096);
  ok_bytes_rounded_down<<<64, TPB>>>((const unsigned char *)d, d + 4096);
  ok_unrolled_by_four<<<64, TPB>>>(d, d + 4096);
  bad_unrolled_by_four_half_a_warp<<<64, TPB>>>(d, d + 4096);
  bad_rounded_to_half_a_warp<<<64, TPB>>>(d, d + 4096);
  return 0;
}
