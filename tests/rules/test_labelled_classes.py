"""One labelled kernel file per general rule of the CUDA model that real code taught ptxlint (issue
17: fix classes, not sites). Each file pairs kernels that break the rule (`bad_*`, with `// EXPECT
CODE` markers) with near misses that do not (`ok_*`); its main() gives each launch, and its PTX is
committed beside it (nvcc 13, sm_90), so the test needs no nvcc.

* fence_acquire_observation.cu: an atomic that is itself an acquire (a lock taken with
  `memory_order_acquire`) orders the loads after it; a relaxed one does not.
* atomic_read_uniform.cu: an atomic that leaves memory as it was (`atomicAdd(&n, 0)`) on a word the
  kernel never writes reads one value in every thread; on a word the kernel changes it does not.
* xor_reductions_uniform.cu: an xor-butterfly reduction is one value per warp, and a butterfly over
  per-warp partials read back from shared memory one value per block (a branch on it does not
  diverge; all threads storing it to one word and reading it back is no race); a shfl_down
  reduction is not.
* warp_per_item_stores.cu: `(threadIdx.x + blockIdx.x * blockDim.x) / 32` is one value per warp, so
  every lane storing its warp's item writes one value, and a grid-stride loop's next item is another
  address; a value that depends on the lane is a write-write race.
* carved_shared_flow.cu: an atomic's value is followed through shared memory word by word, so a
  reservation and a work-queue base in one carved `extern __shared__` array are told apart (no
  hand-off), and a last-block ticket kept in one word of such an array is still a ticket.
* equality_guard_rows.cu: a guard comparing the row with one value (`y == ny - 1`) admits one row of
  the block, so the threads storing one `out[x]` cannot both pass it; a range guard admits two rows.
  (This class was found in test3's triage and fixed after test3 was measured.)
* launch_argument_bound.cu: a grid-stride loop with a barrier splits no block when every launch the
  host code makes passes a bound that is a multiple of the block (read from the launch's
  arguments, argv defaults included); a launch with another bound keeps the finding. (Also after
  test3.)
* host_wrapper_bound.cu: a launch inside a host wrapper takes the bound each call of the wrapper
  passes (`scan_all(d, d + N, N)`), and a grid-stride loop whose index nvcc also keeps as a widened
  64-bit copy (truncated back before the increment) is still a grid-stride loop: a bound that is a
  multiple of the block splits no block or warp; a call with 1000 does. (Found in test3's
  triage, built after it was measured.)
* cas_expected_value.cu: a plain read that only supplies an `atomicCAS` retry loop's expected value on
  the same word is no race with the atomics (a stale value makes the CAS retry); a plain read whose
  value is kept races with them. (Found in test4's triage, built after it was measured.)
* launch_constant_arguments.cu: a kernel parameter that every launch of a block shape passes as one
  constant is that constant (`k<<<1, 256>>>(8, p)`: threads 0..7 run the guarded writes), also when
  a launch leaves trailing parameters to their default arguments, and a one-block grid makes
  blockIdx 0; another constant keeps the finding. (Found in test4's triage, built after it was
  measured.)
* atomic_min_precheck.cu: a plain read whose value only decides whether an atomic min or max on the
  same word runs (`if (v < box[0]) atomicMin(&box[0], v)`) is no race with those atomics; the same
  pre-check in front of an atomicAdd (a cap) is a check-then-act race. (Found in test5's triage,
  built after it was measured.)
* min_bounded_guard.cu: a guard against `min(k, x)` admits no thread at or past k whatever x is
  (`tx < min(32, n)` keeps warps 1 and 2 of a 68-thread block out of a 32-column ring buffer); with
  `min(64, n)` two warps meet. (Found in test5's triage, built after it was measured.)
* launch_argument_multiples.cu: a bound the host code computes as a multiple of a constant
  (`nbodies * 1024`, `chunks << 5`, a launch passing 512 beside one passing `k * 1024`) is that
  multiple whatever the run-time factor: an early return or a grid-stride loop on it splits no block
  when the factor is a multiple of the block, a guarded full-mask shuffle no warp when it is one of
  32; a multiple of 32 against a block of 256, or of 16 against a warp, keeps the finding. (From the
  input-invariant class of test3's and test4's triage, built after test5.)
* launch_grid_cover.cu: a grid that is the bound's floor division by at least the block
  (`k<<<n / 256, 256>>>(x, n)`, directly or through `blocks = n / 256`) launches no thread at or
  past n: an early return or a guard on `i < n` splits no block or warp; a rounded-up grid, a
  divisor below the block, or a grid-stride loop's later passes keep the finding. (Input-invariant
  class of test3's triage, built after test5.)
* host_checked_multiples.cu: a bound the host code checks before the launch (`assert(n % 32 ==
  0)`, `if (n % 256 != 0) { ...; exit(1); }`, or a launch inside `if (n % 256 == 0)`) is a multiple
  of what it checks: the guard splits no warp or block; a check for 16, or one that only warns and
  goes on, keeps the finding. (Host-asserted warp-uniform guards of the first test half's triage,
  built after test5.)
* fence_integer_offsets.cu: an integer parameter that only offsets indices (`parent = right + n`) is
  no buffer, so volatile node stores of a tree build that nobody waits on do not share memory with
  what its volatile loads observe; a data store followed by a flag another block spins on, with no
  fence between, is still a publication (and its consumer's unfenced read a FENCE002). (Found in
  test6's triage, NVIDIA warp's BVH builder; built after test6 was measured.)
* lock_critical_section.cu: accesses between a spin lock's acquisition (`while (atomicCAS(lock, 0,
  1) != 0);`) and its release (`atomicExch(lock, 0)`) are taken by one block at a time: no RACE003
  across blocks; the same update without the lock is one. (Also after test3.)
* equality_guard_single_thread.cu: a store under `if (i == n)` with i a thread's global index (also
  widened to 64 bits) has one writer in the grid, however many threads the block has; a range guard
  admitting two threads keeps the race. (Found in test7's triage, GenomeWorks; built after test7.)
* loop_state_alike.cu: a loop-carried value that every thread updates alike (a list walked through
  `next[node]`, a stack popped under a test of a value read at one address, with nvcc's copy of the
  update under `if (threadIdx.x == 0)`) stays one value for the warp, so a warp loop bounded by a
  multiple of 32 inside keeps its shuffles whole; lanes walking different lists do not. (test7's
  triage, GenomeWorks' aligners; built after test7.)
* loop_bound_overrun.cu: a row walk `for (j = 0; j < m; j++)` that writes one past its row races
  with the next thread's first iteration; with m a run-time value the loop is also checked with m
  taken as 5 and 8 and the race is reported with that condition; a walk inside its row, a
  grid-stride loop and an in-place prefix sum per row are clean. (The recall suite's last miss.)
* exited_lanes.cu: after an early return from the kernel, `__syncwarp()` and a width-4 shuffle whose
  quads return together are well defined (exited lanes take no part in `.sync` intrinsics, sm_70+);
  a shuffle that reads a lane which may have returned is SHFL001. (test8's triage, Ethash.)
* launch_relative_arguments.cu: an argument the launch computes from its own run-time grid and
  block (`blocks * threads`, an eighth of it when the block is `threads << 3`, a chunk offset
  stepped by `blocks * threads` from 0, a bound the grid `n / 32` of 128-thread blocks covers four
  times) keeps the early return before a barrier untaken and quads of lanes whole; an offset read
  at run time, the grid alone, or a bound of 2n keep the finding. (test8's triage, xmrig and
  ethminer; built after test8 was measured.)
* unswitched_copies.cu: nvcc's copies of one full-mask shuffle in the two arms of a lane test (a
  loop unswitched on `laneId == 0`) meet as the source's one shuffle (sm_70+ `.sync` semantics);
  different shuffles in the two arms are SHFL001. (test8's triage, faiss's L2 norm.)
* bit_field_indices.cu: an index nvcc builds with `bfi` (`threadIdx.x % 32 + blockIdx.x * 32`) is
  followed, and `((x | y | z) & 7)` of indices whose block parts are multiples of 8 is known per
  thread: sampling every eighth point writes one anchor per thread; every fourth point along x is
  a race. (test8's triage, cuSZ's spline anchors.)
* rounded_bounds.cu: a bound rounded up to a multiple of 4 (`(n + 3) / 4 * 4`, which nvcc may write
  as a mask clearing high bits too) is a multiple of 4, so an early return on it is taken by whole
  quads and width-4 shuffles after it read no lane that returned; a bound rounded to pairs, or an
  offset of 2, splits quads. (test8's triage, xmrig's KawPow DAG generator.)
* padding_lanes_recompute.cu: floating-point arithmetic (`fma`, `rsqrt`, `sqrt`...) is a function of
  its inputs, so padding lanes that redo lanes 0..6's work on the same loads (`if (tx >= 25) tx -=
  25`) store the same values to the same words: no race; a value mixing in the thread's own index,
  or read from a neighbour's input, differs. (test12's triage, specfem2d's viscoelastic kernels.)
* trap_ends_launch.cu: a trap (`__trap()`, or a failed `assert()`) ends the whole launch, so thread 0
  trapping on a table overflow, or a guarded layer whose activation traps on an unknown kind, leaves
  no thread short of the barrier or the full-mask shuffles after it; a thread that returns does,
  and a barrier inside a lane-dependent branch stays divergent. (test11's triage, ACSpGEMM's merge
  kernels and lc0's squeeze-excitation layer; built after test11 was measured.)
* first_iteration_owner.cu: an access in a loop whose iterations each end at a barrier meets an access
  before the loop only in the first iteration, so a counter thread 0 sets before the loop and the
  owner of item i (thread i % blockDim.x) updates in iteration i is no race when item 0's owner is
  thread 0; a first item owned by another warp, or iterations with no barrier between, race.
  (test12's triage, TensorRT's EfficientNMS, whose own owner test reads a local array ptxlint does
  not follow.)
* speculated_flag_load.cu: `if (threadIdx.x == 0 && pending > 0)` loads `pending` in every thread
  (nvcc speculates the shared load) but only thread 0's value reaches anything, so thread 0's write
  is no race with the others' loads; a load whose value every thread also uses races. (test11's
  triage, cuBQL's builder.)
* assert_bounds.cu: a kernel's own `assert(n <= 32)` or `if (n > 32) __trap();` on a shared value,
  passed on every thread's way to the end, bounds n for the whole launch (one that breaks it
  aborts), so `tid < n` stores never spill from one array of a struct into the next; a looser
  assert, a check only thread 0 makes after the stores, or a signed bound under an unsigned test
  (a negative n reads huge) leave the race. (test12's triage, TensorRT's PerClassNMS_kernel.)
* nested_induction.cu: going round an inner loop's own back edge advances its counter while the
  loops around it stay put, so a warp's store at the same offset from the inner counter is at another
  slot in the inner loop's next iteration; lanes that walk the slots one apart still meet there.
  (test11's triage, ACSpGEMM's merge kernels: a warp per chunk inside the kernel's round loop.)
* grid_stride_step.cu: a grid-stride range over an iterator compiles to a second copy of the loop for
  a stride of 0, where a thread would spin forever; gridDim.x * blockDim.x is never 0, so no thread
  takes that copy and a barrier after the loop is reached by all; a barrier inside the loop is not.
  (test13's triage, after it was measured: dlib's `_cuda_inverse_norms` and five more kernels.)
* whole_warp_test.cu: a full-mask intrinsic under the kernel's own test that all 32 lanes are active
  (`__activemask() == 0xffffffff`, cooperative groups' `size() == 32` over a coalesced or labelled
  group) is run by the whole warp, whatever split lanes before the mask was read; a lane test after
  it, or a test of 16 lanes, still splits. (test14's triage, after it was measured: gallatin's malloc.)
* grid_sync_axes.cu: cooperative groups' grid barrier reads blockIdx.y and .z only for its own arrival
  counter (at an address from %envreg): a kernel whose work uses blockIdx.x alone is not compared
  across blocks that differ in y; one that stores a value made from blockIdx.y still is. (A probe of
  our own, written for the class "a 1-D kernel compared along y" of the earlier halves.)
* lane_offset_bounds.cu: a loop test with the lane on both sides (`i < n + lane`, i = 32 * group +
  lane) is one value per warp, also where the group is a run-time quotient; the same loop tested
  against n alone splits the warp. (test15's triage, after it was measured: dgSPARSE's GE-SpMM.)
* param_array_index.cu: an element of an array inside a by-value struct parameter read at blockIdx
  (`batch.count[blockIdx.y]`) is one value per block, so an early return on it takes whole blocks;
  read at a thread-dependent index it is not. (test16's triage, after it was measured: dietgpu's
  batch providers.)
* volatile_spin_shared.cu: a warp spinning on a `volatile` shared flag until another warp stores it
  is no race (the loop ends whichever order they run in, as on global memory); a flag read once is.
  (test16's triage, after it was measured: nvCOMP's Snappy decoder's queue positions.)
* select_max_reductions.cu: a butterfly maximum written as compare and select (`a < b ? b : a`,
  cooperative groups' `greater` on floats) is one value per warp, and over per-warp partials one per
  block, as an add is; a select that compares other values, or a shfl_down maximum, is not. (test15's
  triage, after it was measured: mlx's attention storing the warp's maximum from every lane.)
* block_stride_index.cu: a kernel with no launch found that indexes `blockIdx.x * K + threadIdx.x` (K a
  constant) and reads no blockDim.x is checked in blocks of at most K threads in x (a wider block would
  give two blocks one index): each thread updating its own element is no race across blocks; an
  update reaching the next element still is, and a kernel that reads blockDim.x keeps every candidate.
  (test16's triage, after it was measured: BEAGLE's factor kernels, launched with PATTERN_BLOCK_SIZE
  threads through the driver API.)
* rounded_by_test.cu: a bound rounded up to a power-of-two block by a test of its low bits (`(n & (w -
  1)) ? (n & ~(w - 1)) + w : n`, or `n % 256 == 0 ? n : ...`) is a multiple of w on both sides (where
  the test says the low bits are zero, n is one), so a block-stride loop to it runs alike in every
  thread; rounded to half the block, or testing another value's bits, it does not. (test16's triage,
  after it was measured: PopSift's block prefix sum.)
* ballot_alike_warps.cu: warps that ballot on the same entries read lane by lane (`s_keys[k + lane]`,
  shared or global) get one mask for the whole block, and a shuffle from the lane it picks one key, so
  a block barrier in the loop the mask drives is reached by all; entries read at `k + threadIdx.x`
  give each warp its own mask. (test15's triage, after it was measured: GGNN's cache fetch.)
* private_memory_values.cu: local memory is each thread's own, so a value loaded back from it is a
  per-thread value wherever some local store writes one (a grid-stride cursor kept in a local struct
  counts a different row in every thread); where every local store writes a value of the whole block, all
  threads read one, and every thread updating that row is a race. (test18's triage, after it was
  measured: HeavyDB's join-column iterator.)
* sequential_warp_loops.cu: a lane leaving a loop with the rest of its warp enters the next loop at its
  lane plus a multiple of the step (also through nvcc's unrolled loop and remainder, whose count
  `(limit + ~i) >> k` reads `~i` as `-i - 1`, and through the next index `i + 256` that a rotated
  loop keeps beside `i`, with each warp's own trip counts), so whole warps after rounds of 256 run
  alike to a multiple of 32; a second bound of any value splits the warp. (test16's triage, after it was
  measured: dietgpu's ANS encoder.)
* object_fields_handoff.cu: two fields of one object (its pointer, a kernel parameter, plus known offsets
  whose bytes never meet) are not the same memory: a last block reading a field no block stored takes
  nothing handed over by the ticket; reading back the stored field is a hand-off without a fence.
  (test19's triage, after it was measured: Ouroboros's queue objects.)
* optimistic_atomic_reads.cu: a plain read of a word that atomics change is a guess when its value
  only decides when to try an atomic whose result its thread tests (a semaphore's fast path, undone
  when stale) or how long to wait (a poll before an atomic): no race with those atomics. A read
  whose value leads to an unchecked write (an early exit on a flag set with atomicExch) or is kept
  as data races. (test19's triage, after it was measured: Ouroboros's bulk semaphore.)
* fence_release_idiom.cu: a device-wide fence followed by an atomic that sets a state word
  (`__threadfence(); atomicAnd(&lock, ~1u)`) is a release, no data of a later ticket: a lock released
  that way before a version stamp leaves nothing unfenced; without the fence the release is data
  the stamp publishes. (test19's triage, after it was measured: MVGpuBTree's node locks.)
* interval_guard_single_thread.cu: guards that bound one index from both sides pin it where the bounds
  meet: a thread that passes `x < w` but not `x + 1 < w` has x == w - 1, so with x = 2 * (global
  index) one thread of the grid takes that branch and its store has no second writer; a range of
  two or more values (`x + 4 >= w`) admits two writers. (test21's triage, after it was measured:
  YACCLAB's last-cell records.)
* counter_work_items.cu: inside a loop, a register that one lane redefines before a join (`if (lane ==
  0) item = atomicAdd(&next, 1); item = __shfl_sync(~0u, item, 0);`) holds the new value in that
  lane and the header's in the others, so each warp works on its own drawn item; warps that read
  the cursor with a plain load share one item and write one row. (test22's triage, after it was
  measured: SPH-EXA's warp work queues.)
* collective_ordered_reads.cu: a full-mask warp collective that takes the value a lane's shared read
  returned (a shuffle reduction of it, CUB's WarpScan) ends that read for every lane: a write that
  every path from the read reaches only through the collective is ordered after it, as after
  `__syncwarp()`, in shared and in global memory; a collective over some other value orders nothing.
  (test21's and test22's triage, after they were measured: libcubwt's look-back state,
  cornerstone's bounding-box reduction.)
* volatile_state_sides.cu: `volatile` shared loop state that threads read after the barrier behind
  its last write is one value, and a volatile read beside a write that may change it is one value
  per thread. Two writes do not count as beside it: a store through a pointer loaded from memory,
  where the kernel lets no shared address out into memory, and a write on the other side of a
  branch that every thread of the block takes the same way (a failure flag). A shared address the
  kernel stores to memory may come back as such a pointer. (test21's triage, after it was
  measured: SPRAL's pivot loop.)
* same_value_marks.cu: a plain read that only decides whether its thread stores a constant to the
  word it read (`if (!mark[i]) mark[i] = 1;`), where every write that may run beside it stores that
  constant, is no race: the word ends up marked whatever the read sees. A test that also decides
  other work (queueing the item), or memory some write sets to another value, races. (test22's
  triage, after it was measured: cornerstone's MAC markings.)
* unsigned_window_owner.cu: an unsigned window test on a thread's offset (`(p - 16 * t) < 16u`) admits
  the threads whose offsets lie within the window's width of each other: with chunks as wide as
  the window one thread owns the position and its update of a shared count has no second writer;
  a window twice as wide admits two. (test21's triage, after it was measured: libcubwt's
  primary-index histogram fix-up.)
* bypassed_division.cu: nvcc's 64-bit division by a run-time stride (a 32-bit `div` where both fit,
  else the 64-bit one) is one quotient where the paths join, so `(n / s) * s` stays a multiple of
  the stride. (test22's triage, after it was measured: fast-interconnects.)
* bounds_across_threads.cu: guards that bound one unknown apart in two threads (`v < 8 * t + 8` in
  one, `v >= 8 * u` in the other) contradict; signed and unsigned bounds are kept apart. (test24,
  after it was measured: RTE+RRTMGP.)
* reread_uniform_global.cu: a block-uniform value every thread stores to a global word and reads
  back, also round a loop the store is not in, is the value the thread stored itself. (test24,
  after it was measured: Lyra2.)
* value_free_of_dimension.cu: threads that differ only in threadIdx.x storing to one word store one
  value when the value (a sum carried round a loop, over texture fetches or read-only loads) and
  the loop's trip count hang on nothing x-dependent; an x-dependent term or trip count, or a
  read-modify-write of the word, races. (test23's triage, after it was measured: LEAP's Abel
  projectors, whose x-threads all store their row's sum.)
* one_thread_kernels.cu: a kernel that reads no thread or block index, takes no atomic's result,
  exchanges nothing between lanes and loops is a serial program: with no launch found it is
  checked as one thread (counted on the `Not checked:` line); launched with 64 threads, handing out
  items through an atomic, or without a loop (`count[0] += 1`), its shared total races. (test22 and test23's triage, after they were
  measured: fast-interconnects' clock calibration, ParaFROST's proof-count debug walk.)
* private_arrays_alike.cu: a thread's local array whose every store writes a value alike in the
  block, at an index alike in it, under branches that take the block alike, is the same array in
  every thread: a loop tested on it runs alike and its barriers are reached by all. Another local
  array of per-thread values, or a printf's argument buffer holding threadIdx.x, is another object
  of the depot; a per-thread store to the array splits the loop. (test25's triage, after it was
  measured: TWILIGHT's x-drop band bounds `L[3]`, `U[3]`.)
* equality_guard_iterations.cu: in a grid-stride loop, a store under `i == n - 1` is made by one
  thread in one iteration: the loop's index moves by a multiple of its step from one iteration to
  another, so two threads whose offsets differ by less than the step cannot both meet the equality
  in different iterations. A range guard, or a step of 32 in blocks of 64, admits two writers.
  (test25's triage, after it was measured: TNN's odd-length power tail, Marian's cross-entropy pick.)
"""

import re
from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
# labelled file -> the rule families it is checked with
CLASSES = {
    "fence_acquire_observation": ["FENCE"],
    "atomic_read_uniform": ["SYNC", "RACE"],
    "xor_reductions_uniform": ["SYNC", "RACE", "SHFL", "WARP"],
    "warp_per_item_stores": ["RACE", "WARP"],
    "carved_shared_flow": ["FENCE"],
    "equality_guard_rows": ["RACE", "WARP"],
    "launch_argument_bound": ["SYNC"],
    "lock_critical_section": ["RACE"],
    "host_wrapper_bound": ["SYNC", "SHFL", "RACE", "WARP"],
    "cas_expected_value": ["RACE", "WARP"],
    "launch_constant_arguments": ["RACE", "WARP", "SHFL"],
    "atomic_min_precheck": ["RACE", "WARP"],
    "min_bounded_guard": ["RACE", "WARP"],
    "launch_argument_multiples": ["SYNC", "SHFL"],
    "launch_grid_cover": ["SYNC", "SHFL"],
    "host_checked_multiples": ["SYNC", "SHFL"],
    "fence_integer_offsets": ["FENCE", "RACE"],
    "multiple_by_construction": ["SHFL", "SYNC"],
    "fence_number_atomics": ["FENCE"],
    "loop_rounded_index": ["RACE", "WARP"],
    "equality_guard_single_thread": ["RACE", "WARP"],
    "loop_state_alike": ["SHFL", "SYNC", "RACE", "WARP"],
    "loop_bound_overrun": ["RACE", "WARP", "SYNC"],
    "exited_lanes": ["SHFL", "SYNC", "RACE", "WARP"],
    "launch_relative_arguments": ["SHFL", "SYNC", "RACE", "WARP"],
    "unswitched_copies": ["SHFL", "SYNC", "RACE", "WARP"],
    "bit_field_indices": ["RACE", "WARP", "SYNC"],
    "rounded_bounds": ["SHFL", "SYNC", "RACE", "WARP"],
    "padding_lanes_recompute": ["RACE", "WARP"],
    "trap_ends_launch": ["SYNC", "SHFL", "RACE", "WARP"],
    "first_iteration_owner": ["RACE", "WARP", "SYNC"],
    "speculated_flag_load": ["RACE", "WARP", "SYNC"],
    "assert_bounds": ["RACE", "WARP", "SYNC"],
    "nested_induction": ["RACE", "WARP", "SYNC"],
    "grid_stride_step": ["SYNC", "SHFL", "RACE", "WARP"],
    "whole_warp_test": ["SHFL", "SYNC"],
    "grid_sync_axes": ["RACE", "WARP", "SYNC"],
    "lane_offset_bounds": ["SHFL", "SYNC"],
    "param_array_index": ["SYNC", "SHFL", "RACE", "WARP"],
    "volatile_spin_shared": ["RACE", "WARP", "SYNC", "SHFL"],
    "select_max_reductions": ["RACE", "WARP", "SYNC", "SHFL"],
    "block_stride_index": ["RACE", "SYNC", "SHFL"],
    "rounded_by_test": ["SYNC", "SHFL", "RACE", "WARP"],
    "ballot_alike_warps": ["SYNC", "SHFL", "RACE", "WARP"],
    "private_memory_values": ["RACE", "WARP", "SYNC", "SHFL"],
    "sequential_warp_loops": ["SHFL", "SYNC", "RACE", "WARP"],
    "object_fields_handoff": ["FENCE", "RACE", "SYNC", "WARP"],
    "optimistic_atomic_reads": ["RACE", "WARP"],
    "fence_release_idiom": ["FENCE", "RACE", "SYNC", "WARP"],
    "interval_guard_single_thread": ["RACE", "WARP", "SYNC"],
    "counter_work_items": ["RACE", "WARP", "SYNC", "SHFL"],
    "collective_ordered_reads": ["RACE", "WARP", "SYNC", "SHFL"],
    "volatile_state_sides": ["SYNC", "SHFL", "RACE", "WARP"],
    "same_value_marks": ["RACE", "WARP", "SYNC", "SHFL"],
    "unsigned_window_owner": ["RACE", "WARP", "SYNC", "SHFL"],
    "bypassed_division": ["SYNC", "SHFL", "RACE", "WARP"],
    "bounds_across_threads": ["RACE", "WARP", "SYNC", "SHFL"],
    "reread_uniform_global": ["RACE", "WARP", "SYNC", "SHFL"],
    "value_free_of_dimension": ["RACE", "WARP", "SYNC", "SHFL"],
    "one_thread_kernels": ["RACE", "WARP", "SYNC", "SHFL"],
    "private_arrays_alike": ["SYNC", "SHFL", "RACE", "WARP"],
    "equality_guard_iterations": ["RACE", "WARP", "SYNC", "SHFL"],
}


def _kernels(name: str) -> list:
    text = (DATA / f"{name}.cu").read_text()
    return re.findall(r'^extern "C" __global__ void (\w+)\(', text, re.M)


CASES = [(name, kernel) for name in CLASSES for kernel in _kernels(name)]
_found: dict = {}


def _findings(name: str) -> dict:
    if name not in _found:
        _found[name] = findings_by_kernel(DATA / f"{name}.sm_90.ptx", CLASSES[name])
    return _found[name]


@pytest.mark.parametrize("name,kernel", CASES, ids=[f"{n}:{k}" for n, k in CASES])
def test_kernel_gets_exactly_its_labelled_findings(name, kernel):
    expected = expected_markers(DATA / f"{name}.cu", kernel)
    assert {(d.code, d.line) for d in _findings(name).get(kernel, [])} == expected
    assert bool(expected) == kernel.startswith("bad_")


@pytest.mark.parametrize("name", list(CLASSES))
def test_every_class_has_a_positive_and_a_near_miss(name):
    kernels = _kernels(name)
    assert any(k.startswith("bad_") for k in kernels) and any(k.startswith("ok_") for k in kernels)
