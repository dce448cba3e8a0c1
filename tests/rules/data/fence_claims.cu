// Hand-off semantics (issue 17): an atomic whose value only decides whether a thread pushes an item to a
// worklist (a claim, `atomicMax(&time[v], iter) != iter`) is observed, but the reads that follow it in
// later iterations run whatever the value was: they do not wait for what the claim published, so no
// FENCE finding. The bad_ twins read the data under the value's test (a last-finisher ticket), which
// is a consumer: FENCE001 on the unfenced producer, FENCE002 on the unfenced read.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 fence_claims.cu -o fence_claims.sm_90.ptx

#include <cuda_runtime.h>

// relax the edges of one vertex per block; claim each improved neighbour once per round
extern "C" __global__ void ok_claim_then_push(const int *nindex, const int *nlist, int *dist, const int *wl1,
                                              int wl1size, int *wl2, int *wl2size, int iter, int *stamp) {
  int idx = blockIdx.x;
  if (idx < wl1size) {
    int src = wl1[idx];
    int s = *(volatile int *)&dist[src];
    for (int i = nindex[src] + threadIdx.x; i < nindex[src + 1]; i += blockDim.x) {
      int dst = nlist[i];
      int d = *(volatile int *)&dist[dst];
      if (d > s + 1) {
        *(volatile int *)&dist[dst] = s + 1;
        if (atomicMax(&stamp[dst], iter) != iter)
          wl2[atomicAdd(wl2size, 1)] = dst;
      }
    }
  }
}

// the same claim, but the thread that sees the last stamp sums neighbours' distances under its test
extern "C" __global__ void bad_claim_then_read_under_test(const int *nindex, const int *nlist, int *dist,
                                                          const int *wl1, int wl1size, int *total,
                                                          unsigned *done) {
  int idx = blockIdx.x;
  if (idx < wl1size) {
    int src = wl1[idx];
    for (int i = nindex[src] + threadIdx.x; i < nindex[src + 1]; i += blockDim.x)
      dist[nlist[i]] = dist[src] + 1;
    if (atomicAdd(done, 1u) == gridDim.x * blockDim.x - 1) {  // EXPECT FENCE001
      int sum = 0;
      for (int v = 0; v < wl1size; ++v) sum += dist[v];  // EXPECT FENCE002
      *total = sum;
    }
  }
}

// take a node's pending count and add it to the node's own total: only the thread holding the node
// touches totals[node] (owner-only data), so the exchange hands nothing over (with float residuals
// the exchange carries a number, not a signal: fence_number_atomics.cu)
extern "C" __global__ void ok_owner_adds_its_residual(int *pending, int *totals, const int *wl, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int node = wl[i];
    int res = atomicExch(&pending[node], 0);
    if (res > 0)
      totals[node] += res;
  }
}

// the same, but the total of the next item's node is read too: another thread's data, under the test
extern "C" __global__ void bad_owner_reads_a_neighbours_rank(int *pending, int *totals, const int *wl, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int node = wl[i];
    int res = atomicExch(&pending[node], 0);  // EXPECT FENCE001
    if (res > 0)
      totals[node] += res + totals[wl[(i + 1) % n]];  // EXPECT FENCE002
  }
}

// the last finisher reads the read-only half of the buffer through the read-only path (`__ldg`:
// ld.global.nc), which the kernel must never write: nothing published is read after the ticket
extern "C" __global__ void ok_last_reads_read_only_half(float *buf, unsigned *done, float *out, int n) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  buf[g] = 0.5f * g;
  if (atomicAdd(done, 1u) == gridDim.x * blockDim.x - 1)
    *out = __ldg(&buf[n]) + __ldg(&buf[n + g]);
}

// the same, but the last finisher reads what other threads wrote, through a plain load, unfenced
extern "C" __global__ void bad_last_reads_written_half(float *buf, unsigned *done, float *out, int n) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  buf[g] = 0.5f * g;
  if (atomicAdd(done, 1u) == gridDim.x * blockDim.x - 1)  // EXPECT FENCE001
    *out = __ldg(&buf[n]) + buf[0];  // EXPECT FENCE002
}

int main() {
  int *p = nullptr;
  unsigned *u = nullptr;
  ok_claim_then_push<<<128, 256>>>(p, p, p, p, 128, p, p, 1, p);
  bad_claim_then_read_under_test<<<128, 256>>>(p, p, p, p, 128, p, u);
  float *f = nullptr;
  ok_owner_adds_its_residual<<<128, 256>>>(p, p, p, 4096);
  bad_owner_reads_a_neighbours_rank<<<128, 256>>>(p, p, p, 4096);
  ok_last_reads_read_only_half<<<128, 256>>>(f, u, f, 1 << 16);
  bad_last_reads_written_half<<<128, 256>>>(f, u, f, 1 << 16);
  cudaDeviceSynchronize();
  return 0;
}
