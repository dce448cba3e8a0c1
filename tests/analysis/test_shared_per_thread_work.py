"""Work the per-lane evaluator now shares between threads gives each thread the value the per-thread
definition gives (issue 19): sums whose two unknown parts come in either order (an xor-butterfly
step `v + shfl_xor(v, m)` gives lanes l and l ^ m the same pair) or in equal terms of other objects,
trip counts after a loop worked out per class of threads, per-thread comparison unknowns made
inline, the unknowns a shuffle of per-thread data hands on, and the per-thread origin walk of
guard_origin, which now remembers every symbol a walk showed to lead to no per-thread unknown.
On whole kernels, every register's value and the symbols named, in their order, are those of the
per-thread loops the shared work replaced."""

import random
from types import SimpleNamespace

import pytest

from support import REPO
from ptxlint.analysis import symbolic as S
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.guard_origin import GuardOrigins
from ptxlint.analysis import predicates as P
from ptxlint.analysis.lane_values import Varying, as_affine
from ptxlint.analysis.launch import BlockShape, UNKNOWN_SOURCE
from ptxlint.analysis.lanes import LaneEvaluator
from ptxlint.frontend.ir import Register
from ptxlint.frontend.parser import parse_ptx_file


def _per_thread_sum(fold, x, y, sign: int, bits: int, signed: bool) -> list:
    """`_sum`'s definition, thread by thread (what `_lift` computes)."""
    return [S.wrap(fold(S.add(a, S.scale(b, sign))), bits, signed) for a, b in zip(x, y)]


def _butterfly_vector(rng, n: int) -> list:
    """Per-thread values with their own unknowns, some shared between threads (as after a step)."""
    parts = [tuple(sorted({(f"v{rng.randint(0, 9)}#{rng.randint(0, 40)}", rng.choice((1, 2, -1)))
                           for _ in range(rng.randint(0, 4))}, key=lambda t: t[0])) for _ in range(6)]
    parts = [tuple(dict(p).items()) for p in parts]  # one coefficient per symbol
    return [(rng.randint(-5, 5), parts[rng.randrange(len(parts))] if rng.random() < 0.5
             else ((f"w#{t}", 1),)) for t in range(n)]


@pytest.mark.parametrize("seed", range(30))
def test_a_sum_of_unknown_parts_in_either_order_is_the_per_thread_sum(seed):
    rng = random.Random(seed)
    fake = SimpleNamespace(fold_rotations=lambda v: v)
    for _ in range(20):
        n = rng.choice((32, 64, 96))
        x = _butterfly_vector(rng, n)
        k = 1 << rng.randint(0, 4)
        # the partner lane's own value (shared objects), or an unrelated vector
        y = [x[t ^ k] for t in range(n)] if rng.random() < 0.7 else _butterfly_vector(rng, n)
        for sign in (1, -1):
            for bits, signed in ((32, False), (32, True), (64, True)):
                got = LaneEvaluator._sum(fake, x, y, sign, bits, signed)
                assert got == _per_thread_sum(fake.fold_rotations, x, y, sign, bits, signed)


# kernels with xor-butterfly reductions over per-thread data
BUTTERFLY_KERNELS = ["tests/rules/data/xor_reductions_uniform.sm_90.ptx", "tests/rules/data/warp_uniform.sm_90.ptx",
                     "tests/rules/data/uniform_values.sm_90.ptx"]


@pytest.mark.parametrize("path", BUTTERFLY_KERNELS)
def test_every_add_of_a_kernel_is_the_per_thread_sum(path):
    module = parse_ptx_file(str(REPO / path))
    compared = 0
    for function in module.functions:
        if not function.is_kernel:
            continue
        ctx = KernelContext(module, function, AnalysisOptions(), BlockShape((128, 1, 1), UNKNOWN_SOURCE, assumed=True))
        lanes = ctx.lanes
        for ins in function.instructions:
            if ins.op not in ("add", "sub") or len(ins.operands) != 3 or not isinstance(ins.operands[0], Register):
                continue
            x, y = lanes.operand(ins, ins.operands[1]), lanes.operand(ins, ins.operands[2])
            if type(x) is Varying or type(y) is Varying:
                continue
            sign = -1 if ins.op == "sub" else 1
            bits = int("".join(c for c in ins.type if c.isdigit()) or 32)
            signed = ins.type.startswith("s")
            got = lanes._sum(x, y, sign, bits, signed)
            assert list(got) == _per_thread_sum(lanes.fold_rotations, x, y, sign, bits, signed)
            compared += 1
    assert compared, "no add over per-thread values: the kernels no longer test the sum"


def test_the_unknowns_of_per_thread_data_are_the_same_read_all_at_once():
    data = Varying("v7", 96)
    assert list(data) == [data[t] for t in range(96)]


class _Keys:
    """A symbol table of opaque unknowns made from one another, some from per-thread ones."""

    def __init__(self, rng) -> None:
        self.table = S.SymbolTable()
        self.names = []
        for k in range(40):
            inputs = rng.sample(self.names, min(len(self.names), rng.randint(0, 3)))
            parts = tuple((name, rng.randint(1, 3)) for name in inputs)
            if rng.random() < 0.15:
                parts += ((f"v{k}#{rng.randint(0, 31)}", 1),)  # data loaded per thread
            if rng.random() < 0.05:
                self.names.append(self.table.symbol(("fresh", k), "per thread", uniform=False))
                continue
            self.names.append(self.table.symbol(("opaque", ("op", k, parts)), "computed", uniform=True))


@pytest.mark.parametrize("seed", range(30))
def test_remembering_what_a_walk_went_through_keeps_every_answer(seed):
    rng = random.Random(seed)
    keys = _Keys(rng)
    shared = GuardOrigins(None)
    order = list(keys.names)
    rng.shuffle(order)
    answers = set()
    for name in order:
        alone = GuardOrigins(None)._symbol_per_thread(keys.table, name)
        assert shared._symbol_per_thread(keys.table, name) == alone
        answers.add(alone)
    assert answers == {True, False}, "every symbol answers alike: the table tests no walk"


def _reference_sum(original):
    """`_sum` as the per-thread loop it replaced: every thread's sum, in thread order."""
    def per_thread(self, x, y, sign, bits, signed):
        if type(x) is Varying or type(y) is Varying or all(v.count(v[0]) == len(v) for v in (x, y)):
            return original(self, x, y, sign, bits, signed)  # paths this change left alone
        return _per_thread_sum(self.fold_rotations, x, y, sign, bits, signed)
    return per_thread


def _reference_trip_counts(self, header, within, symbol, rows):
    """`_with_trip_counts` as the per-thread loop it replaced."""
    out = []
    for t, value in enumerate(within):
        coefficient = dict(value[1]).get(symbol)
        if coefficient is None:
            return None
        trips = self._opaque(("trips", header, rows[t]))
        rest_terms = tuple(term for term in value[1] if term[0] != symbol)
        out.append(S.add((value[0], rest_terms), S.scale(trips, coefficient)))
    return as_affine(out) or out


def _reference_canonical(self, form, va, vb):
    """`_canonical_per_thread` for operands whose difference differs per thread, as the per-thread
    calls it replaced."""
    ta, tb = va.terms, vb.terms
    if form[0] == "lt" and len(set(va.consts)) > 1 and len({x - y for x, y in zip(va.consts, vb.consts)}) == 1:
        return ORIGINAL_CANONICAL(self, form, va, vb)
    memo_key = ("canonical", form, ta, tb, tuple(va.consts), tuple(vb.consts))
    out = self._opaque_vectors.get(memo_key)
    if out is None:
        out = [self._boolean_opaque(P.canonical_key(form, (x, ta), (y, tb))) for x, y in zip(va.consts, vb.consts)]
        if form[2]:
            out = [P.p_not(v) for v in out]
        self._opaque_vectors[memo_key] = out
    return out


ORIGINAL_CANONICAL = LaneEvaluator._canonical_per_thread

# kernels whose evaluation goes through sums of per-thread unknowns, trip counts per class of
# threads (loops left in different iterations) and per-thread comparisons
WHOLE_KERNELS = ["tests/rules/data/uniform_values.sm_90.ptx", "tests/rules/data/carved_shared_flow.sm_90.ptx",
                 "tests/rules/data/fence_claims.sm_90.ptx", "tests/rules/data/xor_reductions_uniform.sm_90.ptx",
                 "tests/rules/data/grid_stride_condition.sm_90.ptx"]


def _evaluate_everything(path: str, dims: tuple) -> list:
    """Every source register's per-thread values and every instruction's activity, kernel by
    kernel, then the symbols the evaluator named, in the order it named them."""
    module = parse_ptx_file(str(REPO / path))
    found = []
    for function in module.functions:
        if not function.is_kernel:
            continue
        ctx = KernelContext(module, function, AnalysisOptions(), BlockShape(dims, UNKNOWN_SOURCE, assumed=True))
        lanes = ctx.lanes
        for ins in function.instructions:
            found.append(list(lanes.active(ins)))
            for reg in ins.sources():
                found.append(list(lanes.register(ins, reg)))
        found.append(list(lanes.table._by_key.items()))
    return found


@pytest.mark.parametrize("path", WHOLE_KERNELS)
@pytest.mark.parametrize("dims", [(128, 1, 1), (32, 4, 1)])
def test_whole_kernels_evaluate_as_the_per_thread_loops_did(path, dims, monkeypatch):
    shared = _evaluate_everything(path, dims)
    monkeypatch.setattr(LaneEvaluator, "_sum", _reference_sum(LaneEvaluator._sum))
    monkeypatch.setattr(LaneEvaluator, "_with_trip_counts", _reference_trip_counts)
    monkeypatch.setattr(LaneEvaluator, "_canonical_per_thread", _reference_canonical)
    assert shared == _evaluate_everything(path, dims)


def _bare_evaluator() -> LaneEvaluator:
    """An evaluator with only a symbol table: enough for `_opaque`."""
    evaluator = LaneEvaluator.__new__(LaneEvaluator)
    evaluator.table = S.SymbolTable()
    return evaluator


@pytest.mark.parametrize("seed", range(30))
def test_trip_counts_per_class_of_threads_are_the_per_thread_ones(seed):
    rng = random.Random(seed)
    for _ in range(20):
        n = rng.choice((32, 64, 128))
        symbol = "u0"
        # unknown parts in the loop: the induction unknown and a few others, some threads without it
        terms = [((symbol, rng.choice((1, 4, -2))),) + extra for extra in ((), (("u3", 1),), (("v5#1", 2),))]
        if rng.random() < 0.2:
            terms.append((("u3", 1),))  # a thread whose value does not hold the induction unknown
        within = [(rng.randint(-8, 8), rng.choice(terms)) for _ in range(n)]
        rows = [((rng.randint(0, 2), ()), (0, ((f"p{rng.randint(0, 2)}", 1),))) for _ in range(n)]
        shared, alone = _bare_evaluator(), _bare_evaluator()
        got = shared._with_trip_counts(7, within, symbol, rows)
        want = _reference_trip_counts(alone, 7, within, symbol, rows)
        assert (list(got) if got is not None else None) == (list(want) if want is not None else None)
        assert list(shared.table._by_key.items()) == list(alone.table._by_key.items())
