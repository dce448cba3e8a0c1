"""Worker processes that end with the process that started them.

`check` hands files to a process pool (api.py) and large modules to forked workers
(module_check.py). When the parent is killed (a CI job's timeout sends SIGKILL, which no cleanup
sees), its workers must not live on: on Linux each worker asks the kernel for SIGTERM when its
parent dies (prctl PR_SET_PDEATHSIG); elsewhere a thread watches the parent's process id.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1
POLL_SECONDS = 0.5


def exit_with_parent(parent_pid: int) -> None:
    """Pool initializer: end this worker when `parent_pid` (the process that made the pool) ends."""
    watching = _ask_kernel()
    # not getppid() == parent_pid: a pool may start workers from a server process (forkserver)
    if not _alive(parent_pid):
        os._exit(1)  # the parent died before the request above was made
    if not watching:
        first = os.getppid()
        threading.Thread(target=_watch, args=(parent_pid, first), daemon=True, name="ptxlint-parent-watch").start()


def _ask_kernel() -> bool:
    """PR_SET_PDEATHSIG: SIGTERM to this process when its parent thread exits (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _watch(parent_pid: int, first_ppid: int) -> None:
    while os.getppid() == first_ppid and _alive(parent_pid):
        time.sleep(POLL_SECONDS)
    os._exit(1)
