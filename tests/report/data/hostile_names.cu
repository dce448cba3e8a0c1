// A kernel whose demangled name and source line hold HTML: the report must show them as text.
struct script {};

template <typename T>
__global__ void kern(float *out) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y]; // </pre><script>alert(1)</script>
}

template __global__ void kern<script>(float *);
