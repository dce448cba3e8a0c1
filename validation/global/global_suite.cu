// ptxlint global-memory coalescing suite: each kernel exercises one global access pattern.
// Every global access of interest sits on its own source line, so each SASS LDG/STG/ATOMG/RED
// maps to one (kernel, line, kind). Kernels run on a small grid (the KERNELS table at the
// bottom gives grid and block); buffers come from cudaMalloc (256-byte aligned or better).
// Parameters: out, in (any element type), idx (int indices, identity or a permutation), n.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define K extern "C" __global__ void
#define GID (blockIdx.x * blockDim.x + threadIdx.x)
struct F3 { float x, y, z; };
struct F4s { float x, y, z, w; };
struct F8 { float a[8]; };

K a01_f32_s1(float *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[GID] = v;
}
K a02_f32_s2(float *out, const float *in, const int *idx, int n) {
  float v = in[2 * GID];
  out[GID] = v;
}
K a03_f32_s3(float *out, const float *in, const int *idx, int n) {
  float v = in[3 * GID];
  out[GID] = v;
}
K a04_f32_s4(float *out, const float *in, const int *idx, int n) {
  float v = in[4 * GID];
  out[GID] = v;
}
K a05_f32_s8(float *out, const float *in, const int *idx, int n) {
  float v = in[8 * GID];
  out[GID] = v;
}
K a06_f32_s32(float *out, const float *in, const int *idx, int n) {
  float v = in[32 * GID];
  out[GID] = v;
}
K a07_f32_off1(float *out, const float *in, const int *idx, int n) {
  float v = in[GID + 1];
  out[GID] = v;
}
K a08_f32_off8(float *out, const float *in, const int *idx, int n) {
  float v = in[GID + 8];
  out[GID] = v;
}
K a09_f32_off3_store(float *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[GID + 3] = v;
}
K a10_f32_bcast(float *out, const float *in, const int *idx, int n) {
  float v = in[0];
  out[GID] = v;
}
K a11_f32_bcast_block(float *out, const float *in, const int *idx, int n) {
  float v = in[blockIdx.x];
  out[GID] = v;
}
K a12_f32_lane_div4(float *out, const float *in, const int *idx, int n) {
  float v = in[GID / 4];
  out[GID] = v;
}
K a13_f32_reverse(float *out, const float *in, const int *idx, int n) {
  float v = in[(blockIdx.x + 1) * blockDim.x - 1 - threadIdx.x];
  out[GID] = v;
}
K b01_u8_s1(char *out, const char *in, const int *idx, int n) {
  char v = in[GID];
  out[GID] = v;
}
K b02_u8_s4(char *out, const char *in, const int *idx, int n) {
  char v = in[4 * GID];
  out[GID] = v;
}
K b03_u16_s1(short *out, const short *in, const int *idx, int n) {
  short v = in[GID];
  out[GID] = v;
}
K b04_u16_s16(short *out, const short *in, const int *idx, int n) {
  short v = in[16 * GID];
  out[GID] = v;
}
K b05_f64_s1(double *out, const double *in, const int *idx, int n) {
  double v = in[GID];
  out[GID] = v;
}
K b06_f64_s2(double *out, const double *in, const int *idx, int n) {
  double v = in[2 * GID];
  out[GID] = v;
}
K b07_f64_bcast(double *out, const double *in, const int *idx, int n) {
  double v = in[blockIdx.x];
  out[GID] = v;
}
K c01_f2_s1(float2 *out, const float2 *in, const int *idx, int n) {
  float2 v = in[GID];
  out[GID] = v;
}
K c02_f4_s1(float4 *out, const float4 *in, const int *idx, int n) {
  float4 v = in[GID];
  out[GID] = v;
}
K c03_f4_s2(float4 *out, const float4 *in, const int *idx, int n) {
  float4 v = in[2 * GID];
  out[GID] = v;
}
K c04_f4_off1(float4 *out, const float4 *in, const int *idx, int n) {
  float4 v = in[GID + 1];
  out[GID] = v;
}
K c05_f4_bcast(float4 *out, const float4 *in, const int *idx, int n) {
  float4 v = in[blockIdx.x];
  out[GID] = v;
}
K c06_f32x4_scalar(float *out, const float *in, const int *idx, int n) {
  float a = in[4 * GID + 0];
  float b = in[4 * GID + 1];
  float c = in[4 * GID + 2];
  float d = in[4 * GID + 3];
  out[GID] = a + b + c + d;
}
K c07_f32x4_vector(float *out, const float *in, const int *idx, int n) {
  float4 v = reinterpret_cast<const float4 *>(in)[GID];
  out[GID] = v.x + v.y + v.z + v.w;
}
K d01_aos3_x(float *out, const F3 *in, const int *idx, int n) {
  float v = in[GID].x;
  out[GID] = v;
}
K d02_aos3_xyz(float *out, const F3 *in, const int *idx, int n) {
  float a = in[GID].x;
  float b = in[GID].y;
  float c = in[GID].z;
  out[GID] = a + b + c;
}
K d03_aos4_x(float *out, const F4s *in, const int *idx, int n) {
  float v = in[GID].x;
  out[GID] = v;
}
K d04_aos8_a3(float *out, const F8 *in, const int *idx, int n) {
  float v = in[GID].a[3];
  out[GID] = v;
}
K d05_soa_x(float *out, const float *in, const int *idx, int n) {
  float v = in[n + GID];
  out[GID] = v;
}
K d06_aos3_store(F3 *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[GID].y = v;
}
K e01_2d_32x8_row(float *out, const float *in, const int *idx, int n) {
  float v = in[(blockIdx.x * 8 + threadIdx.y) * 1024 + threadIdx.x];
  out[GID * 8 + threadIdx.y * 32 + threadIdx.x] = v;
}
K e02_2d_32x8_col(float *out, const float *in, const int *idx, int n) {
  float v = in[threadIdx.x * 1024 + blockIdx.x * 8 + threadIdx.y];
  out[(blockIdx.x * 8 + threadIdx.y) * 32 + threadIdx.x] = v;
}
K e03_2d_16x16_row(float *out, const float *in, const int *idx, int n) {
  float v = in[(blockIdx.x * 16 + threadIdx.y) * 1024 + threadIdx.x];
  out[(blockIdx.x * 16 + threadIdx.y) * 16 + threadIdx.x] = v;
}
K e04_2d_8x32_row(float *out, const float *in, const int *idx, int n) {
  float v = in[(blockIdx.x * 32 + threadIdx.y) * 1024 + threadIdx.x];
  out[(blockIdx.x * 32 + threadIdx.y) * 8 + threadIdx.x] = v;
}
K e05_2d_16x16_pitch17(float *out, const float *in, const int *idx, int n) {
  float v = in[(blockIdx.x * 16 + threadIdx.y) * 17 + threadIdx.x];
  out[(blockIdx.x * 16 + threadIdx.y) * 16 + threadIdx.x] = v;
}
K e06_2d_32x32_col_int(int *out, const int *in, const int *idx, int n) {
  int v = in[threadIdx.x * 32 + threadIdx.y];
  out[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x] = v;
}
K f01_loop_rows4(float *out, const float *in, const int *idx, int n) {
  float s = 0.f;
#pragma unroll 1
  for (int k = 0; k < 4; ++k)
    s += in[k * 4096 + GID];
  out[GID] = s;
}
K f02_loop_thread_chunk8(float *out, const float *in, const int *idx, int n) {
  float s = 0.f;
#pragma unroll 1
  for (int k = 0; k < 8; ++k)
    s += in[GID * 8 + k];
  out[GID] = s;
}
K f03_loop_runtime_rows(float *out, const float *in, const int *idx, int n) {
  float s = 0.f;
  for (int k = 0; k < n; ++k)
    s += in[k * 4096 + GID];
  out[GID] = s;
}
K f04_loop_row_per_thread(float *out, const float *in, const int *idx, int n) {
  float s = 0.f;
  for (int k = 0; k < n; ++k)
    s += in[GID * 64 + k];
  out[GID] = s;
}
K f05_grid_stride(float *out, const float *in, const int *idx, int n) {
  for (int i = GID; i < n; i += blockDim.x * gridDim.x)
    out[i] = 2.f * in[i];
}
K f06_loop_unrolled_cols(float *out, const float *in, const int *idx, int n) {
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    s += in[(GID * 4 + k) * 2];
  out[GID] = s;
}
K g01_store_s2(float *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[2 * GID] = v;
}
K g02_store_s32(float *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[32 * GID] = v;
}
K g03_store_u8_s1(char *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[GID] = (char)v;
}
K g04_store_f4_s1(float4 *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[GID] = make_float4(v, v, v, v);
}
K g05_store_pred_lo16(float *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  if (threadIdx.x % 32 < 16)
    out[GID] = v;
}
K g06_store_partial_warp48(float *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[GID] = v;
}
K h01_atomic_red_s1(int *out, const float *in, const int *idx, int n) {
  atomicAdd(&out[GID], 1);
}
K h02_atomic_ret_s1(int *out, const float *in, const int *idx, int n) {
  int old = atomicAdd(&out[GID], 1);
  out[GID + 65536] = old;
}
K h03_atomic_red_s32(int *out, const float *in, const int *idx, int n) {
  atomicAdd(&out[32 * GID], 1);
}
K h04_atomic_same_uniform(int *out, const float *in, const int *idx, int n) {
  atomicAdd(&out[blockIdx.x], 1);
}
K h05_atomic_f32_s1(float *out, const float *in, const int *idx, int n) {
  atomicAdd(&out[GID], 1.0f);
}
K h06_atomic_max_ret_s2(int *out, const float *in, const int *idx, int n) {
  int old = atomicMax(&out[2 * GID], 5);
  out[GID + 65536] = old;
}
K i01_ldg_s1(float *out, const float *__restrict__ in, const int *idx, int n) {
  float v = __ldg(&in[GID]);
  out[GID] = v;
}
K i02_ldg_s32(float *out, const float *__restrict__ in, const int *idx, int n) {
  float v = __ldg(&in[32 * GID]);
  out[GID] = v;
}
K i03_restrict_s2(float *__restrict__ out, const float *__restrict__ in, const int *idx, int n) {
  float v = in[2 * GID];
  out[GID] = v;
}
K i04_ldu_asm(float *out, const float *in, const int *idx, int n) {
  float v;
  asm volatile("ldu.global.f32 %0, [%1];" : "=f"(v) : "l"(in + blockIdx.x));
  out[GID] = v;
}
K i05_generic_asm(float *out, const float *in, const int *idx, int n) {
  float v;
  asm volatile("ld.f32 %0, [%1];" : "=f"(v) : "l"(in + 2 * GID));
  out[GID] = v;
}
K j01_gather_identity(float *out, const float *in, const int *idx, int n) {
  float v = in[idx[GID]];
  out[GID] = v;
}
K j02_gather_permuted(float *out, const float *in, const int *idx, int n) {
  float v = in[idx[GID + 65536]];
  out[GID] = v;
}
K j03_scatter_permuted(float *out, const float *in, const int *idx, int n) {
  float v = in[GID];
  out[idx[GID + 65536]] = v;
}
K j04_block_misaligned(float *out, const float *in, const int *idx, int n) {
  float v = in[blockIdx.x * 36 + threadIdx.x];
  out[GID] = v;
}
// The README's transpose sample (samples/transpose.cu), 32x8 threads per 32x32 tile.
#define TILE_DIM 32
#define BLOCK_ROWS 8
K t01_transposeNaive(float *odata, const float *idata, const int *idx, int n) {
  int width = n, height = n;
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      odata[x * height + (y + j)] = idata[(y + j) * width + x];
}
K t02_transposeSmem(float *odata, const float *idata, const int *idx, int n) {
  int width = n, height = n;
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
K t03_transposeSmemPad(float *odata, const float *idata, const int *idx, int n) {
  int width = n, height = n;
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
K t04_transposeNaive_const(float *odata, const float *idata, const int *idx, int n) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[x * 64 + (y + j)] = idata[(y + j) * 64 + x];
}
K t05_transposeSmemPad_const(float *odata, const float *idata, const int *idx, int n) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * 64 + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * 64 + x] = tile[threadIdx.x][threadIdx.y + j];
}
K t06_rowsum_per_thread(float *out, const float *in, const int *idx, int n) {
  float s = 0.f;
#pragma unroll 1
  for (int k = 0; k < 32; ++k)
    s += in[GID * 32 + k];
  out[GID] = s;
}
K t07_rowsum_smem_staged(float *out, const float *in, const int *idx, int n) {
  __shared__ float tile[32][33];
  int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  float s = 0.f;
#pragma unroll 1
  for (int r = 0; r < 32; ++r)
    tile[r][lane] = in[(blockIdx.x * blockDim.x + w * 32 + r) * 32 + lane];
  __syncwarp();
#pragma unroll 1
  for (int k = 0; k < 32; ++k)
    s += tile[lane][k];
  out[GID] = s;
}

struct KEntry { const char *name; void *fn; int gx, gy, bx, by, bz; const char *desc; };
#define KE(f, gx, gy, bx, by, bz, d) {#f, (void *)f, gx, gy, bx, by, bz, d},
static const KEntry KERNELS[] = {
  KE(a01_f32_s1, 2, 1, 256, 1, 1, "float, stride 1")
  KE(a02_f32_s2, 2, 1, 256, 1, 1, "float, load stride 2")
  KE(a03_f32_s3, 2, 1, 256, 1, 1, "float, load stride 3")
  KE(a04_f32_s4, 2, 1, 256, 1, 1, "float, load stride 4")
  KE(a05_f32_s8, 2, 1, 256, 1, 1, "float, load stride 8 (one sector per lane)")
  KE(a06_f32_s32, 2, 1, 256, 1, 1, "float, load stride 32")
  KE(a07_f32_off1, 2, 1, 256, 1, 1, "float, load offset by one element (misaligned)")
  KE(a08_f32_off8, 2, 1, 256, 1, 1, "float, load offset by 8 elements (one sector)")
  KE(a09_f32_off3_store, 2, 1, 256, 1, 1, "float, store offset by 3 elements")
  KE(a10_f32_bcast, 2, 1, 256, 1, 1, "float, every thread loads in[0]")
  KE(a11_f32_bcast_block, 2, 1, 256, 1, 1, "float, every thread of a block loads in[blockIdx.x]")
  KE(a12_f32_lane_div4, 2, 1, 256, 1, 1, "float, 4 lanes per element")
  KE(a13_f32_reverse, 2, 1, 256, 1, 1, "float, reversed within the block")
  KE(b01_u8_s1, 2, 1, 256, 1, 1, "char, stride 1")
  KE(b02_u8_s4, 2, 1, 256, 1, 1, "char, load stride 4")
  KE(b03_u16_s1, 2, 1, 256, 1, 1, "short, stride 1")
  KE(b04_u16_s16, 2, 1, 256, 1, 1, "short, load stride 16 (32 bytes)")
  KE(b05_f64_s1, 2, 1, 256, 1, 1, "double, stride 1")
  KE(b06_f64_s2, 2, 1, 256, 1, 1, "double, load stride 2")
  KE(b07_f64_bcast, 2, 1, 256, 1, 1, "double, block-uniform load")
  KE(c01_f2_s1, 2, 1, 256, 1, 1, "float2, stride 1")
  KE(c02_f4_s1, 2, 1, 256, 1, 1, "float4, stride 1")
  KE(c03_f4_s2, 2, 1, 256, 1, 1, "float4, load stride 2")
  KE(c04_f4_off1, 2, 1, 256, 1, 1, "float4, load offset by one float4")
  KE(c05_f4_bcast, 2, 1, 256, 1, 1, "float4, block-uniform load")
  KE(c06_f32x4_scalar, 2, 1, 256, 1, 1, "four scalar loads of consecutive floats per thread (16-byte stride)")
  KE(c07_f32x4_vector, 2, 1, 256, 1, 1, "the same as one float4 load per thread (the vector-load fix)")
  KE(d01_aos3_x, 2, 1, 256, 1, 1, "array of 12-byte structs, read .x")
  KE(d02_aos3_xyz, 2, 1, 256, 1, 1, "array of 12-byte structs, read .x .y .z")
  KE(d03_aos4_x, 2, 1, 256, 1, 1, "array of 16-byte structs (no float4 alignment), read .x")
  KE(d04_aos8_a3, 2, 1, 256, 1, 1, "array of 32-byte structs, read a[3]")
  KE(d05_soa_x, 2, 1, 256, 1, 1, "structure of arrays: x[] at offset n (the AoS fix), n = 65536")
  KE(d06_aos3_store, 2, 1, 256, 1, 1, "store .y of 12-byte structs")
  KE(e01_2d_32x8_row, 2, 1, 32, 8, 1, "2-D block 32x8, row access, pitch 1024")
  KE(e02_2d_32x8_col, 2, 1, 32, 8, 1, "2-D block 32x8, column access (lane = row), pitch 1024")
  KE(e03_2d_16x16_row, 2, 1, 16, 16, 1, "2-D block 16x16, row access, pitch 1024")
  KE(e04_2d_8x32_row, 2, 1, 8, 32, 1, "2-D block 8x32, row access, pitch 1024")
  KE(e05_2d_16x16_pitch17, 2, 1, 16, 16, 1, "2-D block 16x16, row access, pitch 17 floats")
  KE(e06_2d_32x32_col_int, 2, 1, 32, 32, 1, "2-D block 32x32, int column read of a 32x32 matrix")
  KE(f01_loop_rows4, 2, 1, 256, 1, 1, "loop of 4 coalesced rows (not unrolled)")
  KE(f02_loop_thread_chunk8, 2, 1, 256, 1, 1, "loop: each thread reads its own 8 consecutive floats")
  KE(f03_loop_runtime_rows, 2, 1, 256, 1, 1, "run-time trip count n=4, coalesced rows")
  KE(f04_loop_row_per_thread, 2, 1, 256, 1, 1, "run-time trip count n=4, a row of 64 floats per thread")
  KE(f05_grid_stride, 2, 1, 256, 1, 1, "grid-stride loop, n = 4096")
  KE(f06_loop_unrolled_cols, 2, 1, 256, 1, 1, "unrolled loop, stride 8 per lane, 2 per iteration")
  KE(g01_store_s2, 2, 1, 256, 1, 1, "store stride 2")
  KE(g02_store_s32, 2, 1, 256, 1, 1, "store stride 32")
  KE(g03_store_u8_s1, 2, 1, 256, 1, 1, "store char stride 1")
  KE(g04_store_f4_s1, 2, 1, 256, 1, 1, "store float4 stride 1")
  KE(g05_store_pred_lo16, 2, 1, 256, 1, 1, "store by lanes 0-15 only")
  KE(g06_store_partial_warp48, 2, 1, 48, 1, 1, "48-thread blocks (a half-full second warp)")
  KE(h01_atomic_red_s1, 2, 1, 256, 1, 1, "atomicAdd int, result unused, stride 1")
  KE(h02_atomic_ret_s1, 2, 1, 256, 1, 1, "atomicAdd int, result used, stride 1")
  KE(h03_atomic_red_s32, 2, 1, 256, 1, 1, "atomicAdd int, stride 32")
  KE(h04_atomic_same_uniform, 2, 1, 256, 1, 1, "atomicAdd int, every thread of a block on out[blockIdx.x]")
  KE(h05_atomic_f32_s1, 2, 1, 256, 1, 1, "atomicAdd float, stride 1")
  KE(h06_atomic_max_ret_s2, 2, 1, 256, 1, 1, "atomicMax int, result used, stride 2")
  KE(i01_ldg_s1, 2, 1, 256, 1, 1, "__ldg stride 1 (ld.global.nc)")
  KE(i02_ldg_s32, 2, 1, 256, 1, 1, "__ldg stride 32")
  KE(i03_restrict_s2, 2, 1, 256, 1, 1, "const __restrict__ stride 2")
  KE(i04_ldu_asm, 2, 1, 256, 1, 1, "ldu.global (inline PTX), block-uniform")
  KE(i05_generic_asm, 2, 1, 256, 1, 1, "generic ld (inline PTX) of a kernel pointer, stride 2")
  KE(j01_gather_identity, 2, 1, 256, 1, 1, "gather in[idx[i]], idx = identity at run time")
  KE(j02_gather_permuted, 2, 1, 256, 1, 1, "gather in[idx[i]], idx a scattered permutation")
  KE(j03_scatter_permuted, 2, 1, 256, 1, 1, "scatter out[idx[i]], idx a scattered permutation")
  KE(j04_block_misaligned, 2, 1, 32, 1, 1, "block b reads from 36*b: alignment depends on blockIdx")
  KE(t01_transposeNaive, 2, 2, 32, 8, 1, "README transpose sample: naive, width = height = n = 64")
  KE(t02_transposeSmem, 2, 2, 32, 8, 1, "README transpose sample: shared tile [32][32]")
  KE(t03_transposeSmemPad, 2, 2, 32, 8, 1, "README transpose sample: shared tile [32][33]")
  KE(t04_transposeNaive_const, 2, 2, 32, 8, 1, "naive transpose of a 64x64 matrix (compile-time size)")
  KE(t05_transposeSmemPad_const, 2, 2, 32, 8, 1, "its fix as COAL001 prints it: a padded shared tile")
  KE(t06_rowsum_per_thread, 2, 1, 64, 1, 1, "each thread sums its own row of 32 floats (uncoalesced)")
  KE(t07_rowsum_smem_staged, 2, 1, 64, 1, 1, "the same staged through a padded shared tile")
};

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

int main(int argc, char **argv) {
  int count = (int)(sizeof(KERNELS) / sizeof(KERNELS[0]));
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (int i = 0; i < count; ++i)
      printf("%s\t%d,%d\t%d,%d,%d\t%s\n", KERNELS[i].name, KERNELS[i].gx, KERNELS[i].gy, KERNELS[i].bx,
             KERNELS[i].by, KERNELS[i].bz, KERNELS[i].desc);
    return 0;
  }
  const size_t BYTES = 64u << 20;
  const size_t NIDX = 1u << 20;
  void *in, *out;
  int *idx;
  CK(cudaMalloc(&in, BYTES));
  CK(cudaMalloc(&out, BYTES));
  CK(cudaMalloc(&idx, NIDX * sizeof(int)));
  CK(cudaMemset(in, 0, BYTES));
  int *h = (int *)malloc(NIDX * sizeof(int));
  for (size_t i = 0; i < 65536; ++i) h[i] = (int)i;                                   // identity
  for (size_t i = 65536; i < NIDX; ++i) h[i] = (int)(((i - 65536) * 40503u) % 65536u) * 16;  // scattered
  CK(cudaMemcpy(idx, h, NIDX * sizeof(int), cudaMemcpyHostToDevice));
  printf("in %p out %p idx %p\n", in, out, (void *)idx);
  for (int i = 0; i < count; ++i) {
    const KEntry &k = KERNELS[i];
    int n = 4;
    if (k.name[0] == 't' && k.name[1] == '0' && k.name[2] <= '5') n = 64;
    if (strcmp(k.name, "f05_grid_stride") == 0) n = 4096;
    if (strcmp(k.name, "d05_soa_x") == 0) n = 65536;
    CK(cudaMemset(out, 0, 1u << 20));
    void *args[] = {&out, &in, &idx, &n};
    CK(cudaLaunchKernel(k.fn, dim3(k.gx, k.gy), dim3(k.bx, k.by, k.bz), args, 0, 0));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  printf("ran %d kernels\n", count);
  free(h);
  return 0;
}
