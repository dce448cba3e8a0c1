// Two fields of one object are not the same bytes: a block that stores one field (`q->front`) and
// then takes a ticket hands nothing over to the last block if that block reads another field
// (`q->size`), which no store of the kernel writes. Both addresses are the object's pointer (a kernel
// parameter, the same in every block) plus a known offset, and the offsets' bytes never meet. Reading
// back the field that was stored is a hand-off, and without a fence a defect. (test19's triage, after
// it was measured: Ouroboros's queue objects, whose counters and fields share one pointer.)
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 object_fields_handoff.cu -o object_fields_handoff.sm_90.ptx

struct Queue {
  int count;
  int size;
  int front;
  int pad;
};

// ok: the last block reads the queue's size; the field the blocks stored is another.
extern "C" __global__ void ok_other_field_after_ticket(Queue *q, int *out) {
  if (threadIdx.x == 0) {
    q->front = 0;
    int ticket = atomicAdd(&q->count, 1);
    if (ticket == gridDim.x - 1) out[blockIdx.x] = q->size;
  }
}

// bad: the last block reads back the field the others stored, with no fence on either side.
extern "C" __global__ void bad_same_field_after_ticket(Queue *q, int *out) {
  if (threadIdx.x == 0) {
    q->front = blockIdx.x;
    int ticket = atomicAdd(&q->count, 1);  // EXPECT FENCE001
    if (ticket == gridDim.x - 1) out[blockIdx.x] = __ldcg(&q->front);  // EXPECT FENCE002
  }
}

int main() {
  Queue *q;
  int *out;
  cudaMalloc(&q, sizeof(Queue));
  cudaMalloc(&out, 1024 * sizeof(int));
  ok_other_field_after_ticket<<<64, 128>>>(q, out);
  bad_same_field_after_ticket<<<64, 128>>>(q, out);
  cudaDeviceSynchronize();
  return 0;
}
