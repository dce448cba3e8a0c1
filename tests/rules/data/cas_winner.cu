// Atomic-protected writes (issue 17): only the thread whose atomicCAS on a status word wins writes the
// error record, so the record has one writer and no write-write race (RACE003 silent). The bad_ twin
// writes the record in every thread that saw a bad value (an input guard, different values): a race.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 cas_winner.cu -o cas_winner.sm_90.ptx

#include <cuda_runtime.h>

struct Record {
  int block, thread, index;
  float value;
};

extern "C" __global__ void ok_first_error_by_cas_winner(const float *in, float *out, int n, int *status,
                                                        Record *record) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    if (v < 0.f && atomicCAS(status, 0, 1) == 0) {
      record->block = blockIdx.x;
      record->thread = threadIdx.x;
      record->index = i;
      record->value = v;
    }
    out[i] = v * 2.f;
  }
}

extern "C" __global__ void bad_every_error_writes_the_record(const float *in, float *out, int n, int *status,
                                                             Record *record) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    if (v < 0.f) {
      atomicCAS(status, 0, 1);
      record->block = blockIdx.x;
      record->thread = threadIdx.x;  // EXPECT RACE003
      record->index = i;  // EXPECT RACE003
      record->value = v;  // EXPECT RACE003
    }
    out[i] = v * 2.f;
  }
}

int main() {
  float *f = nullptr;
  int *s = nullptr;
  Record *r = nullptr;
  ok_first_error_by_cas_winner<<<64, 256>>>(f, f, 1 << 14, s, r);
  bad_every_error_writes_the_record<<<64, 256>>>(f, f, 1 << 14, s, r);
  cudaDeviceSynchronize();
  return 0;
}
