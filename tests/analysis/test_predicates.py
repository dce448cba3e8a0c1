"""Three-valued predicates per thread, warp-uniform values, and the pure functions behind them."""

import pytest

from ptxlint.analysis import predicates as P
from ptxlint.analysis import symbolic as S
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.uniformity import BLOCK, WARP
from ptxlint.analysis.warpops import shuffle_source
from ptxlint.frontend.ir import Register
from ptxlint.frontend.parser import parse_ptx

HEADER = """
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 k_in, .param .u32 k_n)
{
    .reg .pred %p<24>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 s[1024];
    ld.param.u64 %rd1, [k_in];
    ld.param.u32 %r1, [k_n];
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r3, [%rd3];          // per-thread data
    mov.u32 %r5, %ctaid.x;              // the same unknown in every thread of the block
    setp.gt.u32 %p1, %r2, 31;           // known: warps 1..
    setp.lt.s32 %p2, %r3, %r1;          // unknown in every thread
"""


def evaluate(body: str, block=(64, 1, 1)):
    module = parse_ptx(HEADER + body + "\n    ret;\n}\n", "k.ptx")
    ctx = KernelContext(module, module.functions[0], AnalysisOptions(block_overrides=[(None, block, "test")]))
    last = ctx.function.instructions[-1]

    def truth(name):
        """Per thread: True, False or None (unknown)."""
        return [P.known_truth(v) for v in ctx.lanes.register(last, Register(name))]

    return ctx, truth


def per_warp(values):
    """The distinct values of each warp, in order."""
    return [sorted(set(values[w:w + 32]), key=str) for w in range(0, len(values), 32)]


def test_or_with_a_side_known_true_is_true_and_with_one_known_false_unknown():
    _, truth = evaluate("    or.pred %p3, %p1, %p2;")
    assert per_warp(truth("%p3")) == [[None], [True]]


def test_and_with_a_side_known_false_is_false():
    _, truth = evaluate("    and.pred %p3, %p1, %p2;")
    assert per_warp(truth("%p3")) == [[False], [None]]


def test_xor_and_not_with_a_known_side():
    _, truth = evaluate("""
    xor.pred %p3, %p1, %p1;
    not.pred %p4, %p1;
    xor.pred %p5, %p2, %p1;""")
    assert per_warp(truth("%p3")) == [[False], [False]]
    assert per_warp(truth("%p4")) == [[True], [False]]
    assert per_warp(truth("%p5")) == [[None], [None]]


def test_setp_with_a_combiner_and_both_outputs():
    """setp.lt.and d, a, b, c: d = (a < b) and c; setp.lt.or d|e: e = !(a < b) or c."""
    _, truth = evaluate("""
    setp.lt.and.s32 %p3, %r3, %r1, %p1;
    setp.lt.or.s32 %p4|%p5, %r3, %r1, %p1;
    setp.lt.and.s32 %p6, %r3, %r1, !%p1;""")
    assert per_warp(truth("%p3")) == [[False], [None]]
    assert per_warp(truth("%p4")) == [[None], [True]]
    assert per_warp(truth("%p5")) == [[None], [True]]
    assert per_warp(truth("%p6")) == [[None], [False]]


def test_a_guard_that_is_false_for_a_thread_keeps_it_out():
    ctx, _ = evaluate("""
    or.pred %p3, %p1, %p2;
    @!%p3 st.shared.u32 [s], %r2;
    @%p3 st.shared.u32 [s+4], %r2;""")
    first, second = [i for i in ctx.function.instructions if i.op == "st"]
    assert per_warp(ctx.lanes.active(first)) == [[None], [False]]
    assert per_warp(ctx.lanes.active(second)) == [[None], [True]]


def test_complementary_compares_of_one_unknown_are_one_predicate_and_its_complement():
    ctx, truth = evaluate("""
    setp.lt.s32 %p3, %r5, %r1;
    setp.ge.s32 %p4, %r5, %r1;
    setp.gt.s32 %p5, %r1, %r5;
    and.pred %p6, %p3, %p4;
    or.pred %p7, %p3, %p4;
    xor.pred %p8, %p3, %p5;""")
    last = ctx.function.instructions[-1]
    p3, p4 = (ctx.lanes.register(last, Register(r))[0] for r in ("%p3", "%p4"))
    assert p3[1] and P.complementary(p3, p4)
    assert set(truth("%p6")) == {False} and set(truth("%p7")) == {True}
    assert set(truth("%p8")) == {False}  # n > x is x < n
    assert P.contradict({P.literal(p3, True)}, {P.literal(p4, True)})
    assert not P.contradict({P.literal(p3, True)}, {P.literal(p4, False)})


def test_a_bool_stored_as_an_integer_is_read_back_as_the_predicate():
    """nvcc's `bool`: selp 1, 0, p then setp.ne r, 0; and `t >= 32 || x` lowered to or.b16."""
    _, truth = evaluate("""
    setp.lt.s32 %p3, %r5, %r1;
    selp.u32 %r6, 1, 0, %p3;
    setp.ne.s32 %p4, %r6, 0;
    setp.eq.s32 %p5, %r6, 0;
    xor.pred %p6, %p3, %p4;
    and.pred %p7, %p3, %p5;
    selp.u32 %r7, 1, 0, %p1;
    shr.u32 %r8, %r3, 31;
    or.b32 %r9, %r8, %r7;
    setp.ne.s32 %p8, %r9, 0;""")
    assert set(truth("%p6")) == {False} and set(truth("%p7")) == {False}
    assert per_warp(truth("%p8")) == [[None], [True]]


def test_shuffles_follow_the_lane_arithmetic():
    ctx, _ = evaluate("""
    shfl.sync.idx.b32 %r6, %r2, 0, 31, -1;
    shfl.sync.bfly.b32 %r7, %r2, 1, 31, -1;
    shfl.sync.down.b32 %r8|%p3, %r2, 16, 31, -1;
    shfl.sync.idx.b32 %r9, %r2, 0, 4127, -1;
    shfl.sync.idx.b32 %r10, %r3, 0, 31, -1;""")
    last = ctx.function.instructions[-1]

    def values(name):
        return [v[0] if S.is_known(v) else v for v in ctx.lanes.register(last, Register(name))]

    assert values("%r6") == [0] * 32 + [32] * 32
    assert values("%r7") == [t ^ 1 for t in range(64)]
    assert values("%r8") == [t + 16 if t % 32 < 16 else t for t in range(64)]
    assert [v[0] for v in ctx.lanes.register(last, Register("%p3"))] == [int(t % 32 < 16) for t in range(64)]
    assert values("%r9") == [t - t % 16 for t in range(64)]  # width 16: one source per half warp
    loaded = ctx.lanes.register(last, Register("%r10"))  # data: unknown, but one value per warp
    assert len(set(loaded[:32])) == 1 and len(set(loaded[32:])) == 1 and loaded[0] != loaded[32]


@pytest.mark.parametrize("body, level", [
    ("shfl.sync.idx.b32 %r6|%p3, %r3, 0, 31, -1;", BLOCK),        # __shfl_sync(m, v, 0)
    ("shfl.sync.idx.b32 %r6|%p3, %r3, 0, 4127, -1;", WARP),       # width 16: per half warp
    ("shfl.sync.idx.b32 %r6|%p3, %r3, %r2, 31, -1;", WARP),       # a lane-dependent source lane
    ("shfl.sync.down.b32 %r6|%p3, %r3, 1, 31, -1;", WARP),
    ("match.all.sync.b32 %r6|%p3, %r3, -1;", BLOCK),
    ("vote.sync.ballot.b32 %r6, %p2, -1;", BLOCK),
    ("redux.sync.add.s32 %r6, %r3, -1;", BLOCK),
])
def test_warp_uniform_results_of_lane_dependent_inputs(body, level):
    ctx, _ = evaluate("    " + body + "\n    setp.gt.s32 %p4, %r6, 0;\n    @%p4 bra L1;\n    bar.sync 0;\nL1:")
    u = ctx.uniformity
    (branch,) = [b for b in u._branches]
    assert u.branch_level(branch) == level


def test_a_warp_uniform_branch_in_a_one_warp_block_is_block_uniform():
    ctx, _ = evaluate("""
    shfl.sync.idx.b32 %r6, %r3, 0, 31, -1;
    setp.gt.s32 %p4, %r6, 0;
    @%p4 bra L1;
    bar.sync 0;
L1:""", block=(32, 1, 1))
    (branch,) = list(ctx.uniformity._branches)
    assert ctx.uniformity.branch_level(branch) < BLOCK


def test_the_in_range_predicate_of_a_shuffle_does_not_taint_its_value():
    """`%r6|%p3`: the predicate differs between lanes, the broadcast value does not."""
    ctx, _ = evaluate("""
    shfl.sync.idx.b32 %r6|%p3, %r3, 0, 31, -1;
    setp.gt.s32 %p4, %r6, 0;
    and.pred %p5, %p4, %p3;""")
    u = ctx.uniformity
    last = ctx.function.instructions[-1]
    assert u.level(last, "%p4") == BLOCK and u.level(last, "%p3") == WARP


@pytest.mark.parametrize("mode, lane, b, c, expected", [
    ("idx", 5, 0, 0x1F, (0, True)),
    ("idx", 21, 3, 0x101F, (19, True)),   # width 16: lane 3 of the upper half
    ("down", 30, 4, 0x1F, (30, False)),   # out of range: keeps its own value
    ("up", 2, 4, 0, (2, False)),
    ("up", 9, 4, 0, (5, True)),
    ("bfly", 6, 1, 0x1F, (7, True)),
])
def test_shuffle_source_lanes(mode, lane, b, c, expected):
    assert shuffle_source(mode, lane, b, c) == expected


def test_three_valued_logic_tables():
    u = (0, (("s", 1),))
    opaque = lambda key: (0, (("k" + str(abs(hash(key)) % 1000), 1),))  # noqa: E731
    assert P.p_or(P.TRUE, u, opaque) == P.TRUE and P.p_and(P.FALSE, u, opaque) == P.FALSE
    assert P.p_or(P.FALSE, u, opaque) == u and P.p_and(P.TRUE, u, opaque) == u
    assert P.p_not(P.p_not(u)) == u and P.p_xor(P.TRUE, u, opaque) == P.p_not(u)
    assert P.known_truth(P.p_and(u, P.p_not(u), opaque)) is False


def test_a_load_in_a_followed_loop_is_a_new_unknown_in_each_iteration():
    """The same address does not mean the same value from one iteration to the next (a ring buffer's
    head read each round): two iterations' addresses built on it are not known to be equal."""
    ctx, _ = evaluate("""
    mov.u32 %r10, 0;
L0:
    ld.shared.u32 %r11, [s];
    shl.b32 %r13, %r2, 2;
    add.s32 %r12, %r11, %r13;
    st.shared.u32 [%r12], %r2;
    add.s32 %r10, %r10, 1;
    setp.lt.u32 %p3, %r10, 4;
    @%p3 bra L0;""")
    store = next(i for i in ctx.function.instructions if i.op == "st")
    header = ctx.function.block_of(store).id
    (body,) = [b for h, b in ctx.cfg.loops if h == header]
    iterations = ctx.loop_iterations(header, body)
    assert iterations.count == 4
    first, second = (ev.address(store) for ev in iterations.evaluators[:2])
    assert first[0][1] and first[0][1] != second[0][1]
    assert [c for c, _ in first] == [4 * t for t in range(64)]  # within one iteration: known apart
