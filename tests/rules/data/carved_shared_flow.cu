// What an atomic's value is for, followed through shared memory word by word: kernels carve one
// `extern __shared__` array into a counter, a queue, a reservation and a base. The reservation
// (`*shift = atomicAdd(tail, count)`, a slot) and the work-queue base (`*base = atomicAdd(head,
// blockDim.x)`, which bounds the loop) live in different words, so the reservation does not decide
// the loop: no hand-off. A last-block ticket stored in one word of such an array and tested from
// that word is still a ticket, and the partial sums it hands over are not fenced.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 carved_shared_flow.cu
#define BLOCK 256

extern "C" __global__ void ok_reservation_and_queue_base_in_one_array(const int *q1, int *q2, int *head, int *tail,
                                                                      int *overflow, int n) {
  extern __shared__ int l_mem[];
  int *count = l_mem;
  int *items = l_mem + 1;
  int *shift = items + BLOCK;
  int *base = shift + 1;
  if (threadIdx.x == 0) {
    *count = 0;
    *base = atomicAdd(head, BLOCK);
  }
  __syncthreads();
  int my_base = *base;
  while (my_base < n) {
    if (my_base + threadIdx.x < n && *overflow == 0) {
      int v = q1[my_base + threadIdx.x];
      if (v > 0) {
        int k = atomicAdd(count, 1);
        if (k < BLOCK)
          items[k] = v;
        else
          *overflow = 1;
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      *shift = atomicAdd(tail, min(*count, BLOCK));
      *base = atomicAdd(head, BLOCK);
    }
    __syncthreads();
    if (*count != 0)
      for (int i = threadIdx.x; i < min(*count, BLOCK); i += BLOCK)
        q2[*shift + i] = items[i];
    __syncthreads();
    if (threadIdx.x == 0)
      *count = 0;
    my_base = *base;
    __syncthreads();
  }
}

extern "C" __global__ void bad_ticket_in_one_word_of_an_array(const float *in, float *partial, unsigned *done,
                                                            float *total) {
  extern __shared__ float words[];
  unsigned *ticket = (unsigned *)&words[1];
  if (threadIdx.x == 0) {
    words[0] = in[blockIdx.x];
    partial[blockIdx.x] = words[0] * 2.f;
    *ticket = atomicAdd(done, 1u);  // EXPECT FENCE001
  }
  __syncthreads();
  if (*ticket == gridDim.x - 1 && threadIdx.x == 0) {
    float s = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b)
      s += partial[b];  // EXPECT FENCE002
    *total = s;
  }
}

int main() {
  int *p;
  cudaMalloc(&p, 1 << 20);
  ok_reservation_and_queue_base_in_one_array<<<8, BLOCK, (BLOCK + 3) * 4>>>(p, p + 4096, p + 8192, p + 8193, p + 8194, 4096);
  bad_ticket_in_one_word_of_an_array<<<8, BLOCK, 8>>>((float *)p, (float *)p + 64, (unsigned *)p + 128, (float *)p + 129);
  return 0;
}
