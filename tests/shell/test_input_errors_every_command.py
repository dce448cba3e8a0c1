"""Every input problem is one message (with file:line where there is one) and exit 2, in `check`,
`accesses`, `kernels` and `launches`; never a traceback, never an internal error (issue 18)."""

import json
import os
import re

import pytest

from support import SAMPLES, run_cli

COMMANDS = ["check", "accesses", "kernels", "launches"]

FOURTH = """.version 8.0
.target sm_90
.address_size 64

.visible .entry fourth(
\t.param .u64 fourth_param_0
)
{{
\t.reg .b32 \t%r<8>;
\t.shared .align 4 .b8 fourth_smem[4096];

\tmov.u32 \t%r1, %tid.x;
\tmov.u32 \t%r2, %tid.w;
\t{offset}
\tshl.b32 \t%r3, %r2, 2;
\tmov.u32 \t%r4, fourth_smem;
\tadd.s32 \t%r5, %r4, %r3;
\tst.shared.u32 \t[%r5], %r1;
\tret;
}}
"""


def _no_traceback(done):
    assert "Traceback" not in done.stderr + done.stdout
    assert "internal error" not in done.stderr + done.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_the_fourth_component_of_tid_reads_zero(tmp_path, command):
    # PTX ISA: %tid is a .v4 register whose fourth element (`%tid.w`) is unused and reads zero
    (tmp_path / "fourth.ptx").write_text(FOURTH.format(offset=""))
    done = run_cli(command, "--block", "256", "fourth.ptx", cwd=tmp_path)
    _no_traceback(done)
    if command == "check":  # every thread stores its own index to word 0
        assert done.returncode == 1 and "RACE001" in done.stdout and "fourth.ptx:18" in done.stdout
    else:
        assert done.returncode in (0, 2)  # kernels: 2 where ptxas is missing
    if command == "accesses":
        [access] = json.loads(run_cli("accesses", "--block", "256", "--format", "json", "fourth.ptx",
                                      cwd=tmp_path).stdout)["kernels"][0]["accesses"]
        assert access["wavefronts"] == 8  # one per warp: every lane at the same word


def test_tid_w_added_to_the_thread_index_is_no_race(tmp_path):
    (tmp_path / "fourth.ptx").write_text(FOURTH.format(offset="add.s32 \t%r2, %r2, %r1;"))
    done = run_cli("check", "--no-cache", "--block", "256", "fourth.ptx", cwd=tmp_path)
    _no_traceback(done)
    assert done.returncode == 0 and "RACE" not in done.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_a_nul_byte_in_a_file_name_after_the_first_kilobytes(tmp_path, command):
    text = (SAMPLES / "transpose.sm_90.ptx").read_text()
    start = text.index(".file")
    name = re.search(r'\.file\s+\d+\s+"([^"]*)"', text).group(1)
    padding = "// " + "x" * 9000 + "\n"  # past the binary-file sniff of the first bytes
    text = text[:start] + padding + text[start:].replace(f'"{name}"', '"trans\x00pose.cu"', 1)
    (tmp_path / "nul.ptx").write_text(text)
    line = text[:text.index("trans\x00pose")].count("\n") + 1
    done = run_cli(command, "nul.ptx", cwd=tmp_path)
    _no_traceback(done)
    assert done.returncode == 2
    assert f"nul.ptx:{line}:" in done.stdout + done.stderr and "NUL byte" in done.stdout + done.stderr


def test_a_configuration_nested_too_deeply(tmp_path):
    (tmp_path / ".ptxlint.toml").write_text("a = " + "[" * 2000 + "]" * 2000 + "\n")
    (tmp_path / "t.ptx").write_text((SAMPLES / "transpose.sm_90.ptx").read_text())
    done = run_cli("check", "--no-cache", "t.ptx", cwd=tmp_path)
    _no_traceback(done)
    assert done.returncode == 2 and ".ptxlint.toml: invalid configuration: arrays or tables nested too deeply" \
        in done.stdout + done.stderr


def test_a_pyproject_whose_tool_is_not_a_table(tmp_path):
    # the `[tool.ptxlint]` line inside a string makes ptxlint read the file; `tool` is a number
    (tmp_path / "pyproject.toml").write_text('x = """\n[tool.ptxlint]\n"""\ntool = 1\n')
    (tmp_path / "t.ptx").write_text((SAMPLES / "transpose.sm_90.ptx").read_text())
    done = run_cli("check", "--no-cache", "t.ptx", cwd=tmp_path)
    _no_traceback(done)
    assert done.returncode == 2 and "pyproject.toml: [tool] must be a table" in done.stdout + done.stderr


@pytest.mark.parametrize("target, reason", [("missing/report.json", "No such file or directory"),
                                            ("/dev/full", "No space left on device"),
                                            ("/proc/version", None)])
def test_a_report_that_cannot_be_written(tmp_path, target, reason):
    if target.startswith("/") and not os.path.exists(target):
        pytest.skip(f"no {target} here")
    (tmp_path / "t.ptx").write_text((SAMPLES / "transpose.sm_90.ptx").read_text())
    done = run_cli("check", "--no-cache", "--format", "json", "-o", target, "t.ptx", cwd=tmp_path)
    _no_traceback(done)
    assert done.returncode == 2
    assert f"ptxlint: cannot write the report to {target}" in done.stderr
    if reason:
        assert reason in done.stderr


def test_kernels_for_a_virtual_architecture(tmp_path):
    # found by the CLI fuzz run: ptxas succeeds for -arch=compute_90 but writes no cubin
    import shutil

    if shutil.which("ptxas") is None:
        pytest.skip("needs ptxas")
    (tmp_path / "t.ptx").write_text((SAMPLES / "transpose.sm_90.ptx").read_text())
    done = run_cli("kernels", "--arch", "compute_90", "t.ptx", cwd=tmp_path)
    _no_traceback(done)
    assert done.returncode == 2 and "t.ptx: ptxas -arch=compute_90 made no SASS" in done.stderr
