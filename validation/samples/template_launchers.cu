// Host-side launchers for the templated sample kernels. In whole-program mode (no -rdc) nvcc
// makes the host stubs of __global__ template instantiations static to their translation unit,
// so the launcher in launch_samples.cu cannot call them. Each sample file is #included here as
// one translation unit of its own (same device code, same flags; #include keeps the .cu file
// name and line numbers in the line info), with a plain host function that launches it.
#include "../../samples/ldmatrix_mma.cu"

void launch_mmaTile64(dim3 g, dim3 b, size_t dyn, const uint4 *A, const uint4 *B, float *C)
{
    mmaTile<64><<<g, b, dyn>>>(A, B, C);
}
void launch_mmaTile72(dim3 g, dim3 b, size_t dyn, const uint4 *A, const uint4 *B, float *C)
{
    mmaTile<72><<<g, b, dyn>>>(A, B, C);
}
