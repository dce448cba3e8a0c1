"""Writes the host program that launches every kernel of the recall suite (stdout), for the
racecheck run on the device (run_device.sh). The program is generated, never committed, so the
suite's directory holds no launch for ptxlint's launch discovery to find.

usage: python3 make_driver.py > driver.cu; nvcc -arch=sm_90 -lineinfo driver.cu -o app; ./app NAME
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = ["shared.cu", "global.cu", "warp.cu"]
BLOCK_1D, GRID_1D = "dim3(256)", "dim3(4)"
BLOCK_2D, GRID_2D = "dim3(16, 16)", "dim3(4, 2)"
INTS = {"n": "1000", "tiles": "3", "steps": "3", "m": "4", "width": "256"}
_DEF = re.compile(r"__global__ void ((?:bad|ok)_\w+)\(([^)]*)\)\s*\{")
_INST = re.compile(r"template __global__ void ((?:bad|ok)_\w+)(<[^>]*>)\(")


def kernels():
    """(name, launch name, parameter list, 2-D?) of every kernel, in file order."""
    out = []
    for source in SOURCES:
        text = (HERE / source).read_text()
        instances = dict(_INST.findall(text))
        for m in _DEF.finditer(text):
            name, params = m.group(1), m.group(2)
            end = text.find("\n}\n", m.end())
            body = text[m.end():end]
            two_d = "threadIdx.y" in body
            out.append((name, name + instances.get(name, ""), [p.strip() for p in params.split(",")], two_d))
    return out


def main() -> None:
    w = sys.stdout.write
    w("#include <cstdio>\n#include <cstring>\n#include <cuda_runtime.h>\n")
    for source in SOURCES:
        w(f'#include "{source}"\n')
    w("static float *F() { float *p; cudaMalloc(&p, 1 << 24); static float h[1 << 22];\n"
      "  for (int i = 0; i < (1 << 22); i++) h[i] = (i % 3 == 0) ? 1.0f : -1.0f;\n"
      "  cudaMemcpy(p, h, 1 << 24, cudaMemcpyHostToDevice); return p; }\n"
      "static int *I() { int *p; cudaMalloc(&p, 1 << 24); cudaMemset(p, 0, 1 << 24); return p; }\n"
      "int main(int argc, char **argv) {\n  const char *k = argc > 1 ? argv[1] : \"\";\n")
    for name, launch, params, two_d in kernels():
        args = []
        for p in params:
            pname = p.split()[-1].lstrip("*")
            if "*" in p:
                args.append("I()" if "int" in p else "F()")  # V * of the float instance is a float *
            else:
                args.append(INTS[pname])
        grid, block = (GRID_2D, BLOCK_2D) if two_d else (GRID_1D, BLOCK_1D)
        w(f'  if (!strcmp(k, "{name}") || !strcmp(k, "list")) {{ if (!strcmp(k, "list")) '
          f'printf("{name} {grid} {block}\\n"); else {launch}<<<{grid}, {block}>>>({", ".join(args)}); }}\n')
    w("  cudaError_t e = cudaDeviceSynchronize();\n  if (e != cudaSuccess) { printf(\"error %s\\n\", "
      "cudaGetErrorString(e)); return 1; }\n  return 0;\n}\n")


if __name__ == "__main__":
    main()
