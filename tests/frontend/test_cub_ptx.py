"""A freshly generated ~5 MB CUB PTX (radix sort, reduce, scan over several types) parses with
zero errors, keeps every instruction, and every rule runs on every kernel of it."""

import json

from support import run_cli
from test_parser import line_level_instruction_counts
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules.registry import all_rules


def test_fresh_cub_ptx_parses_completely(cub_ptx):
    assert cub_ptx.stat().st_size > 4_000_000
    module = parse_ptx_file(str(cub_ptx))
    got = {f.name: len(f.instructions) for f in module.functions if f.has_body}
    assert got == line_level_instruction_counts(cub_ptx.read_text())
    assert len(module.kernels) >= 40


def test_every_rule_runs_on_every_cub_kernel(cub_ptx):
    r = run_cli("check", "--no-cache", "--toolkit-headers", "--format", "json", cub_ptx)
    report = json.loads(r.stdout)
    assert report["errors"] == [], report["errors"]  # an internal error in a rule would be reported here
    assert r.returncode == (1 if report["diagnostics"] else 0)
    codes = {rule.code for rule in all_rules()}
    assert all(d["code"] in codes and d["kernel"] for d in report["diagnostics"])
