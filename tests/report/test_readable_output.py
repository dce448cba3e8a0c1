"""Output a person reads (issue 20, item 4): source terms instead of PTX (threadIdx.x, parameters by
name and 1-based position, demangled kernels, ranges), by default the headline, the assumption,
one line of evidence and the fix; `-v` for every note."""

import re

from support import REPO, run_cli

from ptxlint.diagnostics import Diagnostic
from ptxlint.report.text import format_diagnostic
from ptxlint.report.wording import parameter_names_in, source_terms

PTX_REGISTER = re.compile(r"%[a-z]+\d+|%tid|%ctaid|_param_\d+")


def check(*args):
    return run_cli("check", "--no-cache", *args, cwd=REPO)


def headlines(out: str) -> list:
    return [l for l in out.splitlines() if re.match(r"\S+:\d+:\d+: [A-Z]+\d{3} ", l)]


def test_headlines_speak_cuda_not_ptx():
    r = check("samples/barriers.sm_90.ptx", "samples/const_nonuniform.sm_90.ptx", "samples/warp_shuffle.sm_90.ptx")
    found = headlines(r.stdout)
    assert len(found) == 5
    assert not [h for h in found if PTX_REGISTER.search(h)]
    sync001 = next(h for h in found if " SYNC001 " in h)
    assert sync001.endswith("the branch at line 28, which depends on threadIdx.x at line 27")
    # earlyExitBarrier(const float *in, float *out, int n): the bound is its third parameter, `n`
    sync002 = next(h for h in found if " SYNC002 " in h)
    assert "the bound `n` (parameter 3) falls" in sync002 and "(n % 256 != 0 for a block of 256 threads)" in sync002


def test_default_shows_assumption_one_line_of_evidence_and_the_fix():
    r = check("samples/transpose.sm_90.ptx")
    block = r.stdout.split("samples/transpose.cu:14:13: COAL001 ")[1].split("\nsamples/")[0].splitlines()
    notes = [l for l in block if l.startswith("        = ")]
    assert notes == [
        "        = assumed block 32x8x1 (samples/.ptxlint.toml [block]); sm_90",
        "        = warp 0: lanes 0..31 at byte offsets 0, 4*height, 8*height, 12*height, 16*height, 20*height, ... "
        "from lane 0's address: 32 sectors per request (ideal 4)",
        notes[2],
    ]
    assert notes[2].startswith("        = fix: stage through a padded shared tile")
    assert r.stdout.splitlines()[-2:] == ["-v shows 9 more notes.", "Found 2 findings."]


def test_verbose_shows_every_note_once_in_source_terms():
    r = check("-v", "samples/transpose.sm_90.ptx")
    coal = r.stdout.split("COAL001 ")[1].split("BANK001 ")[0]
    # four branches of line 13 on four predicate registers: one note
    assert coal.count("the branch at line 13 depends on values unknown here") == 1
    assert "%p" not in coal and "%ctaid" not in coal
    assert "= `height` (parameter 4) is assumed large enough that lanes it separates never share" in coal
    assert "= blockIdx.x * height is assumed to keep the accessed rows 32-byte aligned" in coal
    assert "= `odata` (parameter 1) is assumed 256-byte aligned" in coal
    assert "= ptx: samples/transpose.sm_90.ptx:63 in transposeNaive(float*, float const*, int, int)" in coal
    assert "-v shows" not in r.stdout


def test_lists_become_ranges():
    r = check("samples/const_nonuniform.sm_90.ptx")
    assert "        = distinct addresses per warp: warps 0-7: 32 each" in r.stdout
    r = check("-v", "samples/reduce_warp_tail.sm_90.ptx")
    assert "        = the same pattern covers lines 26-31" in r.stdout


def test_a_ptx_line_is_never_shown_under_a_source_name():
    d = Diagnostic(code="SYNC001", severity="warning", message="barrier under a branch", path="main.cu (sm_90 PTX)",
                   line=195, column=None, kernel="_Z1kPi", ptx_path="main.cu (sm_90 PTX)", ptx_line=195,
                   notes=["assumed block 256x1x1 (config)", "architecture sm_90", "the branch differs"])
    lines = format_diagnostic(d).splitlines()
    assert lines[0] == "main.cu: SYNC001 barrier under a branch"
    assert lines[1] == "        = assumed block 256x1x1 (config); sm_90"
    assert lines[2] == "        = no source line is known: line 195 of the sm_90 PTX that nvcc made from main.cu, in k(int*)"
    assert "main.cu (sm_90 PTX):195" not in "\n".join(lines)


def test_not_checked_names_the_kernels_and_what_to_do():
    r = check("--isolated", "--select", "RACE", "tests/analysis/data/shapes.sm_90.ptx")
    assert ("Not checked: 1 findings that depend on the unknown block shape; in halfOfSharedRotate: "
            "pass --block halfOfSharedRotate=XxYxZ, or launch it with a compile-time block shape in the checked code"
            ) in r.stdout


def test_parameter_names_come_from_the_kernel_definition():
    source = """
template <int N>
__global__ void __launch_bounds__(256) scale(const float *__restrict__ in,
                                             float *out /* result */, int n = 4) {}
__global__ void other(int a) {}
"""
    assert parameter_names_in(source.splitlines(), "_Z5scaleILi2EEvPKfPfi") == ["in", "out", "n"]
    assert parameter_names_in(source.splitlines(), "_Z5otheri") == ["a"]
    # a count that does not match the signature names nothing
    assert parameter_names_in(source.splitlines(), "_Z5otherii") is None


def test_parameters_without_a_source_are_named_by_position():
    text = "the bound `_Z1kPfi_param_1` (kernel parameter 2) falls; 4*kernel parameter 1 apart"
    assert source_terms(text, "_Z1kPfi", None) == "the bound parameter 2 falls; 4*parameter 2 apart"
    assert source_terms(text, "_Z1kPfi", ["x", "n"]) == "the bound `n` (parameter 2) falls; 4*n apart"
