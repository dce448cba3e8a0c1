"""Local memory is each thread's own (spaces.thread_dependent_local_store): a value loaded back from
a stack slot is one value for the block only when every store that may write that slot writes one;
where one store writes the slot before the load, the load reads what that store wrote, thread by
thread (spaces.sole_local_store).

Each kernel keeps a block-wide value (from blockIdx) in slot 0 of its stack frame and a per-thread
value (from threadIdx) in slot 4, and reads them back through `%SPL` (`ld.local`) or `%SP` (a generic
load of the same bytes), or at an index known only at run time.
"""

from ptxlint.analysis import symbolic as S
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.frontend.ir import Register
from ptxlint.frontend.parser import parse_ptx

from test_uniformity import HEADER

FRAME = HEADER + """
.visible .entry k(.param .u64 k_p0, .param .u32 k_n)
{
    .local .align 8 .b8 __local_depot0[16];
    .reg .b64 %SP;
    .reg .b64 %SPL;
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    mov.u64 %SPL, __local_depot0;
    cvta.local.u64 %SP, %SPL;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    add.u64 %rd1, %SPL, 4;
    st.local.u32 [%SPL], %r1;
    {second}
    {load}
    ret;
}
"""


def _loaded_value(second: str, load: str):
    """The per-thread values of the register `load` defines (%r9), in a 64-thread block."""
    module = parse_ptx(FRAME.replace("{second}", second).replace("{load}", load), "k.ptx")
    ctx = KernelContext(module, module.functions[0], AnalysisOptions(block_overrides=[(None, (64, 1, 1), "test")]))
    ins = next(i for i in ctx.function.instructions if i.operands and i.operands[0] == Register("%r9"))
    after = ctx.function.instructions[ins.index + 1]
    return ctx.lanes.register(after, ins.operands[0])


def test_the_block_slot_beside_a_per_thread_slot_is_one_value():
    values = _loaded_value("st.local.u32 [%rd1], %r2;", "ld.local.u32 %r9, [%SPL];")
    assert S.uniform_across(values)


def test_the_per_thread_slot_holds_a_value_per_thread():
    values = _loaded_value("st.local.u32 [%rd1], %r2;", "ld.local.u32 %r9, [%SPL+4];")
    assert not S.uniform_across(values)


def test_a_generic_load_through_sp_is_the_same_slot():
    values = _loaded_value("st.local.u32 [%rd1], %r2;", "ld.u32 %r9, [%SP+4];")
    assert not S.uniform_across(values)
    assert S.uniform_across(_loaded_value("st.local.u32 [%rd1], %r2;", "ld.u32 %r9, [%SP];"))


def test_a_slot_read_at_a_run_time_index_may_be_any_slot():
    load = "mul.wide.u32 %rd2, %r1, 4;\n    add.u64 %rd3, %SPL, %rd2;\n    ld.local.u32 %r9, [%rd3];"
    assert not S.uniform_across(_loaded_value("st.local.u32 [%rd1], %r2;", load))


def test_a_frame_of_block_values_reads_back_one_value():
    # the second slot holds blockIdx + 1: every local store is block-wide, so any read is
    second = "add.u32 %r3, %r1, 1;\n    st.local.u32 [%rd1], %r3;"
    assert S.uniform_across(_loaded_value(second, "ld.local.u32 %r9, [%SPL+4];"))


def test_the_one_store_of_a_slot_is_what_each_thread_reads_back():
    # the slot holds the thread's warp number: one value per warp, another in the next warp
    second = "shr.u32 %r3, %r2, 5;\n    st.local.u32 [%rd1], %r3;"
    values = _loaded_value(second, "ld.local.u32 %r9, [%SPL+4];")
    assert values[0] == values[31] and values[0] != values[32]


def test_a_slot_written_twice_is_per_thread_when_either_write_is():
    second = "st.local.u32 [%rd1], %r2;\n    st.local.u32 [%rd1], %r1;"
    values = _loaded_value(second, "ld.local.u32 %r9, [%SPL+4];")
    assert not S.uniform_across(values) and values[0] != values[1]
