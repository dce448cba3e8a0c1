// Padding lanes that redo another lane's work: a block of 32 threads serves 25 points, and threads
// 25..31 take `tx -= 25` so that the warp stays converged; they load what threads 0..6 load,
// compute the same floating-point values from it (fma, mul, sqrt, rcp are functions of their
// inputs) and store them to the same addresses. Two threads storing one value to one word is no
// race; a value that depends on the thread itself (threadIdx.x, not tx) differs. (Reading the
// stored array itself before the store would be a WARP001 hazard: a padding lane may read the word
// after its twin lane overwrote it; these kernels read their state from another array.)
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 padding_lanes_recompute.cu
#define POINTS 25

extern "C" __global__ void ok_padding_lanes_store_what_lanes_0_to_6_store(const float *a, const float *b,
                                                                           const float *state_in, float *state,
                                                                           float *out, float dt) {
  int tx = threadIdx.x;
  if (tx >= POINTS) tx -= POINTS;
  int i = blockIdx.x * POINTS + tx;
  float x = a[i];
  float y = b[i];
  float s = state_in[i];
  s = fmaf(x, y, s * dt);
  s = s * rsqrtf(fabsf(x) + 1.0f) + sqrtf(fabsf(y));
  state[i] = s;
  out[i] = __fdividef(s, x + 2.0f);
}

// A per-element loop as in a solver with several relaxation terms: each term's update is the same
// function of the same loads in a padding lane and in the lane it repeats.
extern "C" __global__ void ok_padding_lanes_update_terms_alike(const float *alpha, const float *beta,
                                                               const float *terms_in, float *terms,
                                                               const float *grad) {
  int tx = threadIdx.x;
  if (tx >= POINTS) tx -= POINTS;
  int i = blockIdx.x * POINTS + tx;
  float g = grad[i] * 0.5f;
  for (int k = 0; k < 3; k++) {
    float a = alpha[3 * i + k];
    float t = terms_in[3 * i + k];
    t = a * a * t + beta[3 * i + k] * (g + a * g);
    terms[3 * i + k] = t;
  }
}

// bad: the padding lanes mix their own thread index into the value, so thread 25 stores another
// value than thread 0 to state[i].
extern "C" __global__ void bad_padding_lanes_store_their_own_index(const float *a, float *state) {
  int tx = threadIdx.x;
  if (tx >= POINTS) tx -= POINTS;
  int i = blockIdx.x * POINTS + tx;
  float x = a[i];
  state[i] = fmaf(x, (float)threadIdx.x, 1.0f);  // EXPECT RACE003
}

// bad: the padding lanes read a neighbour's input (`a[i + 1]` where lane 0 reads `a[i]`), so the
// values they compute differ from those of the lanes they repeat.
extern "C" __global__ void bad_padding_lanes_read_other_inputs(const float *a, float *state) {
  int tx = threadIdx.x;
  int shift = 0;
  if (tx >= POINTS) {
    tx -= POINTS;
    shift = 1;
  }
  int i = blockIdx.x * POINTS + tx;
  float x = a[i + shift];
  state[i] = x * x + 1.0f;  // EXPECT RACE003
}

int main() {
  float *p;
  cudaMalloc(&p, 1 << 20);
  ok_padding_lanes_store_what_lanes_0_to_6_store<<<64, 32>>>(p, p + 4096, p + 8192, p + 12288, p + 16384, 0.1f);
  ok_padding_lanes_update_terms_alike<<<64, 32>>>(p, p + 8192, p + 16384, p + 24576, p + 32768);
  bad_padding_lanes_store_their_own_index<<<64, 32>>>(p, p + 8192);
  bad_padding_lanes_read_other_inputs<<<64, 32>>>(p, p + 8192);
  return 0;
}
