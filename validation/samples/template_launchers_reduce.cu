// See template_launchers.cu: host launchers for reduce_warp_tail.cu's template kernels.
#include "../../samples/reduce_warp_tail.cu"

void launch_reduceUnrollWarp256(dim3 g, dim3 b, size_t dyn, const float *in, float *out, unsigned int n)
{
    reduceUnrollWarp<256><<<g, b, dyn>>>(in, out, n);
}
void launch_reduceSyncwarp256(dim3 g, dim3 b, size_t dyn, const float *in, float *out, unsigned int n)
{
    reduceSyncwarp<256><<<g, b, dyn>>>(in, out, n);
}
