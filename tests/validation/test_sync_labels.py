"""ptxlint's correctness rules against the labelled suite in validation/sync/ (H100 ground truth).

Every bad_* kernel must be flagged with its expected code at its expected `.cu` line, and no ok_*
kernel may get a SYNC/RACE/WARP/FENCE/CONST/SHFL finding. The labels say where compute-sanitizer is
silent although the code is wrong by the CUDA programming / PTX memory model; ptxlint is tested
against the model.
"""

import json
import re
import subprocess
import sys

import pytest

from support import VALIDATION
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file

SUITE = VALIDATION / "sync"
LABELS = json.loads((SUITE / "labels.json").read_text())
KERNELS = {k["name"]: k for k in LABELS["kernels"]}
FAMILIES = ["SYNC", "RACE", "WARP", "FENCE", "CONST", "SHFL"]

# Labels not met yet, with the reason (xfail only while they fail: a fix makes them pass).
KNOWN_GAPS: dict = {}  # none left: cluster.sync() positions needed the frontend's full inlined_at chain (b2be157)


@pytest.fixture(scope="module")
def findings():
    module = parse_ptx_file(str(SUITE / "labelled.sm_90.ptx"))
    blocks = [(k["name"], tuple(k["block"]), "labels.json") for k in LABELS["kernels"]]
    options = CheckOptions(select=FAMILIES, analysis=AnalysisOptions(block_overrides=blocks))
    by_kernel: dict = {}
    for d in check_module(module, options):
        by_kernel.setdefault(d.kernel, []).append(d)
    return by_kernel


def test_suite_is_large_and_names_its_hardware():
    assert len(KERNELS) >= 30
    assert "H100" in LABELS["gpu"] and LABELS["compute_sanitizer"]
    assert sum(name.startswith("ok_") for name in KERNELS) >= 15
    assert all(name.startswith(("bad_", "ok_")) for name in KERNELS)


def test_labels_are_the_markers_in_the_source():
    """Every bad_ kernel carries at least one `// EXPECT CODE` marker, no ok_ kernel does, and labels.json
    holds exactly the markers of labelled.cu (so no label was dropped from the test's input)."""
    for name, kernel in KERNELS.items():
        assert bool(kernel["expected"]) == name.startswith("bad_"), name
    source = (SUITE / "labelled.cu").read_text().splitlines()
    markers = {(m.group(1), n) for n, line in enumerate(source, 1)
               for m in [re.search(r"//\s*EXPECT\s+([A-Z]+[0-9]{3})\b", line)] if m}
    labelled = {(e["code"], e["cu_line"]) for k in KERNELS.values() for e in k["expected"]}
    assert markers == labelled


def test_labels_json_is_what_collect_py_makes_of_the_raw_sanitizer_logs(tmp_path):
    out = tmp_path / "labels.json"
    subprocess.run([sys.executable, str(SUITE / "collect.py"), "-o", str(out)], cwd=SUITE, check=True,
                   capture_output=True)
    assert json.loads(out.read_text()) == LABELS


@pytest.mark.parametrize("name", sorted(n for n in KERNELS if n.startswith("bad_")))
def test_bad_kernel_is_flagged_with_its_code_at_its_line(name, findings):
    got = {(d.code, d.line) for d in findings.get(name, [])}
    want = {(e["code"], e["cu_line"]) for e in KERNELS[name]["expected"]}
    if name in KNOWN_GAPS and not want <= got:
        pytest.xfail(KNOWN_GAPS[name])
    assert want <= got, f"{name}: expected {sorted(want)}, got {sorted(got)}"
    # nothing from another family on a kernel labelled for one defect, and no extra line of its own
    assert {c for c, _ in got} <= {c for c, _ in want}, sorted(got)
    assert got == want, f"{name}: findings beyond the labels: {sorted(got - want)}"


@pytest.mark.parametrize("name", sorted(n for n in KERNELS if n.startswith("ok_")))
def test_ok_kernel_is_clean(name, findings):
    assert [f"{d.code} line {d.line}: {d.message}" for d in findings.get(name, [])] == []


def test_cluster_sync_through_cooperative_groups_headers(findings):
    """cluster.sync() is inlined through two cooperative_groups headers: findings land on the user's calls."""
    found = [d for d in findings.get("bad_cluster_sync_divergent", []) if d.code == "SYNC004"]
    assert len(found) == 2 and all("line 358" in d.message for d in found)
    assert sorted(d.line for d in found) == [359, 362]


def test_findings_explain_themselves(findings):
    (sync,) = [d for d in findings["bad_syncthreads_lane_lt16"]]
    assert "the branch at line 58" in sync.message and "%tid.x" in sync.message
    assert any("block 64x1x1 (labels.json)" in n for n in sync.notes)
    (race,) = [d for d in findings["bad_race_raw_neighbor"] if d.code == "RACE001"]
    assert race.data["hazard"] == "RAW" and {388, 389} & set(race.data["lines"])
    t1, t2 = race.data["threads"]
    assert t1 // 32 != t2 // 32
    assert any(f"thread {t1} " in n and f"thread {t2} " in n for n in race.notes)
    (const,) = findings["bad_const_lane_indexed"]
    assert "32 distinct addresses per warp" in const.message and "H100" in " ".join(const.notes)
    (tidy,) = findings["bad_syncthreads_branch_tidy"]
    assert "%tid.y" in tidy.message and "warps of the block" in " ".join(tidy.notes)


def test_sanitizer_silence_is_recorded_where_the_model_is_the_judge():
    silent = [k["name"] for k in LABELS["kernels"] if k["name"].startswith("bad_") and not k["sanitizer_sees_it"]]
    # SYNC00x (but the if/else case), SHFL, FENCE, CONST: judged by the programming / memory model
    assert "bad_early_return_syncthreads" in silent and "bad_last_block_no_acquire" in silent
    assert "bad_divergent_ifelse_syncthreads" not in silent


def test_every_family_names_its_evidence(findings):
    """Which branch and which thread-dependent value (SYNC, SHFL); which pair of lanes (WARP); which store
    and which publication or observation (FENCE)."""
    (ret,) = findings["bad_early_return_syncthreads"]
    assert "early return (line 232)" in ret.message and "%tid.x" in ret.message
    arrive, wait = sorted(findings["bad_cluster_arrive_rank0_only"], key=lambda d: d.line)
    assert all("the branch at line 372" in d.message and "%cluster_ctarank" in d.message for d in (arrive, wait))
    (aligned,) = findings["bad_aligned_named_barrier_half_warp"]
    assert "part of a warp" in aligned.message and "the branch at line 273" in aligned.message
    (warp,) = findings["bad_warp_scratch_reverse_no_syncwarp"]
    t1, t2 = warp.data["threads"]
    assert t1 // 32 == t2 // 32 and t1 != t2
    assert any(f"thread {t1} " in n and f"thread {t2} " in n and "`scratch`" in n for n in warp.notes)
    (publish,) = findings["bad_flag_publish_no_fence"]
    assert "the global store at line 680" in publish.message and "line 682" in " ".join(publish.notes)
    (consume,) = findings["bad_flag_consumer_no_fence"]
    assert "after observing the flag read at line 703" in consume.message
    (shfl,) = findings["bad_shfl_full_mask_in_lane_branch"]
    assert "lanes 16..31 of warp 0 do not execute it" in shfl.message and "the branch at line 809" in shfl.message
    (width,) = findings["bad_shfl_width_12"]
    assert "width 12" in width.message and "not a power of two" in width.message
    assert all(d.fix for ds in findings.values() for d in ds)
