"""Which atomics leave memory as it was, and so are reads (uniformity.py): add, or, xor of 0; and of
all ones (in the instruction's width); a compare-and-swap that swaps in the value it compares with.
A fuzzed `atom.and` once crashed this test of the width: every form is parsed from PTX text here."""

import pytest

from ptxlint.analysis.uniformity import _leaves_memory_unchanged
from ptxlint.frontend.parser import parse_ptx

MODULE = """
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 k_p)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [k_p];
    mov.u32 %r2, 5;
    {atomic}
    ret;
}}
"""


def _atomic(text: str):
    fn = parse_ptx(MODULE.format(atomic=text), "k.ptx").functions[0]
    return next(i for i in fn.instructions if i.op == "atom")


@pytest.mark.parametrize("text", [
    "atom.global.add.u32 %r1, [%rd1], 0;",
    "atom.global.or.b32 %r1, [%rd1], 0;",
    "atom.global.xor.b32 %r1, [%rd1], 0;",
    "atom.global.and.b32 %r1, [%rd1], -1;",
    "atom.global.and.b32 %r1, [%rd1], 0xffffffff;",
    "atom.global.cas.b32 %r1, [%rd1], %r2, %r2;",
])
def test_an_atomic_that_writes_back_what_it_read_is_a_read(text):
    assert _leaves_memory_unchanged(_atomic(text))


@pytest.mark.parametrize("text", [
    "atom.global.add.u32 %r1, [%rd1], 1;",
    "atom.global.and.b32 %r1, [%rd1], 0xffff;",
    "atom.global.exch.b32 %r1, [%rd1], 0;",
    "atom.global.cas.b32 %r1, [%rd1], %r2, 0;",
    "atom.global.add.u32 %r1, [%rd1], %r2;",
])
def test_an_atomic_that_may_change_memory_is_not(text):
    assert not _leaves_memory_unchanged(_atomic(text))
