// __constant__ lookup tables indexed per thread: constant memory serialises distinct addresses.

__constant__ float c_table[256];
__constant__ int c_offsets[32];

// Table lookup keyed by data: each lane may read a different c_table entry (buggy: serialised).
__global__ void applyLut(const unsigned char *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = c_table[in[i]]; // EXPECT(CONST001): c_table indexed by loaded data: non-uniform
}

// Table indexed by lane id: 32 distinct constant addresses per warp (buggy: serialised).
__global__ void laneOffsets(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + c_offsets[threadIdx.x % 32]; // EXPECT(CONST001): c_offsets indexed by lane id: non-uniform
}

// Index depends only on blockIdx: every lane of the warp reads the same word (correct).
__global__ void blockScale(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float scale = c_table[blockIdx.x & 255];
    if (i < n)
        out[i] = in[i] * scale;
}
