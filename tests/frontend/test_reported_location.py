"""Where a finding is reported: nvcc marks some instructions of an inlined function with line 0 (`.loc 1 0
0, function_name ..., inlined_at 1 1966 9`: no line of their own); a finding on one is reported at the
call it was inlined at, a `.cu` line, not at a PTX line (test10: Kaldi's fused strided reduction)."""

from ptxlint.frontend.ir import Instruction, SourceLocation
from ptxlint.frontend.sourcemap import reported_location, source_position


def _at(loc):
    return Instruction(opcode="ld.global.f32", operands=(), ptx_line=68356, loc=loc)


def test_line_zero_inside_an_inlined_function_is_reported_at_the_call():
    call = SourceLocation("k.cu", 1966, 9)
    ins = _at(SourceLocation("k.cu", 0, 0, "PostReduce", inlined_at=call))
    assert source_position(ins, "k.ptx") == ("k.cu", 1966, 9)
    assert reported_location(ins.loc) is call


def test_a_located_instruction_keeps_its_own_line():
    ins = _at(SourceLocation("k.cu", 1606, 5, "PostReduce", inlined_at=SourceLocation("k.cu", 1966, 9)))
    assert source_position(ins, "k.ptx") == ("k.cu", 1606, 5)


def test_line_zero_with_no_call_site_falls_back_to_the_ptx_line():
    assert source_position(_at(SourceLocation("k.cu", 0, 0)), "k.ptx") == ("k.ptx", 68356, 1)
    assert source_position(_at(None), "k.ptx") == ("k.ptx", 68356, 1)
