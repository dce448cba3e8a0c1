// Host launcher for tests/rules/data/barrier_callee.cu: runs one kernel (named on the command line)
// as one block of 128 threads, so compute-sanitizer can check it on its own.
//   nvcc -arch=sm_90 -lineinfo -o app launch_callee.cu && compute-sanitizer --tool synccheck ./app NAME
#include <cstdio>
#include <cstring>
#include "../../../tests/rules/data/barrier_callee.cu"

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("bad_barrier_in_callee_under_divergence\nok_barrier_in_callee_uniform\n"
               "bad_nested_callee_barrier_after_return\n");
        return 0;
    }
    float *in, *out;
    cudaMalloc(&in, 256 * sizeof(float));
    cudaMalloc(&out, 256 * sizeof(float));
    cudaMemset(in, 0, 256 * sizeof(float));
    if (!strcmp(argv[1], "bad_barrier_in_callee_under_divergence"))
        bad_barrier_in_callee_under_divergence<<<1, 128>>>(in, out);
    else if (!strcmp(argv[1], "ok_barrier_in_callee_uniform"))
        ok_barrier_in_callee_uniform<<<1, 128>>>(in, out);
    else if (!strcmp(argv[1], "bad_nested_callee_barrier_after_return"))
        bad_nested_callee_barrier_after_return<<<1, 128>>>(in, out, 100);  // threads 100..127 return
    else
        return 2;
    cudaError_t err = cudaDeviceSynchronize();
    printf("%s: %s\n", argv[1], cudaGetErrorString(err));
    return err != cudaSuccess;
}
