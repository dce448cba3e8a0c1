"""Python's cyclic garbage collector, paused around the bulk work of a run.

Parsing a module and analysing a function each allocate hundreds of thousands of small objects
(IR nodes, per-thread symbolic values) that stay alive until the work is done. The collector
scans them again and again while they pile up, and on the 5 MB CUB PTX those scans took longer
than the analysis itself. Paused, nothing is scanned during the work; afterwards one collection
of the young generation frees the reference cycles made meanwhile without rescanning older
objects such as the parsed module. Few are left to find: the analysis is built so that reference
counting frees it (see KernelContext.release), as scanning it all would cost about 1.5 s.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    if not gc.isenabled():  # paused already (nested, or by the caller): leave it to them
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)
