"""SASS-level shared-memory costs against the team's H100 table, per SASS instruction
(validation/reference/h100_smem_per_sass_instruction.txt): every kernel, the two whose loads
ptxas merges into LDS.128 (t48, t49) and the shared atomics included."""

import json
import re

import pytest

from sass_support import needs_tools, reference_sass_text
from support import VALIDATION, run_cli
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.sass_accesses import match_sass_accesses
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.frontend.sass.parser import parse_sass

REFERENCE = VALIDATION / "reference"
PTX = REFERENCE / "smem_patterns_h100.sm_90.ptx"


def _blocks():
    lines = (REFERENCE / "h100_smem_kernels.tsv").read_text().splitlines()[2:]
    return {p[0]: tuple(int(x) for x in p[1].strip("()").split(",")) for p in (ln.split("\t") for ln in lines)}


def _measured():
    rows = {}
    for line in (REFERENCE / "h100_smem_per_sass_instruction.txt").read_text().splitlines():
        m = re.match(r"(\S+)\s+(.*?)\s+inst=\d+\s+size=(\d+)\s+nway=\d+\s+wf=(\d+)\s+ideal=(\d+)", line)
        rows.setdefault(m.group(1), []).append((" ".join(m.group(2).split()), int(m.group(3)), int(m.group(4)),
                                                 int(m.group(5))))
    return rows


BLOCKS, MEASURED = _blocks(), _measured()


@pytest.fixture(scope="module")
def predicted():
    """Per kernel: (SASS text, bits, wavefronts, ideal) of each shared access, from the committed
    SASS of the measured build (no tools needed)."""
    module = parse_ptx_file(str(PTX))
    sass = parse_sass(reference_sass_text(), "smem_patterns_h100.sm_90.sass")
    out = {}
    for name in MEASURED:
        f = next(f for f in module.kernels if name in f.name)
        ctx = KernelContext(module, f, AnalysisOptions(block_overrides=[(None, BLOCKS[name], "reference")]))
        out[name] = match_sass_accesses(ctx, sass.function(f.name))
    return out


def test_every_sass_instruction_of_every_kernel_matches(predicted):
    assert len(MEASURED) == 51
    wrong = {}
    for name, rows in MEASURED.items():
        got = [(" ".join(a.instruction.text.split()), a.bits, a.wavefronts, a.ideal) for a in predicted[name]]
        if got != rows:
            wrong[name] = (rows, got)
    assert not wrong, wrong


def test_merged_loads_are_read_from_the_sass(predicted):
    t48 = [a for a in predicted["t48_loop4"] if a.kind == "load"]
    assert len(t48) == 1 and t48[0].how == "merged" and len(t48[0].ptx) == 4
    assert (t48[0].instruction.opcode, t48[0].wavefronts) == ("LDS.128", 256)
    merged = [a for a in predicted["t49_matmul_tile"] if a.how == "merged"]
    assert [a.instruction.text.split(", ")[1] for a in merged] == ["[R23]", "[R23+0x10]", "[R23+0x20]", "[R23+0x30]"]
    assert all(a.wavefronts == 16 and len(a.ptx) == 4 for a in merged)


def test_shared_atomics(predicted):
    atomics = {n: [a for a in predicted[n] if a.kind == "atomic"] for n in ("t43_atom_distinct", "t44_atom_same",
                                                                          "t45_atom_bank0")}
    assert {n: [(a.instruction.base, a.wavefronts) for a in v] for n, v in atomics.items()} == {
        "t43_atom_distinct": [("ATOMS", 8)], "t44_atom_same": [("ATOMS", 8)], "t45_atom_bank0": [("ATOMS", 256)]}
    assert atomics["t44_atom_same"][0].instruction.guard == "P0"  # ptxas elects one lane per warp


@needs_tools
def test_accesses_level_sass_json_on_the_reference():
    proc = run_cli("accesses", "--level", "sass", "--format", "json", "--block", "256", "--kernel", "*t48_loop4*", PTX)
    assert proc.returncode == 0, proc.stderr
    (kernel,) = json.loads(proc.stdout)["kernels"]
    loads = [a for a in kernel["accesses"] if a["op"] == "load"]
    assert len(loads) == 1
    load = loads[0]
    assert load["sass"] == "LDS.128 R8, [R4+UR4]" and load["bits"] == 128 and load["match"] == "merged"
    assert load["wavefronts"] == 256 and load["ideal"] == 32 and len(load["ptx_lines"]) == 4
    assert load["line"] == 153 and isinstance(load["sass_offset"], int)
    assert sum(a["wavefronts"] for a in kernel["accesses"] if a["op"] == "store") == 128
