// WARP001/RACE001 on a read whose value only a shuffle hands on. Each kernel is launched by main()
// below, so launch discovery gives its block shape. Compiled with:
// nvcc -ptx -lineinfo -arch=sm_90 dead_shuffle_operand.cu

// Every lane but lane 0 adds its left neighbour's count, broadcast from lane 1: lane 1 reads the
// warp's first element, which no lane writes here (lane 0 sits out). The other lanes also read
// their left neighbour, which that neighbour overwrites, but the shuffle never uses those values.
extern "C" __global__ void ok_add_first_count_of_warp(const unsigned *in, unsigned *out) {
  __shared__ unsigned counts[256];
  counts[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x & 31)
    counts[threadIdx.x] += __shfl_sync(0xfffffffe, counts[threadIdx.x - 1], 1);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = counts[(threadIdx.x + 32) % 256];
}

// The same in segments of 8 lanes (`width` 8): lanes 1, 9, 17 and 25 are the sources, and each
// reads its segment's first element, which no lane writes here.
extern "C" __global__ void ok_add_first_count_of_segment(const unsigned *in, unsigned *out) {
  __shared__ unsigned counts[128];
  counts[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x & 7)
    counts[threadIdx.x] += __shfl_sync(0xfefefefe, counts[threadIdx.x - 1], 1, 8);
  __syncthreads();
  out[blockIdx.x * 128 + threadIdx.x] = counts[(threadIdx.x + 32) % 128];
}

// bad: the broadcast comes from lane 2, which reads counts[1]: lane 1 overwrites it in the same
// statement with no __syncwarp, so lane 2 may read the old or the new count.
extern "C" __global__ void bad_add_count_broadcast_from_lane_two(const unsigned *in, unsigned *out) {
  __shared__ unsigned counts[256];
  counts[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x & 31)
    counts[threadIdx.x] += __shfl_sync(0xfffffffe, counts[threadIdx.x - 1], 2);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = counts[(threadIdx.x + 32) % 256];
}

// bad: every lane uses its own read of the left neighbour (a shuffle up hands lane l the read of
// lane l - 1, and lane 0 keeps its own), which that neighbour overwrites with no __syncwarp.
extern "C" __global__ void bad_shuffle_up_of_overwritten_reads(const unsigned *in, unsigned *out) {
  __shared__ unsigned counts[256];
  counts[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x & 31)
    counts[threadIdx.x] += __shfl_up_sync(0xfffffffe, counts[threadIdx.x - 1], 1);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = counts[(threadIdx.x + 32) % 256];
}

int main() {
  unsigned *u;
  cudaMalloc(&u, 4096 * sizeof(unsigned));
  ok_add_first_count_of_warp<<<4, 256>>>(u, u + 1024);
  ok_add_first_count_of_segment<<<4, 128>>>(u, u + 1024);
  bad_add_count_broadcast_from_lane_two<<<4, 256>>>(u, u + 1024);
  bad_shuffle_up_of_overwritten_reads<<<4, 256>>>(u, u + 1024);
  cudaDeviceSynchronize();
  return 0;
}
