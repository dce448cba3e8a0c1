#!/usr/bin/env python3
"""Generates bank_suite.cu (kept in git next to it). stdlib only.

Each simple kernel stores one pattern to shared memory, synchronizes, loads one
pattern and writes it out; every shared-memory access sits on its own source line.
Special kernels (ldmatrix, atomics, loops, transpose, reduction, swizzles) are written
out by hand below.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

LIN = {1: "threadIdx.x", 2: "threadIdx.x + threadIdx.y * blockDim.x",
       3: "threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y"}

B1 = (256, 1, 1)
# (name, T, decl, store_idx, load_idx, block, desc, [cond])
SIMPLE = [
    # 32-bit strides
    ("b01_i32_s1", "int", "int s[256]", "[t]", "[t]", B1, "int, store s[t], load s[t] (stride 1)"),
    ("b02_i32_s2", "int", "int s[512]", "[t]", "[2 * t]", B1, "int, load stride 2 words"),
    ("b03_i32_s3", "int", "int s[768]", "[t]", "[3 * t]", B1, "int, load stride 3 words (odd)"),
    ("b04_i32_s4", "int", "int s[1024]", "[t]", "[4 * t]", B1, "int, load stride 4 words"),
    ("b05_i32_s8", "int", "int s[2048]", "[t]", "[8 * t]", B1, "int, load stride 8 words"),
    ("b06_i32_s16", "int", "int s[4096]", "[t]", "[16 * t]", B1, "int, load stride 16 words"),
    ("b07_i32_s32", "int", "int s[8192]", "[t]", "[32 * t]", B1, "int, load stride 32 words (all lanes bank 0)"),
    ("b08_i32_s33", "int", "int s[8448]", "[t]", "[33 * t]", B1, "int, load stride 33 words (odd, conflict-free)"),
    ("b09_i32_s5", "int", "int s[1280]", "[t]", "[5 * t]", B1, "int, load stride 5 words (odd)"),
    ("b10_i32_s31", "int", "int s[7936]", "[t]", "[31 * t]", B1, "int, load stride 31 words (odd)"),
    ("b11_i32_s6", "int", "int s[1536]", "[t]", "[6 * t]", B1, "int, load stride 6 words (2-way: gcd 2)"),
    ("b12_i32_st_s2", "int", "int s[512]", "[2 * t]", "[t]", B1, "int, STORE stride 2 words, load stride 1"),
    ("b13_i32_st_s32", "int", "int s[8192]", "[32 * t]", "[t]", B1, "int, STORE stride 32 words, load stride 1"),
    ("b14_i32_bcast", "int", "int s[256]", "[t]", "[0]", B1, "int, all lanes load s[0] (broadcast)"),
    ("b15_i32_bcast4_bank0", "int", "int s[256]", "[t]", "[(lane / 8) * 32]", B1, "int, 4 distinct words all in bank 0, 8 lanes each (multicast)"),
    ("b16_i32_bcast2_banks", "int", "int s[256]", "[t]", "[lane / 16]", B1, "int, two words in different banks, 16 lanes each"),
    ("b17_i32_perm", "int", "int s[256]", "[t]", "[(t & ~31u) + ((lane * 7) & 31)]", B1, "int, permutation lane*7 mod 32 within the warp's row"),
    # 8-bit
    ("b18_u8_s1", "char", "char s[256]", "[t]", "[t]", B1, "char, stride 1 byte (4 lanes per word)"),
    ("b19_u8_s2", "char", "char s[512]", "[t]", "[2 * t]", B1, "char, stride 2 bytes"),
    ("b20_u8_s4", "char", "char s[1024]", "[t]", "[4 * t]", B1, "char, stride 4 bytes (one word per lane)"),
    ("b21_u8_s32", "char", "char s[8192]", "[t]", "[32 * t]", B1, "char, stride 32 bytes (8 words)"),
    ("b22_u8_s128", "char", "char s[32768]", "[t]", "[128 * t]", B1, "char, stride 128 bytes (bank 0)"),
    ("b23_u8_s3", "char", "char s[768]", "[t]", "[3 * t]", B1, "char, stride 3 bytes (odd)"),
    # 16-bit
    ("b24_u16_s1", "short", "short s[256]", "[t]", "[t]", B1, "short, stride 1"),
    ("b25_u16_s2", "short", "short s[512]", "[t]", "[2 * t]", B1, "short, stride 2 (one word per lane)"),
    ("b26_u16_s3", "short", "short s[768]", "[t]", "[3 * t]", B1, "short, stride 3 (odd)"),
    ("b27_u16_s64", "short", "short s[16384]", "[t]", "[64 * t]", B1, "short, stride 64 elements = 128 bytes (bank 0)"),
    ("b28_u16_s16", "short", "short s[4096]", "[t]", "[16 * t]", B1, "short, stride 16 elements = 32 bytes"),
    # 64-bit
    ("b29_f64_s1", "double", "double s[256]", "[t]", "[t]", B1, "double, stride 1 (LDS.64/STS.64)"),
    ("b30_f64_s2", "double", "double s[512]", "[t]", "[2 * t]", B1, "double, load stride 2"),
    ("b31_f64_s3", "double", "double s[768]", "[t]", "[3 * t]", B1, "double, load stride 3 (odd)"),
    ("b32_f64_s16", "double", "double s[4096]", "[t]", "[16 * t]", B1, "double, load stride 16 (128 B, bank 0/1)"),
    ("b33_f64_s17", "double", "double s[4352]", "[t]", "[17 * t]", B1, "double, load stride 17 (odd)"),
    ("b34_f64_bcast", "double", "double s[256]", "[t]", "[0]", B1, "double, all lanes load s[0]"),
    ("b35_f64_halfdup", "double", "double s[256]", "[t]", "[lane % 16]", B1, "double, lanes l and l+16 load the same element"),
    ("b36_f64_st_s2", "double", "double s[512]", "[2 * t]", "[t]", B1, "double, STORE stride 2, load stride 1"),
    ("b37_f64_s4", "double", "double s[1024]", "[t]", "[4 * t]", B1, "double, load stride 4"),
    # float2 / int2
    ("b38_f2_s1", "float2", "float2 s[256]", "[t]", "[t]", B1, "float2, stride 1"),
    ("b39_i2_s2", "int2", "int2 s[512]", "[t]", "[2 * t]", B1, "int2, load stride 2"),
    ("b40_i2_s5", "int2", "int2 s[1280]", "[t]", "[5 * t]", B1, "int2, load stride 5 (odd)"),
    # float4 / int4 (128-bit)
    ("b41_f4_s1", "float4", "float4 s[256]", "[t]", "[t]", B1, "float4, stride 1 (LDS.128/STS.128)"),
    ("b42_f4_s2", "float4", "float4 s[512]", "[t]", "[2 * t]", B1, "float4, load stride 2"),
    ("b43_f4_s3", "float4", "float4 s[768]", "[t]", "[3 * t]", B1, "float4, load stride 3 (odd)"),
    ("b44_f4_s8", "float4", "float4 s[2048]", "[t]", "[8 * t]", B1, "float4, load stride 8 (128 B)"),
    ("b45_f4_bcast", "float4", "float4 s[256]", "[t]", "[0]", B1, "float4, all lanes load s[0]"),
    ("b46_f4_quarterdup", "float4", "float4 s[256]", "[t]", "[lane % 8]", B1, "float4, lanes l, l+8, l+16, l+24 load the same element"),
    ("b47_i4_st_s2", "int4", "int4 s[512]", "[2 * t]", "[t]", B1, "int4, STORE stride 2, load stride 1"),
    ("b48_i4_s5", "int4", "int4 s[1280]", "[t]", "[5 * t]", B1, "int4, load stride 5 (odd)"),
    ("b49_f4_s4", "float4", "float4 s[1024]", "[t]", "[4 * t]", B1, "float4, load stride 4 (64 B)"),
    # 2D / 3D blocks
    ("b50_2d32_row_row", "int", "int s[32][32]", "[threadIdx.y][threadIdx.x]", "[threadIdx.y][threadIdx.x]", (32, 32, 1), "32x32 block, int tile, row store, row load"),
    ("b51_2d32_row_col", "int", "int s[32][32]", "[threadIdx.y][threadIdx.x]", "[threadIdx.x][threadIdx.y]", (32, 32, 1), "32x32 block, int tile, row store, column load (32-way)"),
    ("b52_2d32_pad33", "int", "int s[32][33]", "[threadIdx.y][threadIdx.x]", "[threadIdx.x][threadIdx.y]", (32, 32, 1), "32x32 block, int tile padded [32][33], column load"),
    ("b53_2d32_col_row", "int", "int s[32][32]", "[threadIdx.x][threadIdx.y]", "[threadIdx.y][threadIdx.x]", (32, 32, 1), "32x32 block, column STORE (32-way), row load"),
    ("b54_2d16_row_col", "int", "int s[16][16]", "[threadIdx.y][threadIdx.x]", "[threadIdx.x][threadIdx.y]", (16, 16, 1), "16x16 block, column load"),
    ("b55_2d16_pad17", "int", "int s[16][17]", "[threadIdx.y][threadIdx.x]", "[threadIdx.x][threadIdx.y]", (16, 16, 1), "16x16 block, padded [16][17], column load"),
    ("b56_2d8x32_col", "int", "int s[32][8]", "[threadIdx.y][threadIdx.x]", "[threadIdx.y % 8 * 4 + threadIdx.x / 2][threadIdx.x % 2 * 4 + threadIdx.y / 8]", (8, 32, 1), "8x32 block (warp = 4 rows of 8), scrambled column load"),
    ("b57_2d8x32_row", "int", "int s[32][8]", "[threadIdx.y][threadIdx.x]", "[threadIdx.y][threadIdx.x]", (8, 32, 1), "8x32 block, row load"),
    ("b58_2d32x8_row_col", "int", "int s[8][32]", "[threadIdx.y][threadIdx.x]", "[threadIdx.x % 8][threadIdx.y * 4 + threadIdx.x / 8]", (32, 8, 1), "32x8 block, column-ish load (4 rows x 8 cols per warp)"),
    ("b59_3d_linear", "int", "int s[4][4][8]", "[threadIdx.z][threadIdx.y][threadIdx.x]", "[threadIdx.z][threadIdx.y][threadIdx.x]", (8, 4, 4), "8x4x4 block, linear load"),
    ("b60_3d_col", "int", "int s[8][4][4]", "[threadIdx.z][threadIdx.y][threadIdx.x]", "[threadIdx.x][threadIdx.y][threadIdx.z]", (8, 4, 4), "8x4x4 block, transposed 3D load"),
    ("b61_2d32x16_row_col", "int", "int s[16][32]", "[threadIdx.y][threadIdx.x]", "[t % 16][t / 16]", (32, 16, 1), "32x16 block, tile[16][32] read in column order (16-way)"),
    ("b62_2d32x16_pad", "int", "int s[16][33]", "[threadIdx.y][threadIdx.x]", "[t % 16][t / 16]", (32, 16, 1), "32x16 block, tile[16][33] padded, column order"),
    ("b63_2d32_f64_row_col", "double", "double s[32][32]", "[threadIdx.y][threadIdx.x]", "[threadIdx.x][threadIdx.y]", (32, 32, 1), "32x32 block, double tile, column load"),
    ("b64_2d32_f64_pad", "double", "double s[32][33]", "[threadIdx.y][threadIdx.x]", "[threadIdx.x][threadIdx.y]", (32, 32, 1), "32x32 block, double tile [32][33], column load"),
    # partial warps
    ("b65_partial48_s2", "int", "int s[128]", "[t]", "[2 * t]", (48, 1, 1), "48 threads (second warp half full), stride 2"),
    ("b66_partial80_s32", "int", "int s[2560]", "[t]", "[32 * t]", (80, 1, 1), "80 threads (third warp 16 lanes), stride 32"),
    ("b67_partial48_f64_s1", "double", "double s[64]", "[t]", "[t]", (48, 1, 1), "48 threads, double stride 1"),
    ("b68_partial80_f4_s1", "float4", "float4 s[96]", "[t]", "[t]", (80, 1, 1), "80 threads, float4 stride 1"),
    # predication
    ("b69_pred_half_s32", "int", "int s[1024]", "[t]", "[32 * lane]", B1, "only lanes < 16 load, stride 32 (16-way)", "lane < 16"),
    ("b70_pred_even_s1", "int", "int s[256]", "[t]", "[t]", B1, "only even lanes load, stride 1", "(lane & 1) == 0"),
    ("b71_pred_lane0", "int", "int s[256]", "[t]", "[t]", B1, "only lane 0 loads", "lane == 0"),
    ("b72_pred_mod4_s8", "int", "int s[2048]", "[t]", "[8 * t]", B1, "only lanes %4==0 load, stride 8 (8 lanes on bank 0)", "(lane & 3) == 0"),
    ("b73_pred_f4_half", "float4", "float4 s[256]", "[t]", "[t]", B1, "only lanes < 16 load a float4, stride 1", "lane < 16"),
    ("b74_pred_f64_odd_s16", "double", "double s[4096]", "[t]", "[16 * t]", B1, "only odd lanes load a double, stride 16", "(lane & 1) == 1"),
    # XOR swizzles (int)
    ("b75_swz_xor_row_col", "int", "int s[32][32]", "[threadIdx.y][threadIdx.x ^ threadIdx.y]", "[threadIdx.x][threadIdx.y ^ threadIdx.x]", (32, 32, 1), "32x32 int tile, XOR swizzle col^row, column load"),
    ("b76_swz_xor_mod8", "int", "int s[32][32]", "[threadIdx.y][threadIdx.x ^ (threadIdx.y % 8)]", "[threadIdx.x][threadIdx.y ^ (threadIdx.x % 8)]", (32, 32, 1), "32x32 int tile, XOR with row%8 only (partial swizzle, 4-way)"),
    ("b77_swz_xor_shift", "int", "int s[32][32]", "[threadIdx.y][threadIdx.x ^ (threadIdx.y / 4)]", "[threadIdx.x][threadIdx.y ^ (threadIdx.x / 4)]", (32, 32, 1), "32x32 int tile, XOR with row/4 (bad swizzle)"),
    # phase probes: how 64-bit and 128-bit accesses are split / merged
    ("d01_f64_bcast_rt", "double", "double s[256]", "[t]", "[rt]", B1, "double, all lanes load s[rt] with rt==0 at run time (address not in a uniform register)"),
    ("d02_f64_pairs", "double", "double s[256]", "[t]", "[lane / 2]", B1, "double, lanes 2k,2k+1 load s[k] (16 doubles = 128 B, halves on disjoint banks)"),
    ("d03_f64_quads", "double", "double s[256]", "[t]", "[lane / 4]", B1, "double, 4 lanes per element (8 doubles = 64 B)"),
    ("d04_f64_mod8", "double", "double s[256]", "[t]", "[lane % 8]", B1, "double, s[lane%8]: both half-warps read the same 64 B"),
    ("d05_f64_half_bcast", "double", "double s[256]", "[t]", "[lane / 16]", B1, "double, half-warp 0 reads s[0], half-warp 1 reads s[1]"),
    ("d06_f64_half_bcast_samebank", "double", "double s[512]", "[t]", "[(lane / 16) * 16]", B1, "double, half 0 reads s[0], half 1 reads s[16] (same banks, different 128 B lines)"),
    ("d07_f64_halfrev", "double", "double s[256]", "[t]", "[lane < 16 ? lane : 31 - lane]", B1, "double, half 1 reads the same 16 doubles as half 0 in reverse order"),
    ("d08_f64_pairs_in_half", "double", "double s[256]", "[t]", "[(lane % 16) / 2 + 8 * (lane / 16)]", B1, "double, each half-warp reads 8 doubles twice (64 B per half, disjoint banks)"),
    ("d09_f64_pred_odd_s1", "double", "double s[256]", "[t]", "[t]", B1, "double, only odd lanes load, stride 1", "(lane & 1) == 1"),
    ("d10_f64_pred_lo16", "double", "double s[256]", "[t]", "[t]", B1, "double, only lanes < 16 load, stride 1", "lane < 16"),
    ("d11_f64_interleave_halves", "double", "double s[256]", "[t]", "[(lane % 2) * 16 + lane / 2]", B1, "double, even lanes read s[0..15], odd lanes read s[16..31] (each half-warp touches both 128 B lines)"),
    ("e01_f4_bcast_rt", "float4", "float4 s[256]", "[t]", "[rt]", B1, "float4, all lanes load s[rt], rt==0 at run time"),
    ("e02_f4_div8", "float4", "float4 s[256]", "[t]", "[lane / 8]", B1, "float4, each quarter-warp reads one element (4 elements)"),
    ("e03_f4_div4", "float4", "float4 s[256]", "[t]", "[lane / 4]", B1, "float4, 4 lanes per element (8 elements = 128 B)"),
    ("e04_f4_div2", "float4", "float4 s[256]", "[t]", "[lane / 2]", B1, "float4, 2 lanes per element (16 elements = 256 B)"),
    ("e05_f4_div16", "float4", "float4 s[256]", "[t]", "[lane / 16]", B1, "float4, half-warp 0 reads s[0], half 1 reads s[1]"),
    ("e06_f4_mod16", "float4", "float4 s[256]", "[t]", "[lane % 16]", B1, "float4, both half-warps read the same 16 elements (256 B)"),
    ("e07_f4_pred_lo8", "float4", "float4 s[256]", "[t]", "[t]", B1, "float4, only lanes < 8 load, stride 1", "lane < 8"),
    ("e08_f4_pred_mod8", "float4", "float4 s[256]", "[t]", "[lane / 8]", B1, "float4, only lanes 0,8,16,24 load s[lane/8] (one lane per quarter)", "(lane & 7) == 0"),
    ("e09_f4_interleave_quarters", "float4", "float4 s[256]", "[t]", "[(lane % 4) * 8 + lane / 4]", B1, "float4, lane -> s[(lane%4)*8 + lane/4]: each quarter-warp touches all 4 128 B lines"),
    ("e10_f4_s2_pred_lo16", "float4", "float4 s[512]", "[t]", "[2 * t]", B1, "float4 stride 2, only lanes < 16 load", "lane < 16"),
    ("f01_i32_bcast_rt", "int", "int s[256]", "[t]", "[rt]", B1, "int, all lanes load s[rt], rt==0 at run time"),
    ("f02_i32_s2_pred_lo16", "int", "int s[512]", "[t]", "[2 * t]", B1, "int stride 2, only lanes < 16 load", "lane < 16"),
    ("f03_u16_s32_conflict", "short", "short s[8192]", "[t]", "[32 * t]", B1, "short, stride 32 elements = 64 B (16-way)"),

]

DYN = [
    # (name, T, n_bytes_dyn, store_idx, load_idx, block, desc)
    ("b78_dyn_i32_s32", "int", 8192 * 4, "[t]", "[32 * lane + t / 32]", B1, "dynamic smem, int, column of 32-wide rows (32-way)"),
    ("b79_dyn_i32_s33", "int", 8448 * 4, "[t]", "[33 * lane + t / 32]", B1, "dynamic smem, int, column of 33-wide rows (padded)"),
    ("b80_dyn_f4_s1", "float4", 256 * 16, "[t]", "[t]", B1, "dynamic smem, float4 stride 1"),
    ("b81_dyn_f64_s2", "double", 512 * 8, "[t]", "[2 * t]", B1, "dynamic smem, double stride 2"),
]


def simple(name, T, decl, sidx, lidx, block, desc, cond=None):
    nd = 3 if block[2] > 1 else (2 if block[1] > 1 else 1)
    L = [f'extern "C" __global__ void {name}(const int *in, int *out) {{',
         f"  __shared__ __align__(16) {decl};",
         f"  const {T} *gin = (const {T} *)in;",
         f"  {T} *gout = ({T} *)out;",
         f"  unsigned t = {LIN[nd]};",
         *(["  unsigned lane = t % 32;"] if "lane" in (sidx + lidx + (cond or "")) else []),
         *(["  unsigned rt = ((unsigned)in[t]) >> 20;"] if "rt]" in lidx else []),
         f"  s{sidx} = gin[t];",
         "  __syncthreads();"]
    if cond:
        L += [f"  {T} v{{}};", f"  if ({cond})", f"    v = s{lidx};"]
    else:
        L += [f"  {T} v = s{lidx};"]
    L += ["  gout[t] = v;", "}"]
    return L


def dyn(name, T, nbytes, sidx, lidx, block, desc):
    return [f'extern "C" __global__ void {name}(const int *in, int *out) {{',
            f"  extern __shared__ __align__(16) unsigned char dsm_{name}[];",
            f"  {T} *s = ({T} *)dsm_{name};",
            f"  const {T} *gin = (const {T} *)in;",
            f"  {T} *gout = ({T} *)out;",
            "  unsigned t = threadIdx.x;",
            *(["  unsigned lane = t % 32;"] if "lane" in (sidx + lidx) else []),
            f"  s{sidx} = gin[t];",
            "  __syncthreads();",
            f"  {T} v = s{lidx};",
            "  gout[t] = v;", "}"]


HEADER = r'''// ptxlint bank-conflict validation suite (generated by gen_suite.py; edit that, not this).
// Each kernel runs as ONE block (grid 1) of the shape given in the KERNELS table at the
// bottom. Every shared-memory access of interest sits on its own source line, so each SASS
// shared-memory instruction maps to one line of this file (-lineinfo).
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
'''

SPECIAL = open(os.path.join(HERE, "special_kernels.cu.in")).read()

MAIN = r'''
// ---------------------------------------------------------------------------------------
// Host: launch every kernel once, one block each.
typedef void (*kfn)(const int *, int *);
struct KEntry { const char *name; kfn fn; int bx, by, bz; int dyn_smem; const char *desc; };
#define KE(n, bx, by, bz, dyn, desc) {#n, n, bx, by, bz, dyn, desc},
static const KEntry KERNELS[] = {
@TABLE@};
// ---------------------------------------------------------------------------------------
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)
int main(int argc, char **argv) {
  const size_t N = 1 << 20;  // ints
  int *h = (int *)malloc(N * sizeof(int));
  for (size_t i = 0; i < N; ++i) h[i] = (int)(i & 0xffff);  // small values: in[i] >> 20 == 0
  int *in, *out;
  CK(cudaMalloc(&in, N * sizeof(int)));
  CK(cudaMalloc(&out, N * sizeof(int)));
  CK(cudaMemcpy(in, h, N * sizeof(int), cudaMemcpyHostToDevice));
  int n = (int)(sizeof(KERNELS) / sizeof(KERNELS[0]));
  for (int i = 0; i < n; ++i) {
    const KEntry &k = KERNELS[i];
    if (argc > 1 && strcmp(argv[1], "--list") == 0) { printf("%s\t%d,%d,%d\t%d\t%s\n", k.name, k.bx, k.by, k.bz, k.dyn_smem, k.desc); continue; }
    k.fn<<<1, dim3(k.bx, k.by, k.bz), k.dyn_smem>>>(in, out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  printf("ran %d kernels\n", n);
  free(h);
  return 0;
}
'''


def main():
    body, table = [], []
    for spec in SIMPLE:
        body += simple(*spec) + [""]
        name, block, desc = spec[0], spec[5], spec[6]
        table.append((name, block, 0, desc))
    for spec in DYN:
        body += dyn(*spec) + [""]
        table.append((spec[0], spec[5], spec[2], spec[6]))
    body.append(SPECIAL)
    for line in SPECIAL.splitlines():
        if line.startswith("// KE "):  # // KE name bx by bz dyn | desc
            head, desc = line[6:].split("|", 1)
            nm, bx, by, bz, dy = head.split()
            table.append((nm, (int(bx), int(by), int(bz)), int(dy), desc.strip()))
    tab = "".join(f'  KE({n}, {b[0]}, {b[1]}, {b[2]}, {d}, "{ds}")\n' for n, b, d, ds in table)
    src = HEADER.replace("#include <cuda_runtime.h>", "#include <cstring>\n#include <cstdlib>\n#include <cuda_runtime.h>") + "\n" + "\n".join(body) + MAIN.replace("@TABLE@", tab)
    open(os.path.join(HERE, "bank_suite.cu"), "w").write(src)
    print(len(table), "kernels")


if __name__ == "__main__":
    main()
