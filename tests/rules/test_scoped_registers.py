"""Registers declared in a nested PTX scope shadow the function's until the scope closes (test11's
triage, ACSpGEMM's merge kernels: nvcc's `__syncthreads_or` declares its own %p1 and %p2, and the
kernel's `threadIdx.x != 0` in %p2 guards the code after it). Hand-written PTX after nvcc's code."""

import json
from pathlib import Path

from ptxlint.frontend.ir import Register
from ptxlint.frontend.parser import parse_ptx_file
from support import run_cli

PTX = Path(__file__).with_name("data") / "scoped_registers.ptx"


def _race_kernels() -> set:
    r = run_cli("check", "--no-cache", "--isolated", "--block", "128", "--select", "RACE,WARP", "--format", "json", PTX)
    assert r.returncode in (0, 1), r.stderr
    return {d["kernel"] for d in json.loads(r.stdout)["diagnostics"]}


def test_a_guard_after_a_scope_reads_the_functions_register():
    kernel = next(f for f in parse_ptx_file(str(PTX)).functions if f.name == "ok_thread0_guard_after_vote")
    vote = next(i for i in kernel.instructions if i.opcode.startswith("bar.red"))
    branch = next(i for i in kernel.instructions if i.op == "bra" and i.guard is not None)
    assert branch.guard == Register("%p2") and vote.operands[0] != Register("%p2")


def test_only_thread_0_updates_the_word_after_the_vote():
    assert "ok_thread0_guard_after_vote" not in _race_kernels()


def test_a_register_the_scope_does_not_declare_is_the_functions():
    assert "bad_vote_register_not_shadowed" in _race_kernels()
