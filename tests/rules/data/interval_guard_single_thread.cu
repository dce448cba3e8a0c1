// Two guards that bound one index from both sides admit the values between them: a thread that
// passes `x < w` but not `x + 1 < w` has x == w - 1, one value, so with x = 2 * (global index) one
// thread of the whole grid takes that branch (the last cell of an image with an odd width, which
// connected-component labelling records in a single word). Guards that leave a range of two or
// more values (`x + 4 >= w`) admit two threads that store one word.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 interval_guard_single_thread.cu

extern "C" __global__ void ok_last_cell_recorded_once(int w, int h, const int *img, int *labels, int *last) {
  int x = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  int y = (blockIdx.y * blockDim.y + threadIdx.y) * 2;
  if (x < w && y < h) {
    int at = y * w + x;
    if (x + 1 < w && y + 1 < h) {
      labels[at] = img[at] + img[at + 1];
    } else if (x + 1 < w) {
      labels[at] = img[at];
    } else if (y + 1 < h) {
      labels[at] = img[at + w];
    } else {
      *last = img[at];
    }
  }
}

extern "C" __global__ void ok_last_column_once(int w, const int *img, int *last) {
  int x = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  if (x < w && x + 1 >= w) *last = img[x];
}

extern "C" __global__ void bad_last_two_columns(int w, const int *img, int *last) {
  int x = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  if (x < w && x + 4 >= w) *last = img[x];  // EXPECT RACE003
}

#include <cstdlib>

int main(int argc, char **argv) {
  int w = atoi(argv[1]), h = atoi(argv[2]);  // an image of any size
  int *d;
  cudaMalloc(&d, 1 << 24);
  dim3 cells((w + 31) / 32, (h + 31) / 32);
  ok_last_cell_recorded_once<<<cells, dim3(16, 16)>>>(w, h, d, d + (1 << 20), d + (1 << 22));
  ok_last_column_once<<<(w + 511) / 512, 256>>>(w, d, d + (1 << 22));
  bad_last_two_columns<<<(w + 511) / 512, 256>>>(w, d, d + (1 << 22));
  return 0;
}
