"""One place, one finding over the whole run (issue 20, item 3): the same rule at the same source
line of the same kernel, found in several inputs (a `.cu` and the `.ptx` committed beside it for
several architectures), is reported once in every output format, saying where it holds."""

import json
import shutil

import pytest

from support import REPO, run_cli

RACE = ["samples/smem_race.sm_80.ptx", "samples/smem_race.sm_90.ptx"]


def check(*args):
    return run_cli("check", "--no-cache", *args, cwd=REPO)


def test_one_race_in_two_architectures_is_one_finding_naming_both():
    r = check("--format", "json", *RACE)
    (race,) = json.loads(r.stdout)["diagnostics"]
    assert (race["code"], race["path"], race["line"]) == ("RACE001", "samples/smem_race.cu", 13)
    assert race["data"]["arches"] == ["sm_80", "sm_90"]
    assert [i["input"] for i in race["data"]["inputs"]] == RACE
    assert race["notes"][-1] == "found in samples/smem_race.sm_80.ptx (sm_80), samples/smem_race.sm_90.ptx (sm_90)"


@pytest.mark.parametrize("fmt, count", [
    ("concise", lambda out: sum(l.startswith("samples/smem_race.cu:13:5: RACE001") for l in out.splitlines())),
    ("text", lambda out: sum(l.startswith("samples/smem_race.cu:13:5: RACE001") for l in out.splitlines())),
    ("github", lambda out: out.count("title=RACE001::")),
    ("sarif", lambda out: len(json.loads(out)["runs"][0]["results"])),
])
def test_every_format_shows_the_merged_finding_once(fmt, count):
    r = check("--format", fmt, *RACE)
    assert r.returncode == 1
    assert count(r.stdout) == 1


def test_text_says_which_architectures_and_inputs():
    r = check(*RACE)
    assert "        = assumed block 256x1x1 (samples/.ptxlint.toml [block]); sm_80, sm_90" in r.stdout
    assert "        = found in samples/smem_race.sm_80.ptx, samples/smem_race.sm_90.ptx" in r.stdout
    assert r.stdout.count("Found 1 finding.") == 1


def test_a_load_and_a_store_on_one_line_stay_two_findings():
    # reduce_smem.cu:18 `sdata[index] += sdata[index + s]` conflicts on its load and on its store:
    # two findings in each input, two findings in all (not one, not four)
    r = check("--format", "json", "samples/reduce_smem.sm_80.ptx", "samples/reduce_smem.sm_90.ptx")
    found = json.loads(r.stdout)["diagnostics"]
    assert [(d["code"], d["line"], "store" in d["message"]) for d in found] == [
        ("BANK001", 18, False), ("BANK001", 18, True)]
    assert all(d["data"]["arches"] == ["sm_80", "sm_90"] for d in found)


def test_findings_of_different_lines_are_not_merged():
    r = check("--format", "json", "samples/smem_row_col.sm_90.ptx", "samples/smem_race.sm_90.ptx")
    found = json.loads(r.stdout)["diagnostics"]
    assert len(found) == 5 and not any("inputs" in d["data"] for d in found)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the .cu is compiled")
def test_a_cu_and_the_ptx_whose_file_names_it_merge():
    r = check("--format", "json", "samples/barriers.cu", "samples/barriers.sm_80.ptx")
    found = json.loads(r.stdout)["diagnostics"]
    assert [(d["code"], d["line"]) for d in found] == [("SYNC001", 30), ("SYNC002", 44)]
    for d in found:
        assert [i["input"] for i in d["data"]["inputs"]] == ["samples/barriers.cu", "samples/barriers.sm_80.ptx"]
        assert d["data"]["arches"] == ["sm_80", "sm_90"]
