// ldmatrix + mma.sync (inline PTX): one warp computes C(16x8) = A(16x64) * B(64x8) in fp16/fp32.
// A is staged as sA[16][LDS] (row-major), B as sB[8][LDS] (n-major, k contiguous).
// LDS = 64 halves (128-byte rows): the 8 row addresses of each 8x8 ldmatrix all start in bank 0
// -> 8-way (32 wavefronts vs 4 for .x4) (buggy: slow). LDS = 72 (144-byte rows) -> conflict-free (correct).
#include <cuda_fp16.h>
#include <cstdint>

// ptxlint-block: 32x1
template <int LDS>
__global__ void mmaTile(const uint4 *A, const uint4 *B, float *C)
{
    __shared__ __align__(16) half sA[16][LDS];
    __shared__ __align__(16) half sB[8][LDS];
    int lane = threadIdx.x;
    // 16-byte chunk c covers row c/8, halves (c%8)*8..+7: each 8-lane phase writes one 128-byte row.
    for (int c = lane; c < 16 * 8; c += 32)
        *reinterpret_cast<uint4 *>(&sA[c / 8][(c % 8) * 8]) = A[c];
    for (int c = lane; c < 8 * 8; c += 32)
        *reinterpret_cast<uint4 *>(&sB[c / 8][(c % 8) * 8]) = B[c];
    __syncwarp();

    float acc[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        uint32_t a[4], b[2];
        uint32_t pa = (uint32_t)__cvta_generic_to_shared(&sA[lane % 16][kk * 16 + (lane / 16) * 8]);
        uint32_t pb = (uint32_t)__cvta_generic_to_shared(&sB[lane % 8][kk * 16 + ((lane / 8) % 2) * 8]);
        // (each asm statement on one line so that its .loc line is unambiguous)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa)); // EXPECT(BANK001@mmaTile<64>): ldmatrix.x4 rows 128 B apart: 8-way
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(pb)); // EXPECT(BANK001@mmaTile<64>): ldmatrix.x2 rows 128 B apart: 8-way
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    int row = lane / 4, col = (lane % 4) * 2;
    C[row * 8 + col] = acc[0];
    C[row * 8 + col + 1] = acc[1];
    C[(row + 8) * 8 + col] = acc[2];
    C[(row + 8) * 8 + col + 1] = acc[3];
}

template __global__ void mmaTile<64>(const uint4 *, const uint4 *, float *);
template __global__ void mmaTile<72>(const uint4 *, const uint4 *, float *);
