"""Conditions that are the same in every lane of a warp (or every thread of a block) although they
are computed from the thread index: comparisons against a multiple of a stride, `n - n % d`, PTX's
`WARP_SZ`, a loop counter stepped by `mad`."""

import itertools

import pytest

from ptxlint.analysis import predicates as P
from ptxlint.analysis import symbolic as S
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.uniformity import BLOCK, CTA, WARP
from ptxlint.frontend.ir import Register
from ptxlint.frontend.parser import parse_ptx


# ---- strided_compare: exact on every value the unknowns may take (8-bit registers, exhaustively)

def _concrete(value, env):
    return value[0] + sum(c * env[s] for s, c in value[1])


def _as(value, bits, signed):
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >> (bits - 1) else value


_DIRECT = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
           "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}


def _truth(result, env, bits):
    """The truth of strided_compare's answer: a constant, or canonical comparisons (and complements)
    evaluated on the registers' wrapped values."""
    if S.is_known(result):
        return bool(result[0])
    total = result[0]
    for sym, coef in result[1]:
        kind, base, width, x, y = env["keys"][sym]
        width = int(width)
        signed = base == "lt"
        a, b = _as(_concrete(x, env), width, signed), _as(_concrete(y, env), width, signed)
        total += coef * int(a < b if base in ("lt", "lo") else a == b)
    return bool(total)


@pytest.mark.parametrize("type_name", ["u8", "s8"])
@pytest.mark.parametrize("cmp", sorted(_DIRECT))
def test_strided_compare_agrees_with_the_machine_on_every_value(type_name, cmp):
    bits, signed = 8, type_name.startswith("s")
    keys = {}

    def opaque(key):
        name = f"k{len(keys)}"
        keys.setdefault(name, key)
        found = next(n for n, k in keys.items() if k == key)
        return (0, ((found, 1),))

    cases = [((c, (("u", 4),)), (d, (("w", 8),))) for c, d in itertools.product(range(-6, 7), range(-5, 9, 3))]
    cases += [((c, (("u", 16),)), (d, ())) for c in range(0, 20, 3) for d in (32, 33, 47)]
    for x, y in cases:
        result = P.strided_compare(cmp, type_name, x, y, opaque)
        assert result is not None
        for u, w in itertools.product(range(0, 64, 5), range(0, 32, 3)):
            env = {"u": u, "w": w, "keys": keys}
            want = _DIRECT[cmp](_as(_concrete(x, env), bits, signed), _as(_concrete(y, env), bits, signed))
            assert _truth(result, env, bits) == want, (cmp, x, y, u, w)


def test_threads_whose_known_parts_share_a_quotient_get_one_unknown():
    seen = {}

    def opaque(key):
        return (0, ((seen.setdefault(key, f"k{len(seen)}"), 1),))

    # i = tid + 128*k against 128*n: the same for tid in 0..127; tid 128 is a different comparison
    results = [P.strided_compare("lt", "u32", (t, (("k", 128),)), (0, (("n", 128),)), opaque) for t in range(129)]
    assert len(set(results[:128])) == 1 and results[128] != results[0]
    assert P.strided_compare("lt", "u32", (5, (("k", 1),)), (0, (("n", 1),)), opaque) is None  # no stride
    assert P.strided_compare("lt", "f32", (5, (("k", 4),)), (0, ()), opaque) is None


# ---- the evaluator and the uniformity of branches

HEADER = """
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 k_in, .param .u32 k_n)
{
    .reg .pred %p<24>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [k_in];
    ld.param.u32 %r1, [k_n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %nctaid.x;
"""


def branch_levels(body: str, block=(128, 1, 1)) -> list:
    module = parse_ptx(HEADER + body + "\n    ret;\n}\n", "k.ptx")
    ctx = KernelContext(module, module.functions[0], AnalysisOptions(block_overrides=[(None, block, "test")]))
    u = ctx.uniformity
    return [u.branch_level(b) for b in sorted(u._branches)], ctx


def test_warp_sz_is_the_warp_size():
    """`threadIdx.x / warpSize` reads PTX's WARP_SZ: the warp index, one value per warp."""
    levels, ctx = branch_levels("""
    mov.u32 %r6, WARP_SZ;
    div.u32 %r7, %r2, %r6;
    setp.ge.u32 %p1, %r7, %r1;
    @%p1 bra L1;
    bar.sync 0;
L1:""")
    assert levels == [BLOCK]
    last = ctx.function.instructions[-1]
    assert [v[0] for v in ctx.lanes.register(last, Register("%r7"))] == [t // 32 for t in range(128)]


@pytest.mark.parametrize("block, level", [((128, 1, 1), CTA), ((96, 1, 1), BLOCK), ((100, 1, 1), WARP)])
def test_a_bound_rounded_down_to_the_block_size(block, level):
    """`i < n - n % blockDim.x` (nvcc's `n / blockDim.x * blockDim.x`) with i = tid + k * blockDim.x:
    every thread decides alike when blockDim.x is a power of two; 96 = 3 * 32 leaves warps apart;
    100 threads split a warp."""
    levels, _ = branch_levels("""
    rem.u32 %r6, %r1, %r3;
    sub.s32 %r7, %r1, %r6;
    mov.u32 %r8, %r2;
L0:
    setp.ge.u32 %p1, %r8, %r7;
    @%p1 bra L1;
    bar.sync 0;
    add.s32 %r8, %r8, %r3;
    bra.uni L0;
L1:""", block)
    assert levels == [level]


def test_a_loop_counter_stepped_by_mad_keeps_its_per_warp_start():
    """for (row = blockIdx.x * 4 + warp; row < n; row += gridDim.x * 4): `mad.lo row, a, b, row`."""
    levels, _ = branch_levels("""
    shr.u32 %r6, %r2, 5;
    mad.lo.s32 %r7, %r4, 4, %r6;
    shl.b32 %r9, %r5, 2;
L0:
    setp.ge.s32 %p1, %r7, %r1;
    @%p1 bra L1;
    bar.sync 0;
    mad.lo.s32 %r7, %r9, 1, %r7;
    bra.uni L0;
L1:""")
    assert levels == [BLOCK]


def test_a_loop_counter_tested_through_its_copy():
    """for (t = 0; t <= warp; t++) as nvcc writes it when the body has a loop of its own: `add next,
    t, 1; setp.lt p, t, warp; mov t, next`: the counter is the iteration number in every thread."""
    levels, _ = branch_levels("""
    shr.u32 %r6, %r2, 5;
    mov.u32 %r7, 0;
L0:
    bar.sync 0;
    add.s32 %r8, %r7, 1;
    setp.lt.s32 %p1, %r7, %r6;
    mov.u32 %r7, %r8;
    @%p1 bra L0;""")
    assert levels == [BLOCK]
