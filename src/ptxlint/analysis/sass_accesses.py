"""Shared-memory costs at SASS level: what the instructions the GPU runs cost.

Choice: each SASS shared access (LDS, STS, LDSM, STSM, ATOMS) is *matched* to the PTX access it
comes from, and costed with the PTX access's per-lane addresses at the SASS width and count,
rather than by evaluating SASS. Why: the PTX evaluator (lanes.py, loops.py) already follows
loops, predicates, launch shapes and symbolic unknowns, and was validated on 345 measured rows;
a second evaluator for SASS's integer idioms (IMAD.WIDE, LEA.HI, LOP3 truth tables, uniform
datapath, shared-window bases from SR_CgaCtaId) would duplicate it with new ways to be wrong.
What ptxas changes that the PTX does not say (merging scalar loads into LDS.64/LDS.128,
splitting a wide access, dropping or duplicating one, emulating an atomic with a CAS loop) is
exactly what the match sees.

Matching: SASS and PTX accesses are grouped by source line (the `//## File ..., line N` marker
and the PTX `.loc`), then paired in program order by kind; a SASS access wider than its PTX
access takes the next PTX accesses of its kind from the same base at consecutive offsets (a
merge); one narrower covers a part of it (a split). Whatever is left unpaired is matched in
program order across lines; what still has no partner is reported, without a cost, as unmatched
(for instance the load and the compare-and-swap of an emulated float atomic).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from .accesses import MemoryAccess, _cost_per_warp, _followed_loop

SASS_SHARED = {"LDS": "load", "STS": "store", "LDSM": "ldmatrix", "STSM": "stmatrix", "ATOMS": "atomic"}
_WIDTH_BITS = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128}


def sass_access_bits(ins) -> int:
    """Bits per lane of a SASS shared access (per row for LDSM/STSM)."""
    if ins.base in ("LDSM", "STSM"):
        return 128
    bits = 32
    for m in ins.modifiers:
        if m in _WIDTH_BITS:
            bits = _WIDTH_BITS[m]
    return bits


def sass_matrices(ins) -> int:
    for m in ins.modifiers[::-1]:
        if m in ("2", "4"):
            return int(m)
    return 1


@dataclass
class SassAccess:
    """One SASS shared instruction, the PTX accesses it comes from, and its cost per block."""

    instruction: object  # sass.ir.SassInstruction
    kind: str
    bits: int
    ptx: list = field(default_factory=list)  # MemoryAccess, in PTX order
    how: str = "unmatched"  # same | merged | split | unmatched
    costed: Optional[MemoryAccess] = None  # the PTX addresses at the SASS width
    reason: Optional[str] = None  # why there is no cost

    @property
    def wavefronts(self) -> Optional[int]:
        return self.costed.wavefronts if self.costed is not None and self.costed.determined else None

    @property
    def ideal(self) -> Optional[int]:
        return self.costed.ideal if self.costed is not None and self.costed.determined else None

    @property
    def ways(self) -> Optional[int]:
        return self.costed.ways if self.costed is not None and self.costed.determined else None


def _ptx_key(access: MemoryAccess) -> Optional[tuple]:
    loc = access.instruction.loc
    return (os.path.basename(loc.file), loc.line) if loc is not None and loc.line > 0 else None


def _sass_key(ins) -> Optional[tuple]:
    return (os.path.basename(ins.path), ins.line) if ins.path and ins.line else None


def match_sass_accesses(ctx, sass_function) -> list:
    """SassAccess for every shared access of `sass_function`, costed from `ctx`'s PTX accesses."""
    ptx = [a for a in ctx.shared_accesses if a.space == "shared" and not a.generic]
    sass = [SassAccess(ins, SASS_SHARED[ins.base], sass_access_bits(ins))
            for ins in sass_function.instructions if ins.base in SASS_SHARED]
    used: set = set()
    by_line: dict = {}
    for a in ptx:
        by_line.setdefault(_ptx_key(a), []).append(a)
    sass_by_line: dict = {}
    for s in sass:
        sass_by_line.setdefault(_sass_key(s.instruction), []).append(s)
    bases: dict = {}  # SASS base registers -> (PTX base, PTX offset - SASS offset), learnt on the way
    for key, group in sass_by_line.items():
        _pair_group(ctx, group, by_line.get(key, []), used, bases)
    leftovers = [a for a in ptx if id(a) not in used]
    unmatched = [s for s in sass if s.how == "unmatched"]
    if unmatched and leftovers:
        _pair_group(ctx, unmatched, leftovers, used, bases)
    for s in sass:
        if s.how == "unmatched":
            if s.kind in ("load", "atomic") and any(
                    o.instruction.base == "ATOMS" and o.instruction.has("CAST") for o in sass
                    if _sass_key(o.instruction) == _sass_key(s.instruction)):
                s.reason = "part of a compare-and-swap loop with which ptxas emulates a PTX atomic"
            else:
                s.reason = "no PTX shared access of its kind is left on its line: ptxas added or moved it"
        elif s.costed is None:
            s.reason = "the PTX addresses are not aligned to the SASS width"
        elif not s.costed.determined:
            s.reason = s.costed.unknown_reason
    return sass


def _pair_group(ctx, group: list, candidates: list, used: set, bases: dict) -> None:
    """Pair the SASS accesses of one line with its PTX accesses: the widest first (a merge is
    the most constrained), each to PTX accesses whose base and offset agree with what earlier
    pairs of its SASS base register showed."""
    for s in sorted(group, key=lambda s: -s.bits):
        _pair(ctx, s, candidates, used, bases)


def _sass_base(s: SassAccess) -> tuple:
    addr = s.instruction.memory_operand().address
    return tuple(r.split(".")[0] for r in addr.registers + addr.uniform), addr.offset


def _pair(ctx, s: SassAccess, candidates: list, used: set, bases: dict) -> None:
    free = [a for a in candidates if id(a) not in used and _same_kind(a.kind, s.kind)]
    if not free:
        return
    sass_base, sass_offset = _sass_base(s)
    known = bases.get(sass_base)
    taken = {v[0] for k, v in bases.items() if k != sass_base}

    def start_ok(a) -> bool:
        mem = a.instruction.memory_operand()
        if known is not None:
            return mem.base == known[0] and mem.offset == sass_offset + known[1]
        return mem.base not in taken

    ordered = [a for a in free if start_ok(a)] + [a for a in free if not start_ok(a)]
    for first in ordered:
        if s.bits == first.bits or s.kind in ("atomic", "ldmatrix", "stmatrix"):
            s.ptx, s.how, s.costed = [first], "same", first
            used.add(id(first))
        elif s.bits > first.bits:
            run = _consecutive(first, free, s.bits)
            if run is None:
                continue
            s.ptx, s.how = run, "merged"
            s.costed = cost_at_width(ctx, first, s.bits, s.kind, 0)
            used.update(id(a) for a in run)
        else:
            # narrower: one of several SASS pieces of a wide PTX access; the pieces take it in order
            pieces = getattr(first, "_sass_pieces", 0)
            s.ptx, s.how = [first], "split"
            s.costed = cost_at_width(ctx, first, s.bits, s.kind, pieces * s.bits // 8)
            first._sass_pieces = pieces + 1
            if (pieces + 1) * s.bits >= first.bits:
                used.add(id(first))
        mem = first.instruction.memory_operand()
        bases.setdefault(sass_base, (mem.base, mem.offset - sass_offset))
        return


def _same_kind(ptx_kind: str, sass_kind: str) -> bool:
    return ptx_kind == sass_kind


def _consecutive(first: MemoryAccess, free: list, bits: int) -> Optional[list]:
    """`first` and the next accesses of its kind from its base at consecutive offsets, making
    `bits` per lane; None when they do not."""
    mem = first.instruction.memory_operand()
    run, total, offset = [first], first.bits, mem.offset + first.bits // 8
    for a in free[1:]:
        if total >= bits:
            break
        m = a.instruction.memory_operand()
        if m is None or m.base != mem.base or m.offset != offset or a.bits != first.bits:
            continue
        run.append(a)
        total += a.bits
        offset += a.bits // 8
    return run if total == bits else None


def cost_at_width(ctx, access: MemoryAccess, bits: int, kind: str, shift: int) -> Optional[MemoryAccess]:
    """`access`'s per-lane addresses (moved by `shift` bytes) at `bits` per lane, in every
    evaluation (loop iteration); None when a lane's address is not aligned to the width."""
    ins = access.instruction
    costed = MemoryAccess(instruction=ins, space="shared", kind=kind, bits=bits, variables=access.variables)
    if not access.determined:
        costed.unknown_reason = access.unknown_reason
        return costed
    iterations = _followed_loop(ctx, ins)
    for k, evaluator in enumerate(iterations.evaluators if iterations else [ctx.lanes]):
        addresses = evaluator.address(ins)
        active = evaluator.active(ins)
        if shift:
            addresses = _shifted(addresses, shift)
        if addresses is None:
            costed.unknown_reason = "the addresses could not be evaluated"
            return costed
        try:
            misaligned = any(v[0] % (bits // 8) for t, v in enumerate(addresses) if active[t] is not False)
        except TypeError:
            misaligned = False
        if misaligned:
            return None
        _cost_per_warp(ctx, evaluator, costed, addresses, active, first=(k == 0))
    if iterations:
        costed.iterations = iterations.count
    return costed


def _shifted(addresses, shift: int):
    from .lane_values import Affine, Varying

    if type(addresses) is Affine:
        return Affine([c + shift for c in addresses.consts], addresses.terms)
    if type(addresses) is Varying:
        return addresses  # a different unknown per thread: moving it changes nothing known
    return [(v[0] + shift, v[1]) for v in addresses]
