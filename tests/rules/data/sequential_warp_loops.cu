// Loops in a row: a lane that leaves one loop after the same number of iterations as the rest of its
// warp enters the next one at `lane + step * K`, K one value for the warp. nvcc writes a loop over
// an unknown count as a loop unrolled by four and a remainder loop, with the count as
// `(limit + ~i) >> log2(step)` (`~i` is `-i - 1`); after both, a lane's index is still its lane plus
// a multiple of the step. So a warp loop to a multiple of 32 after a main loop to a multiple of 256
// (dietgpu's ANS encoder: whole unrolled rounds, then whole warps, then the partial warp) runs alike
// in every lane, and its full-mask shuffles are whole; a second bound that is not a multiple of 32
// splits the warp.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 sequential_warp_loops.cu -o sequential_warp_loops.sm_90.ptx

// ok: main rounds to a multiple of 256, then whole warps.
extern "C" __global__ void ok_whole_warps_after_rounds(const int *in, int *out, unsigned n) {
  unsigned i = threadIdx.x & 31;
  int acc = 0;
  unsigned limit = n & ~255u;
  for (; i < limit; i += 256) acc += in[i] + in[i + 32];
  limit = n & ~31u;
  for (; i < limit; i += 32) acc += __shfl_xor_sync(0xffffffff, in[i], 1);
  out[threadIdx.x] = acc;
}

// ok: dietgpu's shape: an unrolled body over eight warp-strided words per round.
extern "C" __global__ void ok_unrolled_rounds_then_warps(const int *in, int *out, unsigned n) {
  unsigned i = threadIdx.x & 31;
  int acc = 0;
  unsigned limit = n & ~255u;
  for (; i < limit; i += 256) {
#pragma unroll
    for (int j = 0; j < 8; ++j) acc += __shfl_xor_sync(0xffffffff, in[i + 32 * j], 2);
  }
  limit = n & ~31u;
  for (; i < limit; i += 32) acc += __shfl_xor_sync(0xffffffff, in[i], 1);
  out[threadIdx.x] = acc;
}

// ok: each warp encodes its own segment, of a length read per warp (so each warp has its own trip
// counts), as dietgpu does; the rounds loop (not unrolled, as dietgpu's larger one is not) keeps
// the next index `i + 256` beside `i`.
extern "C" __global__ void ok_per_warp_segments(const int *in, const unsigned *lens, int *out) {
  const unsigned warp = threadIdx.x / 32;
  const unsigned n = lens[warp];
  const int *segment = in + warp * 4096;
  unsigned i = threadIdx.x & 31;
  int acc = 0;
  unsigned limit = n & ~255u;
#pragma unroll 1
  for (; i < limit; i += 256) {
#pragma unroll
    for (int j = 0; j < 8; ++j) acc += __shfl_xor_sync(0xffffffff, segment[i + 32 * j], 2);
  }
  if (limit != n) {
    limit = n & ~31u;
    for (; i < limit; i += 32) acc += __shfl_xor_sync(0xffffffff, segment[i], 1);
  }
  out[threadIdx.x] = acc;
}

// bad: the second loop runs to n itself: its last round leaves lanes out.
extern "C" __global__ void bad_warps_to_any_bound(const int *in, int *out, unsigned n) {
  unsigned i = threadIdx.x & 31;
  int acc = 0;
  unsigned limit = n & ~255u;
  for (; i < limit; i += 256) acc += in[i] + in[i + 32];
  for (; i < n; i += 32) acc += __shfl_xor_sync(0xffffffff, in[i], 1);  // EXPECT SHFL001
  out[threadIdx.x] = acc;
}

#include <cstdlib>

int main(int argc, char **argv) {
  int *p;
  cudaMalloc(&p, 1 << 24);
  unsigned n = atoi(argv[1]);  // a run-time count
  ok_whole_warps_after_rounds<<<1, 256>>>(p, p + (1 << 21), n);
  ok_unrolled_rounds_then_warps<<<1, 256>>>(p, p + (1 << 21), n);
  ok_per_warp_segments<<<1, 256>>>(p, (const unsigned *)p + 4096, p + (1 << 21));
  bad_warps_to_any_bound<<<1, 256>>>(p, p + (1 << 21), n);
  cudaDeviceSynchronize();
  return 0;
}
