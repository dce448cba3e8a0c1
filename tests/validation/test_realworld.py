"""ptxlint's correctness rules on real public CUDA code (validation/realworld/, issue 9).

Each kernel of the corpus is checked under the block shapes its repository's host code launches it
with (launches.json); every place where RACE/SYNC/WARP/SHFL/FENCE fires must be triaged true in
triage.json. A place triaged false is a false positive still to fix, an untriaged place is new, a
triage entry that no longer fires is stale: each fails with the places listed.

The corpus is split by repository into a development half and nine test halves (corpus.json "halves",
issue 17: `test`; `test2`, built after `test` had been triaged; `test3`, built after `test2`; `test4`,
built after `test3`; `test5`, built after `test4`; `test6`, built after `test5`; `test7`, built after `test6`; `test8`, built after `test7`; `test9`, a partial half of one repository built after `test8`; `test10`, a partial half of three built in the closing
session; `test11`, a partial half of seven, and `test12`, built after `test10` by two helpers; `test13` and
`test14`, built after `test12` by two more; `test15` and `test16`, built after test13/test14 by two helpers side by
side; `test17` and `test18`, built after test15/test16 by two helpers side by side; `test19` and `test20`, built after them by two
helpers side by side; `test21` and `test22`, built after those by two helpers side by side; `test23` and `test24`, built side by side, test24 extended after; `test25` and `test26`, built side by side by two helpers). These tests run ptxlint on the
development half only: the test halves are held
out, triaged once at the end with the final code (`check.py --half test` ... `--half test26`), so no test here reads
their findings.
On the development half a place triaged false is allowed for the repositories added in issue 17 (its
work list, counted by check.py); on the first corpus's repositories it still fails.

The corpus itself (fetched code and its PTX) is kept out of commits (see validation/realworld/README.md):
where it is absent the corpus tests skip and say so; the tests of the committed records always run.
"""

import importlib.util
import json
import sys

import pytest

from support import VALIDATION

HERE = VALIDATION / "realworld"
_spec = importlib.util.spec_from_file_location("realworld_check", HERE / "check.py")
check = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = check  # the worker processes look check.py's functions up by module name
_spec.loader.exec_module(check)

CORPUS = json.loads((HERE / "corpus.json").read_text())
LAUNCHES = json.loads((HERE / "launches.json").read_text())
TRIAGE = json.loads((HERE / "triage.json").read_text())
MISSING = check.corpus_present(CORPUS, half="dev")
FIRST_CORPUS = set(CORPUS["halves"]["first_corpus"])


def _listing(keys, places, verdicts) -> str:
    return "\n".join(check.describe(k, places[k], verdicts[k]) for k in sorted(keys, key=lambda k: (k[1], k[2] or 0, k[0])))


_RUNS: dict = {}


def _run(mode):
    if MISSING:
        pytest.skip(f"real-world corpus not present here ({len(MISSING)} PTX files missing, e.g. {MISSING[0]}): it is "
                    "kept out of commits, see validation/realworld/README.md")
    if mode not in _RUNS:
        result = check.run_corpus(use_launches=mode, half="dev")
        result["verdicts"] = check.classify(result["places"], TRIAGE, LAUNCHES)
        _RUNS[mode] = result
    return _RUNS[mode]


@pytest.fixture(scope="module")
def launched():
    """Every kernel under the block shapes its repository launches it with (launches.json)."""
    return _run(True)


@pytest.fixture(scope="module", params=[True, "discovered"], ids=["true-launches", "as-a-user"])
def each_mode(request):
    """Also as a user runs ptxlint: shapes from its own launch discovery, candidate shapes otherwise."""
    return _run(request.param)


# --- the committed records -------------------------------------------------------------------------


def test_corpus_is_large_and_licensed():
    assert CORPUS["total_kernels"] >= 150
    assert sum(s["kernel_count"] for s in CORPUS["sources"]) == CORPUS["total_kernels"]
    allowed = {"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "Apache-2.0 WITH LLVM-exception", "NCSA", "Unlicense",
               # test3: darknet is public domain; CloverLeaf/TeaLeaf are GPL-3.0-or-later, used only in the local,
               # git-ignored corpus (nothing of them is committed or distributed)
               "public domain", "GPL-3.0-or-later",
               # test4: bb_segsort is LGPL-2.1 (its LICENSE), likewise local only
               "LGPL-2.1",
               # test14: era-bellman-cuda, era-boojum-cuda and dfdx are dual-licensed (LICENSE-APACHE and LICENSE-MIT)
               "Apache-2.0 OR MIT",
               # test13: dlib is under the Boost licence; AutoDock-GPU's CUDA files are LGPL-2.1-or-later (file headers),
               # DeePMD-kit is LGPL-3.0-or-later (its pyproject); like the others, local only
               "BSL-1.0", "LGPL-2.1-or-later", "LGPL-3.0-or-later",
               # test16: PopSift is under the MPL-2.0; solana-perf-libs' Ed25519 files carry their own notice
               # (src/cuda-ecc-ed25519/license.txt: zlib, and BSD-3-Clause for the parts from curve25519-dalek)
               "MPL-2.0", "Zlib AND BSD-3-Clause",
               # test17: LOGAN is under Lawrence Berkeley National Laboratory's BSD-3-Clause variant (license.txt)
               "BSD-3-Clause-LBNL",
               # test25: ELPA is under version 3 of the LGPL only (LICENSE, file headers), local only like the others
               "LGPL-3.0-only"}
    assert {s["license"] for s in CORPUS["sources"]} <= allowed
    held_out = ("cuda-samples", "rodinia", "gpuverify", "hecbench", "faial")
    assert not [s["repo"] for s in CORPUS["sources"] if any(h in s["repo"].lower() for h in held_out)]
    assert all(len(s["commit"]) == 40 and s["license_file"] for s in CORPUS["sources"])


def test_corpus_is_split_by_repository():
    """Issue 17: at least 1,000 kernels from at least 15 repositories, each repository in exactly one half,
    each half holding about half the kernels; the first corpus's repositories, already looked at, are dev."""
    halves = CORPUS["halves"]["repositories"]
    repos = {s["repo"] for s in CORPUS["sources"]}
    assert set(halves) == {"dev", "test", "test2", "test3", "test4", "test5", "test6", "test7", "test8", "test9",
                           "test10", "test11", "test12", "test13", "test14", "test15", "test16", "test17", "test18",
                           "test19", "test20", "test21", "test22", "test23", "test24", "test25", "test26"}
    assert sum(len(set(r)) for r in halves.values()) == len(set().union(*map(set, halves.values()))), "a repository in two halves"
    assert set().union(*map(set, halves.values())) == repos
    assert len(repos) >= 15 and CORPUS["total_kernels"] >= 1000
    assert FIRST_CORPUS <= set(halves["dev"])
    per_half = {h: sum(s["kernel_count"] for s in check.sources_of(CORPUS, h)) for h in halves}
    assert min(per_half["dev"], per_half["test"]) >= 0.4 * (per_half["dev"] + per_half["test"]), per_half
    assert CORPUS["halves"]["counts"] == per_half


def test_second_test_half_is_new_and_varied():
    """test2 (issue 17's closing round): at least 5 repositories none of the other halves holds, 400-700
    kernels, each kind the issue names described in corpus.json's kinds."""
    halves = CORPUS["halves"]["repositories"]
    assert len(halves["test2"]) >= 5
    assert not set(halves["test2"]) & (set(halves["dev"]) | set(halves["test"]))
    assert 400 <= CORPUS["halves"]["counts"]["test2"] <= 700
    kinds = " ".join(CORPUS["halves"]["kinds"][r] for r in halves["test2"]).lower()
    for kind in ("graph", "hash", "stencil", "sparse", "gemm", "llm", "histogram", "queue"):
        assert kind in kinds, kind


def test_third_test_half_is_new_and_varied():
    """test3 (built after test2): at least 8 repositories none of the other halves holds, 400-800 kernels,
    the kinds it was built for described in corpus.json's kinds, and most kernels with a block shape."""
    halves = CORPUS["halves"]["repositories"]
    assert len(halves["test3"]) >= 8
    assert not set(halves["test3"]) & (set(halves["dev"]) | set(halves["test"]) | set(halves["test2"]))
    assert 400 <= CORPUS["halves"]["counts"]["test3"] <= 800
    kinds = " ".join(CORPUS["halves"]["kinds"][r] for r in halves["test3"]).lower()
    for kind in ("graph", "stencil", "reduction", "scan", "sort", "histogram", "gemv", "softmax", "atomic", "cooperative groups"):
        assert kind in kinds, kind
    folders = {r.replace("/", "__") for r in halves["test3"]}
    mine = [e for e in LAUNCHES["kernels"] if e["ptx"].split("/", 1)[0] in folders]
    assert len(mine) == CORPUS["halves"]["counts"]["test3"]
    assert sum(1 for e in mine if e["launches"]) >= 0.75 * len(mine)


def _new_half(name: str, sizes: range, kinds: tuple, min_repos: int = 8) -> list:
    """Checks every held-out half built after test3 shares: at least 8 repositories (`min_repos`) that no other half
    holds or tried and dropped, a kernel count in `sizes`, no repository above about a third of them,
    the kinds it was built for described in corpus.json's kinds, and every kernel with a launch record
    or a reason why none. Returns the half's launches.json entries."""
    halves = CORPUS["halves"]["repositories"]
    mine_repos = set(halves[name])
    assert len(mine_repos) >= min_repos
    others = set().union(*(set(r) for h, r in halves.items() if h != name))
    assert not mine_repos & others
    assert not mine_repos & {e["repo"] for e in CORPUS["left_out"] if e["path"].startswith("(whole repository")}
    count = CORPUS["halves"]["counts"][name]
    assert count in sizes
    per_repo = {r: sum(s["kernel_count"] for s in CORPUS["sources"] if s["repo"] == r) for r in mine_repos}
    assert max(per_repo.values()) <= 0.36 * count, per_repo
    described = " ".join(CORPUS["halves"]["kinds"][r] for r in halves[name]).lower()
    for kind in kinds:
        assert kind in described, kind
    folders = {r.replace("/", "__") for r in halves[name]}
    mine = [e for e in LAUNCHES["kernels"] if e["ptx"].split("/", 1)[0] in folders]
    assert len(mine) == count
    assert all(e["launches"] or e.get("unknown") for e in mine)
    return mine


def test_fourth_test_half_is_new_and_varied():
    """test4 (built after test3): 450-700 kernels of ML, graph, sort, sparse, hash-table, physics,
    mining and proxy-app code, most with a block shape read from the host code."""
    mine = _new_half("test4", range(450, 701), ("llm", "graph", "sort", "sparse", "hash", "physics", "mining",
                                                "proxy", "warp", "atomic"))
    assert sum(1 for e in mine if e["launches"]) >= 0.75 * len(mine)


def test_fifth_test_half_is_new_and_varied():
    """test5 (built after test4): 400-700 kernels of image processing, compression, crypto,
    bioinformatics, clustering, SVM, BVH/k-d tree and point-cloud code; most of the repositories' own
    kernels with a block shape read from the host code (toolkit kernels are launched by the library)."""
    mine = _new_half("test5", range(400, 701), ("image processing", "compression", "crypto", "bioinformatics",
                                                "clustering", "svm", "bvh", "kd-tree", "point-cloud", "warp",
                                                "atomic", "shared-memory"))
    toolkit = sum(1 for e in mine if e["name"].startswith(("cub::", "thrust::")))
    assert toolkit == CORPUS["halves"]["test5_toolkit_kernels"]
    assert sum(1 for e in mine if e["launches"]) >= 0.6 * len(mine)
    assert sum(1 for e in mine if e["launches"]) >= 0.85 * (len(mine) - toolkit)



def test_sixth_test_half_is_new_and_varied():
    """test6 (built after test5): 400-700 kernels of database, signal-processing/FFT, physics, hashing,
    compression, top-k selection and sequence-alignment code; most of the repositories' own kernels with
    a block shape read from the host code (toolkit kernels are launched by the library)."""
    mine = _new_half("test6", range(400, 701), ("databases", "signal processing", "fft", "physics", "hash",
                                                "compression", "selection", "bioinformatics", "warp", "atomic",
                                                "shared-memory"))
    toolkit = sum(1 for e in mine if e["name"].startswith(("cub::", "thrust::")))
    assert toolkit == CORPUS["halves"]["test6_toolkit_kernels"]
    assert sum(1 for e in mine if e["launches"]) >= 0.6 * len(mine)
    assert sum(1 for e in mine if e["launches"]) >= 0.85 * (len(mine) - toolkit)


def test_eighth_test_half_is_new_and_varied():
    """test7 (built after test6): 400-700 kernels of image-processing/stereo, bundle-adjustment solver,
    quantum-simulation, bioinformatics, lattice-Boltzmann and quantized-inference code; most of the
    repositories' own kernels with a block shape read from the host code (run-time blocks and
    instances no launch names are recorded unknown with the reason)."""
    mine = _new_half("test7", range(400, 701), ("image processing", "stereo", "bundle adjustment", "quantum",
                                                "bioinformatics", "lattice boltzmann", "quantiz", "warp",
                                                "atomic", "shared-memory"))
    toolkit = sum(1 for e in mine if e["name"].startswith(("cub::", "thrust::")))
    assert toolkit == CORPUS["halves"]["test7_toolkit_kernels"]
    assert sum(1 for e in mine if e["launches"]) >= 0.65 * (len(mine) - toolkit)
    # a hand-read launch cites its host line
    assert all(":" in launch["host"] for e in mine for launch in e["launches"])


def test_ninth_test_half_is_new_and_varied():
    """test8 (built after test7): 400-700 kernels of micromagnetic stencils, transformer inference,
    cryptographic hashing/mining, lossy compression, graph community detection and warp-level
    k-selection code; over half of the repositories' own kernels with a block shape read from the host
    code (mumax's from its Go launch configurations), the rest recorded unknown with the reason."""
    mine = _new_half("test8", range(400, 701), ("physics", "stencil", "transformer", "cryptograph", "mining",
                                                "compression", "graph", "selection", "warp", "atomic",
                                                "shared-memory"))
    toolkit = sum(1 for e in mine if e["name"].startswith(("cub::", "thrust::")))
    assert toolkit == CORPUS["halves"]["test8_toolkit_kernels"]
    assert sum(1 for e in mine if e["launches"]) >= 0.55 * (len(mine) - toolkit)
    # every launch cites its host line; mumax's are read from its Go host code
    assert all(":" in launch["host"] for e in mine for launch in e["launches"])
    assert any(launch["host"].split(":")[0].endswith(".go") for e in mine for launch in e["launches"])
    # a block shape is a real CUDA block: 1 to 1024 threads
    for e in mine:
        for launch in e["launches"]:
            x, y, z = launch["block"]
            assert 1 <= x * y * z <= 1024, (e["name"], launch)


def _partial_half(name: str, repos: set) -> tuple:
    """Checks every partial half shares (test9, test10, test11): exactly `repos`, none of them in another
    half or dropped whole from the corpus, the rule saying "partial", the kernel count recorded, every
    kernel with a launch record or a reason why none, the toolkit kernels counted, and every recorded
    block a real CUDA block (1 to 1024 threads). Returns (its launches.json entries, its toolkit count)."""
    halves = CORPUS["halves"]["repositories"]
    mine_repos = set(halves[name])
    assert mine_repos == repos
    others = set().union(*(set(r) for h, r in halves.items() if h != name))
    assert not mine_repos & others
    assert not mine_repos & {e["repo"] for e in CORPUS["left_out"] if e["path"].startswith("(whole repository")}
    assert "partial" in CORPUS["halves"][f"{name}_rule"]
    folders = {r.replace("/", "__") for r in mine_repos}
    mine = [e for e in LAUNCHES["kernels"] if e["ptx"].split("/", 1)[0] in folders]
    assert len(mine) == CORPUS["halves"]["counts"][name]
    assert all(e["launches"] or e.get("unknown") for e in mine)
    toolkit = sum(1 for e in mine if e["name"].startswith(("cub::", "thrust::")))
    assert toolkit == CORPUS["halves"][f"{name}_toolkit_kernels"]
    for e in mine:
        for launch in e["launches"]:
            x, y, z = launch["block"]
            assert 1 <= x * y * z <= 1024, (e["name"], launch)
    return mine, toolkit


def test_tenth_test_half_is_new_but_partial():
    """test9 (built after test8) is partial: molecular dynamics (GPUMD), 1 repository no other half
    holds, where a half should have 8 (the others did not build here in the time the round had, and
    a rasterizer under a non-commercial licence was dropped); a block read from the host code for
    over half of its own kernels, the rest recorded unknown with the reason."""
    mine, toolkit = _partial_half("test9", {"brucefan1983/GPUMD"})
    assert sum(1 for e in mine if e["launches"]) >= 0.5 * (len(mine) - toolkit)


def test_every_kernel_has_a_launch_record():
    """launches.json names each kernel of corpus.json exactly once, with shapes and host lines or a reason."""
    recorded = {(e["ptx"], e["kernel"]) for e in LAUNCHES["kernels"]}
    assert len(recorded) == len(LAUNCHES["kernels"])
    wanted = {(s["ptx"], k) for s in CORPUS["sources"] for k in s["kernels"]}
    assert recorded == wanted
    for e in LAUNCHES["kernels"]:
        if e["launches"]:
            for launch in e["launches"]:
                assert len(launch["block"]) == 3 and all(d >= 1 for d in launch["block"]), e["name"]
                assert 1 <= launch["block"][0] * launch["block"][1] * launch["block"][2] <= 1024, e["name"]
                assert ":" in launch["host"] and launch["how"], e["name"]
                # the grid as well as the block: a number per dimension where the host code fixes it, else its expression
                grid = launch["grid"]
                assert grid is None and launch["grid_how"] or len(grid) == 3, e["name"]
                assert grid is None or all(isinstance(g, int) and g >= 1 or isinstance(g, str) and g for g in grid), e["name"]
        else:
            assert e.get("unknown"), f"{e['name']}: no launch and no reason"


def test_triage_entries_are_complete():
    keys = [(e["code"], e["path"], e["line"]) for e in TRIAGE["entries"]]
    assert len(keys) == len(set(keys)), "a place is triaged twice"
    for e in TRIAGE["entries"]:
        assert e["verdict"] in ("true", "false"), e
        assert e["code"][:4] in ("RACE", "SYNC", "WARP", "SHFL") or e["code"].startswith("FENCE"), e
        assert len(e["why"]) > 40 and e["cause"], e
        assert e["launch"]["block"] and e["launch"]["host"], e


# --- the corpus -------------------------------------------------------------------------------------


def test_no_untriaged_place(each_mode):
    places, verdicts = each_mode["places"], each_mode["verdicts"]
    new = [k for k in places if verdicts[k][0] == "untriaged"]
    assert not new, (f"{len(new)} place(s) fire on the real-world corpus without a triage entry; add each to "
                     f"validation/realworld/triage.json (true/false, why, launch):\n{_listing(new, places, verdicts)}")


def _first_corpus_path(path: str) -> bool:
    folders = {s["corpus_path"].split("/", 1)[0] for s in CORPUS["sources"] if s["repo"] in FIRST_CORPUS}
    return path.split("/", 1)[0] in folders


def test_no_false_positive(each_mode):
    """Each listed place is a finding ptxlint should not give (issue 9), on the first corpus's repositories;
    the false places of the repositories added in issue 17 are its work list (check.py --half dev)."""
    places, verdicts = each_mode["places"], each_mode["verdicts"]
    false = [k for k in places if verdicts[k][0] == "false" and _first_corpus_path(k[1])]
    assert not false, (f"{len(false)} FALSE POSITIVE place(s) on the real-world corpus (issue 9; triage.json says "
                       f"what ptxlint got wrong):\n{_listing(false, places, verdicts)}")


def test_no_stale_triage_entry(launched):
    stale = check.stale_entries(launched["places"], TRIAGE, "dev")
    lines = "\n".join(f"  {e['code']} {e['path']}:{e['line']} ({e['verdict']}: {e['cause']})" for e in stale)
    assert not stale, (f"{len(stale)} triage entr(ies) no longer fire: a true one means a real defect is no longer "
                       f"reported (a regression), a false one was fixed: remove it from triage.json\n{lines}")


def test_eleventh_test_half_is_new_but_partial():
    """test10 (built in the closing session, after every other half had been looked at) is partial: speech
    recognition (Kaldi), ML kernels launched from Rust (candle) and persistent audio-synthesis kernels
    (nv-wavenet), 3 repositories no other half holds or tried and dropped, where a half should have 8. Every
    kernel has a launch record or says why not: candle's are read from its Rust host code, Kaldi's and
    nv-wavenet's are left unrecorded (the half is measured as a user runs ptxlint)."""
    mine, _ = _partial_half("test10", {"kaldi-asr/kaldi", "huggingface/candle", "NVIDIA/nv-wavenet"})
    assert len(mine) == 647
    candle = [e for e in mine if e["ptx"].startswith("huggingface__candle/")]
    assert sum(1 for e in candle if e["launches"]) >= 0.6 * len(candle)
    assert all(launch["host"].split(":")[0].endswith(".rs") for e in mine for launch in e["launches"])


def test_thirteenth_test_half_is_new_and_varied():
    """test12 (built after test10 by a second helper, beside the helper that built test11): 400-700 kernels of
    point-cloud processing/KinectFusion, detection inference plugins, LLM decoding and RWKV recurrences, random
    number generation, spectral-element seismology, radio-astronomy polyphase filters and auto-tuning examples
    (SpMV, stencil, convolution); over half of the repositories' own kernels with a block shape read from the host
    code (kernel_tuner's from its Python tune_params), the rest recorded unknown with the reason."""
    mine = _new_half("test12", range(400, 701), ("point-cloud", "detection", "llm", "random number", "seism",
                                                 "astronomy", "spmv", "stencil", "warp", "atomic", "shared-memory"))
    toolkit = sum(1 for e in mine if e["name"].startswith(("cub::", "thrust::")))
    assert toolkit == CORPUS["halves"]["test12_toolkit_kernels"]
    assert sum(1 for e in mine if e["launches"]) >= 0.55 * (len(mine) - toolkit)
    assert all(":" in launch["host"] for e in mine for launch in e["launches"])
    assert any(launch["host"].split(":")[0].endswith(".py") for e in mine for launch in e["launches"])
    # (every block is 1 to 1024 threads: test_every_kernel_has_a_launch_record)


def test_test11_half_is_new_but_partial():
    """test11 (built after test10 beside test12, from repositories no other half holds or tried and dropped) is partial:
    random number generation (random123), radio-astronomy signal processing (bifrost), BVH construction and spatial
    queries (cuBQL), adaptive SpGEMM with a restart work queue (ACSpGEMM), network inference for Go and chess (KataGo,
    lc0) and warp-cooperative bignum arithmetic (CGBN): 7 repositories where a half should have 8 (two more were built
    and dropped for code of the CUDA samples). Over half of the repositories' own kernels have a block shape read from
    the host code, the rest are recorded unknown with the reason."""
    mine_repos = {"DEShawResearch/random123", "ledatelescope/bifrost", "ingowald/cuBQL", "GPUPeople/ACSpGEMM",
                  "lightvector/KataGo", "LeelaChessZero/lc0", "NVlabs/CGBN"}
    mine, toolkit = _partial_half("test11", mine_repos)
    halves = CORPUS["halves"]["repositories"]
    described = " ".join(CORPUS["halves"]["kinds"][r] for r in halves["test11"]).lower()
    for kind in ("random number", "astronomy", "dedispersion", "bvh", "sparse", "spgemm", "work queue", "inference",
                 "multi-precision", "warp", "atomic", "shared-memory"):
        assert kind in described, kind
    assert len(mine) == 538
    per_repo = {r: sum(s["kernel_count"] for s in CORPUS["sources"] if s["repo"] == r) for r in mine_repos}
    assert max(per_repo.values()) <= 0.36 * len(mine), per_repo
    assert sum(1 for e in mine if e["launches"]) >= 0.55 * (len(mine) - toolkit)
    # every launch cites its host line
    assert all(":" in launch["host"] for e in mine for launch in e["launches"])


def _launch_records_hold(mine: list, half: str) -> None:
    """A new half's launch records: its toolkit kernels counted as corpus.json says, over half of its own
    kernels with a recorded launch, every launch citing its host line with a block of 1 to 1024 threads."""
    toolkit = sum(1 for e in mine if e["name"].startswith(("cub::", "thrust::")))
    assert toolkit == CORPUS["halves"][f"{half}_toolkit_kernels"]
    assert sum(1 for e in mine if e["launches"]) >= 0.55 * (len(mine) - toolkit)
    assert all(":" in launch["host"] for e in mine for launch in e["launches"])
    for e in mine:
        for launch in e["launches"]:
            x, y, z = launch["block"]
            assert 1 <= x * y * z <= 1024, (e["name"], launch)


def test_test15_half_is_new_and_varied():
    """test15 (built by a helper beside the one building test16, from repositories no other half holds or tried and
    dropped): 400-700 kernels of ML kernels from three code bases (attention for decoding, softmax, layer/RMS norms,
    RoPE, group-wise int4/int8 quantization, unary ops over many dtypes) and embedding training, sparse linear algebra
    for GNNs (GE-SpMM, SDDMM) and graph-based nearest-neighbour search (HNSW, GGNN); seven repositories (the others
    tried were dropped, see left_out); over half of the repositories' own kernels with a block shape read from the host
    code (InfiniTensor's macro launches, MLX's add_kernel_node calls, DeepSpeed's and GGNN's template-argument blocks by
    hand), the rest recorded unknown with the reason."""
    mine = _new_half("test15", range(400, 701), ("attention", "softmax", "norm", "quantization", "sparse", "spmm",
                                                 "nearest-neighbour", "embedding", "warp", "atomic", "shared memory"),
                     min_repos=7)
    _launch_records_hold(mine, "test15")


def test_test14_half_is_new_and_varied():
    """test14 (built by a helper beside the one building test13, from repositories no other half holds or tried and
    dropped): 400-700 kernels of linear-programming solvers (PDHG), zero-knowledge proving (Montgomery big-integer
    fields, NTT, multi-scalar multiplication, Poseidon/Keccak/Blake2s hashing), a cuckoo hash table, a GPU memory
    allocator with hash tables built on it and deep-learning kernels without framework headers; over half of the repositories' own kernels with a block shape read from the
    host code (dfdx's from its Rust launch_cfg::<128>), the rest recorded unknown with the reason."""
    mine = _new_half("test14", range(400, 701), ("linear programming", "zero-knowledge", "hash table", "allocat", "deep-learning",
                                                 "ntt", "multi-scalar", "warp", "atomic", "shared memory"))
    toolkit = sum(1 for e in mine if e["name"].startswith(("cub::", "thrust::")))
    assert toolkit == CORPUS["halves"]["test14_toolkit_kernels"]
    assert sum(1 for e in mine if e["launches"]) >= 0.55 * (len(mine) - toolkit)
    assert all(":" in launch["host"] for e in mine for launch in e["launches"])
    assert any(launch["host"].split(":")[0].endswith(".rs") for e in mine for launch in e["launches"])
    # (every block is 1 to 1024 threads: test_every_kernel_has_a_launch_record)


def test_test13_half_is_new_and_varied():
    """test13 (built after test12 by a helper, beside the helper that built test14): 400-700 kernels of scientific
    computing and imaging: CT tomography projectors (TIGRE, ASTRA), astrophysical hydrodynamics/MHD (Cholla, GAMER),
    MRI reconstruction (BART), curve fitting (Gpufit), molecular docking (AutoDock-GPU), molecular dynamics (DeePMD-kit)
    and dlib's ML kernels; over half of the kernels with a block shape read from the host code (GAMER's and BART's by
    hand from their macros), the rest recorded unknown with the reason."""
    mine = _new_half("test13", range(400, 701), ("tomography", "hydrodynamics", "mri", "curve fitting", "docking",
                                                 "molecular dynamics", "warp", "atomic", "shared-memory"))
    _launch_records_hold(mine, "test13")


def test_test16_half_is_new_and_varied():
    """test16 (built by a helper beside the one building test15, from repositories no other half holds or tried and
    dropped): 400-700 kernels from eight repositories of computer vision and image processing (SIFT, CV-CUDA's
    operators), lattice Boltzmann simulation, phylogenetic likelihoods, Ed25519/SHA-256 cryptography, compression (rANS,
    LZ4, Snappy, cascaded) and granular particle simulation with sensor image kernels; over half of the repositories' own
    kernels with a block shape read from the host code, the rest (BEAGLE's, launched through the driver API, among them)
    recorded unknown with the reason."""
    mine = _new_half("test16", range(400, 701), ("computer vision", "image processing", "lattice boltzmann", "bioinformatics",
                                                 "cryptography", "compression", "particle", "warp", "atomic", "shared memory"))
    _launch_records_hold(mine, "test16")


def test_test18_half_is_new_and_varied():
    """test18 (built by a helper beside the one building test17, from repositories no other half holds or tried and
    dropped): 400-700 kernels from eight repositories of radio-astronomy signal processing (OSKAR's correlators and
    DFTs), FFT, homomorphic-encryption NTT, AES-based and cuRAND-state random number generation, floating-point
    compression, CNN image upscaling, ray tracing over sparse volumes (NanoVDB) and database hash joins (HeavyDB); over
    half of the repositories' own kernels with a block shape read from the host code (OSKAR's by-name launches with
    their local_size arrays), the rest (HeavyDB's occupancy-sized launches, GPU-FFT's size tables) recorded unknown
    with the reason."""
    mine = _new_half("test18", range(400, 701), ("signal processing", "fft", "cryptography", "random number",
                                                 "compression", "image processing", "ray tracing", "database", "warp",
                                                 "atomic", "shared memory"))
    _launch_records_hold(mine, "test18")


def test_test20_half_is_new_and_varied():
    """test20 (built by a helper beside the one building test19, from repositories no other half holds or tried and
    dropped): 400-700 kernels from five repositories of medical-ultrasound signal and image processing (SUPRA's
    beamformers, demodulation, scan conversion), image processing and computer vision (OpenCV's CUDA modules), wavelet
    compression (cudaCompress), homomorphic-encryption cryptography (troy-nova's NTTs) and warp-level tree-SHAP code
    (GPUTreeShap's warp groups, ballots and shuffles); the others tried were dropped (see left_out); over half of the repositories'
    own kernels with a block shape read from the host code, the rest (troy-nova's cooperative launches, OpenCV's
    run-time blocks) recorded unknown with the reason."""
    mine = _new_half("test20", range(400, 701), ("ultrasound", "signal processing", "image processing", "computer vision",
                                                 "compression", "wavelet", "cryptography", "ntt", "warp", "atomic",
                                                 "shared memory"), min_repos=5)
    _launch_records_hold(mine, "test20")


def test_test21_half_is_new_and_varied():
    """test21 (built by a helper beside the one building test22, from repositories no other half holds or tried and
    dropped): 400-700 kernels from eight repositories of a sparse direct solver (SPRAL's SSIDS factorization, volatile
    shared-memory tiles and inter-block progress flags), molecular simulation (GROMACS's non-bonded, PME and constraint
    kernels), bioinformatics alignment (CUDASW++4.0's Smith-Waterman with DPX instructions and warp shuffles),
    union-find connected-component labeling of images and volumes (YACCLAB), compression (libbsc's GPU
    Burrows-Wheeler and sort transforms), image processing and CT reconstruction (RTK), hash-table locks
    (HierarchicalKV's group lock) and sparse transposition (spECK); the others tried were dropped or left out (spECK's
    SpGEMM for a scan that follows the CUDA SDK's sample, nvgraph for vendoring CUSP, see left_out); over half of the
    repositories' own kernels with a block shape read from the host code (CUDASW4's `auto kernel = ...` launches and
    GROMACS's KernelLaunchConfig blocks by hand), the rest (libcubwt's run-time block, GROMACS's PME solve) recorded
    unknown with the reason."""
    mine = _new_half("test21", range(400, 701), ("sparse", "solver", "molecular", "bioinformatics", "alignment",
                                                 "union-find", "connected-component", "compression",
                                                 "image processing", "hash", "lock", "warp", "atomic",
                                                 "shared-memory"), min_repos=8)
    _launch_records_hold(mine, "test21")


def test_test22_half_is_new_and_varied():
    """test22 (built by a helper beside the one building test21, from repositories no other half holds or tried and
    dropped): 400-700 kernels from eight repositories of database joins and radix partitioning (fast-interconnects,
    launched from Rust), plain-CUDA ML inference and attention kernels (MNN's CUDA back end without CUTLASS), genomics
    (f5c's banded event alignment), GPU octrees with warp-level primitives (cornerstone-octree), SPH hydrodynamics
    with Barnes-Hut N-body gravity (SPH-EXA, Ryoanji), a counting quotient filter under per-region locks (gpu-filters'
    gqf), shared-memory FFTs (Volkov's, bundled with xGPU) and a few radar signal-processing kernels (ISCE); the
    others tried were dropped (see left_out); over half of the repositories' own kernels with a block shape read from
    the host code (MNN's runtime->threads_num() read as its fixed 128), the rest (fast-interconnects' Rust launches,
    run-time blocks) recorded unknown with the reason."""
    mine = _new_half("test22", range(400, 701), ("database", "hash join", "ml inference", "attention", "genomics",
                                                 "n-body", "octree", "hydrodynamics", "radar", "lock", "fft",
                                                 "warp", "atomic", "shared-memory"), min_repos=8)
    _launch_records_hold(mine, "test22")


def test_test23_half_is_new_and_varied():
    """test23 (built by a helper beside the one building test24, from repositories no other half holds or tried and
    dropped): 400-700 kernels from eight repositories of GPU memory allocation (Halloc's tests, DynaSOAr's lock-free
    bitmap allocator and the agent simulations on it), SAT simplification (ParaFROST), state-vector quantum simulation
    with grid synchronization (SV-Sim), a seismic finite-difference stencil (FWI), BM3D image denoising, sparse tensor
    algebra (ParTI) and CT tomography projectors and filters (LEAP); the others tried were dropped (Uni-Dock for Boost,
    see left_out); over half of the repositories' own kernels with a block shape read from the host code (LEAP's
    setBlockSize shapes by hand), the rest (Halloc's and SV-Sim's run-time blocks) recorded unknown with the reason."""
    mine = _new_half("test23", range(400, 701), ("allocator", "lock-free", "sat", "quantum", "stencil", "image processing",
                                                 "sparse tensor", "tomography", "warp", "atomic", "shared-memory"),
                     min_repos=8)
    _launch_records_hold(mine, "test23")


def test_test24_half_is_new_and_varied():
    """test24 (built by a helper beside the one building test23, then extended by a second helper run, from
    repositories no other half holds or tried and dropped): 400-700 kernels from eight repositories of password-hashing
    attacks (Lyra2's sponge and yescrypt), a proof-of-work miner (hs-miner), quantum-chemistry integrals (QUICK),
    cryo-electron tomography image processing (AreTomo2), dense linear algebra tile kernels (SLATE), atmospheric
    radiation with a Monte Carlo ray tracer (RTE+RRTMGP-cpp), medical image registration (NiftyReg) and plane-wave DFT
    (SIRIUS); the others tried were dropped (mixbench and FZ-GPU for their licences, COLMAP for glog and Eigen, see
    left_out); over half of the repositories' own kernels with a block shape read from the host code (the first three
    by hand, the rest by a text reader of the launches and a few by hand), the rest (command-line, tuner-chosen and
    other run-time blocks) recorded unknown with the reason."""
    mine = _new_half("test24", range(400, 701), ("cryptography", "password", "mining", "quantum chemistry",
                                                 "image processing", "tomography", "linear algebra", "radiation",
                                                 "ray tracer", "registration", "dft", "atomics", "shared memory",
                                                 "shared-memory"))
    _launch_records_hold(mine, "test24")


def test_test25_half_is_new_and_varied():
    """test25 (built by a helper beside the one building test26, from repositories no other half holds or tried and
    dropped): 400-700 kernels from seven repositories of ML inference layers (Tencent TNN's CUDA back end), neural
    machine translation (Marian's tensor operators and beam search), quantum Monte Carlo (QMCPACK's AFQMC and
    determinant updates), a dense symmetric eigensolver (ELPA's tridiagonalization and divide-and-conquer), seismic spectral-element wave propagation (SPECFEM3D), ODE/DAE time integration (SUNDIALS'
    NVECTOR_CUDA) and bioinformatics sequence alignment (TWILIGHT); the others tried were dropped (three for code from
    held-out sets, see left_out); over half of the repositories' own kernels with a block shape read from the host code
    by a text reader of the launches, the rest (Marian's and SUNDIALS' run-time blocks) recorded unknown with the
    reason."""
    mine = _new_half("test25", range(400, 701), ("ml inference", "machine translation", "quantum monte carlo",
                                                 "eigensolver", "seismic", "time-integration", "bioinformatics", "sequence alignment",
                                                 "warp", "atomic", "shared-memory"), min_repos=7)
    _launch_records_hold(mine, "test25")


def test_test26_half_is_new_and_varied():
    """test26 (built by a helper beside the one building test25, from repositories no other half holds or tried and
    dropped): 400-700 kernels from nine repositories of particle-physics track reconstruction (CMS Patatrack's pixel
    tracking with its work queues, histograms and prefix scans), dense linear algebra (KBLAS), stereo computer vision
    (SGM), signal processing (PDWT's wavelet transforms, SpFFT's sparse FFT), quantum-chemistry grids (CP2K), a speech
    recognition loss (warp-transducer), finite-element vectors (libCEED) and atmospheric large-eddy simulation
    (MicroHH); the others tried were dropped (three for bundled cuda-samples or SDK code, Tinker9 for its licence,
    SurfelWarp for CUDA 13, CatBoost for its size, see left_out); over half of the repositories' own kernels with a
    block shape read from the host code (MicroHH's grid-shaped blocks and SGM's macro blocks by hand), the rest
    recorded unknown with the reason."""
    mine = _new_half("test26", range(400, 701), ("track reconstruction", "linear algebra", "computer vision", "stereo",
                                                 "signal processing", "wavelet", "fft", "quantum chemistry", "speech",
                                                 "finite elements", "large-eddy", "warp", "atomics", "shared-memory",
                                                 "shared memory"), min_repos=9)
    _launch_records_hold(mine, "test26")


def test_test17_half_is_new_and_varied():
    """test17 (built by a helper beside another, from repositories no other half holds or tried and dropped): 400-700
    kernels from seven repositories of quantum circuit simulation (two state-vector simulators), computational geometry
    (localized 2-D Delaunay triangulation), bioinformatics (X-drop alignment, k-mer counting in a hash table), molecular
    dynamics (timemachine) and an exoplanet atmosphere model (THOR's stencil solvers); the others tried were dropped
    (Ginkgo for a function copied from cuda-samples, see left_out); over half of the repositories' own kernels with a block shape read from the host code, the rest
    (qulacs's occupancy-chosen blocks among them) recorded unknown with the reason."""
    mine = _new_half("test17", range(400, 701), ("quantum", "computational geometry", "delaunay", "bioinformatics",
                                                 "sequence alignment", "k-mer", "molecular dynamics", "stencil", "warp",
                                                 "atomic", "shared-memory", "shared memory"), min_repos=7)
    _launch_records_hold(mine, "test17")


def test_test19_half_is_new_and_varied():
    """test19 (built by a helper beside another, from repositories no other half holds or tried and dropped) is small:
    300-700 kernels from four repositories (the brief allowed a smaller half for time; GPU4PySCF was built and dropped
    for code copied from cuda-samples) of lattice-Boltzmann CFD (Ludwig, launched through its tdpLaunchKernel macro), a
    GPU memory allocator built on work queues and a bulk semaphore (Ouroboros), lock-coupled concurrent B-trees
    (MVGpuBTree) and AMGX's hash-table SpGEMM fed by a work queue, with a graph colouring; over half of the
    repositories' own kernels with a block shape read from the host code, the rest recorded unknown with the reason."""
    mine = _new_half("test19", range(300, 701), ("lattice boltzmann", "cfd", "allocator", "queue", "lock", "b-tree",
                                                 "sparse", "hash", "graph", "warp", "atomic", "shared memory"),
                     min_repos=4)
    _launch_records_hold(mine, "test19")
