// The library's one header (the build passes -I src): the kernels, then the host code that launches them.
#pragma once
#include "detail/kernels.cuh"
#include "detail/host.cu"
