// Thread-block clusters (sm_90): distributed shared memory across the 2 blocks of a cluster.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define BINS 64

// ptxlint-block: 256x1
// Each block builds a partial histogram, cluster.sync(), block rank 0 adds its peer's bins via
// map_shared_rank, and a final cluster.sync() keeps the peer's shared memory alive (correct).
__global__ void __cluster_dims__(2, 1, 1) clusterHistogram(const int *data, int *hist, int n)
{
    __shared__ int bins[BINS];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        bins[b] = 0;
    cluster.sync();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i] & (BINS - 1)], 1);
    cluster.sync();
    if (rank == 0) {
        int *peer = cluster.map_shared_rank(bins, 1);
        for (int b = threadIdx.x; b < BINS; b += blockDim.x)
            atomicAdd(&hist[b], bins[b] + peer[b]);
    }
    cluster.sync();
}

// ptxlint-block: 128x1
// Ring exchange: every block reads the word its left neighbour in the cluster wrote, with the
// cluster size chosen at launch (cudaLaunchKernelEx); cluster.sync() on both sides (correct).
__global__ void clusterRing(const float *in, float *out)
{
    __shared__ float slot[128];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    unsigned int left = (rank + cluster.num_blocks() - 1) % cluster.num_blocks();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    slot[threadIdx.x] = in[i];
    cluster.sync();
    float *remote = cluster.map_shared_rank(slot, left);
    out[i] = remote[threadIdx.x];
    cluster.sync();
}
