// The block shape of the stencil, used by main.cu and (through main.cu) by stencil.cuh.
#pragma once
constexpr int BX = 16;
constexpr int BY = 8;
