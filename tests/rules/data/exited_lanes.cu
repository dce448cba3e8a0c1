// A `.sync` warp intrinsic waits only for the lanes of its mask that have not exited (PTX ISA,
// sm_70+): after a thread-dependent early return, `__syncwarp()` is well defined, and so is a
// shuffle whose lanes read only lanes that return with them (a width-4 shuffle after a return
// taken by whole quads). A shuffle that reads a lane which may have returned reads an undefined
// value: that stays SHFL001 (so does a vote, whose result counts only the lanes left). (From
// test8's triage: Ethash's DAG generator, ethminer and xmrig; built after test8 was measured.)
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 exited_lanes.cu

extern "C" __global__ void ok_syncwarp_after_return(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] * 2.0f;
  __syncwarp();
  out[i] += in[(i + 1) % n];
}

extern "C" __global__ void ok_quads_return_together(const float *in, float *out, int quads) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if ((i >> 2) >= quads) return;
  float v = in[i];
  v += __shfl_xor_sync(0xffffffff, v, 1, 4);
  v += __shfl_xor_sync(0xffffffff, v, 2, 4);
  out[i] = v;
}

extern "C" __global__ void bad_down_reads_returned_lanes(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  v += __shfl_down_sync(0xffffffff, v, 16);  // EXPECT SHFL001
  out[i] = v;
}

void run(float *p, int n) {  // n: a run-time count
  ok_syncwarp_after_return<<<64, 256>>>(p, p + 65536, n);
  ok_quads_return_together<<<64, 256>>>(p, p + 65536, n);
  bad_down_reads_returned_lanes<<<64, 256>>>(p, p + 65536, n);
}
