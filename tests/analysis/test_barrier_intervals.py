"""Two value-preserving facts of the uniformity analysis, each written as a small PTX kernel.

* A `volatile` shared load whose barrier interval (intervals.py: what other threads may run between the
  barriers around it) holds no write to that memory reads one value in every thread: state one thread
  writes before a barrier and the block reads after it (nvCOMP's Snappy encoder). A write in the same
  interval, before the read, after it, or on a branch beside it, keeps the value per thread. (The
  kernels store through a pointer of unknown origin before the first barrier: without it, a volatile
  shared load of memory no global write touches counts as one value whatever its interval holds,
  uniformity.py's `_never_written`.)
* A copy `d = s` in a block entered only where `d == s` leaves d as it was (nvcc writes `if (t == cnt)
  { ...; cnt = t; }` for a warp's own count), so a join after it is the count's level, not the lane's.
"""

from ptxlint.analysis.intervals import is_whole_block_barrier
from ptxlint.analysis.uniformity import UNIFORM, WARP

from test_uniformity import branch_levels, ins_at, kernel

# thread 0 stores the count; the block reads it back (volatile) and branches on it. The store through
# a pointer read from memory (which may point anywhere) keeps "no global write touches it" from
# answering alone: only the barrier interval can say the value is one.
READ_BACK = """
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [k_p0];
    ld.global.u64 %rd2, [%rd1];
    st.u32 [%rd2], %r1;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra SKIP;
    ld.param.u32 %r2, [k_n];
    st.volatile.shared.u32 [s], %r2;
SKIP:
    bar.sync 0;
    {between}
    ld.volatile.shared.u32 %r3, [s];
    {after}
    setp.lt.u32 %p2, %r3, 5;
    @%p2 bra DONE;
    bar.sync 0;
DONE:
    ret;"""


def _read_back(between: str = "", after: str = ""):
    return kernel(READ_BACK.replace("{between}", between).replace("{after}", after))


def _level_of_the_last_branch(ctx):
    """The uniformity level of the value the last branch tests (the load's own level: the per-thread
    evaluator, which takes one address to give one value, may still see one value)."""
    test = [i for i in ctx.function.instructions if i.op == "setp"][-1]
    return ctx.uniformity.level(test, test.operands[1])


def test_a_volatile_read_after_the_barrier_that_follows_the_write_is_one_value():
    ctx = _read_back()
    assert _level_of_the_last_branch(ctx) == UNIFORM


def test_a_write_before_the_read_in_its_interval_keeps_it_per_thread():
    # thread 1 stores again after the barrier, before the others read
    ctx = _read_back(between="setp.eq.u32 %p3, %r1, 1;\n    @%p3 st.volatile.shared.u32 [s], %r1;")
    assert _level_of_the_last_branch(ctx) == WARP


def test_a_write_after_the_read_in_its_interval_keeps_it_per_thread():
    # a fast thread may store before a slow one reads: the store comes later in program order
    ctx = _read_back(after="st.volatile.shared.u32 [s], %r1;")
    assert _level_of_the_last_branch(ctx) == WARP


def test_a_write_on_a_branch_beside_the_read_keeps_it_per_thread():
    ctx = kernel("""
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [k_p0];
    ld.global.u64 %rd2, [%rd1];
    st.u32 [%rd2], %r1;
    bar.sync 0;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra READER;
    st.volatile.shared.u32 [s], %r1;
    bra.uni JOIN;
READER:
    ld.volatile.shared.u32 %r3, [s];
    setp.lt.u32 %p2, %r3, 5;
    @%p2 bra JOIN;
    st.shared.u32 [s+4], %r3;
JOIN:
    bar.sync 0;
    ret;""")
    assert _level_of_the_last_branch(ctx) == WARP


def test_a_write_to_another_shared_variable_does_not_count():
    ctx = kernel("""
    .shared .align 4 .b8 other[16];
    mov.u32 %r1, %tid.x;
    bar.sync 0;
    st.shared.u32 [other], %r1;
    ld.volatile.shared.u32 %r3, [s];
    setp.lt.u32 %p2, %r3, 5;
    @%p2 bra DONE;
    bar.sync 0;
DONE:
    ret;""")
    assert _level_of_the_last_branch(ctx) == UNIFORM


def test_a_named_barrier_with_a_thread_count_does_not_end_an_interval():
    ctx = kernel("bar.sync 1, 64;\n    bar.sync 0;\n    bar.arrive 2, 64;\n    ret;")
    waits = [is_whole_block_barrier(i) for i in ctx.function.instructions if i.op == "bar"]
    assert waits == [False, True, False]


COUNT_BACK = """
    mov.u32 %r1, %tid.x;
    and.b32 %r1, %r1, 31;
    ld.param.u32 %r2, [k_n];
    setp.{cmp}.u32 %p1, %r2, %r1;
    @%p1 bra JOIN;
    st.shared.u32 [s], %r1;
    mov.u32 %r2, %r1;
JOIN:
    setp.lt.u32 %p2, %r2, 5;
    @%p2 bra DONE;
    bar.sync 0;
DONE:
    ret;"""


def test_a_copy_made_only_where_the_values_are_equal_leaves_the_register_as_it_was():
    # the copy runs where %p1 (r2 != lane) is false: r2 == lane, so r2 keeps the parameter's value
    ctx = kernel(COUNT_BACK.replace("{cmp}", "ne"))
    assert branch_levels(ctx)[-1] == UNIFORM
    assert ctx.uniformity.level(ins_at(ctx, "setp.lt.u32 %p2"), ins_at(ctx, "setp.lt.u32 %p2").operands[1]) == UNIFORM


def test_a_copy_made_where_the_values_differ_changes_it():
    ctx = kernel(COUNT_BACK.replace("{cmp}", "eq"))
    assert branch_levels(ctx)[-1] == WARP
