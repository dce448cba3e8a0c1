"""Worker processes do not outlive a killed `ptxlint check` (a CI job's timeout sends SIGKILL,
which no cleanup sees) (issue 18)."""

import os
import signal
import subprocess
import sys
import time

import pytest

import ptx_generators as gen

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _children(pid: int) -> set:
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(entry))
    return out


def _alive(pids: set) -> set:
    alive = set()
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.add(p)
        except OSError:
            pass
    return alive


def test_workers_exit_when_the_parent_is_killed(tmp_path):
    for k in range(3):  # minutes of analysis each without a budget
        (tmp_path / f"slow{k}.ptx").write_text(gen.nested_barriers(600, name=f"slow{k}"))
    parent = subprocess.Popen([sys.executable, "-m", "ptxlint", "check", "--no-cache", "-j", "2",
                               "--analysis-budget", "0", "."], cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set = set()
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            workers = _children(parent.pid)
            time.sleep(0.2)
        assert len(workers) >= 2, "the pool did not start"
        time.sleep(1)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while _alive(workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(workers)
    finally:
        for p in _alive(workers):
            os.kill(p, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
