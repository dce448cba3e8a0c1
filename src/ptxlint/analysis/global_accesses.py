"""Every global-memory access of a kernel, with per-lane addresses and its sectors per warp.

Addresses are evaluated per thread by the lane evaluator. What is unknown is treated so:

* a kernel pointer parameter (`ld.param` then `cvta.to.global`) is a uniform unknown, assumed
  256-byte aligned as `cudaMalloc` returns it: only address residues decide sectors;
* `%ctaid`, `%nctaid`, a run-time loop's iteration count ... are uniform unknowns that keep their
  known factors (`blockIdx.x * 256 * 4` moves the base by whole sectors): when a factor does not
  keep the base aligned, every residue is tried and the access is exact only if all agree;
* a uniform unknown that multiplies a lane-dependent index (a run-time row pitch, `x * height`) is
  assumed large enough that lanes it separates never share a sector; the finding says so;
* addresses computed from loaded data (a gather `in[idx[i]]`) are not determined (`sectors: null`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd
from typing import Optional

from ..frontend.ir import Instruction
from . import symbolic as S
from .accesses import _followed_loop
from ..frontend.launches.launch import PointerOffset
from .lane_values import Affine, Varying
from .sectormodel import NO_REQUEST, SECTOR, SectorCost, warp_sectors

GLOBAL_OPS = {"ld": "load", "ldu": "load", "st": "store", "atom": "atomic", "red": "atomic"}
POINTER_ALIGNMENT = 256  # cudaMalloc: at least 256 bytes
PITCH = 1 << 16  # the value a run-time pitch is given: far beyond any warp's span


@dataclass
class GlobalWarp:
    warp: int
    lanes: list  # active lanes (first evaluation)
    offsets: Optional[list]  # their byte offsets from the access's base (first evaluation)
    cost: SectorCost = NO_REQUEST  # summed over evaluations (loop iterations)
    evaluations: list = field(default_factory=list)  # (lanes, offsets, cost) per evaluation
    described: Optional[list] = None  # per active lane: its offset as text (symbolic when a pitch is)
    # per evaluation: the byte offsets the sectors were counted on (a run-time pitch at its assumed value)
    counted_offsets: list = field(default_factory=list)


@dataclass
class GlobalAccess:
    """One global-memory instruction and what it costs in each warp of the block."""

    instruction: Instruction
    kind: str  # load | store | atomic
    bits: int  # per lane
    variables: list  # kernel parameters / global variables the address is computed from
    space: str = "global"
    warps: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    assumptions: list = field(default_factory=list)  # what the sector counts assume
    unknown_reason: Optional[str] = None
    sectors_range: Optional[tuple] = None  # (least, most) per block when only a range is known
    generic: bool = False
    iterations: Optional[int] = 1  # None: inside a loop whose trip count is not known (numbers per iteration)
    lines_known: bool = True  # the base is known modulo a 128-byte line (not only modulo a sector)
    evaluations: int = 1

    @property
    def determined(self) -> bool:
        return self.unknown_reason is None

    @property
    def nbytes(self) -> int:
        return max(1, self.bits // 8)

    def _total(self, name: str) -> Optional[int]:
        if not self.determined:
            return None
        return sum(getattr(w.cost, name) for w in self.warps)

    @property
    def sectors(self) -> Optional[int]:
        return self._total("sectors")

    @property
    def ideal(self) -> Optional[int]:
        return self._total("ideal")

    @property
    def lines(self) -> Optional[int]:
        return self._total("lines") if self.lines_known else None

    @property
    def requests(self) -> int:
        """Warp-level requests per block (per loop iteration when `iterations` is None)."""
        return sum(c.requests for w in self.warps for _, _, c in w.evaluations)


def global_kind(ins: Instruction) -> Optional[str]:
    return GLOBAL_OPS.get(ins.op)


def analyse_global_accesses(ctx) -> list:
    """All global accesses of the kernel in `ctx`, in program order (cached on the context)."""
    found = ctx.__dict__.get("_global_accesses")
    if found is None:
        found = ctx.__dict__["_global_accesses"] = GlobalEvaluation(ctx).run()
    return found


class GlobalEvaluation:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.lanes = ctx.lanes
        fn = ctx.function
        self.params = {p.name: p for p in fn.params} if fn.is_kernel else {}
        self.variables = {v.name: v for v in ctx.module.variables + fn.variables}
        self._cache: dict = {}
        self._alignment_memo: dict = {}  # per lanes' offsets within a line: `_alignment_costs`

    # ---- which instructions
    def run(self) -> list:
        out = []
        for ins in self.ctx.function.instructions:
            kind = global_kind(ins)
            if kind is None or ins.memory_operand() is None:
                continue
            if ins.space not in ("global", None):
                continue
            access = self._analyse(ins, kind)
            if access is not None:
                out.append(access)
        return out

    def _key(self, sym: str):
        return self.lanes.table.key_of(sym)

    def _is_global(self, ins: Instruction, addresses) -> Optional[bool]:
        """For a generic access: True when its address is built from a kernel pointer parameter or a
        global variable and nothing else that names memory."""
        syms = _symbols(addresses)
        spaces = set()
        for s in syms:
            name = self.lanes.variable_symbols.get(s)
            if name is not None:
                spaces.add(self.variables[name].space)
        if spaces - {"global"}:
            return False
        if "global" in spaces:
            return True
        roots = self.ctx.address_roots.roots(ins)
        return bool(roots) and all(r in self.params for r in roots) and any(
            self._pointer_param(s) for s in syms)

    def _pointer_param(self, sym: str) -> Optional[str]:
        key = self._key(sym)
        if isinstance(key, tuple) and key and key[0] == "param" and key[1] in self.params:
            p = self.params[key[1]]
            if p.type in ("u64", "b64", "s64") and (len(key) < 3 or not key[2]):
                return key[1]
        return None

    # ---- one instruction
    def _analyse(self, ins: Instruction, kind: str) -> Optional[GlobalAccess]:
        lanes = self.lanes
        addresses, notes = lanes.collect(lanes.address, ins)
        generic = ins.space is None
        if generic and not self._is_global(ins, addresses):
            return None
        roots = self.ctx.address_roots.roots(ins)
        access = GlobalAccess(instruction=ins, kind=kind, bits=(ins.type_bits or 32) * ins.vector,
                              variables=[r for r in roots if r in self.variables or r in self.params
                                         and self.params[r].type in ("u64", "b64", "s64")],
                              generic=generic)
        iterations = _followed_loop(self.ctx, ins)
        evaluators = iterations.evaluators if iterations else [lanes]
        all_notes = set(notes)
        for k, evaluator in enumerate(evaluators):
            if evaluator is not lanes:
                addresses, more = evaluator.collect(evaluator.address, ins)
                all_notes |= more
            active, more = evaluator.collect(evaluator.active, ins)
            all_notes |= more
            self._cost_per_warp(access, addresses, active, first=(k == 0))
        if iterations:
            access.iterations = access.evaluations = iterations.count
            where = f" at line {iterations.line}" if iterations.line else ""
            all_notes.add(f"evaluated for each of the {iterations.count} iterations of the loop{where}")
        elif self._in_unfollowed_loop(ins):
            access.iterations = None
            all_notes.add("inside a loop whose trip count is not known here: requests and sectors are per "
                          "iteration of the loop")
        access.notes = sorted(all_notes)
        access.assumptions = sorted(set(access.assumptions))
        return access

    def _in_unfollowed_loop(self, ins: Instruction) -> bool:
        return bool(self.ctx.cfg.loops_containing(self.ctx.function.block_of(ins).id))

    def _cost_per_warp(self, access: GlobalAccess, addresses, active, first: bool) -> None:
        n = self.lanes.n
        self._offset_memo: dict = {}  # parameter -> a plain offset of these addresses (_block_offset)
        nbytes = access.nbytes
        # warps whose addresses differ by a multiple of a 128-byte line cost the same (_warp_cost
        # keeps only the offsets' residues and differences): decided once per such class of warps
        by_class: dict = {}
        for w in range((n + 31) // 32):
            start, end = 32 * w, min(32 * w + 32, n)
            idx = [t for t in range(start, end) if active[t] is not False]
            if first:
                access.warps.append(GlobalWarp(w, [t - start for t in idx], None))
            warp = access.warps[w]
            if not idx:
                warp.evaluations.append(([], [], NO_REQUEST))
                continue
            if access.unknown_reason is not None:
                continue
            if type(addresses) is Affine:
                consts = addresses.consts
                line = consts[idx[0]] - consts[idx[0]] % 128
                key = tuple(consts[t] - line for t in idx)
                result = by_class.get(key)
                if result is None:
                    result = by_class[key] = self._warp_cost(access, addresses, idx, nbytes)
                if not isinstance(result, str):
                    result = (result[0], list(result[1])) + tuple(result[2:])  # a copy: callers edit it
            else:
                result = self._warp_cost(access, addresses, idx, nbytes)
            if isinstance(result, str):
                access.unknown_reason = result
                continue
            cost, offsets, described, (low, high), counted = result
            if warp.offsets is None:
                warp.offsets, warp.described = offsets, described
            warp.evaluations.append(([t - start for t in idx], offsets, cost))
            warp.counted_offsets.append(counted)
            warp.cost = warp.cost + cost
            lo, hi = access.sectors_range or (0, 0)
            access.sectors_range = (lo + low, hi + high)
        if access.unknown_reason is None and access.sectors_range is not None:
            lo, hi = access.sectors_range
            if lo != hi:
                access.unknown_reason = f"{self._range_reason}: between {lo} and {hi} sectors per block"
            else:
                access.sectors_range = None

    def _warp_cost(self, access: GlobalAccess, addresses, idx: list, nbytes: int):
        """(SectorCost, offsets, described offsets, (least, most) or None) of one warp, or the reason
        it is not known."""
        if type(addresses) is Varying:
            if len(idx) == 1:
                one = warp_sectors([0], nbytes)
                return one, [0], None, (one.sectors, one.sectors), [0]
            return f"the addresses come from run-time data ({self._origin(addresses.base)})"
        if type(addresses) is Affine:
            values = None
            consts = [addresses.consts[t] for t in idx]
            common = dict(addresses.terms)
            pitch: dict = {}
        else:
            values = [addresses[t] for t in idx]
            consts = [v[0] for v in values]
            syms = {s for v in values for s, _ in v[1]}
            per_lane = [dict(v[1]) for v in values]
            common, pitch = {}, {}
            for s in syms:
                coefs = [d.get(s, 0) for d in per_lane]
                if coefs.count(coefs[0]) == len(coefs):
                    common[s] = coefs[0]
                else:
                    pitch[s] = coefs
            for s in pitch:
                if not self._uniform_source(s):
                    return f"the addresses come from run-time data ({self._origin(s)})"
        # the base: the common unknown terms; their residue modulo a sector decides the count
        step = SECTOR
        unknown_syms = []
        shifts = {0}  # bytes past an aligned allocation that the launches pass pointers at
        for s, c in common.items():
            align = POINTER_ALIGNMENT if (c == 1 and self._pointer_param(s)) or self._aligned_variable(s) else 1
            if align == POINTER_ALIGNMENT:
                name = self._pointer_param(s)
                what = f"kernel parameter {name}" if name else f"variable {self.lanes.variable_symbols.get(s)}"
                passed = self._passed_offsets(name) if name else None
                if passed and passed != {0}:
                    shifts = {a + b for a in shifts for b in passed}
                    access.assumptions.append(
                        f"{what} is a {POINTER_ALIGNMENT}-byte aligned allocation (as cudaMalloc returns it) plus "
                        f"{' or '.join(map(str, sorted(passed)))} bytes, as the launches pass it")
                    continue
                access.assumptions.append(f"{what} is assumed {POINTER_ALIGNMENT}-byte aligned (as cudaMalloc "
                                          "returns it)")
            if gcd(c * align, 128) != 128:
                access.lines_known = False
            if align == 1 and self._integer_parameter(s) and not self._block_offset(addresses, s):
                # a run-time row pitch (`y * width`, `blockIdx.y * width`): rows are assumed to start on
                # a sector boundary, as pitched allocations and sizes that are multiples of 8 floats keep them
                access.assumptions.append(f"{self._origin(s)} is assumed to keep the accessed rows 32-byte "
                                          "aligned")
                continue
            # a run-time offset (`in[i + off]`) may fall anywhere in a sector: every alignment is
            # counted, best and worst
            g = gcd(c * align, SECTOR)
            if g != SECTOR:
                step = gcd(step, g)
                unknown_syms.append(s)
        if pitch:
            access.lines_known = False
        for s in pitch:
            access.assumptions.append(f"{self._origin(s)} is assumed large enough that lanes it separates never "
                                      "share a 32-byte sector")
        residues = sorted({r + b for r in (range(0, SECTOR, step) if step != SECTOR else (0,)) for b in shifts})
        if len({b % 128 for b in shifts}) > 1:
            # launches pass the pointer at different offsets: each is counted, the range says which
            access.lines_known = False
            unknown_syms = unknown_syms or [s for s in common if self._pointer_param(s)]
        pitch_values = [PITCH + r for r in range(SECTOR)] if pitch else [0]
        # every pitch symbol takes the same value pv: lane i moves by pv times its coefficients' sum
        pitch_sums = [sum(coefs[i] for coefs in pitch.values()) for i in range(len(consts))] if pitch else None
        first, counts, counted = self._alignment_costs(consts, pitch_sums, residues, pitch_values, nbytes,
                                                       not unknown_syms and not pitch)
        if unknown_syms or pitch:
            # 128-byte lines are known only when the base is known modulo a line
            first = SectorCost(first.sectors, first.ideal, first.lines, first.active_lanes)
        if len(counts) > 1:
            if pitch and not unknown_syms:
                # a run-time pitch between lanes (`in[x * w + y]` in a 16x16 block: two rows of w per
                # warp): a range from the best to the worst pitch, as for a run-time offset
                self._range_reason = f"the sectors depend on the value of {self._origin(next(iter(pitch)))}"
            else:
                self._range_reason = ("the alignment of the base depends on "
                                      + (", ".join(self._origin(s) for s in unknown_syms) or "run-time values"))
        low_high = (min(counts), max(counts))
        relative = [c - consts[0] for c in consts]
        described = None
        if pitch:
            described = []
            for i, c in enumerate(consts):
                terms = tuple(sorted((s, coefs[i] - coefs[0]) for s, coefs in pitch.items() if coefs[i] != coefs[0]))
                described.append(S.describe((c - consts[0], terms), self.lanes.table) if terms else c - consts[0])
        return first, relative, described, low_high, counted

    def _alignment_costs(self, consts: list, pitch_sums, residues: list, pitch_values: list, nbytes: int,
                         lines_known: bool) -> tuple:
        """(the cost at the first alignment, the set of sector counts over every alignment and pitch,
        the offsets counted first) of lanes at byte offsets `consts` (plus `pitch_sums` times a
        run-time pitch) from a base known modulo a sector only up to `residues`. Offsets that differ
        by whole 128-byte lines cost the same: the answer is kept per lanes' offsets within a line
        (an unrolled loop over rows, `pos += z_step` 512 times, asks it once), and so do pitch
        multipliers that differ by whole multiples of 128 (they move every lane by whole lines)."""
        line = consts[0] - consts[0] % 128
        lines = pitch_sums[0] - pitch_sums[0] % 128 if pitch_sums else 0  # (times any pitch: whole lines)
        memo_key = (tuple(c - line for c in consts), tuple(p - lines for p in pitch_sums) if pitch_sums else None,
                    tuple(residues), tuple(pitch_values), nbytes, lines_known)
        found = self._alignment_memo.get(memo_key)
        if found is not None:
            return found[0], found[1], list(found[2])
        costs = []
        counted = None
        for base in residues:
            for pv in pitch_values:
                if pitch_sums:
                    offs = [c + s * pv + base for c, s in zip(consts, pitch_sums)]
                else:
                    offs = [c + base for c in consts]
                low = min(offs)
                shift = low - low % 128 if lines_known else low - low % SECTOR
                key = (tuple(o - shift for o in offs), nbytes)
                counted = list(key[0]) if counted is None else counted
                cost = self._cache.get(key)
                if cost is None:
                    cost = self._cache[key] = warp_sectors(key[0], nbytes)
                costs.append(cost)
        found = self._alignment_memo[memo_key] = (costs[0], {c.sectors for c in costs}, counted)
        return found[0], found[1], list(counted)

    def _passed_offsets(self, name: str) -> Optional[set]:
        """The byte offsets past an allocation at which every launch of this block passes the pointer
        parameter `name` (`d_in + RADIUS`), or None where some launch passes it another way."""
        arguments = getattr(self.ctx.launch, "arguments", None)
        names = list(self.params)
        if not arguments or name not in names or names.index(name) >= len(arguments):
            return None
        values = arguments[names.index(name)]
        if not values or not all(isinstance(v, PointerOffset) for v in values):
            return None
        return {v.bytes for v in values}

    def _block_offset(self, addresses, sym: str) -> bool:
        """Is the parameter `sym` a plain offset of the whole block's addresses (`in[i + off]`: the
        same multiple of it in every thread), not a row pitch (`y * width`, `blockIdx.y * width`)?"""
        if self._key(sym)[0] != "param":
            return False
        if type(addresses) is Affine:
            return True
        found = self._offset_memo.get(sym)
        if found is None:
            found = self._offset_memo[sym] = len({dict(v[1]).get(sym, 0) for v in addresses}) == 1
        return found

    def _aligned_variable(self, sym: str) -> bool:
        name = self.lanes.variable_symbols.get(sym)
        var = self.variables.get(name) if name else None
        return var is not None and var.space == "global" and (var.align or 0) >= SECTOR

    def _uniform_source(self, sym: str) -> bool:
        """Is `sym` one value for the whole grid launch (a parameter, a special register, a product
        of such), so that lanes multiplying it by different factors have a known pattern?"""
        key = self._key(sym)
        if not isinstance(key, tuple) or not key:
            return False
        if key[0] == "param":
            return key[1] in self.params
        if key[0] == "special":
            return True
        if key[0] == "product":
            return all(self._uniform_source(s) for s in key[1:])
        return False

    def _integer_parameter(self, sym: str) -> bool:
        """A kernel parameter that is not the pointer, or a product with one (`blockIdx.y * width`)."""
        key = self._key(sym)
        if not isinstance(key, tuple) or not key:
            return False
        if key[0] == "param":
            return key[1] in self.params and self._pointer_param(sym) is None
        if key[0] == "product":
            return any(self._integer_parameter(s) for s in key[1:]) and self._uniform_source(sym)
        return False

    def _origin(self, sym: str) -> str:
        origin = self.lanes.table.origin.get(sym, sym)
        return origin if isinstance(origin, str) else sym


def _symbols(values) -> set:
    if type(values) is Affine:
        return {sym for sym, _ in values.terms}
    if type(values) is Varying:
        return {values.base}
    return {sym for v in values or () for sym, _ in v[1]}
