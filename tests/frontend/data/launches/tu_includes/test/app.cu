// The translation unit: no device code of its own, so nvcc's .file directives do not name it.
#include "lib.h"

int main() {
  unsigned *root;
  cudaMalloc(&root, sizeof(unsigned));
  tree::init(root);
  return 0;
}
