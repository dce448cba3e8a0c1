"""Reaching definitions for PTX virtual registers (nvcc output is not SSA: loops reassign)."""

from __future__ import annotations

from bisect import bisect_left
from typing import Optional

from ..frontend.ir import Function, Instruction, Register
from .budget import spend
from .cfg import ControlFlowGraph


class ReachingDefinitions:
    """For a register read by an instruction: which instructions may have written it last.

    Bitsets over definition sites, solved to a fixed point over the CFG, then walked inside
    the block at query time.
    """

    def __init__(self, function: Function, cfg: ControlFlowGraph) -> None:
        self.function = function
        self.cfg = cfg
        self._at_entry: dict = {}  # (block id, register name) -> the definitions reaching the block's entry
        self.sites: list = []  # site number -> (instruction index, register name)
        self.sites_of_register: dict = {}
        self.written: list = [frozenset(r.name for r in ins.destinations()) for ins in function.instructions]
        gen: dict = {}
        kill_regs: dict = {}
        # per block: register name -> indices of the instructions writing it, in order (a query
        # inside a block bisects instead of scanning back: blocks of thousands of instructions)
        self.writes_in_block: dict = {}
        for block in function.blocks:
            last_def: dict = {}
            writes: dict = {}
            self.writes_in_block[block.id] = writes
            for ins in block.instructions:
                for reg in ins.destinations():
                    indices = writes.setdefault(reg.name, [])
                    if not indices or indices[-1] != ins.index:
                        indices.append(ins.index)
                    site = len(self.sites)
                    self.sites.append((ins.index, reg.name))
                    self.sites_of_register.setdefault(reg.name, 0)
                    self.sites_of_register[reg.name] |= 1 << site
                    last_def[reg.name] = site
            gen[block.id] = sum(1 << s for s in last_def.values())
            kill_regs[block.id] = set(last_def)
        kill = {}
        for bid, regs in kill_regs.items():
            mask = 0
            for r in regs:
                mask |= self.sites_of_register[r]
            kill[bid] = mask
        in_sets = {n: 0 for n in cfg.graph.nodes}
        out_sets = {n: 0 for n in cfg.graph.nodes}
        order = [n for n in cfg.reverse_postorder if isinstance(n, int)]
        changed = True
        while changed:
            changed = False
            for bid in order:
                spend()
                new_in = 0
                for pred in cfg.graph.predecessors(bid):
                    new_in |= out_sets[pred]
                new_out = gen[bid] | (new_in & ~kill[bid])
                if new_in != in_sets[bid] or new_out != out_sets[bid]:
                    in_sets[bid], out_sets[bid] = new_in, new_out
                    changed = True
        self.block_in = in_sets

    def definitions(self, ins: Instruction, reg: Register) -> list:
        """Indices of the instructions whose write of `reg` may reach `ins` (empty: none, the
        value comes from outside the function or is undefined)."""
        block = self.function.block_of(ins)
        writes = self.writes_in_block.get(block.id, {}).get(reg.name)
        found = []
        if writes:
            instructions = self.function.instructions
            k = bisect_left(writes, ins.index) - 1
            while k >= 0:
                prior = writes[k]
                found.append(prior)
                if instructions[prior].guard is None:
                    return found  # the latest write first, as the analyses expect
                k -= 1  # a predicated write may not happen: earlier definitions still reach
        key = (block.id, reg.name)
        entry = self._at_entry.get(key)
        if entry is None:
            mask = self.block_in.get(block.id, 0) & self.sites_of_register.get(reg.name, 0)
            entry = self._at_entry[key] = tuple(self._sites(mask))
        return found + list(entry) if found else list(entry)

    def sole_definition(self, ins: Instruction, reg: Register) -> Optional[Instruction]:
        """The one unpredicated instruction whose write of `reg` reaches `ins`, or None (several, a
        predicated one, none, or a special register)."""
        if reg.is_special:
            return None
        defs = self.definitions(ins, reg)
        if len(defs) != 1:
            return None
        d = self.function.instructions[defs[0]]
        return d if d.guard is None else None

    def _sites(self, mask: int) -> list:
        out = []
        while mask:
            low = mask & -mask
            site = low.bit_length() - 1
            out.append(self.sites[site][0])
            mask ^= low
        return sorted(out)
