"""`check`, `accesses`, `launches` and `kernels` read one file's settings through one loader: on the
repository's own samples (whose `.ptxlint.toml` gives each kernel its block), every command shows
each kernel under the same block, and the numbers `check` reports are the ones `accesses` lists.
Globs that match no kernel are an error (exit status 2, one message) in every command."""

import json

import pytest

from support import REPO, SAMPLES, run_cli

PTX = sorted(str(p.relative_to(REPO)) for p in SAMPLES.glob("*.sm_90.ptx"))


def _json(*args):
    result = run_cli(*args, cwd=REPO)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def outputs():
    return {
        "check": _json("check", "--no-cache", "--format", "json", *PTX),
        "accesses": _json("accesses", "--format", "json", *PTX),
        "launches": _json("launches", "--format", "json", *PTX),
        "kernels": _json("kernels", "--format", "json", *PTX),
    }


def _accesses_by_kernel(outputs) -> dict:
    return {(f["path"], k["name"]): k for f in outputs["accesses"]["files"] for k in f["kernels"]}


def test_every_command_shows_each_kernel_under_the_same_block(outputs):
    accesses = _accesses_by_kernel(outputs)
    kernels = {(r["path"], r["name"]): r for r in outputs["kernels"]["kernels"]}
    launches = {(f["path"], k["kernel"]): k for f in outputs["launches"]["files"] for k in f["kernels"]}
    assert accesses and set(accesses) == set(kernels) == set(launches)
    configured = 0
    for key, listed in accesses.items():
        assert kernels[key]["block"] == listed["block"], key
        assert kernels[key]["block_source"] == listed["block_source"], key
        plan = launches[key]
        if plan["known"]:
            configured += "[block]" in plan["shapes"][0]["source"]
            assert plan["shapes"][0]["block"] == listed["block"], key
            assert plan["shapes"][0]["source"] == listed["block_source"], key
    assert configured >= 30  # the samples' config names almost every kernel: it is read by all
    for d in outputs["check"]["diagnostics"]:
        block = (d.get("data") or {}).get("block")
        if block is not None:
            assert accesses[(d["ptx_path"], d["kernel"])]["block"] == block, d["message"]


def test_check_reports_the_numbers_accesses_lists(outputs):
    accesses = _accesses_by_kernel(outputs)
    compared = 0
    for d in outputs["check"]["diagnostics"]:
        entries = accesses[(d["ptx_path"], d["kernel"])]["accesses"]
        if d["code"] == "BANK001":
            lines = d["data"]["ptx_lines"]
            listed = [a["wavefronts"] for a in entries if a["ptx_line"] in lines]
            assert len(listed) == len(lines) and sum(listed) == d["data"]["wavefronts"], d["message"]
            compared += 1
        elif d["code"] == "COAL001":
            op = "store" if "store" in d["message"] else "load"
            listed = [a["sectors"] for a in entries
                      if a["space"] == "global" and a["op"] == op and a["line"] in d["data"]["lines"]]
            assert listed and sum(listed) == d["data"]["sectors"], d["message"]
            compared += 1
    assert compared >= 10


@pytest.mark.parametrize("command", ["accesses", "launches", "kernels"])
def test_a_kernel_glob_that_matches_nothing_is_an_error(command):
    result = run_cli(command, "--kernel", "noSuchKernel*", "samples/transpose.sm_90.ptx", cwd=REPO)
    assert result.returncode == 2
    assert "--kernel noSuchKernel* matches no kernel" in result.stderr
    assert result.stderr.count("matches no kernel") == 1 and result.stdout.strip() in ("", "{\"files\": []}")


@pytest.mark.parametrize("command", ["check", "accesses", "launches", "kernels"])
def test_a_block_glob_that_matches_nothing_is_an_error(command):
    result = run_cli(command, "--block", "noSuchKernel=32x4", "samples/transpose.sm_90.ptx", cwd=REPO)
    assert result.returncode == 2, result.stdout
    assert "--block noSuchKernel=32x4x1 matches no kernel" in result.stdout + result.stderr


@pytest.mark.parametrize("command", ["check", "accesses", "launches", "kernels"])
def test_every_command_takes_the_block_and_config_options_of_check(command, tmp_path):
    config = tmp_path / "other.toml"
    config.write_text('[block]\n"transposeNaive" = [16, 16]\n')
    result = run_cli(command, "--config", config, "--nvcc-arg=-DUNUSED=1", "samples/transpose.sm_90.ptx", cwd=REPO)
    assert result.returncode in (0, 1), result.stderr
    # the named configuration replaces the samples' own (32x8 for this kernel)
    assert "16x16x1" in result.stdout and "other.toml [block]" in result.stdout
