"""The CFG's own dominator computation agrees with networkx's on every function of the committed
PTX (networkx is a test dependency: ptxlint itself does not import it, to save its 0.1 s import)."""

import networkx as nx

from support import committed_ptx_files
from ptxlint.analysis.cfg import ENTRY, EXIT, ControlFlowGraph
from ptxlint.frontend.parser import parse_ptx_file


def test_dominators_match_networkx():
    checked = 0
    for path in committed_ptx_files():
        for function in parse_ptx_file(str(path)).functions:
            if not function.has_body:
                continue
            cfg = ControlFlowGraph(function)
            g = nx.DiGraph()
            g.add_nodes_from(cfg.graph.nodes)
            g.add_edges_from(cfg.graph.edges())
            assert list(g.edges) == cfg.graph.edges()
            for node in g.nodes:
                assert list(g.predecessors(node)) == list(cfg.graph.predecessors(node))
            expected = nx.immediate_dominators(g, ENTRY)
            expected.pop(ENTRY, None)  # older networkx maps the start to itself
            assert cfg.dominators == expected
            expected = nx.immediate_dominators(g.reverse(copy=False), EXIT)
            expected.pop(EXIT, None)
            assert cfg.postdominators == expected
            checked += 1
    assert checked > 100
