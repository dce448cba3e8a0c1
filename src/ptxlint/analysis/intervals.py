"""Barrier intervals: which instructions other threads of the block may run while one thread runs a
given instruction.

Between two block-wide barriers (`__syncthreads()`), the threads of a block run in any order; a
barrier lets none past until all have arrived. So while a thread runs instruction i, another thread
may be anywhere that some thread can reach from a barrier (or the kernel's start) that can precede i
without a barrier in between, up to the next barrier. `interval_of(i)` is that set of instructions:
found by walking back from i to those barriers, then forward from them until barriers stop the walk.

Uniformity uses it for `volatile` shared loads: a volatile load says the memory may change under
the reader, but where no write to it can run in the load's interval every thread reads one value
(`volatile` state a block reads after the barrier that follows its last write).
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Instruction
from .barriers import is_arrive, is_block_barrier
from .cfg import ENTRY, EXIT

_WRITES = ("st", "atom", "red", "call", "cp", "sust", "mbarrier", "stmatrix", "tcgen05")


def is_whole_block_barrier(ins: Instruction) -> bool:
    """An unpredicated `bar.sync`/`barrier.sync` that waits for every thread of the block (no thread
    count; not `arrive`, which does not wait; not a warp or cluster barrier). `bar.red`
    (`__syncthreads_count` and kin) is not counted here, so an interval runs on past it: larger than
    it need be, which keeps a volatile load per thread rather than one value."""
    return ins.guard is None and is_block_barrier(ins) and not is_arrive(ins) and "red" not in ins.modifiers


class BarrierIntervals:
    def __init__(self, function, cfg) -> None:
        self.function = function
        self.cfg = cfg
        self._from_start: dict = {}  # (block id, position) -> the instruction indices reached from it
        self._two_way: dict = {}  # starts -> the two-way branch blocks of their intervals

    def interval_of(self, ins: Instruction) -> frozenset:
        """The indices of the instructions that may run in the same barrier interval as `ins`."""
        found: set = set()
        for start in self._starts(ins):
            found |= self._reached_from(start)
        return frozenset(found)

    def _starts(self, ins: Instruction) -> set:
        """(block id, position) just after each barrier, or the kernel's start, from which `ins` is
        reached without a barrier between."""
        blocks = self.function.blocks
        here = self.function.block_of(ins)
        position = here.instructions.index(ins)
        starts = set()
        found = self._barrier_before(here.instructions, position)
        if found is not None:
            return {(here.id, found + 1)}
        seen, stack = set(), list(self.cfg.graph.predecessors(here.id))
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            if b == ENTRY:
                starts.add((blocks[0].id, 0))
                continue
            block = self._block(b)
            if block is None:
                continue
            found = self._barrier_before(block.instructions, len(block.instructions))
            if found is not None:
                starts.add((b, found + 1))
            else:
                stack.extend(self.cfg.graph.predecessors(b))
        if here.id in seen:  # a loop back to the start of this block without a barrier
            starts.add((here.id, 0))
        return starts

    @staticmethod
    def _barrier_before(instructions: list, end: int) -> Optional[int]:
        for k in range(end - 1, -1, -1):
            if is_whole_block_barrier(instructions[k]):
                return k
        return None

    def _block(self, block_id):
        blocks = self.function.blocks
        return blocks[block_id] if isinstance(block_id, int) and 0 <= block_id < len(blocks) else None

    def _reached_from(self, start: tuple, avoid: Optional[tuple] = None) -> frozenset:
        """The indices of the instructions reached from `start` before a barrier stops the walk;
        with `avoid` = (block id, successor), never taking that one edge."""
        key = start if avoid is None else (start, avoid)
        found = self._from_start.get(key)
        if found is not None:
            return found
        out: set = set()
        stack, seen = [start], set()
        while stack:
            block_id, position = stack.pop()
            if (block_id, position) in seen or block_id in (ENTRY, EXIT):
                continue
            seen.add((block_id, position))
            block = self._block(block_id)
            if block is None:
                continue
            stopped = False
            for ins in block.instructions[position:]:
                out.add(ins.index)
                if is_whole_block_barrier(ins):
                    stopped = True
                    break
            if not stopped:
                stack.extend((s, 0) for s in self.cfg.graph.successors(block_id)
                             if avoid is None or (block_id, s) != avoid)
        found = self._from_start[key] = frozenset(out)
        return found

    def writes_in_interval(self, ins: Instruction, may_alias, same_way=None) -> bool:
        """Is there an instruction that may write memory `may_alias(write)` says `ins` reads, in the
        barrier interval of `ins`? With `same_way(branch block id)`, which says whether every thread
        of the block takes that branch the same way, a write that only the other side of such a
        branch reaches does not count (`_apart`)."""
        instructions = self.function.instructions
        for k in self.interval_of(ins):
            w = instructions[k]
            if w.op in _WRITES and may_alias(w) and not (same_way is not None and self._apart(ins, w, same_way)):
                return True
        return False

    def _apart(self, ins: Instruction, other: Instruction, same_way) -> bool:
        """Do `ins` and `other` lie on the two sides of a branch that every thread of the block takes
        the same way, so that no two threads run them between the same two barriers? From every
        barrier (or the start) before `ins`, `ins` is reached only through one edge of the branch and
        `other` only through the other, and the branch is on no barrier-free loop (it runs once
        between two barriers, so all threads see the one decision)."""
        starts = self._starts(ins)
        here = self.function.block_of(ins).id
        if len(starts) > 1 and here != self.function.blocks[0].id:
            # the start `_starts` adds where `ins` sits on a barrier-free loop is reached from the
            # others (a barrier or the kernel's start precedes every loop): only they decide
            starts = starts - {(here, 0)}
        for branch_block in sorted(self._two_way_blocks(starts)):
            if not same_way(branch_block) or self._on_barrier_free_loop(branch_block):
                continue
            successors = list(self.cfg.graph.successors(branch_block))
            for mine, theirs in ((successors[0], successors[1]), (successors[1], successors[0])):
                if all(ins.index not in self._reached_from(s, (branch_block, mine)) and
                       other.index not in self._reached_from(s, (branch_block, theirs)) for s in starts):
                    return True
        return False

    def _two_way_blocks(self, starts: set) -> set:
        """Blocks ending in a two-way branch, in the intervals that begin at `starts` (kept: the
        uniformity solve asks again in each of its rounds)."""
        key = frozenset(starts)
        found = self._two_way.get(key)
        if found is not None:
            return found
        found = self._two_way[key] = set()
        for start in starts:
            for k in self._reached_from(start):
                block = self.function.block_of(self.function.instructions[k])
                if len(set(self.cfg.graph.successors(block.id))) == 2:
                    found.add(block.id)
        return found

    def _on_barrier_free_loop(self, block_id) -> bool:
        last = self._block(block_id).instructions[-1].index
        return any(last in self._reached_from((s, 0)) for s in self.cfg.graph.successors(block_id))
