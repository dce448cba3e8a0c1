// Fields of a kernel parameter struct read through its address (a `__grid_constant__` parameter
// whose address is taken, or any struct nvcc addresses with `mov.b64 %rd, param; ld.param [%rd+off]`)
// are one value for the whole grid: a loop bounded by one is uniform, a loop started at threadIdx.x
// is not.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 param_struct.cu -o param_struct.sm_90.ptx
struct Layers {
  float *data;
  int n_layers;
  int width;
  float scale[8];
};

__device__ __noinline__ float layer_scale(const Layers *p, int l) { return p->scale[l & 7]; }

extern "C" __global__ void ok_struct_field_loop_bound(const __grid_constant__ Layers args) {
  __shared__ float s[256];
  for (int l = 0; l < args.n_layers; ++l) {
    s[threadIdx.x] = args.data[l * 256 + threadIdx.x] * layer_scale(&args, l);
    __syncthreads();
    args.data[l * 256 + threadIdx.x] = s[255 - threadIdx.x];
    __syncthreads();
  }
}

extern "C" __global__ void bad_struct_field_bound_per_thread(const __grid_constant__ Layers args) {
  __shared__ float s[256];
  for (int l = threadIdx.x % 4; l < args.n_layers; ++l) {
    s[threadIdx.x] = args.data[l * 256 + threadIdx.x] * layer_scale(&args, l);
    __syncthreads();  // EXPECT SYNC001
    args.data[l * 256 + threadIdx.x] = s[255 - threadIdx.x];
  }
}
