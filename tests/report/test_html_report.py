"""`ptxlint report` and `check --report`: the page as written (the browser test reads it rendered)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from html_tree import parse
from support import SAMPLES, run_cli

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def transpose_check(tmp_path_factory):
    """`check --report` on the transpose sample's PTX: (stdout, the page, its tree, check's JSON)."""
    out = tmp_path_factory.mktemp("report") / "transpose.html"
    proc = run_cli("check", "--no-cache", "--report", out, SAMPLES / "transpose.sm_90.ptx")
    assert proc.returncode == 1, proc.stderr
    page = out.read_text()
    findings = json.loads(run_cli("check", "--no-cache", "--format", "json", SAMPLES / "transpose.sm_90.ptx").stdout)
    return proc.stdout, out, page, parse(page)[0], findings["diagnostics"]


def test_names_and_source_lines_from_the_checked_tree_render_as_text(tmp_path):
    # a directory, a file and a kernel (`kern<script>`, a template instance) named with HTML
    hostile = tmp_path / "<img src=x onerror=alert(1)>"
    hostile.mkdir()
    ptx = hostile / "<svg onload=alert(2)>.sm_90.ptx"
    source = hostile / "hostile_names.cu"
    shutil.copy(DATA / "hostile_names.cu", source)
    # as if compiled there: the PTX's .file names the source in the hostile directory
    text = (DATA / "hostile_names.sm_90.ptx").read_text()
    ptx.write_text(re.sub(r'(\.file\s+1\s+)"[^"]*"', lambda m: f'{m.group(1)}"{source}"', text))
    out = tmp_path / "report.html"
    proc = run_cli("report", "--isolated", "--no-cache", "--block", "32x32", "-o", out, ptx)
    assert proc.returncode == 0, proc.stderr
    page = out.read_text()
    root, tags = parse(page)
    assert "script" not in tags and "img" not in tags
    assert [t for t in tags if t == "svg"] == [e.tag for e in root.find_all("svg")]  # only the report's own pictures
    assert not [name for e in root.iter() for name in e.attrs if name.startswith("on")]
    (kernel,) = root.find_all("article", "kernel")
    assert kernel.find_all("h2")[0].text() == "kern<script>"
    assert kernel.data("name") == "_Z4kernI6scriptEvPf" and kernel.data("path") == str(ptx)
    assert str(ptx) in root.text()
    (finding,) = kernel.find_all("div", "finding")
    assert finding.data("code") == "BANK001"
    assert "// </pre><script>alert(1)</script>" in finding.find_all("pre", "source")[0].text()


def test_the_page_loads_nothing_and_runs_nothing(transpose_check):
    _, _, page, root, _ = transpose_check
    tags = {e.tag for e in root.iter()}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed"}
    for e in root.iter():
        for name, value in e.attrs.items():
            if name in ("href", "src"):
                assert value.startswith("#"), (name, value)
    (csp,) = [e for e in root.find_all("meta") if e.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in csp.attrs["content"]
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)


def test_check_links_each_finding_to_its_kernel_in_the_report(transpose_check):
    stdout, out, _, root, diagnostics = transpose_check
    links = re.findall(r"^ += report: (.+)#(k-[0-9a-f]+)$", stdout, re.MULTILINE)
    assert len(links) == len(diagnostics) > 0
    assert stdout.rstrip().splitlines()[-1] == f"Report: {out}"
    articles = {a.attrs["id"]: a for a in root.find_all("article", "kernel")}
    for (path, anchor), d in zip(links, diagnostics):
        assert path == str(out)
        assert articles[anchor].data("name") == d["kernel"]
        assert d["code"] in [f.data("code") for f in articles[anchor].find_all("div", "finding")]


def test_check_json_output_is_unchanged_by_report_and_the_race_witness_stands_out(tmp_path):
    ptx = SAMPLES / "smem_race.sm_90.ptx"
    plain = run_cli("check", "--no-cache", "--format", "json", ptx)
    with_report = run_cli("check", "--no-cache", "--format", "json", "--report", tmp_path / "r.html", ptx)
    assert json.loads(with_report.stdout) == json.loads(plain.stdout)
    assert f"report written to {tmp_path / 'r.html'}" in with_report.stderr
    # the race's witness threads stand out; the notes that name no thread do not
    root, _ = parse((tmp_path / "r.html").read_text())
    race = [f for f in root.find_all("div", "finding") if f.data("code") == "RACE001"]
    assert race
    for finding in race:
        witnesses = finding.find_all("li", "witness")
        assert len(witnesses) == 1 and "thread 0 (threadIdx.x=0, warp 0 lane 0) writes" in witnesses[0].text()
        assert len(finding.find_all("li")) > 1


def test_the_after_grid_is_the_verified_padding_of_the_finding(transpose_check):
    _, _, _, root, diagnostics = transpose_check
    (bank,) = [d for d in diagnostics if d["code"] == "BANK001"]
    article = next(a for a in root.find_all("article", "kernel") if a.data("name") == bank["kernel"])
    on_line = [a for a in article.find_all("div", "shared") if a.data("ptx-line") in bank["data"]["ptx_lines"]]
    after = [svg for a in on_line for svg in a.find_all("svg", "bank-grid") if svg.data("role") == "after"]
    assert len(after) == len(on_line) == len(bank["data"]["ptx_lines"])
    assert sum(svg.data("block-wavefronts") for svg in after) == bank["data"]["fixed_wavefronts"]
    for svg in after:  # one wavefront, every lane on its own bank
        assert svg.data("grid-wavefronts") == svg.data("grid-ideal") == 1
        assert {c.data("depth") for c in svg.find_all("rect", "cell")} == {1}
    # near miss: the padded kernel's accesses are conflict-free and have no "after" grid
    padded = next(a for a in root.find_all("article", "kernel") if a.data("demangled") == "transposeSmemPad")
    assert padded.find_all("svg", "bank-grid")
    assert not [s for s in padded.find_all("svg", "bank-grid") if s.data("role") == "after"]
