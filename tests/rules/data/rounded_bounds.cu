// A bound the kernel rounds up to a multiple of 4 (`(n + 3) / 4 * 4`) is a multiple of 4 whatever
// n is, also where nvcc writes the rounding as a mask that clears the high bits it knows are zero
// too (`& 0x1FFFFFFFFFFFFFFC` after a shift right by 4): threads of one quad compare alike against
// it, so an early return on it is taken by whole quads and a width-4 shuffle after it reads no lane
// that returned. Rounded to pairs only, or with an offset that is not a multiple of 4, a quad may
// split. (From test8's triage: xmrig's KawPow DAG generator; built after test8 was measured.)
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 rounded_bounds.cu
#include <cstdint>

#define QUAD_SHFL(x, lane) __shfl_sync(0xFFFFFFFF, (x), (lane), 4)

extern "C" __global__ void ok_rounded_bound_quads(uint4 *out, uint64_t bytes, const uint4 *table, uint32_t words) {
  uint64_t const item = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t const items = bytes / sizeof(uint4);
  uint64_t const rounded = ((items + 3) / 4) * 4;
  if (item >= rounded) return;  // whole quads leave
  uint4 acc = table[item % words];
  for (uint32_t t = 0; t < 4; t++) {
    uint32_t parent = QUAD_SHFL(uint32_t(item * 33u) % words, t);
    acc.x ^= QUAD_SHFL(table[parent].x, t);
  }
  if (item < items) out[item] = acc;
}

extern "C" __global__ void ok_rounded_bound_chunk_offset(uint32_t start, uint4 *out, uint64_t bytes, const uint4 *table,
                                                         uint32_t words) {
  uint64_t const item = start + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t const items = bytes / sizeof(uint4);
  uint64_t const rounded = ((items + 3) / 4) * 4;
  if (item >= rounded) return;
  uint4 acc = table[item % words];
  for (uint32_t t = 0; t < 4; t++) {
    uint32_t parent = QUAD_SHFL(uint32_t(item * 33u) % words, t);
    acc.x ^= QUAD_SHFL(table[parent].x, t);
  }
  if (item < items) out[item] = acc;
}

extern "C" __global__ void bad_rounded_to_pairs(uint4 *out, uint64_t bytes, const uint4 *table, uint32_t words) {
  uint64_t const item = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t const items = bytes / sizeof(uint4);
  uint64_t const rounded = ((items + 1) / 2) * 2;
  if (item >= rounded) return;  // a quad may keep two lanes
  uint4 acc = table[item % words];
  for (uint32_t t = 0; t < 4; t++) {
    uint32_t parent = QUAD_SHFL(uint32_t(item * 33u) % words, t);  // EXPECT SHFL001
    acc.x ^= QUAD_SHFL(table[parent].x, t);  // EXPECT SHFL001
  }
  if (item < items) out[item] = acc;
}

extern "C" __global__ void bad_rounded_bound_odd_offset(uint32_t start, uint4 *out, uint64_t bytes, const uint4 *table,
                                                        uint32_t words) {
  uint64_t const item = start + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t const items = bytes / sizeof(uint4);
  uint64_t const rounded = ((items + 3) / 4) * 4;
  if (item >= rounded) return;  // start + 2 shifts the quads across the bound
  uint4 acc = table[item % words];
  for (uint32_t t = 0; t < 4; t++) {
    uint32_t parent = QUAD_SHFL(uint32_t(item * 33u) % words, t);  // EXPECT SHFL001
    acc.x ^= QUAD_SHFL(table[parent].x, t);  // EXPECT SHFL001
  }
  if (item < items) out[item] = acc;
}

void run(uint4 *out, uint64_t bytes, const uint4 *table, uint32_t words) {  // bytes, words: run-time sizes
  ok_rounded_bound_quads<<<8192, 32>>>(out, bytes, table, words);
  bad_rounded_to_pairs<<<8192, 32>>>(out, bytes, table, words);
  for (uint32_t base = 0; base < bytes / 16; base += 8192 * 32) {
    ok_rounded_bound_chunk_offset<<<8192, 32>>>(base, out, bytes, table, words);
    bad_rounded_bound_odd_offset<<<8192, 32>>>(base + 2, out, bytes, table, words);
  }
}
