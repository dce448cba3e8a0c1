"""CI ergonomics (issue 20, item 6): what makes `ptxlint check` exit 1 (`--fail-on`, `--exit-zero`, a
kernel not fully analysed), errors on stderr, repeatable `--select`, SUPP001 as a selectable code,
`--statistics --format json`."""

import json
import subprocess
import sys

import pytest

from support import REPO, run_cli

WARNING_PTX = "samples/smem_row_col.sm_90.ptx"  # four BANK001 (warnings)
ERROR_PTX = "samples/smem_race.sm_90.ptx"  # one RACE001 (an error)
CLEAN_PTX = "samples/ldg_readonly.sm_90.ptx"  # no finding

# `ptxlint` with one extra rule, INFOX001 (info), that flags every `ret`: an info-only run
INFO_RUNNER = """
import sys
from ptxlint.diagnostics import Diagnostic
from ptxlint.rules.registry import RuleDoc, register

@register("INFOX001", "info-test", "info", "Flags every ret (test-only rule).",
          RuleDoc("Flags every ret.", "It is a test.", "return;", "/* nothing */"))
def _every_ret(context):
    for ins in context.function.instructions:
        if ins.op == "ret":
            path, line, column = context.position(ins)
            yield Diagnostic(code="INFOX001", severity="info", message="a ret", path=path, line=line,
                             column=column, kernel=context.function.name)

from ptxlint.cli import main
sys.argv[0] = "ptxlint"
main()
"""


def check(*args):
    return run_cli("check", "--no-cache", *args, cwd=REPO)


def check_with_info_rule(*args):
    return subprocess.run([sys.executable, "-c", INFO_RUNNER, "check", "--no-cache", *args],
                          capture_output=True, text=True, cwd=REPO)


def test_info_findings_do_not_fail_the_run_by_default():
    r = check_with_info_rule("--select", "INFOX", CLEAN_PTX)
    assert "INFOX001 a ret" in r.stdout and r.returncode == 0
    assert check_with_info_rule("--select", "INFOX", "--fail-on", "info", CLEAN_PTX).returncode == 1


@pytest.mark.parametrize("args, status", [
    ((), 1),
    (("--fail-on", "warning"), 1),
    (("--fail-on", "info"), 1),
    (("--fail-on", "error"), 0),
    (("--exit-zero",), 0),
])
def test_a_warning_fails_unless_told_otherwise(args, status):
    r = check(*args, WARNING_PTX)
    assert "BANK001" in r.stdout and r.returncode == status


def test_an_error_fails_even_under_fail_on_error():
    assert check("--fail-on", "error", ERROR_PTX).returncode == 1


def test_exit_zero_never_hides_an_input_error():
    r = check("--exit-zero", WARNING_PTX, "nope.ptx")
    assert r.returncode == 2


def test_a_kernel_that_runs_out_of_budget_fails_the_run():
    r = check("--analysis-budget", "0.000001", CLEAN_PTX)
    assert "Found 0 findings; 3 kernels not fully analysed" in r.stdout
    assert "note: kernel saxpyLdg(int, float, float const*, float*) not fully analysed" in r.stdout
    assert r.returncode == 1
    assert check("--analysis-budget", "0.000001", "--fail-on", "error", CLEAN_PTX).returncode == 0


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_input_errors_go_to_stderr_in_text_forms(fmt):
    r = check("--format", fmt, "nope.ptx", WARNING_PTX)
    assert r.returncode == 2
    assert r.stderr == "nope.ptx: no such file or directory\n"
    assert "nope.ptx" not in r.stdout and "BANK001" in r.stdout


def test_select_is_repeatable_and_takes_comma_lists():
    files = ("samples/barriers.sm_90.ptx", ERROR_PTX)
    for select in (("--select", "RACE", "--select", "SYNC"), ("--select", "RACE,SYNC")):
        codes = {d["code"] for d in json.loads(check("--format", "json", *select, *files).stdout)["diagnostics"]}
        assert codes == {"RACE001", "SYNC001", "SYNC002"}, select
    codes = {d["code"] for d in json.loads(check("--format", "json", "--ignore", "SYNC001", "--ignore", "SYNC002",
                                                 *files).stdout)["diagnostics"]}
    assert codes == {"RACE001"}


def test_supp001_can_be_selected_and_ignored(tmp_path):
    (tmp_path / ".git").mkdir()
    ptx = (REPO / ERROR_PTX).read_text().replace(".entry", "// ptxlint: ignore[BANK001]\n.entry", 1)
    (tmp_path / "k.ptx").write_text(ptx)

    def run(*args):
        return run_cli("check", "--no-cache", "--isolated", "--format", "json", *args, "k.ptx", cwd=tmp_path)

    selected = run("--select", "SUPP001")
    assert selected.returncode == 1, selected.stderr
    assert [d["code"] for d in json.loads(selected.stdout)["diagnostics"]] == ["SUPP001"]
    with_bank = json.loads(run("--select", "BANK,SUPP").stdout)["diagnostics"]
    assert [d["code"] for d in with_bank] == ["SUPP001"]
    # BANK001 did not run: its suppression cannot be judged unused
    without_bank = json.loads(run("--select", "RACE", "--select", "SUPP001").stdout)["diagnostics"]
    assert [d["code"] for d in without_bank] == ["RACE001"]
    ignored = json.loads(run("--report-unused-suppressions", "--ignore", "SUPP001").stdout)["diagnostics"]
    assert [d["code"] for d in ignored] == ["RACE001"]


def test_statistics_in_json():
    r = check("--statistics", "--format", "json", WARNING_PTX, ERROR_PTX)
    doc = json.loads(r.stdout)
    assert doc["statistics"] == [{"code": "BANK001", "name": "shared-bank-conflict", "count": 4},
                                 {"code": "RACE001", "name": "shared-memory-race", "count": 1}]
    assert doc["errors"] == [] and r.returncode == 1


def test_statistics_in_a_format_it_cannot_take_is_a_usage_error():
    r = check("--statistics", "--format", "sarif", WARNING_PTX)
    assert r.returncode == 2 and "--statistics prints text or JSON, not sarif" in r.stderr and r.stdout == ""
