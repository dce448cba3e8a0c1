"""Shared-memory bank model: wavefronts one warp-level access needs, as measured on the GPU.

The rules below reproduce Nsight Compute's "L1 Wavefronts Shared" on an H100 (validation/bank/):

* A bank serves one 4-byte word per wavefront; lanes reading the same word share it (broadcast).
  An access costs, per *phase*, the largest number of distinct words any one bank must deliver.
* 8/16/32-bit accesses: one phase of 32 lanes.
* 64-bit accesses: two phases (half-warps) whose costs add up, even for identical data; but
  when every pair of lanes (2k, 2k+1) reads one address, the warp is one phase.
* 128-bit accesses: four phases (quarter-warps); with pairwise-identical addresses, two
  phases (half-warps). So a 128-bit broadcast costs 2.
* Atomics: no broadcast; every lane is one word access, so lanes on one word serialise like lanes
  on one bank. (ptxas turns an atomic whose address is provably warp-uniform into a single-lane
  one: one wavefront.)
* ldmatrix/stmatrix .xN: one phase per 8x8 matrix, each lane of the phase giving one 16-byte row.

The ideal is the same computation with every bank conflict removed: one wavefront per 128 bytes
of distinct data in each phase group. Architectures before sm_50 (Kepler) use 8-byte banks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from operator import sub
from typing import Optional


@dataclass
class BankConflict:
    """The worst bank of one phase: which lanes hit it and which distinct words they want."""

    bank: int
    lanes: list
    words: list


@dataclass
class WarpCost:
    wavefronts: int
    ideal: int
    active_lanes: int
    worst: Optional[BankConflict] = None
    phases: list = field(default_factory=list)  # wavefronts per phase

    @property
    def ways(self) -> int:
        if self.ideal <= 0:
            return 1
        return -(-self.wavefronts // self.ideal)

    def shifted(self, words: int) -> "WarpCost":
        """A fresh copy (callers may modify it) for the same access moved by `words` words."""
        worst = self.worst
        if worst is not None:
            worst = BankConflict(worst.bank, list(worst.lanes), [w + words for w in worst.words])
        return WarpCost(self.wavefronts, self.ideal, self.active_lanes, worst, list(self.phases))


@dataclass(frozen=True)
class BankModel:
    name: str
    banks: int = 32
    bank_bytes: int = 4

    def words(self, address: int, nbytes: int) -> range:
        first = address // self.bank_bytes
        last = (address + max(nbytes, 1) - 1) // self.bank_bytes
        return range(first, last + 1)

    def bank(self, word: int) -> int:
        return word % self.banks

    # ---- one phase
    def _phase(self, lanes: list, broadcast: bool = True) -> tuple:
        """lanes: [(lane, address, nbytes)] -> (wavefronts, distinct words, worst BankConflict).

        Without broadcast (atomics) every lane's word access counts separately."""
        if not lanes:
            return 0, 0, None
        bank_bytes, banks = self.bank_bytes, self.banks
        if broadcast and all(a % bank_bytes + n <= bank_bytes for _, a, n in lanes):
            # one word per lane (the common case): count distinct words per bank
            words = {a // bank_bytes for _, a, _ in lanes}
            if len(words) == 1:
                return 1, 1, None  # a broadcast
            depth = Counter(w % banks for w in words)
            worst_depth = max(depth.values())
            if worst_depth == 1:
                return 1, len(words), None  # conflict-free: nothing to explain
            worst_bank = min(b for b, d in depth.items() if d == worst_depth)
            worst = BankConflict(
                worst_bank,
                sorted({lane for lane, a, _ in lanes if (a // bank_bytes) % banks == worst_bank}),
                sorted(w for w in words if w % banks == worst_bank),
            )
            return worst_depth, len(words), worst
        words_of_bank: dict = {}
        hits_of_bank: dict = {}
        all_words = set()
        for lane, address, nbytes in lanes:
            first = address // bank_bytes
            last = (address + nbytes - 1) // bank_bytes if nbytes > 1 else first
            for word in range(first, last + 1):
                bank = word % banks
                words = words_of_bank.get(bank)
                if words is None:
                    words = words_of_bank[bank] = set()
                    hits_of_bank[bank] = []
                words.add(word)
                hits_of_bank[bank].append(lane)
                all_words.add(word)
        if broadcast:
            depth = {b: len(w) for b, w in words_of_bank.items()}
        else:
            depth = {b: len(h) for b, h in hits_of_bank.items()}
        worst_bank = min(depth, key=lambda b: (-depth[b], b))
        worst = BankConflict(worst_bank, sorted(set(hits_of_bank[worst_bank])), sorted(words_of_bank[worst_bank]))
        return depth[worst_bank], len(all_words), worst

    def _ideal(self, distinct_words: int) -> int:
        return -(-distinct_words // self.banks) if distinct_words else 0

    def warp_cost(self, accesses: list, bytes_per_lane: int, kind: str = "load", matrices: int = 1,
                  uniform_address: bool = False) -> WarpCost:
        """accesses: [(lane, address)] for the active lanes of one warp. `uniform_address`: the
        address is provably the same in every thread (not just equal in this evaluation)."""
        lanes, addresses = zip(*accesses) if accesses else ((), ())
        return self.lanes_cost(lanes, addresses, bytes_per_lane, kind, matrices, uniform_address)

    def lanes_cost(self, lanes: tuple, addresses: tuple, bytes_per_lane: int, kind: str = "load",
                   matrices: int = 1, uniform_address: bool = False) -> WarpCost:
        """warp_cost, with the active lanes and their addresses given as two tuples."""
        if not lanes:
            return WarpCost(0, 0, 0)
        # The warps of a block mostly repeat one pattern, moved by whole rows of banks (a row:
        # every bank once). Moved so, each word keeps its bank: the cost is the same and only
        # the words of the worst bank move. So the cost is computed once per pattern.
        row = self.banks * self.bank_bytes
        shift = min(addresses) // row * row
        if shift:
            addresses = tuple(map(sub, addresses, repeat(shift)))
        cost = self._pattern_cost(lanes, addresses, bytes_per_lane, kind, matrices, uniform_address)
        return cost.shifted(shift // self.bank_bytes)

    @lru_cache(maxsize=4096)
    def _pattern_cost(self, lanes: tuple, addresses: tuple, bytes_per_lane: int, kind: str, matrices: int,
                      uniform_address: bool) -> WarpCost:
        """The cost of one pattern (shared: never modify the result; warp_cost hands out copies)."""
        accesses = list(zip(lanes, addresses))
        active = len(accesses)
        if kind == "atomic":
            if len({a for _, a in accesses}) == 1 and uniform_address:
                return WarpCost(1, 1, active, None, [1])
            entries = [(lane, a, bytes_per_lane) for lane, a in accesses]
            wf, distinct, worst = self._phase(entries, broadcast=False)
            return WarpCost(wf, 1, active, worst, [wf])
        return self._sum_phases(self.phases(accesses, bytes_per_lane, kind, matrices), active)

    def phases(self, accesses: list, bytes_per_lane: int, kind: str = "load", matrices: int = 1) -> list:
        """The phases the hardware splits one warp-level access into: [[(lane, address, nbytes)]]
        (an atomic is one phase; see warp_cost for its cost)."""
        if kind in ("ldmatrix", "stmatrix"):
            # lane 8i+j gives row j of matrix i; each row is 16 bytes; matrices never share
            return [[(lane, a, 16) for lane, a in accesses if 8 * i <= lane < 8 * i + 8] for i in range(matrices)]
        entries = [(lane, a, bytes_per_lane) for lane, a in accesses]
        if kind == "atomic" or bytes_per_lane <= 4 or self.bank_bytes == 8 and bytes_per_lane <= 8:
            return [entries]
        address_of = dict(accesses)
        paired = all(address_of.get(lane ^ 1, address) == address for lane, address in accesses)
        if bytes_per_lane <= 8:
            size = 32 if paired else 16
        else:
            size = 16 if paired else 8
        return [[e for e in entries if start <= e[0] < start + size] for start in range(0, 32, size)]

    def lane_banks(self, accesses: list, bytes_per_lane: int, kind: str = "load", matrices: int = 1) -> list:
        """Which bank each lane of one warp-level access uses, and how deep that bank is:
        [(lane, bank, word, depth)], where depth is the number of distinct words the bank must
        deliver in the lane's phase (for an atomic: the number of lane accesses to it). A bank of
        depth d costs its phase d wavefronts: depth > 1 is a conflict."""
        cells = []
        for phase in self.phases(accesses, bytes_per_lane, kind, matrices):
            touches = [(lane, word) for lane, address, nbytes in phase for word in self.words(address, nbytes)]
            per_bank: dict = {}
            for lane, word in touches:
                per_bank.setdefault(self.bank(word), []).append(word)
            depth = {bank: len(words) if kind == "atomic" else len(set(words)) for bank, words in per_bank.items()}
            cells.extend((lane, self.bank(word), word, depth[self.bank(word)]) for lane, word in touches)
        return cells

    def _sum_phases(self, phases: list, active: int) -> WarpCost:
        total = ideal = 0
        worst = None
        per_phase = []
        for phase in phases:
            wf, distinct, w = self._phase(phase)
            per_phase.append(wf)
            total += wf
            ideal += self._ideal(distinct)
            if w is not None and (worst is None or len(w.words) > len(worst.words)):
                worst = w
        return WarpCost(total, ideal, active, worst, per_phase)


MAXWELL_AND_LATER = BankModel("32 banks x 4 bytes (sm_50 and later)")
KEPLER = BankModel("32 banks x 8 bytes (Kepler, sm_3x, 8-byte bank mode)", bank_bytes=8)


def bank_model_for(sm_version: int) -> BankModel:
    """The bank model of an architecture (`sm_90` -> 90)."""
    if 30 <= sm_version < 50:
        return KEPLER
    return MAXWELL_AND_LATER
