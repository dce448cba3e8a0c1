"""The linear-time structures that replaced quadratic walks (issue 12) give the answers of the
simple algorithms they replaced: dominators (Lengauer-Tarjan vs the Cooper-Harvey-Kennedy
iteration), dominance queries (tree intervals vs walking up the tree), and the branches a definition
depends on and its use does not (control-dependence tree vs whole closures)."""

import random

import pytest

import ptx_generators
from support import committed_ptx_files
from ptxlint.analysis.cfg import (
    ENTRY, EXIT, ControlFlowGraph, _above_in_tree, _immediate_dominators, _immediate_dominators_iterative,
)
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.uniformity import _ancestors_below_common
from ptxlint.frontend.parser import parse_ptx, parse_ptx_file


def _modules():
    yield from (parse_ptx_file(str(f)) for f in committed_ptx_files()[:30])
    yield parse_ptx(ptx_generators.early_exits(40))
    yield parse_ptx(ptx_generators.nested_loops(3, 2))
    yield parse_ptx(ptx_generators.chain(30))


@pytest.fixture(scope="module")
def functions():
    return [(m, f) for m in _modules() for f in m.functions if f.has_body]


def test_dominators_and_dominance_queries_agree_with_the_simple_algorithms(functions):
    for _, fn in functions:
        cfg = ControlFlowGraph(fn)
        g = cfg.graph
        assert cfg.dominators == _immediate_dominators_iterative(g.succ, g.pred, ENTRY)
        assert cfg.postdominators == _immediate_dominators_iterative(g.pred, g.succ, EXIT)
        nodes = list(g.nodes)
        for a in nodes:
            for b in nodes:
                assert cfg.dominates(a, b) == _above_in_tree(cfg.dominators, a, b)
                assert cfg.postdominates(a, b) == _above_in_tree(cfg.postdominators, a, b)


@pytest.mark.parametrize("seed", range(200))
def test_dominators_of_random_graphs(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 40)
    succ = {i: {} for i in range(n)}
    pred = {i: {} for i in range(n)}
    for _ in range(rng.randint(1, 3 * n)):
        a, b = rng.randrange(n), rng.randrange(n)
        succ[a][b] = pred[b][a] = {}
    assert _immediate_dominators(succ, pred, 0) == _immediate_dominators_iterative(succ, pred, 0)


def test_sync_branches_from_the_control_tree_match_the_closures(functions):
    checked = 0
    for module, fn in functions:
        u = KernelContext(module, fn, AnalysisOptions()).uniformity
        tree = u._control_tree()
        if tree is None:
            continue
        blocks = [b.id for b in fn.blocks]
        for a in blocks:
            for b in blocks:
                assert set(_ancestors_below_common(tree, a, b)) == u.controls(a) - u.controls(b)
                checked += 1
    assert checked > 1000
