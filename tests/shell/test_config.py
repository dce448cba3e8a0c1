"""Configuration: `[tool.ptxlint]` / `.ptxlint.toml`, found upward from each file."""

import json

from conftest import BARRIER_CU, needs_nvcc

PTX_WITH_BARRIER = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k()
{
\tbar.sync \t0;
\tret;
}
"""


def findings(r):
    return json.loads(r.stdout)["diagnostics"]


def test_block_per_kernel_from_pyproject_feeds_the_analysis(project):
    project.write("pyproject.toml", '[project]\nname = "x"\n\n[tool.ptxlint.block]\n"k" = [64, 2]\n"*" = "128"\n')
    project.write("src/k.ptx", PTX_WITH_BARRIER)
    r = project.run("check", "--no-cache", "--format", "json", "src/k.ptx")
    [d] = findings(r)
    assert "block 64x2x1 (pyproject.toml [tool.ptxlint.block])" in d["message"]


def test_command_line_block_wins_over_config(project):
    project.write(".ptxlint.toml", '[block]\n"*" = "128"\n')
    project.write("k.ptx", PTX_WITH_BARRIER)
    [d] = findings(project.run("check", "--no-cache", "--format", "json", "--block", "k=32x4", "k.ptx"))
    assert "block 32x4x1 (command line (--block))" in d["message"]


def test_nearest_config_applies_to_each_file(project):
    project.write(".ptxlint.toml", 'ignore = ["TEST001"]\n')
    project.write("quiet/k.ptx", PTX_WITH_BARRIER)
    project.write("loud/.ptxlint.toml", 'select = ["TEST"]\n')
    project.write("loud/k.ptx", PTX_WITH_BARRIER)
    r = project.run("check", "--no-cache", "--format", "json", "quiet", "loud")
    assert [d["path"] for d in findings(r)] == ["loud/k.ptx"]


def test_per_file_ignores(project):
    project.write("pyproject.toml", '[tool.ptxlint.per-file-ignores]\n"legacy/*" = ["TEST"]\n')
    project.write("legacy/old.ptx", PTX_WITH_BARRIER)
    project.write("new.ptx", PTX_WITH_BARRIER)
    r = project.run("check", "--no-cache", "--format", "json", ".")
    assert [d["path"] for d in findings(r)] == ["new.ptx"]


def test_unknown_key_is_one_error_naming_file_line_and_key_and_other_files_still_checked(project):
    project.write("bad/pyproject.toml", '[tool.ptxlint]\nselect = ["TEST"]\nblok = [32, 8]\n')
    project.write("bad/a.ptx", PTX_WITH_BARRIER)
    project.write("bad/b.ptx", PTX_WITH_BARRIER)
    project.write("good/k.ptx", PTX_WITH_BARRIER)
    r = project.run("check", "--no-cache", "bad", "good")
    assert r.returncode == 2
    assert r.stderr.count("bad/pyproject.toml:3: unknown key `blok` in [tool.ptxlint]") == 1  # an input error
    assert "good/k.ptx:7:1: TEST001" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_bad_values_name_the_key(project):
    cases = {
        'arch = "sm_9x"\n': (":1: bad `arch`", "sm_9x"),
        'select = ["NOPE"]\n': (":1: unknown rule code or prefix 'NOPE' in `select`", ""),
        '[block]\n"k" = "0x8"\n': (":2: bad `block` for 'k'", "positive"),
        'select = "TEST" \nignore = 3\n': (":2: `ignore` must be a list of strings", ""),
        'select = [\n': (":", "invalid TOML"),
    }
    for i, (text, (where, detail)) in enumerate(cases.items()):
        project.write(f"c{i}/.ptxlint.toml", text)
        project.write(f"c{i}/k.ptx", PTX_WITH_BARRIER)
        r = project.run("check", "--no-cache", f"c{i}")
        assert r.returncode == 2, text
        assert f"c{i}/.ptxlint.toml{where}" in r.stderr and detail in r.stderr, (text, r.stderr)  # input errors
        assert "Traceback" not in r.stderr


def test_isolated_ignores_the_config(project):
    project.write(".ptxlint.toml", 'ignore = ["TEST001"]\n')
    project.write("k.ptx", PTX_WITH_BARRIER)
    assert project.run("check", "--no-cache", "k.ptx").returncode == 0
    assert project.run("check", "--no-cache", "--isolated", "k.ptx").returncode == 1


@needs_nvcc
def test_arch_and_nvcc_options_from_config_reach_nvcc_and_the_analysis(project):
    project.write("pyproject.toml", '[tool.ptxlint]\narch = ["sm_80"]\ndefines = ["USE_BARRIER=1"]\n')
    project.write("k.cu", "__global__ void k(float *x) {\n#if USE_BARRIER\n    __syncthreads();\n#endif\n}\n")
    [d] = findings(project.run("check", "--no-cache", "--format", "json", "k.cu"))
    assert (d["path"], d["line"]) == ("k.cu", 3)
    assert "for sm_80" in d["message"]


def test_unknown_key_in_a_ptxlint_toml_names_that_file(project):
    project.write("sub/.ptxlint.toml", 'select = ["TEST"]\n\n[block]\n"*" = "64"\n[per-file-ignore]\n"x" = ["TEST"]\n')
    project.write("sub/k.ptx", PTX_WITH_BARRIER)
    project.write("other.ptx", PTX_WITH_BARRIER)
    r = project.run("check", "--no-cache", "--format", "concise", "sub", "other.ptx")
    assert r.returncode == 2
    assert r.stderr.count("sub/.ptxlint.toml:5: unknown key `per-file-ignore` in the top-level table;") == 1
    assert "other.ptx:7:1: TEST001" in r.stdout and "sub/k.ptx:7:1" not in r.stdout
    assert "Traceback" not in r.stdout + r.stderr
