// `__threadfence(); atomicAnd(&lock, ~1u)` is a release (a device-wide fence, then a relaxed atomic
// that sets a state word): it publishes what its thread wrote before the fence, and is no data of
// a later publication. A B-tree writer that releases one node's lock that way and then stamps the
// next node's version with atomicCAS leaves nothing unfenced before the stamp, although the block
// whose stamp succeeds reads lock words. Without the fence before the release, the node's data and
// its lock word reach the stamp unfenced.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 fence_release_idiom.cu

extern "C" __global__ void ok_release_then_stamp(unsigned *locks, unsigned *versions, int *data, const int *path,
                                                 int steps) {
  int node = path[blockIdx.x * steps];
  while (atomicOr(&locks[node], 1u) & 1u) {}
  __threadfence();
  for (int s = 1; s < steps; ++s) {
    data[node] += 1;
    int next = path[blockIdx.x * steps + s];
    __threadfence();
    atomicAnd(&locks[node], ~1u);
    unsigned old = atomicCAS(&versions[next], 0u, (unsigned)s);
    if (old == 0u) {
      __threadfence();
      data[blockIdx.x + 4096] = data[next] + (int)(locks[next] & 1u);
    }
    while (atomicOr(&locks[next], 1u) & 1u) {}
    __threadfence();
    node = next;
  }
  __threadfence();
  atomicAnd(&locks[node], ~1u);
}

extern "C" __global__ void bad_release_without_fence(unsigned *locks, unsigned *versions, int *data,
                                                     const int *path, int steps) {
  int node = path[blockIdx.x * steps];
  while (atomicOr(&locks[node], 1u) & 1u) {}
  __threadfence();
  for (int s = 1; s < steps; ++s) {
    data[node] += 1;
    int next = path[blockIdx.x * steps + s];
    atomicAnd(&locks[node], ~1u);
    unsigned old = atomicCAS(&versions[next], 0u, (unsigned)s);  // EXPECT FENCE001
    if (old == 0u) {
      __threadfence();
      data[blockIdx.x + 4096] = data[next] + (int)(locks[next] & 1u);
    }
    while (atomicOr(&locks[next], 1u) & 1u) {}
    __threadfence();
    node = next;
  }
  __threadfence();
  atomicAnd(&locks[node], ~1u);
}

int main() {
  unsigned *l;
  int *d;
  cudaMalloc(&l, 1 << 20);
  cudaMalloc(&d, 1 << 20);
  ok_release_then_stamp<<<64, 1>>>(l, l + 8192, d, d + 8192, 8);
  bad_release_without_fence<<<64, 1>>>(l, l + 8192, d, d + 8192, 8);
  return 0;
}
