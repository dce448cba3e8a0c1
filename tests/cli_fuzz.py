"""Fuzzing the whole command line, not only the parser (imported as `cli_fuzz` by the short test
and bench/fuzz_long.py --cli; issue 18).

Each input is a small checkout made in a fresh temporary directory and one `ptxlint` command run
on it. Input kinds (KINDS): hostile file and directory names; directory trees with symlinks in and
out of the tree, FIFOs, links to /dev/zero and huge sparse files; random, deep and wrong-typed
configurations; cache entries of the wrong shape; host code for launch discovery (C++-ish text
with `#include`/`#define` named by a PTX's `.file`); the `accesses`, `kernels` and `launches`
commands on mutated PTX; and, with nvcc, `.cu` files with hostile names (`cu`, small).

The contract every input must keep (`violations()`): exit status 0, 1 or 2; no traceback and no
"internal error"; no canary file (`PWNED`) made by a command hidden in a name or a configuration;
the secret next to the checkout (`outside/SECRET`, which symlinks in the tree point at) never in
the output; nothing written outside the temporary directory; done within the time limit.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import ptx_fuzz

KINDS = ("names", "trees", "configs", "cache", "host", "commands", "cu")
CANARY = "PWNED"

# names a shell, an argument parser or a path join could misread
HOSTILE_NAMES = [
    "a$(touch {canary})", "b`touch {canary}`", "c;touch {canary}", 'd"q"uote', "e'q'uote", "f\nnewline",
    "-g", "--format=json", "h space", "i|touch {canary}", "j&&touch {canary}", "k\\back", "..l", "m*",
    "n\tTAB", "ö-unicode", "p%0A", "-", "q$HOME", "r>{canary}",
]
CONFIG_KEYS = ["select", "ignore", "per-file-ignores", "arch", "block", "nvcc", "nvcc-args", "include-dirs",
               "defines", "analysis-budget", "tool", "unknown-key"]
FORMATS = ["text", "concise", "json", "sarif", "github"]


@dataclass
class Case:
    """One input: the command line (after `ptxlint`) run in `cwd`, and what made it."""

    kind: str
    args: list
    cwd: Path
    how: list = field(default_factory=list)


@dataclass
class Outcome:
    code: Optional[int]
    stdout: str
    stderr: str
    seconds: float
    exception: Optional[str] = None  # an exception that escaped the command (in-process runs)


class Sandbox:
    """A temporary root holding `tree/` (the checkout), `outside/SECRET` and a canary location; knows
    what the root held before the command ran."""

    def __init__(self, rng: random.Random) -> None:
        import tempfile

        self.root = Path(tempfile.mkdtemp(prefix="ptxlint-cli-fuzz-"))
        self.tree = self.root / "tree"
        self.tree.mkdir()
        outside = self.root / "outside"
        outside.mkdir()
        self.secret = f"SECRET-{rng.getrandbits(64):016x}"
        (outside / "SECRET").write_text(f"{self.secret}\n__global__ void leak() {{}} // {self.secret}\n")
        (outside / "secret.cuh").write_text(f"// {self.secret}\n#define LEAK {self.secret}\n")

    def snapshot_outside(self) -> dict:
        """Files outside the checkout and the cache, with their sizes (nothing may appear or change)."""
        out = {}
        for p in self.root.rglob("*"):
            rel = p.relative_to(self.root)
            if rel.parts[0] == "tree" or p.is_symlink() or p.name == CANARY:  # the canary: its own clause
                continue
            try:
                out[str(rel)] = p.stat().st_size if p.is_file() else -1
            except OSError:
                continue
        return out

    def remove(self) -> None:
        for p in self.root.rglob("*"):  # FIFOs and read-only dirs do not stop rmtree, unreadable dirs do
            try:
                if p.is_dir() and not p.is_symlink():
                    p.chmod(0o700)
            except OSError:
                pass
        shutil.rmtree(self.root, ignore_errors=True)


def _sources(repo: Path) -> list:
    return [p.read_text() for p in ptx_fuzz.committed_inputs(repo, 40_000)]


def _ptx(rng: random.Random, sources: list, mutate: float = 0.3) -> str:
    text = rng.choice(sources)
    if rng.random() < mutate:
        text, _ = ptx_fuzz.mutate(text, rng, sources, rng.randint(1, 3))
    return text


def _with_file(text: str, name: str) -> str:
    """`text` whose `.file 1` names `name` (appended when it has none)."""
    import re

    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    new, n = re.subn(r'(\.file\s+1\s+)"[^"\n]*"', lambda m: m.group(1) + f'"{quoted}"', text, count=1)
    return new if n else text + f'\n.file\t1 "{quoted}"\n'


def _hostile(rng: random.Random) -> str:
    """A file or directory name; a shell that runs it makes CANARY in its working directory."""
    return rng.choice(HOSTILE_NAMES).format(canary=CANARY)


def make_case(kind: str, rng: random.Random, box: Sandbox, sources: list) -> Case:
    """Build one input of `kind` in `box` and the command that runs on it."""
    tree = box.tree
    canary = box.root / CANARY
    how: list = []
    budget = ["--analysis-budget", "1"]
    if kind == "names":
        d = tree / _hostile(rng) if rng.random() < 0.4 else tree
        d.mkdir(parents=True, exist_ok=True)
        name = _hostile(rng) + rng.choice([".ptx", ".ptx", ".cuh", ""])
        (d / name).write_text(_ptx(rng, sources, 0.1))
        how.append(f"name {name!r} in {d.name!r}")
        target = rng.choice([str(d / name), os.path.relpath(d / name, tree), "."])
        command = rng.choice(["check", "check", "accesses", "launches", "kernels"])
        args = [command, *(["--no-cache", "-j", "1"] if command == "check" else []), *budget, target]
    elif kind == "trees":
        (tree / "ok.ptx").write_text(_ptx(rng, sources, 0))
        for _ in range(rng.randint(1, 4)):
            what = rng.choice(["secret-link", "dir-link-out", "loop", "fifo", "zero", "sparse", "dangling",
                               "unreadable", "secret-file-directive"])
            how.append(what)
            try:
                if what == "secret-link":
                    os.symlink(box.root / "outside" / "SECRET", tree / rng.choice(["s.ptx", "s.cu", "s.cuh", "s.h"]))
                elif what == "dir-link-out":
                    os.symlink(box.root / "outside", tree / "out")
                elif what == "loop":
                    os.symlink(tree / "loop", tree / "loop")
                    os.symlink(tree, tree / "self")
                elif what == "fifo":
                    os.mkfifo(tree / rng.choice(["f.ptx", "f.cu", "f.cuh", ".ptxlint.toml"]))
                elif what == "zero" and os.path.exists("/dev/zero"):
                    os.symlink("/dev/zero", tree / rng.choice(["z.ptx", "z.cu", "z.cuh"]))
                elif what == "sparse":
                    with open(tree / rng.choice(["big.ptx", "big.cuh"]), "wb") as fh:
                        fh.truncate(rng.choice([64, 256]) * 1024 * 1024)  # read whole: memory
                elif what == "dangling":
                    os.symlink(tree / "nowhere.ptx", tree / "gone.ptx")
                elif what == "unreadable":
                    p = tree / "locked.ptx"
                    p.write_text(_ptx(rng, sources, 0))
                    p.chmod(0)
                elif what == "secret-file-directive":  # a PTX whose .loc lines point at the secret
                    target = rng.choice(["../outside/SECRET", str(box.root / "outside" / "SECRET"), "out/SECRET"])
                    (tree / "snip.ptx").write_text(_with_file(_ptx(rng, sources, 0), target))
            except FileExistsError:
                pass
        command = rng.choice(["check", "check", "accesses", "launches", "kernels"])
        header = rng.random() < 0.2 and (tree / "s.cuh").exists()
        target = "s.cuh" if header else "."
        args = [command, *(["--no-cache", "-j", "1"] if command == "check" else []), *budget, target]
    elif kind == "configs":
        (tree / "t.ptx").write_text(_ptx(rng, sources, 0))
        evil = box.root / "evil.sh"
        evil.write_text(f"#!/bin/sh\ntouch '{canary}'\n")
        evil.chmod(0o755)
        text = _config_text(rng, evil)
        name = rng.choice([".ptxlint.toml", "ptxlint.toml", "pyproject.toml"])
        if name == "pyproject.toml" and "[tool.ptxlint]" not in text:
            text = "[tool.ptxlint]\n" + text
        (tree / name).write_bytes(text.encode("utf-8", errors="surrogateescape"))
        if "nvcc" in text:  # a configured compiler runs only on a .cu
            (tree / "k.cu").write_text("__global__ void k() {}\n")
        how.append(f"{name}: {text[:80]!r}")
        args = ["check", "--no-cache", "-j", "1", *budget, "."]
    elif kind == "cache":
        (tree / "t.ptx").write_text(_ptx(rng, sources, 0))
        cache = tree / ".cache"
        args = ["check", "--cache-dir", str(cache), "-j", "1", *budget, "--format", rng.choice(FORMATS), "."]
        return Case(kind, args, tree, ["cache"])  # run() primes the cache, then spoils its entries
    elif kind == "host":
        host = rng.choice(["host.cu", "h.cuh", "sub/host.cu"])
        (tree / host).parent.mkdir(parents=True, exist_ok=True)
        (tree / host).write_text(_host_code(rng, box))
        text = _with_file(_ptx(rng, sources, 0.1), host)
        (tree / "k.ptx").write_text(text)
        how.append(f"host {host}")
        command = rng.choice(["check", "launches", "accesses", "kernels"])
        args = [command, *(["--no-cache", "-j", "1"] if command == "check" else []), *budget, "k.ptx"]
    elif kind == "commands":
        (tree / "k.ptx").write_text(_ptx(rng, sources, 0.7))
        command = rng.choice(["accesses", "kernels", "launches", "check"])
        args = [command, *(["--no-cache", "-j", "1"] if command == "check" else [])]
        if command in ("accesses", "check"):
            args += budget
        for _ in range(rng.randint(0, 3)):
            option = rng.choice(["--block", "--kernel", "--format", "--arch", "--level"])
            value = {"--block": lambda: rng.choice(["32", "32x8", "0", "2048", "k*=16x16", "x", "-1", "1x1x1x1"]),
                     "--kernel": lambda: rng.choice(["*", "_Z*", "[", "nope", ""]),
                     "--format": lambda: rng.choice(["text", "json", "sarif", "bogus"]),
                     "--arch": lambda: rng.choice(["sm_90", "sm_52", "sm_1000", "compute_90", ""]),
                     "--level": lambda: rng.choice(["ptx", "sass"])}[option]()
            args += [option, value]
        args.append("k.ptx")
        how.append(" ".join(args))
    elif kind == "cu":
        d = tree / (_hostile(rng) if rng.random() < 0.5 else "src")
        d.mkdir(parents=True, exist_ok=True)
        name = _hostile(rng) + ".cu"
        (d / name).write_text("__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n")
        how.append(f"cu {name!r} in {d.name!r}")
        args = ["check", "--no-cache", "-j", "1", *budget, "."]
    else:
        raise ValueError(kind)
    return Case(kind, args, tree, how)


def _config_text(rng: random.Random, evil: Path) -> str:
    shape = rng.choice(["random", "deep", "garbage", "evil", "typed"])
    if shape == "deep":
        n = rng.choice([50, 500, 2000, 20000])
        return "a = " + "[" * n + "]" * n + "\n" if rng.random() < 0.5 else "a = " + "{b = " * n + "1" + "}" * n
    if shape == "garbage":
        return "".join(chr(rng.randrange(0, 0x300)) for _ in range(rng.randint(1, 200)))
    if shape == "evil":
        return rng.choice([f'nvcc = "{evil}"\n', f'nvcc-args = ["-ccbin={evil}"]\n',
                           f'nvcc-args = ["--compiler-bindir", "{evil.parent}"]\n'])
    lines = []
    for _ in range(rng.randint(1, 5)):
        key = rng.choice(CONFIG_KEYS)
        value = rng.choice(['"x"', "1", "-1", "1e309", "[]", "[1, 2]", '["BANK", 3]', "{}", '{"*.ptx" = 1}',
                            '{"k*" = "32x8"}', "true", '"32x8x1x1"', "99999999999999999999999", '"sm_90"',
                            '["-DX=1"]', '["../.."]', '"\\u0000"'])
        lines.append(f"{key} = {value}")
    return "\n".join(lines) + "\n"


def _host_code(rng: random.Random, box: Sandbox) -> str:
    """C++-ish host code: launches, macros, includes (of itself, of the secret, of nothing)."""
    parts = ["__global__ void k(float *x) {}"]
    for _ in range(rng.randint(1, 8)):
        parts.append(rng.choice([
            '#include "host.cu"', '#include "h.cuh"', '#include "sub/host.cu"', '#include "../outside/SECRET"',
            f'#include "{box.root}/outside/secret.cuh"', "#include <cuda_runtime.h>", '#include "missing.h"',
            "#define B 128", "#define B(x) x x", "#define M0 M1 M1\n#define M1 M2 M2\n#define M2 M0 M0",
            "".join(f"#define D{i} D{i + 1} D{i + 1}\n" for i in range(30)) + "int y = D0;",
            "#if B > 64\n#define T 256\n#else\n#define T 32\n#endif", "#if (((((\n#endif", "#elif\n#endif",
            "int main() { k<<<1, B>>>(0); }", "void f() { dim3 b(T, 2); k<<<4, b>>>(0); }",
            "void g(int n) { k<<<n, n * LEAK>>>(0); }", "k<<<", "((((((((((((((((((((",
            "template <int N> void h() { k<<<1, N>>>(0); }\ntemplate void h<64>();",
            "void v() { " + "{" * rng.choice([10, 300, 3000]) + "}" * rng.choice([0, 10, 300]),
            "/* unterminated", '"unterminated', "#define", "#include", "\\\n\\\n",
        ]))
    return "\n".join(parts) + "\n"


def _spoil_cache(cache: Path, rng: random.Random) -> list:
    """Replace every cached entry with JSON of the wrong shape (or not JSON); what was written."""
    shapes = ["[]", "null", "1", '"x"', "{}", '{"diagnostics": 1}', '{"diagnostics": [1]}',
              '{"diagnostics": [{"code": 5}]}', '{"errors": [{}]}', '{"not_checked": []}',
              '{"diagnostics": [], "kernels": {"a": 1}}', "[" * 100000 + "]" * 100000, "{" * 5000,
              '{"diagnostics": [{"path": "../outside/SECRET", "line": 1, "column": 1, "code": "BANK001", '
              '"message": "forged", "severity": "warning"}]}', "\x00\xff"]
    written = []
    for p in cache.rglob("*.json"):
        s = rng.choice(shapes)
        p.write_text(s, errors="surrogateescape")
        written.append(s[:40])
    return written


def run_case(case: Case, box: Sandbox, rng: random.Random, time_limit: float, subprocess_mode: bool) -> Outcome:
    """Run the case's command (priming and spoiling the cache first for a `cache` case)."""
    if case.kind == "cache":
        _run(case, time_limit, subprocess_mode)
        case.how.extend(_spoil_cache(case.cwd / ".cache", rng))
    return _run(case, time_limit, subprocess_mode)


MEMORY_LIMIT = 2 << 30  # bytes of address space for one command (a runaway read is a MemoryError)


def _run(case: Case, time_limit: float, subprocess_mode: bool) -> Outcome:
    """Run the command in a child process: `python -m ptxlint` (subprocess_mode), or a fork of this one
    that calls the CLI in-process (fast: no interpreter start), with its memory capped and killed at
    `time_limit` seconds (a hang: code None)."""
    start = time.monotonic()
    if subprocess_mode:
        import subprocess

        try:
            done = subprocess.run([sys.executable, "-m", "ptxlint", *case.args], cwd=case.cwd, capture_output=True,
                                  timeout=time_limit, stdin=subprocess.DEVNULL, preexec_fn=_limit_memory)
        except subprocess.TimeoutExpired as err:
            return Outcome(None, (err.stdout or b"").decode(errors="replace"),
                           (err.stderr or b"").decode(errors="replace"), time.monotonic() - start)
        return Outcome(done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"),
                       time.monotonic() - start)
    import tempfile

    with tempfile.TemporaryFile() as report:
        pid = os.fork()
        if pid == 0:  # the child: run, write the outcome, leave without the parent's cleanup
            status = 0
            try:
                _limit_memory()
                os.chdir(case.cwd)
                report.write(json.dumps(_invoke(case.args)).encode())
                report.flush()
            except BaseException:  # noqa: BLE001 - the parent sees an empty report
                status = 3
            finally:
                os._exit(status)
        deadline = start + time_limit
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                _kill_group(pid)
                os.waitpid(pid, 0)
                return Outcome(None, "", "", time.monotonic() - start)
            time.sleep(0.01)
        report.seek(0)
        data = report.read()
    seconds = time.monotonic() - start
    if not data:
        return Outcome(os.waitstatus_to_exitcode(status), "", "", seconds, "the command's process died")
    got = json.loads(data)
    return Outcome(got["code"], got["stdout"], got["stderr"], seconds, got["exception"])


def _invoke(args: list) -> dict:
    from click.testing import CliRunner

    from ptxlint.cli import main

    os.setpgid(0, 0)  # its own group: a hang is killed with whatever it started
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    escaped = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        frames = [f for f in traceback.extract_tb(result.exc_info[2]) if "ptxlint" in f.filename]
        where = f"{Path(frames[-1].filename).name}:{frames[-1].name}" if frames else "?"
        escaped = f"{type(result.exception).__name__} in {where}"
    return {"code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr, "exception": escaped}


def _kill_group(pid: int) -> None:
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def violations(case: Case, box: Sandbox, outcome: Outcome, before: dict) -> list:
    """The contract's broken clauses, as short signatures (empty: the input passed)."""
    out = []
    text = outcome.stdout + outcome.stderr
    if outcome.code is None:
        out.append("hang")
    elif outcome.code not in (0, 1, 2):
        out.append(f"exit status {outcome.code}")
    if outcome.exception:
        out.append(f"exception: {outcome.exception}")
    if "Traceback (most recent call last)" in text:
        out.append("traceback: " + text.rstrip().splitlines()[-1][:80])
    if "internal error in ptxlint" in text:
        i = text.index("internal error in ptxlint")
        out.append("internal error: " + text[i:i + 100].split("(", 1)[-1].split(")")[0][:70])
    if any(p.is_file() for p in box.root.rglob(CANARY)):
        out.append("command ran: canary file made")
    if box.secret in text:
        out.append("secret outside the tree printed")
    if box.snapshot_outside() != before:
        out.append("file written outside the checkout")
    return out


def fuzz(kind: str, rng: random.Random, sources: list, time_limit: float = 30.0,
         subprocess_mode: bool = False) -> tuple:
    """(violations, case, outcome) of one input of `kind`."""
    box = Sandbox(rng)
    try:
        case = make_case(kind, rng, box, sources)
        before = box.snapshot_outside()
        outcome = run_case(case, box, rng, time_limit, subprocess_mode)
        return violations(case, box, outcome, before), case, outcome
    finally:
        box.remove()


def nvcc_available() -> bool:
    return shutil.which(os.environ.get("NVCC", "nvcc")) is not None


def describe(case: Case, outcome: Outcome) -> str:
    return json.dumps({"kind": case.kind, "args": case.args, "how": case.how, "code": outcome.code,
                       "seconds": round(outcome.seconds, 2), "stderr": outcome.stderr[-400:]}, ensure_ascii=True)

