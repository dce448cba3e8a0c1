"""The report as a person sees it: rendered by headless Chromium (Debian's `chromium` package), its
grids present and every number it shows equal to `ptxlint accesses --format json` and
`ptxlint kernels --format json`, for every kernel of every committed sample PTX."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib

import pytest

from html_tree import parse
from support import SAMPLES, run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium not found: the report is not checked in a browser "
                             "(Debian: apt-get install chromium; .ci/run installs it when apt is reachable)")


def chromium(*args, profile) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                           f"--user-data-dir={profile}", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The samples' report as Chromium's DOM, with accesses' and kernels' JSON under the same settings
    (the samples' configured block shapes, passed to the two commands as --block)."""
    tmp = tmp_path_factory.mktemp("browser")
    ptx = sorted(str(p.relative_to(SAMPLES.parent)) for p in SAMPLES.glob("*.ptx"))
    config = tomllib.loads((SAMPLES / ".ptxlint.toml").read_text())
    blocks = [a for glob, dims in config["block"].items() for a in ("--block", f"{glob}={'x'.join(map(str, dims))}")]
    page = tmp / "report.html"
    proc = run_cli("report", "-o", page, *ptx, cwd=SAMPLES.parent)
    assert proc.returncode == 0, proc.stderr
    accesses = json.loads(run_cli("accesses", "--format", "json", *blocks, *ptx, cwd=SAMPLES.parent).stdout)
    kernels = json.loads(run_cli("kernels", "--format", "json", *blocks, *ptx, cwd=SAMPLES.parent).stdout)
    dom = chromium("--dump-dom", page.as_uri(), profile=tmp / "profile")
    assert dom.returncode == 0 and "<article" in dom.stdout, dom.stderr[-2000:]
    root, _ = parse(dom.stdout)
    articles = {(a.data("path"), a.data("name")): a for a in root.find_all("article", "kernel")}
    return articles, accesses["files"], {(r["path"], r["name"]): r for r in kernels["kernels"]}


def _pairs(dom_items: list, json_items: list) -> list:
    assert [d.data("ptx-line") for d in dom_items] == [a["ptx_line"] for a in json_items]
    return list(zip(dom_items, json_items))


def test_every_sample_kernel_is_drawn_with_the_accesses_numbers(rendered):
    articles, files, _ = rendered
    expected = {(f["path"], k["name"]) for f in files for k in f["kernels"]}
    assert set(articles) == expected and len(expected) > 40
    grids = 0
    for f in files:
        for k in f["kernels"]:
            article = articles[(f["path"], k["name"])]
            assert article.data("block") == "x".join(map(str, k["block"]))
            shared = [a for a in k["accesses"] if a["space"] == "shared"]
            for div, a in _pairs(article.find_all("div", "shared"), shared):
                for key in ("wavefronts", "ideal", "ways", "iterations", "bits"):
                    assert div.data(key) == a[key], (k["name"], a["ptx_line"], key)
                grid = [s for s in div.find_all("svg", "bank-grid") if s.data("role") != "after"]
                if not a["per_warp"] or not any(w["active_lanes"] for w in a["per_warp"]):
                    assert not grid
                    continue
                (grid,) = grid
                grids += 1
                warp = next(w for w in a["per_warp"] if w["warp"] == grid.data("warp"))
                assert grid.data("warp-wavefronts") == warp["wavefronts"]
                assert grid.data("grid-ways") == a["ways"]
                if a["iterations"] == 1:
                    assert grid.data("grid-wavefronts") == warp["wavefronts"]
                cells = grid.find_all("rect", "cell")
                lanes = {c.data("lane") for c in cells}
                assert 0 < len(lanes) <= warp["active_lanes"] and lanes <= set(range(32))
                assert max(c.data("depth") for c in cells) >= (2 if a["ways"] > 1 else 1)
            glob = [a for a in k["accesses"] if a["space"] == "global"]
            for div, a in _pairs(article.find_all("div", "global"), glob):
                for key in ("sectors", "ideal_sectors", "requests", "bits"):
                    assert div.data(key.replace("_", "-")) == a[key], (k["name"], a["ptx_line"], key)
                grid = div.find_all("svg", "sector-grid")
                if a["sectors"] is None or not a["per_warp"] or not any(w["active_lanes"] for w in a["per_warp"]):
                    assert not grid
                    continue
                (grid,) = grid
                grids += 1
                warp = next(w for w in a["per_warp"] if w["warp"] == grid.data("warp"))
                touched = {c.data("sector") for c in grid.find_all("rect", "cell")}
                assert len(touched) == grid.data("warp-sectors")
                if a["iterations"] == 1:
                    assert (grid.data("warp-sectors"), grid.data("warp-ideal-sectors")) == \
                        (warp["sectors"], warp["ideal_sectors"])
            const = [a for a in k["accesses"] if a["space"] == "const"]
            for row, a in _pairs(article.find_all("tr", "const"), const):
                assert row.data("distinct-addresses") == a["distinct_addresses"]
    assert grids > 100


def test_occupancy_and_its_curve_equal_the_kernels_rows(rendered):
    articles, _, rows = rendered
    curves = 0
    for key, article in articles.items():
        row = rows[key]
        (occupancy,) = article.find_all("div", "occupancy") or [None]
        if row["blocks_per_sm"] is None:  # no ptxas: nothing to draw
            assert occupancy is None
            continue
        for name in ("registers", "blocks_per_sm", "warps_per_sm", "occupancy", "limiter", "static_smem"):
            assert occupancy.data(name.replace("_", "-")) == row[name], (key, name)
        points = occupancy.find_all("circle", "point")
        assert [p.data("threads") for p in points] == list(range(32, 1025, 32))
        threads = row["block"][0] * row["block"][1] * row["block"][2]
        here = [p for p in points if p.data("threads") == threads]
        for p in here:
            assert (p.data("blocks-per-sm"), p.data("occupancy"), p.data("limiter")) == \
                (row["blocks_per_sm"], row["occupancy"], row["limiter"])
        curves += 1
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas not found: no registers, so no occupancy to compare")
    assert curves == len(articles)


def test_a_screenshot_of_the_report_is_an_image(tmp_path):
    page = tmp_path / "transpose.html"
    assert run_cli("report", "-o", page, SAMPLES / "transpose.sm_90.ptx").returncode == 0
    shot = tmp_path / "shot.png"
    chromium(f"--screenshot={shot}", "--window-size=1000,1400", page.as_uri(), profile=tmp_path / "profile")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
