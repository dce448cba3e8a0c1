// Indirect calls: a function pointer, a virtual call and device-side new.
#include <cstdio>

typedef float (*unary_fn)(float);

__device__ float twice(float x) { return 2.0f * x; }
__device__ float square(float x) { return x * x; }
__device__ unary_fn table[2] = {twice, square};

__device__ __noinline__ void wait_for_block() { __syncthreads(); }
typedef void (*wait_fn)();
__device__ wait_fn waiter = wait_for_block;

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float s;
    __device__ Square(float s) : s(s) {}
    __device__ float area() const override { return s * s; }
};
struct Circle : Shape {
    float r;
    __device__ Circle(float r) : r(r) {}
    __device__ float area() const override { return 3.14159f * r * r; }
};

__global__ void apply_pointer(float *out, const float *in, int which) {
    __shared__ float tile[256];
    tile[threadIdx.x] = table[which & 1](in[threadIdx.x]);
    __syncthreads();
    out[threadIdx.x] = tile[255 - threadIdx.x];
}

// the barrier is behind a function pointer: ptxlint cannot know it is one
__global__ void barrier_through_pointer(float *out) {
    __shared__ float tile[256];
    tile[threadIdx.x] = threadIdx.x;
    waiter();
    out[threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void virtual_area(float *out, const float *in) {
    Shape *shape;
    if (threadIdx.x & 1)
        shape = new Square(in[threadIdx.x]);
    else
        shape = new Circle(in[threadIdx.x]);
    out[threadIdx.x] = shape->area();
    delete shape;
}
