"""The recall suite (validation/recall/): racy and race-free kernel pairs, checked as a user runs
ptxlint (no --block, no launch in the files), so every finding must hold for the block shapes the
kernel admits. Prints recall and false alarms; the acceptance is every `bad_*` kernel reported with
a race finding (RACE*, WARP*) and no correctness finding in any `ok_*` kernel."""

import json
import re

import pytest

from support import VALIDATION, run_cli

HERE = VALIDATION / "recall"
SOURCES = sorted(HERE.glob("*.cu"))
# the comment block right above a kernel's definition (or its explicit template instantiation)
_LABELLED = re.compile(r"((?://[^\n]*\n)+)(?:extern \"C\" __global__ void|template __global__ void) ((?:bad|ok)_\w+)[(<]")
RACE_FAMILIES = ("RACE", "WARP")
CORRECTNESS_FAMILIES = ("RACE", "WARP", "SYNC", "SHFL", "FENCE")

# Racy kernels the engine does not report yet, and race-free kernels it reports: each entry is a
# class of issue 17 still open. The test fails when an entry is fixed, so the lists only shrink.
KNOWN_MISSED: set = set()
KNOWN_FALSE_ALARMS: set = set()


def _labels() -> dict:
    """kernel name -> (label comment, source file)."""
    out = {}
    for source in SOURCES:
        for comment, name in _LABELLED.findall(source.read_text()):
            assert name not in out, f"{name} defined twice"
            out[name] = (comment, source)
    return out


LABELS = _labels()


def _plain_name(kernel: str) -> str:
    """`_Z20bad_stencil_templateILi32EEvPfPKf` -> `bad_stencil_template`; extern "C" names unchanged."""
    m = re.match(r"_Z(\d+)", kernel)
    return kernel[m.end():m.end() + int(m.group(1))] if m else kernel


@pytest.fixture(scope="module")
def findings() -> dict:
    """kernel name -> codes of its findings, from one `ptxlint check` per committed PTX file."""
    out: dict = {name: [] for name in LABELS}
    for source in SOURCES:
        ptx = source.with_suffix(".sm_90.ptx")
        proc = run_cli("check", "--no-cache", "--format", "json", ptx)
        assert proc.returncode in (0, 1), proc.stderr
        for d in json.loads(proc.stdout)["diagnostics"]:
            out.setdefault(_plain_name(d["kernel"]), []).append(d["code"])
    return out


def test_at_least_forty_pairs_each_labelled_by_the_memory_model():
    bad = {n[4:] for n in LABELS if n.startswith("bad_")}
    ok = {n[3:] for n in LABELS if n.startswith("ok_")}
    assert len(bad) >= 40 and bad == ok, sorted(bad ^ ok)
    for name, (comment, _) in LABELS.items():
        assert comment.lstrip("/ ").startswith(name.split("_")[0]), name
    # shared and global memory, and warp-synchronous code on both
    text = {s.name: s.read_text() for s in SOURCES}
    assert "__shared__" in text["shared.cu"] and "__shared__" not in text["global.cu"]
    assert "__syncwarp" in text["warp.cu"]


def test_no_launch_in_the_suite():
    for source in SOURCES:
        assert "<<<" not in source.read_text(), source.name


def test_recall_and_false_alarms(findings):
    reported = {n for n, codes in findings.items() if any(c.startswith(RACE_FAMILIES) for c in codes)}
    alarmed = {n for n, codes in findings.items() if any(c.startswith(CORRECTNESS_FAMILIES) for c in codes)}
    racy = {n for n in LABELS if n.startswith("bad_")}
    free = {n for n in LABELS if n.startswith("ok_")}
    missed, false_alarms = racy - reported, free & alarmed
    print(f"\nrecall suite, no --block: {len(racy & reported)}/{len(racy)} racy kernels reported, "
          f"{len(false_alarms)}/{len(free)} race-free kernels reported")
    print("missed:", ", ".join(sorted(missed)) or "none")
    print("false alarms:", ", ".join(sorted(false_alarms)) or "none")
    assert missed == KNOWN_MISSED, (sorted(missed - KNOWN_MISSED), sorted(KNOWN_MISSED - missed))
    assert false_alarms == KNOWN_FALSE_ALARMS, (sorted(false_alarms - KNOWN_FALSE_ALARMS),
                                                sorted(KNOWN_FALSE_ALARMS - false_alarms))


RACECHECK = json.loads((HERE / "racecheck.json").read_text())
# racecheck does not see these races in the recorded run (README.md says why); the label stands
RACECHECK_BLIND = {"bad_reset_and_atomic", "bad_grid_stride_tiles"}


def test_the_device_run_covers_the_suite_and_agrees_where_racecheck_sees_memory():
    records = {k["kernel"]: k for k in RACECHECK["kernels"]}
    assert set(records) == set(LABELS)
    assert "H100" in RACECHECK["gpu"] and all(k["plain_run_completed"] for k in records.values())
    disagree = {n for n, k in records.items() if k["racecheck_applies"] and not k["racecheck_agrees"]}
    assert disagree == RACECHECK_BLIND
    # same-value stores are no hazard to racecheck either; different values are
    assert records["ok_flag_value"]["racecheck"]["errors"] == 0 < records["bad_flag_value"]["racecheck"]["errors"]
