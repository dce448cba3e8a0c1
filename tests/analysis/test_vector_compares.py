"""The per-vector and per-class forms that replaced per-thread loops (issue 19) give the answers of
the loops they replaced: invariance of a lane vector under a bit of the thread index (strided
slices), a vector the same in every thread, and the first pair of threads of neighbouring blocks
that RACE003 reports across blocks (classes of threads, not pairs of threads)."""

import random
from types import SimpleNamespace

import pytest

from ptxlint.analysis import symbolic as S
from ptxlint.analysis.lane_values import Affine, equal_under_bit
from ptxlint.analysis.predicates import contradict
from ptxlint.rules.race_global import _PairTest, _equal_across_blocks


def _per_thread_invariant(values, bit: int) -> bool:
    n, step = len(values), 1 << bit
    return all(values[t] == values[t ^ step] for t in range(n) if t ^ step < n)


@pytest.mark.parametrize("seed", range(40))
def test_invariance_under_a_bit_is_the_per_thread_definition(seed):
    rng = random.Random(seed)
    for _ in range(50):
        n = rng.randint(1, 130)
        consts = [rng.randint(0, 3) for _ in range(n)]
        folded = rng.randint(0, 7)  # make some vectors invariant under one bit
        consts = [consts[t & ~(1 << folded)] for t in range(n)] if rng.random() < 0.6 else consts
        vector = Affine(consts, (("u0", 1),))
        mixed = [(c, (("u1", 1),) if c % 2 else ()) for c in consts]
        for bit in range(8):
            assert equal_under_bit(vector, bit) == _per_thread_invariant(vector, bit)
            assert equal_under_bit(mixed, bit) == _per_thread_invariant(mixed, bit)


def test_a_vector_is_uniform_exactly_when_every_thread_holds_the_same_value():
    assert S.uniform_across(Affine([3] * 64, (("u0", 2),)))
    assert not S.uniform_across(Affine([3] * 63 + [4], (("u0", 2),)))
    assert S.uniform_across(Affine([], ()))


class _Terms:
    """The few answers of race_global._Terms the pairing asks: which literals pin a block, which
    values move with blockIdx, and the split of unknown terms (none move with blockIdx here)."""

    def __init__(self, pinned, moving) -> None:
        self.pinned, self.moving = pinned, moving

    def pins_block(self, literal) -> bool:
        return literal[0][1][0][0] in self.pinned

    def moves_with_block(self, value) -> bool:
        return value[1][0][0] in self.moving

    def split(self, terms):
        return {}, terms


def _nested_loop_pair(terms, ea, eb, values, ta, tb, dim, delta):
    """The loop the classes replaced: every t1 of ta against every t2 of tb, the first that counts."""
    def literals(ev, t):
        return list(ev.conditions[t]) if t in ev.unsure else []

    for t1 in ta:
        for t2 in tb:
            if ea.unsure or eb.unsure:
                if t1 in ea.undecided or t2 in eb.undecided:
                    continue
                la, lb = literals(ea, t1), literals(eb, t2)
                if any(terms.pins_block(lit) for lit in la + lb):
                    continue
                if contradict([lit for lit in la if not terms.moves_with_block(lit[0])],
                              [lit for lit in lb if not terms.moves_with_block(lit[0])]):
                    continue
            if values is not None and _equal_across_blocks(terms, values[0][t1], values[1][t2], dim, delta):
                continue
            return t1, t2
    return None


def _evaluation(rng, n, symbols):
    unsure = frozenset(t for t in range(n) if rng.random() < 0.7)
    conditions = [[((0, ((rng.choice(symbols), 1),)), rng.random() < 0.5) for _ in range(rng.randint(0, 2))]
                  for _ in range(n)]
    undecided = frozenset(t for t in unsure if rng.random() < 0.1)
    return SimpleNamespace(unsure=unsure, undecided=undecided, conditions=conditions)


@pytest.mark.parametrize("seed", range(60))
def test_pairing_by_classes_finds_the_pair_the_nested_loop_found(seed):
    rng = random.Random(seed)
    symbols = ["u0", "u1", "u2", "u3"]
    terms = _Terms(pinned=set(rng.sample(symbols, rng.randint(0, 1))), moving=set(rng.sample(symbols, 1)))
    n = rng.randint(1, 48)
    ea, eb = _evaluation(rng, n, symbols), _evaluation(rng, n, symbols)
    values = None
    if rng.random() < 0.5:
        values = tuple([((rng.randint(0, 2), ()),) for _ in range(n)] for _ in range(2))
    test = _PairTest(terms, ea, eb, *(values or (None, None)))
    for _ in range(5):
        ta = sorted(rng.sample(range(n), rng.randint(1, n)))
        tb = sorted(rng.sample(range(n), rng.randint(1, n)))
        dim, delta = "x", rng.choice((None, 1, -1))
        assert test.first_pair(ta, tb, dim, delta) == _nested_loop_pair(terms, ea, eb, values, ta, tb, dim, delta)
