"""Output formats: text, concise, json, sarif (validated against the official schema), github."""

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import BARRIER_CU

SCHEMA = Path(__file__).with_name("data") / "sarif-schema-2.1.0.json"


@pytest.fixture
def bad_kernel(project):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH: the bad kernel is a .cu file")
    project.write("kernels/transpose.cu", BARRIER_CU)
    return project


def test_text_shows_location_source_line_caret_and_notes_without_colour_when_piped(bad_kernel):
    r = bad_kernel.run("check", "--select", "TEST", "--no-cache", "kernels/transpose.cu")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[0].startswith("kernels/transpose.cu:4:5: TEST001 barrier in ")
    assert lines[1] == "      4 |     __syncthreads();"
    assert lines[2] == "        |     ^"
    assert lines[3] == "        = test rule: every barrier is flagged"
    assert lines[-1] == "Found 2 findings."
    assert "\x1b[" not in r.stdout


def test_concise_is_one_line_per_finding(bad_kernel):
    r = bad_kernel.run("check", "--select", "TEST", "--no-cache", "--format", "concise", "kernels/transpose.cu")
    assert r.stdout.splitlines()[:2] == [
        l for l in r.stdout.splitlines() if l.startswith("kernels/transpose.cu:")
    ]
    assert [l.split(" ")[0] for l in r.stdout.splitlines()[:2]] == ["kernels/transpose.cu:4:5:", "kernels/transpose.cu:6:5:"]


def test_sarif_validates_against_the_official_schema_and_points_at_the_cu(bad_kernel):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra")
    out = bad_kernel.root / "out.sarif"
    r = bad_kernel.run("check", "--select", "TEST", "--no-cache", "--format", "sarif", "--output", out, "kernels/transpose.cu")
    assert r.returncode == 1 and r.stdout == ""
    log = json.loads(out.read_text())
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validators.validator_for(schema)(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    run = log["runs"][0]
    [rule] = run["tool"]["driver"]["rules"]
    assert rule["id"] == "TEST001" and rule["name"] == "test-barrier"
    assert "## Why is this bad?" in rule["help"]["markdown"]
    results = run["results"]
    locs = [res["locations"][0]["physicalLocation"] for res in results]
    assert [(l["artifactLocation"]["uri"], l["region"]["startLine"]) for l in locs] == [
        ("kernels/transpose.cu", 4), ("kernels/transpose.cu", 6)]
    prints = [res["partialFingerprints"]["ptxlintFingerprint/v1"] for res in results]
    assert len(set(prints)) == 2


def test_sarif_fingerprint_survives_lines_added_above(bad_kernel):
    def prints():
        r = bad_kernel.run("check", "--select", "TEST", "--no-cache", "--format", "sarif", "kernels/transpose.cu")
        return [res["partialFingerprints"]["ptxlintFingerprint/v1"] for res in json.loads(r.stdout)["runs"][0]["results"]]

    before = prints()
    path = bad_kernel.root / "kernels/transpose.cu"
    path.write_text("// a new comment\n\n" + path.read_text())
    assert prints() == before


def test_sarif_input_errors_are_tool_notifications_and_still_valid(project):
    jsonschema = pytest.importorskip("jsonschema")
    project.write("bad.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k( {\n")
    r = project.run("check", "--no-cache", "--format", "sarif", "bad.ptx", "missing.ptx")
    assert r.returncode == 2
    log = json.loads(r.stdout)
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    inv = log["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False and len(inv["toolExecutionNotifications"]) == 2


def test_github_workflow_commands(bad_kernel):
    r = bad_kernel.run("check", "--select", "TEST", "--no-cache", "--format", "github", "kernels/transpose.cu")
    first = r.stdout.splitlines()[0]
    assert first.startswith("::warning file=kernels/transpose.cu,line=4,col=5,title=TEST001::barrier in ")
    assert "%0Atest rule: every barrier is flagged" in first


def test_github_escapes_properties(project):
    from ptxlint.api import FileResult
    from ptxlint.diagnostics import Diagnostic
    from ptxlint.report import github

    d = Diagnostic("X001", "info", "100% bad\nreally", "a,b:c.cu", 1, 2)
    assert github.render([FileResult("a", [d])]) == "::notice file=a%2Cb%3Ac.cu,line=1,col=2,title=X001::100%25 bad%0Areally\n"


def test_statistics_counts_per_rule(bad_kernel):
    r = bad_kernel.run("check", "--select", "TEST", "--no-cache", "--statistics", "kernels/transpose.cu")
    assert r.stdout.splitlines() == ["    2  TEST001   test-barrier", "Found 2 findings."]


def test_json_output_to_a_file(bad_kernel):
    r = bad_kernel.run("check", "--select", "TEST", "--no-cache", "--format", "json", "-o", "r.json", "kernels/transpose.cu")
    assert r.returncode == 1
    doc = json.loads((bad_kernel.root / "r.json").read_text())
    assert [d["line"] for d in doc["diagnostics"]] == [4, 6] and doc["errors"] == []


def test_rule_command_prints_docs_and_rejects_unknown_codes(project):
    r = project.run("rule", "TEST001")
    assert r.returncode == 0 and "## What it does" in r.stdout and "## Use instead" in r.stdout
    assert "TEST001" in project.run("rule", "--all").stdout
    assert "| TEST001 | test-barrier | warning |" in project.run("rule", "--table").stdout
    bad = project.run("rule", "NOPE999")
    assert bad.returncode == 2 and "unknown rule 'NOPE999'" in bad.stderr
    bad = project.run("check", "--select", "NOPE", "x.ptx")
    assert bad.returncode == 2 and "unknown rule code or prefix 'NOPE'" in bad.stderr


def test_sarif_of_every_real_rule_family_validates(project):
    """The real rules' findings (notes, fixes, relatedness), not only the test rule, make valid SARIF."""
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra")
    repo = Path(__file__).resolve().parents[2]
    inputs = [repo / "validation" / "sync" / "labelled.sm_90.ptx", repo / "samples" / "smem_row_col.sm_90.ptx",
              repo / "validation" / "reference" / "smem_patterns_h100.sm_90.ptx",
              repo / "validation" / "global_race" / "global_race.sm_90.ptx",
              # BANK002 (loads ptxas merges into a conflict-free wide load: merged_adjacent)
              repo / "tests" / "rules" / "data" / "bank_fix_hints.sm_90.ptx"]
    # a declared shape: without one, races between warps are not reported (a one-warp block has none)
    r = project.run("check", "--no-cache", "--isolated", "--ignore", "TEST", "--block", "256", "--format", "sarif",
                    *inputs)
    assert r.returncode == 1, r.stderr
    log = json.loads(r.stdout)
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validators.validator_for(schema)(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    run = log["runs"][0]
    codes = {res["ruleId"] for res in run["results"]}
    assert {"BANK001", "BANK002", "COAL001", "CONST001", "FENCE001", "FENCE002", "FENCE003", "RACE001", "RACE003",
            "SHFL001", "SHFL002", "SYNC001", "SYNC002", "SYNC003", "SYNC004", "WARP001"} <= codes
    # OCC001 and SPILL001 ran too, but say nothing without --level sass
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} - {"OCC001", "SPILL001"} == codes
    assert all(res["properties"].get("fix") for res in run["results"] if not res["ruleId"].startswith("BANK"))


def test_github_annotation_carries_the_notes_and_then_the_fix():
    from ptxlint.api import FileResult
    from ptxlint.diagnostics import Diagnostic
    from ptxlint.report import github

    d = Diagnostic("SYNC001", "error", "barrier in divergent code", "k.cu", 4, 5,
                   notes=["assumed block 64x1x1"], fix="move the barrier out of the branch")
    assert github.render([FileResult("k.cu", [d])]) == (
        "::error file=k.cu,line=4,col=5,title=SYNC001::barrier in divergent code%0Aassumed block 64x1x1"
        "%0Afix: move the barrier out of the branch\n")


def test_rule_list_is_one_aligned_row_per_rule(project):
    rows = project.run("rule").stdout.splitlines()
    assert any(row.startswith("CONST001  non-uniform-constant-access ") for row in rows)
    assert len({row.index(row.split()[1]) for row in rows}) == 1  # the names start in one column


def test_unknown_rule_code_is_one_message_and_nothing_is_checked(project):
    project.write("k.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tbar.sync \t0;\n\tret;\n}\n")
    for option in ("--select", "--ignore"):
        r = project.run("check", "--no-cache", option, "BANK,NOPE", "k.ptx")
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr == "ptxlint: unknown rule code or prefix 'NOPE'\n"


def test_with_output_to_a_file_input_errors_still_reach_the_terminal(project):
    project.write("k.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tbar.sync \t0;\n\tret;\n}\n")
    for fmt in ("text", "concise", "json", "sarif", "github"):
        r = project.run("check", "--no-cache", "--select", "TEST", "--format", fmt, "-o", f"report.{fmt}", "nope.ptx", "k.ptx")
        assert r.returncode == 2 and r.stdout == "", fmt
        assert r.stderr == "nope.ptx: no such file or directory\n", fmt
        report = (project.root / f"report.{fmt}").read_text()
        assert "nope.ptx" in report and "k.ptx" in report, fmt


def test_ptx_made_in_another_checkout_points_at_the_sources_of_this_one(tmp_path, cli):
    """nvcc writes absolute `.file` paths; a committed PTX read in a fresh clone still reports (and
    shows) the clone's own .cu lines, and suppressions in them apply."""
    from support import SAMPLES

    clone = tmp_path / "clone" / "samples"
    clone.mkdir(parents=True)
    made_elsewhere = "/nonexistent/build/checkout/samples/transpose.cu"
    ptx, renamed = re.subn(r'(\.file\s+\d+\s+)"[^"]*/samples/transpose\.cu"', rf'\1"{made_elsewhere}"',
                           (SAMPLES / "transpose.sm_90.ptx").read_text())
    assert renamed == 1
    (clone / "transpose.sm_90.ptx").write_text(ptx)
    source = (SAMPLES / "transpose.cu").read_text()
    (clone / "transpose.cu").write_text(source)
    r = cli("check", "--select", "BANK", "--format", "text", "samples/transpose.sm_90.ptx", cwd=tmp_path / "clone")
    assert r.returncode == 1
    first, shown = r.stdout.splitlines()[:2]
    assert first.startswith("samples/transpose.cu:")
    line = int(first.split(":")[1])
    assert shown.endswith(source.splitlines()[line - 1].rstrip())

    lines = source.splitlines()
    lines[line - 1] += "  // ptxlint: ignore[BANK001]"
    (clone / "transpose.cu").write_text("\n".join(lines) + "\n")
    r = cli("check", "--no-cache", "--select", "BANK", "samples/transpose.sm_90.ptx", cwd=tmp_path / "clone")
    assert r.returncode == 0, r.stdout
