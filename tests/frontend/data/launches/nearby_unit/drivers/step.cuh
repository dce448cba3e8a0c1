#pragma once
#include "../common/config.h"
#include "../kernels/relax_kernels.cuh"
#ifndef hipLaunchKernelGGL
#define hipLaunchKernelGGL(F, G, B, M, S, ...) F<<<G, B, M, S>>>(__VA_ARGS__)
#endif
void step(float *x, int n);
