// Read-only data cache: __ldg and const __restrict__ pointers.

// SAXPY with explicit __ldg loads of x and y (correct).
__global__ void saxpyLdg(int n, float a, const float *__restrict__ x, float *__restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * __ldg(&x[i]) + __ldg(&y[i]);
}

// Gather through an index array; vector __ldg of float4 for the payload (correct).
__global__ void gatherLdg(const int *__restrict__ idx, const float4 *__restrict__ src,
                          float4 *__restrict__ dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = __ldg(idx + i);
        float4 v = __ldg(src + j);
        v.x *= 2.0f; v.y *= 2.0f; v.z *= 2.0f; v.w *= 2.0f;
        dst[i] = v;
    }
}

// const __restrict__ lets the compiler pick ld.global.nc without an intrinsic (correct).
__global__ void scaleRestrict(const double *__restrict__ in, double *__restrict__ out, double s, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = in[i] * s;
}
