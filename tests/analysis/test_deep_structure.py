"""Program structure as deep as the kernel is long (definition chains, thousands of early exits,
inlining chains, call chains) is walked without recursion; a kernel that needs more than its
analysis budget is reported as incomplete (a note on its findings, a line and a count in the
summary and the JSON), never left to hang the run (issue 12)."""

import json
import time

import pytest

import ptx_generators as gen
from support import SAMPLES, run_cli
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx


@pytest.mark.parametrize("make, size", [
    (gen.deep_chain, 5000),        # 5000 definitions, each from the one before
    (gen.early_exits, 1500),       # block activity through 1500 exits
    (gen.inlined_chain, 5000),     # one .loc inlined 5000 deep
    (gen.call_chain, 1000),        # a barrier 1000 calls down
    (gen.predicated_writes, 200),  # one register written under a guard 200 times in one block
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_deep_structure_is_analysed_completely(make, size):
    incomplete = []
    found = check_module(parse_ptx(make(size), "deep.ptx"), jobs=1, incomplete=incomplete)
    assert incomplete == []
    if make is gen.call_chain:
        # the barrier at the bottom of the calls, under a thread-dependent branch
        assert [d.code for d in found] == ["SYNC001"] and "`f0`" in found[0].message


def test_the_deep_chain_is_followed_to_its_end():
    # 5000 additions of 4 to threadIdx.x*4, masked by 4092: each thread's address is known exactly
    from ptxlint.analysis.context import KernelContext

    n = 5000
    module = parse_ptx(gen.deep_chain(n), "deep.ptx")
    ctx = KernelContext(module, module.functions[0], AnalysisOptions())
    store = next(i for i in module.functions[0].instructions if i.op == "st")
    address = ctx.lanes.address(store)
    assert len(address.terms) == 1  # the shared array's base, nothing unknown
    assert list(address.consts) == [(4 * t + 4 * n) & 4092 for t in range(256)]


def test_an_exhausted_budget_is_an_incomplete_note_not_a_hang():
    text = gen.predicated_writes(3000)  # quadratic in its writes: far more than 0.5 s
    incomplete = []
    start = time.process_time()
    check_module(parse_ptx(text, "slow.ptx"), CheckOptions(analysis=AnalysisOptions(budget=0.5)), jobs=1,
                 incomplete=incomplete)
    assert time.process_time() - start < 10
    [stopped] = incomplete
    assert stopped["kernel"] == "predicated_writes" and "0.5 s" in stopped["reason"]
    assert stopped["skipped_rules"]  # the rules that had not finished


def test_incomplete_kernels_in_the_cli_and_the_config(tmp_path):
    slow = tmp_path / "slow.ptx"
    slow.write_text(gen.predicated_writes(3000))
    good = tmp_path / "good.ptx"
    good.write_text((SAMPLES / "reduce_warp_tail.sm_90.ptx").read_text())
    text = run_cli("check", "--no-cache", "--analysis-budget", "0.5", slow, good, cwd=tmp_path)
    assert "Traceback" not in text.stderr
    assert f"{slow}:5: note: kernel predicated_writes not fully analysed: incomplete: the analysis budget of 0.5 s" \
        in text.stdout
    assert "; 1 kernel not fully analysed" in text.stdout.splitlines()[-1]
    doc = json.loads(run_cli("check", "--no-cache", "--analysis-budget", "0.5", "--format", "json", slow,
                             cwd=tmp_path).stdout)
    assert [s["kernel"] for s in doc["incomplete"]] == ["predicated_writes"]
    # the same budget from the configuration; the command line wins over it
    (tmp_path / ".ptxlint.toml").write_text("analysis-budget = 0.5\n")
    assert "not fully analysed" in run_cli("check", "--no-cache", "slow.ptx", cwd=tmp_path).stdout
    (tmp_path / ".ptxlint.toml").write_text("analysis-budget = -1\n")
    bad = run_cli("check", "--no-cache", "slow.ptx", cwd=tmp_path)
    assert bad.returncode == 2 and "analysis-budget" in bad.stdout + bad.stderr
