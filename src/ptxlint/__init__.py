"""ptxlint: a static analyzer for CUDA kernels at the PTX level."""

__version__ = "0.1.0"
