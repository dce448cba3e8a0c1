"""Global-memory sector model: what one warp-level global access costs, as measured on the GPU.

The rules below reproduce Nsight Compute's per-instruction "L2 Theoretical Sectors Global" and
"L1 Tag Requests Global" on an H100 (validation/global/, 73 kernels):

* A warp-level load, store or atomic is one request (`l1tex__t_requests`), whatever its width.
* It moves every distinct 32-byte sector its active lanes touch: lanes in one sector share it
  (a broadcast costs 1), and inactive (predicated-off) lanes touch nothing.
* Its tag lookups ("L1 Tag Requests Global") are the distinct 128-byte lines it touches.
* The ideal is the bytes the lanes need, as if they were contiguous and aligned: the distinct
  bytes touched, rounded up to whole sectors (ncu's "L2 Theoretical Sectors Global Ideal").
* Atomics and reductions (`atom`, `red`), read-only loads (`ld.global.nc`), `ldu` and generic
  accesses to global memory follow the same rules; 8- to 128-bit and vector accesses too.

Addresses are byte offsets from a base whose alignment is known (a `cudaMalloc` pointer is
assumed 256-byte aligned), so only their residues matter.
"""

from __future__ import annotations

from dataclasses import dataclass

SECTOR = 32
LINE = 128


@dataclass(frozen=True)
class SectorCost:
    """One warp-level request (or none, when no lane is active)."""

    sectors: int
    ideal: int
    lines: int
    active_lanes: int

    @property
    def requests(self) -> int:
        return 1 if self.active_lanes else 0

    def __add__(self, other: "SectorCost") -> "SectorCost":
        return SectorCost(self.sectors + other.sectors, self.ideal + other.ideal, self.lines + other.lines,
                          max(self.active_lanes, other.active_lanes))


NO_REQUEST = SectorCost(0, 0, 0, 0)


def warp_sectors(offsets, nbytes: int) -> SectorCost:
    """The cost of one warp-level request whose active lanes access `nbytes` each at `offsets`
    (byte addresses, exact modulo 128 at least)."""
    if not offsets:
        return NO_REQUEST
    sectors = set()
    lines = set()
    if nbytes <= SECTOR and all(a % nbytes == 0 for a in offsets):
        # naturally aligned: one sector per lane (the common case)
        starts = set(offsets)
        sectors = {a // SECTOR for a in starts}
        lines = {a // LINE for a in starts}
        distinct_bytes = len(starts) * nbytes
    else:
        touched = set()
        for a in offsets:
            touched.update(range(a, a + nbytes))
        sectors = {b // SECTOR for b in touched}
        lines = {b // LINE for b in touched}
        distinct_bytes = len(touched)
    return SectorCost(len(sectors), -(-distinct_bytes // SECTOR), len(lines), len(offsets))


def contiguous_sectors(first: int, lanes: int, nbytes: int) -> SectorCost:
    """The cost when `lanes` lanes access consecutive `nbytes` elements from byte `first`: what a
    coalesced rewrite of an access achieves."""
    return warp_sectors([first + k * nbytes for k in range(lanes)], nbytes)
