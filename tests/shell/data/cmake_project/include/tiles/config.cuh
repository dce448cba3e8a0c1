// A project header: found only through the build's -I, needs the build's -DTILE_DIM and C++17.
#pragma once
#ifndef TILE_DIM
#error "TILE_DIM is set by the build (-DTILE_DIM=...)"
#endif
#if __cplusplus < 201703L
#error "the project is built with -std=c++17"
#endif

inline constexpr int kTile = TILE_DIM;  // an inline variable: C++17

// Reads a tile column-wise: lanes of a warp hit one bank unless the row is padded.
__device__ inline float column_of(const float (*tile)[TILE_DIM], int row, int col) {
    return tile[col][row];
}
