"""Which bits of the thread index a value does not depend on: the reason a warp reduction's result
is one value per warp, and a block reduction's one value per block.

A value is *invariant under bit j* when every thread t holds the same value as thread t ^ 2^j
(t, t ^ 2^j both in the block; t is the linear thread index, whose bits 0-4 are the lane). An
xor-butterfly step `v = v op __shfl_xor_sync(full, v, 2^k)` with a commutative `op` gives lanes l
and l ^ 2^k the same operands in swapped order, so the result is invariant under bit k on top of
whatever `v` was invariant under; after the five steps of `for (m = 16; m > 0; m /= 2)` it is one
value per warp. A value loaded (a plain shared or global load) at an address that repeats in every warp
(`sm[lane]` after each warp stored its partial at `sm[warp]`) is invariant under the warp bits; a
butterfly over it is then one value for the whole block: the classic block reduction.

Leaves are read from the per-thread evaluator (its values are equal exactly where it can show so;
a load at one address gives one value, assuming the kernel has no race there, as lanes.py does) or
from the uniformity level already known. What this assumes: IEEE add, mul, min and max are
commutative (bit-identical with swapped operands), which they are.
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Immediate, Instruction, PairOperand, Register, Symbol, TextureAddress, VectorOperand
from .lane_values import equal_under_bit
from .warpops import shuffle_mode

LANE_BITS = frozenset(range(5))
MAX_DEPTH = 64  # definitions followed back from one value: a reduction is ~30 instructions deep
_COMMUTATIVE = ("add", "mul", "min", "max", "and", "or", "xor")
# the ordering comparisons of `setp` that, with a `selp` between the two values compared, pick the
# smaller or the larger of them: `a < b ? b : a` (cooperative groups' `greater`, a hand-written max)
_ORDERING = frozenset(("lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"))
# operations whose result is a function of their register and immediate operands alone
_PURE = frozenset(("add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max", "and", "or", "xor", "not",
                   "shl", "shr", "setp", "selp", "set", "slct", "cvt", "mov", "neg", "abs", "cnot", "mul24",
                   "mad24", "sad", "bfe", "bfi", "prmt", "lop3", "popc", "clz", "brev", "sqrt", "rsqrt", "rcp",
                   "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp", "bfind", "fns"))


class ThreadBitInvariance:
    """`bits(ins, reg)`: the thread-index bits the value of `reg`, as `ins` reads it, does not depend
    on, for the block shape of `uniformity` (a frozenset of bit positions)."""

    reads_textures = False  # the uniformity solve's own walk stops at a texture fetch, as it always has

    def __init__(self, uniformity) -> None:
        self.uniformity = uniformity
        self.function = uniformity.function
        self.threads = uniformity.shape.threads
        self.all_bits = frozenset(range(max(1, (self.threads - 1).bit_length())))
        self._memo: dict = {}
        # the evaluator's answers, which no uniformity level changes: kept across `reset`
        self._evaluated: dict = {}

    def reset(self) -> None:
        """Forget what was found (the levels the leaves read have changed)."""
        self._memo.clear()

    def _around_cycle(self, key: tuple) -> frozenset:
        """What a definition met again while its own bits are being worked out (a loop) is taken to
        keep: nothing is shown here; `LoopCarriedBits` guesses and checks."""
        return frozenset()

    def one_value_per_warp(self, bits: frozenset) -> bool:
        return self.threads % 32 == 0 and LANE_BITS <= bits

    def one_value_per_block(self, bits: frozenset) -> bool:
        return self.threads & (self.threads - 1) == 0 and self.all_bits <= bits

    # ---- the walk back along definitions
    def bits(self, ins: Instruction, operand, depth: int = 0) -> frozenset:
        if isinstance(operand, Immediate):
            return self.all_bits
        if not isinstance(operand, Register) or operand.is_special or depth > MAX_DEPTH:
            return self._from_evaluator(ins, operand) if isinstance(operand, Register) else frozenset()
        defs = self.uniformity._defs_at(ins, operand)
        if len(defs) != 1:
            found = self._from_level(ins, operand)
            return found if self.all_bits <= found else found | self._join_bits(ins, operand, defs, depth)
        key = (defs[0], operand.name)
        found = self._memo.get(key)
        if found is None:
            self._memo[key] = self._around_cycle(key)
            d = self.function.instructions[defs[0]]
            found = self._from_level(ins, operand) | self._structural(d, depth)
            if not self.all_bits <= found:
                found |= self._from_evaluator(ins, operand)
            self._memo[key] = found
        return found

    def _structural(self, d: Instruction, depth: int) -> frozenset:
        """What the defining instruction shows: a pure operation keeps the bits all its operands
        have, a butterfly step adds its lane bit, a plain load keeps the bits its address has."""
        if d.guard is not None or len(d.operands) < 2:
            return frozenset()
        ops = d.operands
        if d.op == "shfl":
            if self.butterfly_lane_bit(d) is not None:
                return self.bits(d, ops[1], depth + 1)
            return self._indexed_shuffle_bits(d, depth)
        if d.op == "vote":
            return self._vote_bits(d, depth)
        if d.op in ("ld", "ldu") and d.space in ("shared", "global", "const") \
                and not any(m in d.modifiers for m in ("volatile", "relaxed", "acquire")):
            # a plain load: threads reading one address at one point read one value (a store between
            # them by another thread, unordered, is a race the RACE rules report)
            return self._address_bits(d)
        if d.op in ("tex", "tld4") and self.reads_textures:
            return self._texture_bits(d, depth)
        if d.op not in _PURE:
            return frozenset()
        found = self.all_bits
        for operand in ops[1:]:
            if not isinstance(operand, (Register, Immediate)):
                return frozenset()
            found = found & self.bits(d, operand, depth + 1)
            if not found:
                break
        pair = self.commutative_operands(d)
        if pair is not None:
            if d.op == "selp":
                # the choice is the smaller or larger of the two, whichever order the compare saw them in
                found = self.bits(d, pair[0], depth + 1) & self.bits(d, pair[1], depth + 1)
            for x, y in (pair, pair[::-1]):
                k = self._butterfly_partner(d, x, y)
                if k is not None:
                    found |= {k}
        return found

    def _texture_bits(self, d: Instruction, depth: int) -> frozenset:
        """A texture fetch: a function of its texture and coordinates (a texture is read-only while a
        kernel runs: what the kernel writes to its memory is not defined to be seen)."""
        found = self.all_bits
        for operand in d.operands[1:]:
            parts = operand.parts if isinstance(operand, TextureAddress) else (operand,)
            for part in parts:
                for leaf in (part.elements if isinstance(part, VectorOperand) else (part,)):
                    if isinstance(leaf, Symbol):
                        continue  # a texture reference by name: one texture for every thread
                    if not isinstance(leaf, (Register, Immediate)):
                        return frozenset()
                    found &= self.bits(d, leaf, depth + 1)
                    if not found:
                        return found
        return found

    def commutative_operands(self, d: Instruction) -> Optional[tuple]:
        """The two operands of `d` whose order does not change its result, or None: those of a commutative
        operation, and the two values of a `selp` that picks one of them by an ordering `setp` between
        the same two (`a < b ? b : a` is max(a, b), `a < b ? a : b` min(a, b))."""
        ops = d.operands
        if d.guard is not None:
            return None
        if d.op in _COMMUTATIVE and len(ops) == 3:
            return ops[1], ops[2]
        if d.op != "selp" or len(ops) != 4 or not all(isinstance(o, Register) for o in ops[1:]):
            return None
        defs = self.uniformity._defs_at(d, ops[3])
        if len(defs) != 1:
            return None
        compare = self.function.instructions[defs[0]]
        cops = compare.operands
        if compare.op != "setp" or compare.guard is not None or len(cops) != 3 \
                or not _ORDERING.intersection(compare.modifiers):
            return None
        first = cops[0].first if isinstance(cops[0], PairOperand) else cops[0]
        if not isinstance(first, Register) or first.name != ops[3].name:
            return None  # the selected predicate is the compare's negated second result
        picked = {self._origin(d, ops[1]), self._origin(d, ops[2])}
        compared = {self._origin(compare, cops[1]) if isinstance(cops[1], Register) else None,
                    self._origin(compare, cops[2]) if isinstance(cops[2], Register) else None}
        if None in picked or len(picked) != 2 or picked != compared:
            return None
        return ops[1], ops[2]

    def _vote_bits(self, d: Instruction, depth: int) -> frozenset:
        """`__ballot_sync(full, p)` (and any, all, uni): one value per warp, made of the predicate's
        values in its lanes, so it keeps the warp bits the predicate keeps: every warp balloting the
        same shared entries `s[k + lane]` gets the same mask."""
        ops = d.operands
        member = self.uniformity._constant(d, ops[2]) if len(ops) == 3 else None
        if self.threads % 32 or member is None or member & 0xFFFFFFFF != 0xFFFFFFFF:
            return frozenset()
        return (LANE_BITS | self.bits(d, ops[1], depth + 1)) & self.all_bits

    def _indexed_shuffle_bits(self, d: Instruction, depth: int) -> frozenset:
        """`__shfl_sync(full, v, src)` over the whole warp: lane l of warp w receives v of lane src(l)
        of w, so the result keeps the bits src keeps, lane bits included, and among the warp bits those
        v keeps too."""
        ops = d.operands
        if shuffle_mode(d.modifiers) != "idx" or not self._warp_wide_shuffle(d) or self.threads % 32:
            return frozenset()
        source = self.bits(d, ops[2], depth + 1)
        return source & (LANE_BITS | self.bits(d, ops[1], depth + 1))

    def _join_bits(self, ins: Instruction, reg: Register, defs: tuple, depth: int) -> frozenset:
        """A value several definitions reach: the bits every definition keeps, and every branch that
        chose between them keeps (`v = lane < n ? sm[lane] : 0` is the same in every warp when both
        sides are and `lane < n` is)."""
        instructions = self.function.instructions
        use_block = self.function.block_of(ins).id
        found = self.all_bits
        for index in defs:
            d = instructions[index]
            if d.guard is not None:
                return frozenset()
            key = (index, reg.name)
            mine = self._memo.get(key)
            if mine is None:
                self._memo[key] = self._around_cycle(key)
                mine = self._from_def_level(index, reg) | self._structural(d, depth + 1)
                self._memo[key] = mine
            found &= mine
            for b in self.uniformity._sync_branches(self.function.block_of(d).id, use_block):
                branch = self.uniformity.branch_instruction(b)
                if branch is None or branch.guard is None:
                    return frozenset()
                found &= self.bits(branch, branch.guard, depth + 1)
            if not found:
                break
        return found

    def _address_bits(self, load: Instruction) -> frozenset:
        """The bits under which the load's per-thread address is the same: threads that load one
        address at one point read one value (no race there; the RACE rules check that)."""
        return self._evaluated_bits(("address", load.index), "address", load)

    def _equal_under(self, values) -> frozenset:
        if values is None or type(values).__name__ == "Varying":
            return frozenset()
        return frozenset(j for j in self.all_bits if equal_under_bit(values, j))

    def butterfly_lane_bit(self, shfl: Instruction) -> Optional[int]:
        """k for `shfl.sync.bfly` over the whole warp (member mask all ones, width 32) with lane mask
        2^k, else None."""
        if shuffle_mode(shfl.modifiers) != "bfly" or not self._warp_wide_shuffle(shfl):
            return None
        lane_mask = self.uniformity._constant(shfl, shfl.operands[2])
        if lane_mask is None or lane_mask <= 0 or lane_mask & (lane_mask - 1) or lane_mask >= 32:
            return None
        return lane_mask.bit_length() - 1

    def _warp_wide_shuffle(self, shfl: Instruction) -> bool:
        """A `shfl.sync` over the whole warp: width 32 (clamp 0x1f, no segment mask) and member mask all
        ones."""
        ops = shfl.operands
        if len(ops) < 5:
            return False
        clamp = self.uniformity._constant(shfl, ops[3])
        member = self.uniformity._constant(shfl, ops[4])
        return clamp is not None and clamp & 0x1F == 0x1F and (clamp >> 8) & 0x1F == 0 \
            and member is not None and member & 0xFFFFFFFF == 0xFFFFFFFF

    def _butterfly_partner(self, d: Instruction, x, y) -> Optional[int]:
        """k when `y` is `__shfl_xor_sync(full, x, 2^k)` (through copies) of the very value `x` is."""
        if not isinstance(x, Register) or not isinstance(y, Register):
            return None
        shfl_at = self._origin(d, y)
        if shfl_at is None or shfl_at[0] == "join":
            return None
        shfl = self.function.instructions[shfl_at[0]]
        first = shfl.operands[0]
        value_reg = first.first if isinstance(first, PairOperand) else first
        if shfl.op != "shfl" or not isinstance(value_reg, Register) or value_reg.name != shfl_at[1]:
            return None
        k = self.butterfly_lane_bit(shfl)
        source = shfl.operands[1]
        if k is None or not isinstance(source, Register):
            return None
        origin = self._origin(d, x)
        return k if origin is not None and self._origin(shfl, source) == origin else None

    def _origin(self, ins: Instruction, reg: Register, depth: int = 0) -> Optional[tuple]:
        """What identifies the value `reg` holds at `ins`, looking through plain copies (`mov.b32
        %r, %f`): its one definition; where several reach, the register and those definitions in
        this basic block (no redefinition can fall between two points of one block that see the
        same definitions)."""
        defs = self.uniformity._defs_at(ins, reg)
        if not defs:
            return None
        if len(defs) != 1:
            return ("join", self.function.block_of(ins).id, reg.name, tuple(defs))
        d = self.function.instructions[defs[0]]
        ops = d.operands
        if d.op == "mov" and d.guard is None and len(ops) == 2 and isinstance(ops[1], Register) \
                and not ops[1].is_special and depth < MAX_DEPTH:
            return self._origin(d, ops[1], depth + 1)
        return defs[0], reg.name

    def bits_of_result(self, ins: Instruction, dest: Register) -> frozenset:
        """The bits the value `ins` writes to `dest` keeps, as the per-thread evaluator sees it."""
        return self._evaluated_bits(("result", ins.index, dest.name), "_definition", ins.index, dest)

    # ---- leaves
    def _from_level(self, ins: Instruction, reg: Register) -> frozenset:
        return self._bits_of_level(self.uniformity.level(ins, reg))

    def _from_def_level(self, index: int, reg: Register) -> frozenset:
        return self._bits_of_level(self.uniformity._def_level(index, reg.name)[0])

    def _bits_of_level(self, level: int) -> frozenset:
        """What a uniformity level says: every bit for a value one per block, the lane bits for one
        per warp, none otherwise."""
        from .uniformity import BLOCK, CTA

        if level <= CTA:
            return self.all_bits
        if level == BLOCK and self.threads % 32 == 0:
            return LANE_BITS & self.all_bits
        return frozenset()

    def _from_evaluator(self, ins: Instruction, reg: Register) -> frozenset:
        """The bits under which the per-thread evaluator's values are equal (unknowns included: one
        unknown is one value)."""
        return self._evaluated_bits(("register", ins.index, reg.name), "register", ins, reg)

    def _evaluated_bits(self, key: tuple, query: str, *args) -> frozenset:
        """`_equal_under` of the evaluator's `query(*args)`, computed once per kernel and shape: the
        fixed point of uniformity asks again every round. A repeated answer hands the evaluator's
        notes on again, as the evaluator itself does."""
        lanes = self.uniformity.ctx.lanes
        found = self._evaluated.get(key)
        if found is None:
            try:
                values, notes = lanes.collect(getattr(lanes, query), *args)
            except RecursionError:  # pragma: no cover - a pathological kernel
                return frozenset()
            found = self._evaluated[key] = (self._equal_under(values), notes)
        else:
            lanes._notes[-1] |= found[1]
        return found[0]


class LoopCarriedBits(ThreadBitInvariance):
    """The bits a value keeps where it is carried round a loop (`acc += w * tex3D(g, x, y, z)` with
    x, y, z the same in threads t and t ^ 2^j): the greatest set of bits every definition keeps,
    found by guessing that a definition met again in its own walk keeps every bit, walking, and
    narrowing the guesses to what the walk found until they agree. A branch that chose between the
    definitions (the loop's exit) must keep the bits too, as for any join.

    Asked only where a finding hangs on it (two threads storing to one address): each answer walks
    the definitions behind the value again, a few times."""

    reads_textures = True
    MAX_ROUNDS = 12

    def __init__(self, uniformity) -> None:
        super().__init__(uniformity)
        self._guesses: dict = {}
        self._met: set = set()

    def _around_cycle(self, key: tuple) -> frozenset:
        self._met.add(key)
        return self._guesses.get(key, self.all_bits)

    def kept(self, ins: Instruction, operand) -> frozenset:
        self._guesses = {}
        for _ in range(self.MAX_ROUNDS):
            self._memo.clear()
            self._met = set()
            found = self.bits(ins, operand)
            changed = False
            for key in self._met:
                now = self._memo.get(key, frozenset())
                guess = self._guesses.get(key, self.all_bits)
                if not guess <= now:
                    self._guesses[key] = guess & now
                    changed = True
            if not changed:
                return found
        return frozenset()
