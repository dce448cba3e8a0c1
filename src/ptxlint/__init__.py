"""ptxlint: a static analyzer for CUDA kernels at the PTX level."""

__version__ = "0.2.0"
