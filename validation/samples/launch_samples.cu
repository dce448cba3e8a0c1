// Launches every shared-memory kernel of samples/*.cu once, with its intended block shape
// (`// ptxlint-block: WxH` / samples/EXPECTED.json), so that Nsight Compute can count
// shared-memory wavefronts per SASS instruction. The kernels are NOT included here: each sample
// .cu is compiled as its own translation unit with exactly the flags its committed PTX was made
// with (`nvcc -arch=sm_90 -lineinfo`, whole-program, no -rdc), so the SASS is that of
// samples/<name>.sm_90.ptx and its line info points at the sample files' own lines:
//
//   nvcc -arch=sm_90 -lineinfo -o app validation/samples/launch_samples.cu \
//        validation/samples/template_launchers.cu validation/samples/template_launchers_reduce.cu \
//        samples/<each non-template sample>.cu
//
// usage: ./app            every kernel except the ones in the "risky" set
//        ./app --risky    only halfBarrier (a __syncthreads under threadIdx.x < 16)
//        ./app --list     print "name<TAB>grid<TAB>block<TAB>dynamic smem" per launch
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cuda_runtime.h>

// ---- declarations (definitions live in samples/*.cu) ----
__global__ void tiledSum(const float *a, float *out, int n);                    // barriers.cu
__global__ void halfBarrier(int *data);
__global__ void earlyExitBarrier(const float *in, float *out, int n);
__global__ void __cluster_dims__(2, 1, 1) clusterHistogram(const int *data, int *hist, int n); // cluster_dsmem.cu
__global__ void clusterRing(const float *in, float *out);
__global__ void pipelinedSum(const float4 *in, float *out, int tiles);          // cp_async_pipeline.cu
__global__ void copyZfill(const float *in, float *out, int n);
__global__ void sumLastBlock(const float *in, volatile float *partial, float *result, int n); // fence_last_block.cu
__global__ void sumLastBlockNoFence(const float *in, volatile float *partial, float *result, int n);
__global__ void histogramShared(const unsigned char *data, unsigned int *hist, int n); // histogram_atomics.cu
// ldmatrix_mma.cu, reduce_warp_tail.cu: templates, launched through template_launchers*.cu
void launch_mmaTile64(dim3 g, dim3 b, size_t dyn, const uint4 *A, const uint4 *B, float *C);
void launch_mmaTile72(dim3 g, dim3 b, size_t dyn, const uint4 *A, const uint4 *B, float *C);
void launch_reduceUnrollWarp256(dim3 g, dim3 b, size_t dyn, const float *in, float *out, unsigned int n);
void launch_reduceSyncwarp256(dim3 g, dim3 b, size_t dyn, const float *in, float *out, unsigned int n);
__global__ void barrierCopy(const float *in, float *out);                       // mbarrier.cu
__global__ void rawMbarrier(const int *in, int *out);
__global__ void reduceInterleaved(const int *in, int *out, unsigned int n);     // reduce_smem.cu
__global__ void reduceSequential(const int *in, int *out, unsigned int n);
__global__ void setRowReadColDyn(int *out);                                     // smem_dynamic.cu
__global__ void setRowReadColDynPad(int *out);
__global__ void reverseDyn(float *data, int n);
__global__ void setRowReadColPad(int *out);                                     // smem_padding.cu
__global__ void setColReadColPad(int *out);
__global__ void setRowReadColPad2(int *out);
__global__ void shiftNoSync(const int *in, int *out);                           // smem_race.cu
__global__ void shiftSync(const int *in, int *out, int iters);
__global__ void setRowReadColRect(int *out);                                    // smem_rect.cu
__global__ void setRowReadColRectPad(int *out);
__global__ void setRowReadRow(int *out);                                        // smem_row_col.cu
__global__ void setRowReadCol(int *out);
__global__ void setColReadCol(int *out);
__global__ void setRowReadColDouble(double *out);
__global__ void stencil1d(const float *in, float *out, int n);                  // stencil_const.cu
__global__ void transposeSmem(float *odata, const float *idata, int width, int height); // transpose.cu
__global__ void transposeSmemPad(float *odata, const float *idata, int width, int height);

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static bool g_list = false;
static void after(const char *name, dim3 g, dim3 b, size_t dyn)
{
    if (g_list) { printf("%s\t%u,%u,%u\t%u,%u,%u\t%zu\n", name, g.x, g.y, g.z, b.x, b.y, b.z, dyn); return; }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("ok %s grid(%u,%u,%u) block(%u,%u,%u) dyn %zu\n", name, g.x, g.y, g.z, b.x, b.y, b.z, dyn);
}
#define LAUNCH(name, kernel, g, b, dyn, ...) do { \
    if (!g_list) kernel<<<(g), (b), (dyn)>>>(__VA_ARGS__); after(name, (g), (b), (dyn)); } while (0)
#define LAUNCH_FN(name, fn, g, b, dyn, ...) do { \
    if (!g_list) fn((g), (b), (dyn), __VA_ARGS__); after(name, (g), (b), (dyn)); } while (0)

int main(int argc, char **argv)
{
    bool risky = argc > 1 && !strcmp(argv[1], "--risky");
    g_list = argc > 1 && !strcmp(argv[1], "--list");
    const size_t BYTES = 1 << 20;  // every buffer: 1 MiB, far more than any launch touches
    void *b0, *b1, *b2, *b3;
    if (!g_list) {
        CK(cudaMalloc(&b0, BYTES)); CK(cudaMalloc(&b1, BYTES)); CK(cudaMalloc(&b2, BYTES)); CK(cudaMalloc(&b3, BYTES));
        // inputs: b0 holds the 32-bit words 0,1,2,... (as int) -- histogram bytes are then i%256
        // after the byte view below; b1 holds small floats; b2, b3 are outputs (zeroed)
        int *h = (int *)malloc(BYTES);
        for (size_t i = 0; i < BYTES / 4; i++) h[i] = (int)i;
        CK(cudaMemcpy(b0, h, BYTES, cudaMemcpyHostToDevice));
        float *f = (float *)h;
        for (size_t i = 0; i < BYTES / 4; i++) f[i] = (float)(i % 7);
        CK(cudaMemcpy(b1, f, BYTES, cudaMemcpyHostToDevice));
        unsigned char *c = (unsigned char *)h;
        for (size_t i = 0; i < BYTES; i++) c[i] = (unsigned char)(i % 256);
        CK(cudaMemcpy(b3, c, BYTES, cudaMemcpyHostToDevice));  // b3 first used as byte input
        free(h);
        CK(cudaMemset(b2, 0, BYTES));
    }
    int *i0 = (int *)b0, *i2 = (int *)b2;
    float *f1 = (float *)b1, *f2 = (float *)b2;
    const dim3 one(1), b256(256), b128(128), b32(32), b32x32(32, 32), b32x16(32, 16), b32x8(32, 8);

    if (risky) {
        // barrier reached by lanes 0..15 of warp 0 only; every other thread has exited
        LAUNCH("halfBarrier", halfBarrier, one, b256, 0, i2);
        return 0;
    }
    // barriers.cu: n = 256 -> one trip of the tile loop, every k < n
    LAUNCH("tiledSum", tiledSum, one, b256, 0, f1, f2, 256);
    LAUNCH("earlyExitBarrier", earlyExitBarrier, one, b256, 0, f1, f2, 256);
    // cluster_dsmem.cu: a cluster of 2 blocks (compile-time for clusterHistogram); n = 512 ->
    // one trip of the grid-stride loop per thread
    LAUNCH("clusterHistogram", clusterHistogram, dim3(2), b256, 0, i0, i2, 512);
    if (g_list) printf("clusterRing\t2,1,1\t128,1,1\t0\n");
    else {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(2); cfg.blockDim = b128; cfg.dynamicSmemBytes = 0;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = 2; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr; cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, clusterRing, (const float *)f1, f2));
        after("clusterRing", dim3(2), b128, 0);
    }
    // cp_async_pipeline.cu: tiles = 1 -> one trip of the tile loop (ptxlint follows one block)
    LAUNCH("pipelinedSum", pipelinedSum, one, b256, 0, (const float4 *)f1, f2, 1);
    LAUNCH("copyZfill", copyZfill, one, b128, 0, f1, f2, 128);
    // fence_last_block.cu: one block -> it is the last block and runs the second blockSum too
    LAUNCH("sumLastBlock", sumLastBlock, one, b256, 0, f1, (volatile float *)(f2 + 1024), f2, 256);
    LAUNCH("sumLastBlockNoFence", sumLastBlockNoFence, one, b256, 0, f1, (volatile float *)(f2 + 1024), f2, 256);
    // histogram_atomics.cu: n = 256 bytes 0..255 -> one trip per thread, lane l adds to bin 32w+l
    LAUNCH("histogramShared", histogramShared, one, b256, 0, (const unsigned char *)b3, (unsigned int *)(i2 + 4096), 256);
    // ldmatrix_mma.cu
    LAUNCH_FN("mmaTile<64>", launch_mmaTile64, one, b32, 0, (const uint4 *)f1, (const uint4 *)f1, f2);
    LAUNCH_FN("mmaTile<72>", launch_mmaTile72, one, b32, 0, (const uint4 *)f1, (const uint4 *)f1, f2);
    // mbarrier.cu
    LAUNCH("barrierCopy", barrierCopy, one, b256, 0, f1, f2);
    LAUNCH("rawMbarrier", rawMbarrier, one, b256, 0, i0, i2);
    // reduce_smem.cu: n = 256, every i < n
    LAUNCH("reduceInterleaved", reduceInterleaved, one, b256, 0, i0, i2, 256u);
    LAUNCH("reduceSequential", reduceSequential, one, b256, 0, i0, i2, 256u);
    // reduce_warp_tail.cu: n = 512 = 2 * blockSize, both loads taken
    LAUNCH_FN("reduceUnrollWarp<256>", launch_reduceUnrollWarp256, one, b256, 0, f1, f2, 512u);
    LAUNCH_FN("reduceSyncwarp<256>", launch_reduceSyncwarp256, one, b256, 0, f1, f2, 512u);
    // smem_dynamic.cu: dynamic shared memory sized as in the sample's comment
    LAUNCH("setRowReadColDyn", setRowReadColDyn, one, b32x32, 32 * 32 * sizeof(int), i2);
    LAUNCH("setRowReadColDynPad", setRowReadColDynPad, one, b32x32, 32 * 33 * sizeof(int), i2);
    LAUNCH("reverseDyn", reverseDyn, one, b256, 256 * sizeof(float), f2, 256);
    // smem_padding.cu
    LAUNCH("setRowReadColPad", setRowReadColPad, one, b32x32, 0, i2);
    LAUNCH("setColReadColPad", setColReadColPad, one, b32x32, 0, i2);
    LAUNCH("setRowReadColPad2", setRowReadColPad2, one, b32x32, 0, i2);
    // smem_race.cu: iters = 1 -> one trip of the exchange loop
    LAUNCH("shiftNoSync", shiftNoSync, one, b256, 0, i0, i2);
    LAUNCH("shiftSync", shiftSync, one, b256, 0, i0, i2, 1);
    // smem_rect.cu
    LAUNCH("setRowReadColRect", setRowReadColRect, one, b32x16, 0, i2);
    LAUNCH("setRowReadColRectPad", setRowReadColRectPad, one, b32x16, 0, i2);
    // smem_row_col.cu
    LAUNCH("setRowReadRow", setRowReadRow, one, b32x32, 0, i2);
    LAUNCH("setRowReadCol", setRowReadCol, one, b32x32, 0, i2);
    LAUNCH("setColReadCol", setColReadCol, one, b32x32, 0, i2);
    LAUNCH("setRowReadColDouble", setRowReadColDouble, one, b32x32, 0, (double *)b2);
    // stencil_const.cu: n = 256, one block; halo lanes read in[g-4] only when g >= 4
    LAUNCH("stencil1d", stencil1d, one, b256, 0, f1 + 8, f2, 256);
    // transpose.cu: one 32x32 tile, width = height = 32
    LAUNCH("transposeSmem", transposeSmem, one, b32x8, 0, f2, f1, 32, 32);
    LAUNCH("transposeSmemPad", transposeSmemPad, one, b32x8, 0, f2, f1, 32, 32);
    if (!g_list) printf("all launches done\n");
    return 0;
}
