"""SYNC/RACE/WARP/FENCE/CONST/SHFL findings on the project's samples: exactly the expected ones, in every
committed PTX build of each sample (sm_75 to sm_100a, and the -G debug build).

Block shapes come from the `// ptxlint-block: XxY` comment above each kernel (the shape it is written
for, README), so that kernels without an expected finding are checked with their real shape too.
"""

import json
import re

import pytest

from support import SAMPLES
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file

EXPECTED = json.loads((SAMPLES / "EXPECTED.json").read_text())
FAMILIES = ("SYNC", "RACE", "WARP", "FENCE", "CONST", "SHFL")
_BLOCK = re.compile(r"//\s*ptxlint-block:\s*(\d+)x(\d+)(?:x(\d+))?")
_KERNEL = re.compile(r"__global__\s+\w+\s+(?:__\w+__\([^)]*\)\s+)*(\w+)\s*\(")  # past __launch_bounds__(..)


def declared_blocks(source: str) -> list:
    """[(kernel glob, dims, origin)] from `// ptxlint-block:` comments in a sample."""
    out, pending = [], None
    for line in (SAMPLES / source).read_text().splitlines():
        m = _BLOCK.search(line)
        if m:
            pending = tuple(int(g or 1) for g in m.groups())
            continue
        k = _KERNEL.search(line)
        if k and pending:
            out.append((k.group(1), pending, f"{source} ptxlint-block"))
            out.append((f"{k.group(1)}<*>", pending, f"{source} ptxlint-block"))
            pending = None
    return out


def findings(source: str, ptx: str = None) -> list:
    module = parse_ptx_file(str(SAMPLES / (ptx or source.replace(".cu", ".sm_90.ptx"))))
    options = CheckOptions(select=list(FAMILIES), analysis=AnalysisOptions(block_overrides=declared_blocks(source)))
    return check_module(module, options)


# Every committed PTX of every sample: sm_75/sm_80/sm_90/sm_90a/sm_100a builds and the -G debug build
PTX_FILES = sorted(p.name for p in SAMPLES.glob("*.ptx"))


def test_every_sample_has_its_ptx():
    assert {name.split(".")[0] + ".cu" for name in PTX_FILES} == set(EXPECTED)
    assert len(PTX_FILES) > len(EXPECTED) and "reduce_warp_tail.sm_90.G.ptx" in PTX_FILES


@pytest.mark.parametrize("ptx", PTX_FILES, ids=str)
def test_sample_findings(ptx):
    source = ptx.split(".")[0] + ".cu"
    found = findings(source, ptx)
    got = sorted({(d.kernel, d.code, d.line) for d in found if d.code != "WARP001"})
    want = sorted((e["entry"], e["code"], e["line"]) for e in EXPECTED[source]
                  if e["code"].startswith(FAMILIES) and e["code"] != "WARP001")
    assert got == want
    # WARP001: EXPECTED.json names the first access of the warp tail, labels.json (validation/sync) the
    # later access of the first racing pair; ptxlint follows labels.json and lists every line involved
    warp = [(d.kernel, d.data["lines"]) for d in found if d.code == "WARP001"]
    want_warp = [(e["entry"], e["line"]) for e in EXPECTED[source] if e["code"] == "WARP001"]
    assert len(warp) == len(want_warp)
    for (kernel, line), (got_kernel, lines) in zip(sorted(want_warp), sorted(warp)):
        assert kernel == got_kernel and line in lines


def test_declared_shapes_are_found():
    blocks = dict((g, d) for g, d, _ in declared_blocks("ldmatrix_mma.cu"))
    assert blocks["mmaTile<*>"] == (32, 1, 1)


def test_correct_seed_kernels_are_clean():
    """The false-positive check of the issue: reduction, transpose and stencil samples."""
    for source in ("reduce_smem.cu", "transpose.cu", "stencil_const.cu", "fence_last_block.cu", "smem_race.cu"):
        bad = {e["entry"] for e in EXPECTED[source] if e["code"].startswith(FAMILIES)}
        assert [d for d in findings(source) if d.kernel not in bad] == [], source


def test_warp_tail_finding_names_lanes_and_the_tail_lines():
    (d,) = [d for d in findings("reduce_warp_tail.cu") if d.code == "WARP001"]
    assert d.line == 27 and 26 in d.data["lines"]
    t1, t2 = d.data["threads"]
    assert t1 // 32 == t2 // 32 and t1 != t2
    assert "volatile" in " ".join(d.notes)


def test_early_exit_and_divergent_barrier_are_told_apart():
    codes = {(d.kernel, d.code) for d in findings("barriers.cu")}
    assert ("_Z11halfBarrierPi", "SYNC001") in codes
    assert ("_Z16earlyExitBarrierPKfPfi", "SYNC002") in codes


def test_the_command_line_reports_exactly_the_expected_findings_on_every_sample_ptx():
    """`ptxlint check` itself (one process, every committed sample PTX, the shapes from the samples'
    configuration): all rule families, BANK included, equal EXPECTED.json."""
    from support import run_cli

    # no --block: samples/.ptxlint.toml gives every kernel its declared shape
    proc = run_cli("check", "--no-cache", "--format", "json", *(SAMPLES / name for name in PTX_FILES))
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["errors"] == []
    by_ptx = {}
    for d in doc["diagnostics"]:
        # a finding at one place in several of these PTX files is reported once, naming each of them
        for ptx_path in [i["ptx_path"] for i in d["data"].get("inputs", ())] or [d["ptx_path"]]:
            by_ptx.setdefault(ptx_path.rsplit("/", 1)[-1], []).append(d)
    for ptx in PTX_FILES:
        got = by_ptx.get(ptx, [])
        want = EXPECTED[ptx.split(".")[0] + ".cu"]
        assert len(got) == len(want), (ptx, [(d["code"], d["line"]) for d in got])
        for e in want:
            assert any(d["code"] == e["code"] and d["kernel"] == e["entry"] and
                       (d["line"] == e["line"] or e["line"] in d["data"].get("lines", ())) for d in got), (ptx, e)


def test_the_samples_configuration_gives_each_kernel_its_declared_shape():
    from ptxlint.config import config_for

    config = config_for(str(SAMPLES / "transpose.sm_90.ptx"))
    configured = {glob: tuple(dims) for glob, dims, _ in config.blocks}
    for source in EXPECTED:
        for glob, dims, _ in declared_blocks(source):
            if not glob.endswith("<*>"):  # the configuration names a template's instances `name<*>`
                assert configured.get(glob, configured.get(f"{glob}<*>")) == dims, (source, glob)
