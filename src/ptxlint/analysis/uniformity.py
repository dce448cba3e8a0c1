"""Uniformity: which registers and branches may differ between the threads of a warp, a block, a cluster.

One shared fact for every rule (barriers, shuffles, constant reads). Computed by dataflow over the
IR: sources of divergence (`%tid`, `%laneid`, atomics, loads from thread-dependent addresses ...)
flow through the instructions that read them; a value defined under a divergent branch is divergent
where the paths join (sync dependence through the post-dominator tree), and a value defined in a
loop whose exit is divergent is divergent after the loop (temporal divergence).

Levels, from most to least uniform:

* UNIFORM: the same in every thread of the grid (parameters, `%ntid`, constants);
* CTA: the same in every thread of a block, may differ between blocks (`%ctaid`, `%cluster_ctarank`,
  the result of `bar.red`: `__syncthreads_or/and/count`);
* BLOCK: the same in every lane of a warp, may differ between warps (`%tid.y` when blockDim.x is a
  multiple of 32, `%warpid`, a ballot, a vote, `redux.sync`, `match.all`, a shuffle from one lane of
  the whole warp: lane-dependent inputs, one result per warp);
* WARP: may differ between the lanes of a warp (`%tid.x`, `%laneid`, an atomic's result).

Branch levels are refined with the per-thread evaluator for the kernel's block shape: `tid.x / 32 < 2`
is WARP by dataflow but BLOCK once every warp's lanes are seen to agree (also on an unknown value
that is one value per warp, e.g. a broadcast tested against the warp's own bit). A BLOCK level in a
one-warp block is the same in the whole block.

Values, not only branches, are refined where arithmetic folds the lane away (thread_bits.py): an
xor-butterfly reduction (`v += __shfl_xor_sync(full, v, m)`, m = 16 .. 1) is BLOCK, and CTA when what
it folds was already the same in every warp (partials read back as `sm[lane]`); a division or right
shift that drops the lane (`(threadIdx.x + blockIdx.x * 512) / 32`) is BLOCK when the evaluator
shows it. An atomic that leaves memory unchanged (`atomicAdd(&n, 0)`) on memory the kernel never
writes is a load. Copies of one computation on both sides of a divergent branch (nvcc's `mov %r2,
%r1` before and inside `if (tid == 0)`) give one value at the join.

Bit arithmetic keeps the warp together where it can (lanes.py): `x & m` of a value whose unknown
part is a multiple of 2^j depends, in bits j and up, only on that part and the known part rounded
down to 2^j, so nvcc's test before a loop unrolled by two over a bound rounded to the warp
(`(32*n - 1 - tid) & 512`) is one value per warp; a value merged from two paths that differ by a known
amount per thread (`i = tid`, or `tid + 512` after that test) is `first + step * P`, one unknown P per
value of the deciding condition, so the unrolled loop's exit is seen to agree across the warp too
(also for the chain of remainder tests of a loop unrolled by four). A value rounded down stays a
multiple where nvcc's arithmetic hides it: `prmt` that keeps an operand's low bytes in place is that
operand plus a multiple of 2^(8L), `(x & 255) - (x & 127)` is 128 times an unknown, and the signed
division of a multiple of 2^k (`(y + ((y >> 31) >>> (32 - k))) >> k`) is exact.

A loop-carried value that no uniform step describes (`node = next[node]`, a stack pointer popped
under a test of a value read at one address) is one value for all threads when, taken as one
unknown at the loop header, every back edge carries the same value in every thread; a join whose
definitions are each the same in every thread and reached alike by every thread is too. nvcc's
copy of a definition under a branch (`mov %r85, %r5` on both sides of `@%p bra`) changes nothing,
so that branch does not decide which definition arrives.

What the refinement assumes (the evaluator's, lanes.py): threads that load one address at one point of
the same iteration read one value, which holds when the kernel has no data race on it (RACE rules);
a global thread index `blockIdx * blockDim + threadIdx` fits in a signed int; `blockIdx < gridDim`.
Warps are 32 consecutive linear thread ids of the block shape being checked, so a warp of a 16x16
block spans two values of `threadIdx.y`; with no known launch every admitted candidate shape is checked.
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Immediate, Instruction, PairOperand, Register, Symbol, registers_in
from ..frontend.sourcemap import user_line
from . import symbolic as S
from .budget import spend
from .spaces import local_object, may_reach_local, may_reach_shared, printf_buffers
from .cfg import ENTRY, EXIT
from .warpops import broadcasts_per_warp, is_barrier_reduction, shuffle_mode

UNIFORM, CTA, BLOCK, WARP = 0, 1, 2, 3
LEVEL_NAMES = {"uniform": UNIFORM, "grid": UNIFORM, "cta": CTA, "cluster": CTA, "block": BLOCK, "warp": WARP}
DESCRIBE = {UNIFORM: "uniform", CTA: "differs between blocks", BLOCK: "differs between warps of a block",
            WARP: "differs between lanes of a warp"}

_CTA_SPECIALS = ("%ctaid", "%clusterid", "%cluster_ctaid", "%cluster_ctarank", "%smid", "%gridid")
_WARP_SPECIALS = ("%laneid", "%lanemask", "%clock", "%globaltimer", "%pm")
# instructions whose result is not a function of their operands alone
_NOT_PURE_OPS = ("ld", "ldu", "atom", "red", "call", "shfl", "vote", "match", "redux", "activemask", "elect",
                 "bar", "barrier", "mbarrier", "tex", "suld", "ldmatrix", "mma", "wgmma", "cp", "clock")
# operations that can drop the low bits of a thread index (`tid / 32`, `tid >> 5`)
_LANE_CANCELLING_OPS = ("div", "shr")
# loads whose value depends on when the thread reads it, not only on where
_ORDERED_LOAD_QUALIFIERS = ("volatile", "relaxed", "acquire", "mmio")


def _level(level) -> int:
    return LEVEL_NAMES[level] if isinstance(level, str) else int(level)


class UniformityAnalysis:
    """Divergence levels of every register definition and every conditional branch of one function.

    Queries: `level(ins, reg)`, `is_divergent(ins, reg, level)`, `why(ins, reg)`,
    `branch_level(block_id)`, `branch_divergence(block_id, level)`, `divergent_controls(block_id,
    level)`, `divergent_blocks(level)`.
    """

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.function = ctx.function
        self.cfg = ctx.cfg
        self.shape = ctx.launch
        self._kernel_params = {p.name for p in self.function.params} if self.function.is_kernel else set()
        self._own_params = set() if self.function.is_kernel else {p.name for p in self.function.params}
        self.levels: dict = {}  # (instruction index, register name) -> level
        self.origins: dict = {}  # (instruction index, register name) -> why (text)
        self._sync_cache: dict = {}
        self._refined: dict = {}
        self._broadcast_cache: dict = {}
        self._uses: list = self._reaching_uses()
        self._branches: dict = self._branch_instructions()
        self._equal_copies: dict = {}  # mov index -> the definitions it leaves unchanged (_equal_copy)
        self._solve()

    # ---- public queries
    def level(self, ins: Instruction, reg) -> int:
        """Divergence level of the value of `reg` as `ins` reads it."""
        reg = reg if isinstance(reg, Register) else Register(str(reg))
        if reg.is_special:
            return self._special(reg)[0]
        defs = self._defs_at(ins, reg)
        return self._use_level(ins, defs, reg.name)[0]

    def is_divergent(self, ins: Instruction, reg, level="warp") -> bool:
        """May `reg` (as read by `ins`) differ between threads of a warp (`level="warp"`), of a block
        (`"block"`), or between blocks (`"cta"`)?"""
        return self.level(ins, reg) >= _level(level)

    def why(self, ins: Instruction, reg) -> Optional[str]:
        """The thread-dependent source of `reg` at `ins` ("%tid.x via %r5 at line 12"), or None."""
        reg = reg if isinstance(reg, Register) else Register(str(reg))
        if reg.is_special:
            return self._special(reg)[1]
        return self._use_level(ins, self._defs_at(ins, reg), reg.name)[1]

    def branch_instruction(self, block_id) -> Optional[Instruction]:
        return self._branches.get(block_id)

    def branch_level(self, block_id) -> int:
        """Divergence level of the conditional branch ending `block_id` (UNIFORM if it has none),
        refined for the kernel's block shape with the per-thread evaluator."""
        found = self._refined.get(block_id)
        if found is None:
            found = self._refined[block_id] = self._refine(block_id)
        return found[0]

    def branch_divergence(self, block_id, level="block") -> Optional[str]:
        """None if the branch ending `block_id` is uniform at `level`; else why it is not."""
        if self.branch_level(block_id) < _level(level):
            return None
        return self._refined[block_id][1]

    def controls(self, block_id) -> set:
        """Branch blocks that decide, directly or through enclosing branches, whether `block_id` runs."""
        return self.cfg.controlling_branches(block_id)

    def divergent_controls(self, block_id, level="block") -> list:
        """[(branch block id, explanation)] for the branches of at least `level` that decide whether
        `block_id` runs, innermost (last in program order) first."""
        want = _level(level)
        found = [(b, self.branch_divergence(b, want)) for b in self.controls(block_id)
                 if self._branches.get(b) is not None and self.branch_level(b) >= want]
        found.sort(key=lambda item: -self._branches[item[0]].index)
        return found

    def divergent_blocks(self, level="block") -> set:
        """Blocks that only some threads (at `level`) may execute."""
        return {b.id for b in self.function.blocks if self.divergent_controls(b.id, level)}

    # ---- reaching definitions, one forward walk per block
    def _reaching_uses(self) -> list:
        """Per instruction: [(register, definition indices)] for every register it reads."""
        dataflow = self.ctx.dataflow
        sites = dataflow.sites
        out = [None] * len(self.function.instructions)
        for block in self.function.blocks:
            incoming = dataflow.block_in.get(block.id, 0)
            current: dict = {}

            def defs_of(name):
                if name in current:
                    return current[name]
                mask = incoming & dataflow.sites_of_register.get(name, 0)
                found = []
                while mask:
                    low = mask & -mask
                    found.append(sites[low.bit_length() - 1][0])
                    mask ^= low
                current[name] = tuple(sorted(found))
                return current[name]

            for ins in block.instructions:
                spend()
                uses = []
                for reg in ins.sources():
                    if not reg.is_special:
                        uses.append((reg, defs_of(reg.name)))
                for reg in ins.destinations():
                    if ins.guard is not None:
                        current[reg.name] = (ins.index,) + defs_of(reg.name)
                    else:
                        current[reg.name] = (ins.index,)
                out[ins.index] = uses
        return out

    def _defs_at(self, ins: Instruction, reg: Register) -> tuple:
        for r, defs in self._uses[ins.index] or ():
            if r.name == reg.name:
                return defs
        # not a source of `ins` (a destination, or a query about another point): ask the dataflow
        return tuple(self.ctx.dataflow.definitions(ins, reg))

    def _branch_instructions(self) -> dict:
        out = {}
        for block in self.function.blocks:
            last = block.instructions[-1] if block.instructions else None
            if last is not None and (last.guard is not None or last.op == "brx") and \
                    self.cfg.graph.out_degree(block.id) > 1:
                out[block.id] = last
        return out

    # ---- the fixed point
    def _use_level(self, ins: Instruction, defs: tuple, name: Optional[str] = None) -> tuple:
        best, why = UNIFORM, None
        use_block = self.function.block_of(ins).id
        defs = self._unchanged_copies(defs)
        for d in defs:
            key_level = self._def_level(d, name)
            if key_level[0] > best:
                best, why = key_level
            if best == WARP:
                break
        if best < WARP and defs:
            # sync dependence: the threads that reach `ins` may have come through different sides
            # of a divergent branch that the definitions depend on and the use does not; a branch
            # whose other side holds a copy of the same computation (`mov %r147, %r20` before and
            # inside `if (tid == 0)`) gives the same value on both sides
            instructions = self.function.instructions
            sync = {d: self._sync_branches(self.function.block_of(instructions[d]).id, use_block) for d in defs}
            alike = self._alike_classes(defs) if len(defs) > 1 else {}
            for d in defs:
                for b in sync[d]:
                    if any(e != d and alike.get(e) == alike.get(d) is not None and b not in sync[e] for e in defs):
                        continue
                    lvl = self._raw_branch_level(b)
                    if lvl > best:
                        branch = self._branches[b]
                        best = lvl
                        why = f"the branch at {user_line(branch)} ({self._raw_branch_origin(b)})"
        return best, why

    def _unchanged_copies(self, defs: tuple) -> tuple:
        """`defs` with every copy that leaves its register as it was replaced by the definitions it
        copies over: `mov d, s` in a block entered only where `d == s` (nvcc's `if (t == cnt) { ...;
        cnt = t; }`, a lane writing back the warp's own count) gives d the value it had, so the join
        after it is that value's, not the lane's."""
        out = None
        for n, d in enumerate(defs):
            old = self._equal_copy(d)
            if old is not None:
                if out is None:
                    out = list(defs[:n])
                out.extend(e for e in old if e not in out)
            elif out is not None and d not in out:
                out.append(d)
        return defs if out is None else tuple(out)

    def _equal_copy(self, index: int) -> Optional[tuple]:
        """The definitions of d reaching `mov d, s` at `index` when the one edge into its block is
        taken only where an integer `setp.eq`/`setp.ne` of d and s (the same values: neither written
        between) says they are equal; else None."""
        found = self._equal_copies.get(index, ...)
        if found is not ...:
            return found
        found = self._equal_copies[index] = None
        ins = self.function.instructions[index]
        ops = ins.operands
        if ins.op != "mov" or ins.guard is not None or len(ops) != 2 \
                or not isinstance(ops[0], Register) or not isinstance(ops[1], Register):
            return None
        block = self.function.block_of(ins).id
        preds = list(self.cfg.graph.predecessors(block))
        branch = self._branches.get(preds[0]) if len(preds) == 1 else None
        cond = self.cfg.edge_condition(preds[0], block) if branch is not None else None
        if cond is None:
            return None
        guard, value = cond
        compares = self._defs_at(branch, guard)
        compare = self.function.instructions[compares[0]] if len(compares) == 1 else None
        if compare is None or compare.op != "setp" or compare.guard is not None or len(compare.operands) != 3 \
                or not (compare.type or "")[:1] in "usb" or not isinstance(compare.operands[0], Register):
            return None
        cmp = "eq" if "eq" in compare.modifiers else "ne" if "ne" in compare.modifiers else None
        if cmp is None or (value if cmp == "eq" else not value) is False:
            return None
        a, b = compare.operands[1], compare.operands[2]
        if not isinstance(a, Register) or not isinstance(b, Register) \
                or {a.name, b.name} != {ops[0].name, ops[1].name} or a.name == b.name:
            return None
        for reg in (ops[0], ops[1]):
            if self._defs_at(compare, reg) != self._defs_at(ins, reg):
                return None  # written between the test and the copy
        old = self._defs_at(ins, ops[0])
        found = self._equal_copies[index] = old if old else None
        return found

    def _alike_classes(self, defs: tuple) -> dict:
        """definition -> what it computes, for unpredicated pure instructions: the opcode, the
        operands and the definitions their registers have there. Two definitions of one class give
        the same value (one instruction written again on each path by nvcc)."""
        instructions = self.function.instructions
        out = {}
        for d in defs:
            ins = instructions[d]
            if ins.guard is not None or ins.op in _NOT_PURE_OPS:
                continue
            out[d] = (ins.op, ins.modifiers, ins.operands[1:],
                      tuple(self._defs_at(ins, r) for r in ins.sources() if not r.is_special))
        return out

    def _sync_branches(self, def_block, use_block) -> tuple:
        """Conditional branches the definition's block depends on and the use's block does not."""
        if def_block == use_block:
            return ()
        key = (def_block, use_block)
        found = self._sync_cache.get(key)
        if found is None:
            tree = self._control_tree()
            if tree is not None:
                found = tuple(b for b in _ancestors_below_common(tree, def_block, use_block) if b in self._branches)
            else:
                found = tuple(b for b in self.controls(def_block) - self.controls(use_block) if b in self._branches)
            self._sync_cache[key] = found
        return found

    def _control_tree(self) -> Optional[tuple]:
        """(parent, depth) when every block depends directly on at most one branch and those
        dependences form a tree (no loops): then what a block depends on is its ancestors, and the
        branches one block depends on and another does not are found by walking up to their common
        ancestor, not by building every block's whole closure (quadratic in a chain of exits)."""
        found = self.__dict__.get("_tree")
        if found is None:
            found = self.__dict__["_tree"] = _control_dependence_tree(self.cfg.control_dependences)
        return found or None

    def _def_level(self, index: int, name: Optional[str] = None) -> tuple:
        """The level of register `name` as defined at `index` (of every destination, without a name:
        `shfl`'s value and its in-range predicate have levels of their own)."""
        ins = self.function.instructions[index]
        best, why = UNIFORM, None
        for reg in ins.destinations():
            if name is not None and reg.name != name:
                continue
            key = (index, reg.name)
            lvl = self.levels.get(key, UNIFORM)
            if lvl > best:
                best, why = lvl, self.origins.get(key)
        return best, why

    def _raw_branch_level(self, block_id) -> int:
        branch = self._branches.get(block_id)
        if branch is None:
            return UNIFORM
        return self._branch_raw.get(block_id, (UNIFORM, None))[0]

    def _raw_branch_origin(self, block_id) -> Optional[str]:
        return self._branch_raw.get(block_id, (UNIFORM, None))[1]

    def _solve(self) -> None:
        self._branch_raw: dict = {}
        instructions = self.function.instructions
        changed = True
        rounds = 0
        while changed and rounds < 50:
            changed = False
            rounds += 1
            self._local_levels = {}  # what local stores write, asked again each round (levels rise)
            if "_thread_bits_analysis" in self.__dict__:
                self._thread_bits.reset()  # its leaves read levels that the last round raised
            for ins in instructions:
                spend()
                dests = ins.destinations()
                if dests:
                    for reg, (lvl, why) in self._transfer(ins, dests):
                        key = (ins.index, reg.name)
                        if lvl > self.levels.get(key, UNIFORM):
                            self.levels[key] = lvl
                            self.origins[key] = why
                            changed = True
            for block_id, branch in self._branches.items():
                if branch.guard is not None:
                    found = self._operand_level(branch, branch.guard)
                else:
                    found = max((self._operand_level(branch, r) for r in branch.sources()),
                                key=lambda x: x[0], default=(UNIFORM, None))
                if found[0] > self._branch_raw.get(block_id, (UNIFORM, None))[0]:
                    reg = branch.guard.source_name if branch.guard is not None else "its index"
                    self._branch_raw[block_id] = (found[0], f"on {reg}, which depends on {found[1]}")
                    changed = True

    def _operand_level(self, ins: Instruction, reg: Register) -> tuple:
        if reg.is_special:
            return self._special(reg)
        for r, defs in self._uses[ins.index] or ():
            if r.name == reg.name:
                return self._use_level(ins, defs, reg.name)
        return UNIFORM, None

    def _sources_level(self, ins: Instruction, operands) -> tuple:
        best, why = UNIFORM, None
        for operand in operands:
            for reg in registers_in(operand):
                lvl, w = self._operand_level(ins, reg)
                if lvl > best:
                    best, why = lvl, w
        return best, why

    def _transfer(self, ins: Instruction, dests: tuple) -> list:
        """[(destination register, (level, why))] for one instruction."""
        op = ins.op
        srcs = ins.operands[1:]
        value = None  # (level, why) for every destination
        per_dest = {}
        if op == "match" and "all" in ins.modifiers:
            # match.all: the mask (or 0) and its predicate are the same in every lane of the warp
            value = (BLOCK, f"the {ins.opcode} result at {user_line(ins)} (one value per warp)")
        elif is_barrier_reduction(ins):
            # __syncthreads_or/and/count: the block-wide result is the same in every thread of the block
            value = (CTA, f"the {ins.opcode} result at {user_line(ins)} (one value per block)")
        elif op == "atom" and self._reads_unwritten_memory(ins):
            # `atomicAdd(&n, 0)` of a word this kernel never writes: a load (every thread reads the
            # value the launch started with), as uniform as its address
            value = self._load_level(ins, dests)
        elif op in ("atom", "call", "match", "mma", "wgmma", "tcgen05", "suld", "tld4", "ldmatrix") or \
                (op == "mbarrier" and any(m in ins.modifiers for m in ("try_wait", "test_wait"))):
            value = (WARP, f"the {ins.opcode} result at {user_line(ins)}")
        elif op in ("ld", "ldu"):
            value = self._load_level(ins, dests)
        elif op == "shfl":
            value = self._sources_level(ins, srcs[:1])
            if value[0] == WARP and self._broadcasts(ins):
                value = (BLOCK, f"the value that {ins.opcode} at {user_line(ins)} broadcasts from one lane of each warp")
            value = self._alike_in_every_warp(ins, value)
            first = ins.operands[0]
            if isinstance(first, PairOperand):
                for reg in registers_in(first.second):
                    per_dest[reg.name] = (WARP, f"the in-range predicate of the {ins.opcode} at {user_line(ins)}")
        elif op in ("vote", "activemask", "redux", "elect"):
            src = self._sources_level(ins, srcs)
            if op == "vote" and "ballot" not in ins.modifiers:
                value = (min(src[0], BLOCK), src[1]) if src[0] else src
            else:
                value = (max(BLOCK, min(src[0], BLOCK)), f"the {ins.opcode} result at {user_line(ins)} (one value per warp)")
            if op == "vote":
                value = self._alike_in_every_warp(ins, value)
            if op == "elect":
                first = ins.operands[0]
                if isinstance(first, PairOperand):
                    for reg in registers_in(first.second):
                        per_dest[reg.name] = (WARP, f"the elected-lane predicate of {ins.opcode} at {user_line(ins)}")
        elif op == "mov" and len(ins.operands) > 1 and isinstance(ins.operands[1], Register) \
                and ins.operands[1].is_special:
            lvl, name = self._special(ins.operands[1])
            value = (lvl, f"{name} via {dests[0].source_name} at {user_line(ins)}" if lvl else None)
        else:
            value = self._sources_level(ins, srcs)
            if value[0] > CTA and ins.guard is None and self._thread_bits.commutative_operands(ins) is not None:
                value = self._reduced_level(ins, dests, value)
            elif value[0] == WARP and op in _LANE_CANCELLING_OPS and ins.guard is None and len(dests) == 1:
                value = self._cancelled_level(ins, dests[0], value)
        if ins.guard is not None:
            # a predicated write: threads whose guard is false keep the old value
            g = self._operand_level(ins, ins.guard)
            if g[0] > value[0]:
                value = g
            for reg in dests:
                old = self._operand_level_before(ins, reg)
                if old[0] > per_dest.get(reg.name, value)[0]:
                    per_dest[reg.name] = old
        return [(reg, per_dest.get(reg.name, value)) for reg in dests]

    def _reduced_level(self, ins: Instruction, dests: tuple, value: tuple) -> tuple:
        """The level of an xor-butterfly step's result (`v += __shfl_xor_sync(full, v, m)`): one value
        per warp once every lane bit is folded, one per block when what was folded was already the
        same in every warp (thread_bits.py); `value` when `ins` is no such step."""
        invariance = self._thread_bits
        a, b = invariance.commutative_operands(ins)
        if invariance._butterfly_partner(ins, a, b) is None and invariance._butterfly_partner(ins, b, a) is None:
            return value
        bits = invariance._structural(ins, 0)
        if invariance.one_value_per_block(bits):
            return CTA, None
        if invariance.one_value_per_warp(bits) and value[0] > BLOCK:
            return BLOCK, f"the xor-butterfly reduction at {user_line(ins)} (one value per warp)"
        return value

    def _alike_in_every_warp(self, ins: Instruction, value: tuple) -> tuple:
        """CTA for a warp-wide ballot or shuffle whose result is one value for the whole block: every
        warp votes on, or reads from the same lane of, values that repeat in every warp (`s[k + lane]`
        loaded by each warp alike; thread_bits.py); `value` otherwise."""
        if value[0] <= CTA or ins.guard is not None:
            return value
        bits = self._thread_bits._structural(ins, 0)
        return (CTA, None) if self._thread_bits.one_value_per_block(bits) else value

    def _cancelled_level(self, ins: Instruction, dest: Register, value: tuple) -> tuple:
        """The level of a division or right shift that may drop the lane from a thread index
        (`(threadIdx.x + blockIdx.x * 512) / 32`, `tid >> 5`): one value per warp when the
        per-thread evaluator gives every lane of each warp the same value."""
        bits = self._thread_bits.bits_of_result(ins, dest)
        if self._thread_bits.one_value_per_block(bits):
            return CTA, None
        if self._thread_bits.one_value_per_warp(bits):
            return BLOCK, f"{value[1]}, divided down to one value per warp at {user_line(ins)}"
        return value

    @property
    def _thread_bits(self):
        found = self.__dict__.get("_thread_bits_analysis")
        if found is None:
            from .thread_bits import ThreadBitInvariance

            found = self.__dict__["_thread_bits_analysis"] = ThreadBitInvariance(self)
        return found

    def _broadcasts(self, ins: Instruction) -> bool:
        """shfl.sync.idx over the whole warp (width 32) from a source lane that is the same in every
        lane of the warp: every lane receives the same value (`__shfl_sync(mask, v, 0)`)."""
        found = self._broadcast_cache.get(ins.index)
        if found is None:
            ops = ins.operands
            found = len(ops) >= 4 and shuffle_mode(ins.modifiers) == "idx" \
                and self._sources_level(ins, ops[2:3])[0] <= BLOCK and self._sources_level(ins, ops[3:4])[0] <= BLOCK \
                and broadcasts_per_warp("idx", self._constant(ins, ops[3]))
            self._broadcast_cache[ins.index] = found
        return found

    def _constant(self, ins: Instruction, operand) -> Optional[int]:
        """An operand's value when it is one known number in every thread (an immediate, else asked of
        the per-thread evaluator)."""
        if isinstance(operand, Immediate):
            return operand.value if isinstance(operand.value, int) else None
        lanes = self.ctx.lanes
        try:
            values, _ = lanes.collect(lanes.operand, ins, operand)
        except RecursionError:  # pragma: no cover - a pathological kernel
            return None
        if type(values).__name__ == "Varying" or not S.uniform_across(values) or not S.is_known(values[0]):
            return None
        return values[0][0]

    def _operand_level_before(self, ins: Instruction, reg: Register) -> tuple:
        defs = tuple(d for d in self.ctx.dataflow.definitions(ins, reg))
        return self._use_level(ins, defs, reg.name)

    def _load_level(self, ins: Instruction, dests: tuple) -> tuple:
        where = user_line(ins)
        mem = ins.memory_operand()
        if ins.space == "param":
            name = mem.base.name if mem is not None and isinstance(mem.base, Symbol) else None
            if name in self._kernel_params:
                return UNIFORM, None
            if name in self._own_params:
                # a device function checked on its own: its callers' arguments are taken to be alike
                # in every thread (where one passes values that differ, the kernel that inlines the
                # call is checked with them)
                return UNIFORM, None
            if mem is not None and isinstance(mem.base, Register) and self._kernel_param_address(ins, mem.base):
                return UNIFORM, None  # a field of a struct parameter read through its address
            if mem is not None and isinstance(mem.base, Register) and \
                    self._kernel_param_address(ins, mem.base, indexed=True):
                # an element of an array in a parameter (`ptrs[blockIdx.y]` of a by-value struct): the
                # parameters are read-only and one for the grid, so the value is as uniform as its index
                lvl, why = self._operand_level(ins, mem.base)
                if lvl:
                    return lvl, f"the element of a kernel parameter read at {where} at an index that depends on {why}"
                return UNIFORM, None
            return WARP, f"the parameter or return value read at {where}"
        if ins.space == "local":
            return self._local_load_level(ins, mem, where)
        if self.observes_changing_memory(ins):
            return WARP, f"the {ins.opcode} at {where} (each thread may observe a different value)"
        if mem is None:
            return WARP, f"the {ins.opcode} result at {where}"
        if isinstance(mem.base, Register):
            lvl, why = self._operand_level(ins, mem.base)
            if lvl:
                return lvl, f"the value loaded at {where} from an address that depends on {why}"
        return UNIFORM, None

    def _local_load_level(self, ins: Instruction, mem, where: str) -> tuple:
        """A thread-private (local) load. Local memory is each thread's own: a thread reads back what it
        stored itself. Where every store that may write the loaded object stores a value alike in the
        threads, at an offset alike in them, under branches that take them alike (so each thread
        runs the same stores in the same order), threads reading at one offset read one value (`int
        L[3]` set from constants and updated from values of the whole block). Its level is the highest
        of those and of the load's own offset."""
        found = self._local_stores_level(local_object(self.ctx, ins))
        if mem is not None and isinstance(mem.base, Register):
            lvl, why = self._operand_level(ins, mem.base)
            if lvl > found[0]:
                found = lvl, f"an offset that depends on {why}"
        if found[0] == UNIFORM:
            return UNIFORM, None
        return found[0], f"the thread-private (local) load at {where} ({found[1]})"

    def _local_stores_level(self, obj: Optional[int]) -> tuple:
        cached = self.__dict__.setdefault("_local_levels", {})
        if obj not in cached:
            cached[obj] = self._local_stores_level_now(obj)
        return cached[obj]

    def _local_stores_level_now(self, obj: Optional[int]) -> tuple:
        """(level, why) of what the kernel's stores to the local object at depot offset `obj` (None:
        any) write: the highest level of a stored value, a store's offset, and a branch that decides
        whether a store runs. Stores to another object (another array of the depot, the buffer of a
        printf's arguments) do not count; a store whose object is not known counts for every load."""
        stores = self.__dict__.get("_local_stores")
        if stores is None:
            stores = self._local_stores = [(i, local_object(self.ctx, i)) for i in self.function.instructions
                                           if i.op in ("st", "atom", "red") and may_reach_local(self.ctx, i)]
        best = (UNIFORM, None)
        buffers = printf_buffers(self.ctx)
        for st, its in stores:
            if obj is not None and its is not None and its != obj:
                continue
            if its is not None and its in buffers:
                continue  # the arguments of a printf: vprintf reads them, no load of the kernel does
            where = user_line(st)
            if st.op != "st":
                return WARP, f"the {st.opcode} on local memory at {where}"
            if st.guard is not None:
                lvl, why = self._operand_level(st, st.guard)
                if lvl > best[0]:
                    best = lvl, f"the local store at {where} runs on {why}"
            for operand, what in ((st.operands[1] if len(st.operands) > 1 else None, "stores"),
                                  (st.operands[0], "writes at")):
                lvl, why = self._sources_level(st, (operand,)) if operand is not None else (UNIFORM, None)
                if lvl > best[0]:
                    best = lvl, f"the local store at {where} {what} a value that depends on {why}"
            for b in self.controls(self.function.block_of(st).id):
                lvl, why = self._branch_raw.get(b, (UNIFORM, None))
                if lvl > best[0]:
                    best = lvl, f"the local store at {where} runs under the branch {why}"
            if best[0] >= WARP:
                break
        return best

    def observes_changing_memory(self, ins: Instruction) -> bool:
        """observes_changing_memory() with the branches this round of the solve has found to take
        every thread of the block one way: they only rise, and a load judged stable on a branch that
        later turns out to split the block is judged again in the next round."""
        return observes_changing_memory(
            self.ctx, ins, lambda block_id: self._branch_raw.get(block_id, (UNIFORM, None))[0] < BLOCK)

    def _reads_unwritten_memory(self, ins: Instruction) -> bool:
        """Is `ins` an atomic that leaves memory as it was, on memory this kernel never writes? Then
        it is a read of the value the launch started with, the same in every thread."""
        return ins.space != "shared" and _leaves_memory_unchanged(ins) and never_written(self.ctx, ins)

    def _kernel_param_address(self, ins: Instruction, reg: Register, depth: int = 0, indexed: bool = False) -> bool:
        """Is `reg` the address of a kernel parameter (`mov.b64 %rd, k_param_0`, plus constant
        offsets; with `indexed`, plus any offsets) at `ins`, on every definition that reaches it? A
        kernel's parameters are one value for the whole grid, whichever field of a struct parameter
        is read."""
        if not self._kernel_params or depth > 8:
            return False
        defs = self.ctx.dataflow.definitions(ins, reg)
        if not defs:
            return False
        instructions = self.function.instructions
        for index in defs:
            d = instructions[index]
            if len(d.operands) < 2 or d.guard is not None:
                return False
            ops = d.operands
            if d.op in ("mov", "cvta") and isinstance(ops[1], Symbol) and ops[1].name in self._kernel_params:
                continue
            if d.op in ("add", "sub") and len(ops) == 3 and isinstance(ops[1], Register) \
                    and (isinstance(ops[2], Immediate) or indexed and isinstance(ops[2], Register)) \
                    and self._kernel_param_address(d, ops[1], depth + 1, indexed):
                continue
            if indexed and d.op == "add" and len(ops) == 3 and isinstance(ops[2], Register) \
                    and isinstance(ops[1], Register) and self._kernel_param_address(d, ops[2], depth + 1, indexed):
                continue  # the index first, the parameter's address second
            return False
        return True

    def _special(self, reg: Register) -> tuple:
        name = reg.name
        x, y, z = self.shape.dims
        if name == "%tid.w":
            return UNIFORM, None  # PTX ISA: the fourth element of the vector reads zero
        if name.startswith("%tid."):
            axis = name[-1]
            if axis == "x":
                lvl = WARP if x > 1 else UNIFORM
            elif axis == "y":
                lvl = UNIFORM if y == 1 else (BLOCK if x % 32 == 0 else WARP)
            else:
                lvl = UNIFORM if z == 1 else (BLOCK if (x * y) % 32 == 0 else WARP)
            return lvl, name
        if name.startswith(_CTA_SPECIALS):
            return CTA, name
        if name == "%warpid":
            return BLOCK, name
        if name.startswith(_WARP_SPECIALS):
            return WARP, name
        return UNIFORM, None

    # ---- refinement for the block shape
    def _refine(self, block_id) -> tuple:
        raw = self._branch_raw.get(block_id, (UNIFORM, None))
        branch = self._branches.get(block_id)
        lvl, why = raw
        if lvl == BLOCK and self.shape.threads <= 32:
            lvl = CTA  # the same in every lane of the only warp: the same in the whole block
        if branch is None or lvl < BLOCK or branch.guard is None:
            return lvl, self._explain(branch, why)
        lanes = self.ctx.lanes
        try:
            values, _ = lanes.collect(lanes.register, branch, branch.guard)
            active, _ = lanes.collect(lanes.block_active, block_id)
        except RecursionError:  # pragma: no cover - a pathological kernel: keep the dataflow answer
            return lvl, self._explain(branch, why)
        live = [t for t in range(len(values)) if active[t] is not False]
        if not live or type(values).__name__ == "Varying":
            return lvl, self._explain(branch, why)
        if any(not S.is_known(values[t]) for t in live):
            # unknown, but one value in every lane of each warp (`(__shfl_sync(m, x, 0) | bit) & warp_bit`,
            # a ballot tested against the warp's own lanes): equal values take the same side
            per_warp_values: dict = {}
            for t in live:
                per_warp_values.setdefault(t // 32, set()).add(values[t])
            if any(len(v) > 1 for v in per_warp_values.values()):
                return lvl, self._explain(branch, why)
            same = len(set().union(*per_warp_values.values())) == 1
            return min(CTA if same else BLOCK, lvl), self._explain(branch, why)
        per_warp: dict = {}
        for t in live:
            per_warp.setdefault(t // 32, set()).add(values[t][0] != 0)
        if any(len(v) > 1 for v in per_warp.values()):
            refined = WARP
        elif len({next(iter(v)) for v in per_warp.values()}) > 1:
            refined = BLOCK
        else:
            refined = UNIFORM
        refined = min(refined, lvl)
        return refined, self._explain(branch, why)

    def _explain(self, branch: Optional[Instruction], why: Optional[str]) -> Optional[str]:
        if branch is None or why is None:
            return why
        return f"the branch at {user_line(branch)} {why}"




def observes_changing_memory(ctx, ins: Instruction, same_way=None) -> bool:
    """Is `ins` a volatile (or relaxed, acquire) load of memory that a write may change while the
    threads read it, so that threads reading one address may see different values? Not when the
    kernel never writes that memory (`never_written`), nor when no write may run between the same
    two barriers (`stable_in_interval`; `same_way(branch block)` says which branches take every
    thread of the block one way, None when that is not known)."""
    return is_ordered_load(ins) and not never_written(ctx, ins) and not stable_in_interval(ctx, ins, same_way)


def stable_in_interval(ctx, ins: Instruction, same_way=None) -> bool:
    """Is `ins` a volatile shared load that no write can overlap: none of the instructions other
    threads may run in its barrier interval (intervals.py) writes shared memory it may read (the
    same shared variable, or an address of unknown root)? Then the threads that run it between
    the same two barriers read one value."""
    if ins.space != "shared":
        return False
    roots = set(ctx.address_roots.roots(ins))

    def may_alias(w: Instruction) -> bool:
        if w.op in ("call", "cp"):
            return True  # a callee, an asynchronous copy: anywhere in shared memory
        if not may_reach_shared(ctx, w):
            return False  # another space, or a generic address traced outside shared memory
        other = set(ctx.address_roots.roots(w))
        return not roots or not other or bool(roots & other)

    return not ctx.intervals.writes_in_interval(ins, may_alias, same_way)


def never_written(ctx, ins: Instruction) -> bool:
    """Is the global memory `ins` reads written nowhere in this kernel: its address comes from kernel
    parameters or variables (address roots), and no store, atomic or reduction of the kernel may
    touch them (each of those has roots of its own, none shared)? A write through a pointer of
    unknown origin may touch anything. (Only global writes are asked: a volatile shared load of
    memory no global write touches passes too, whatever shared stores its interval holds. Asking
    them (stable_in_interval alone for shared loads) turned nvCOMP's one chunk-index race into
    barrier findings derived from it, and hid the race: left for the race rules to own.)"""
    roots = set(ctx.address_roots.roots(ins))
    if not roots:
        return False
    writes = ctx.__dict__.get("_global_writes")
    if writes is None:
        writes = ctx.__dict__["_global_writes"] = [
            w for w in ctx.function.instructions
            if w.op in ("st", "atom", "red") and w.space != "shared" and w.memory_operand() is not None
            and not _leaves_memory_unchanged(w)]
    for w in writes:
        other = set(ctx.address_roots.roots(w))
        if not other or other & roots:
            return False
    return True


def is_ordered_load(ins: Instruction) -> bool:
    """A load whose value depends on when the thread reads it (volatile, relaxed, acquire), outside
    constant memory."""
    return any(q in ins.modifiers for q in _ORDERED_LOAD_QUALIFIERS) and ins.space != "const"


def _leaves_memory_unchanged(ins: Instruction) -> bool:
    """An atomic that writes back what it read: add, or, xor of 0; and of all ones; a compare-and-swap
    that swaps in the value it compares with (`atomicAdd(&n, 0)`, `atomicOr(&f, 0)`: reads)."""
    ops = ins.operands
    if ins.op != "atom" or len(ops) < 3:
        return False
    if "cas" in ins.modifiers:
        return len(ops) >= 4 and ops[2] == ops[3]
    kind = next((m for m in ("add", "or", "xor", "and") if m in ins.modifiers), None)
    if kind is None or not isinstance(ops[2], Immediate) or not isinstance(ops[2].value, int):
        return False
    value = ops[2].value
    if kind == "and":
        return value == -1 or value == (1 << (ins.type_bits or 32)) - 1
    return value == 0


__all__ = ["UniformityAnalysis", "UNIFORM", "CTA", "BLOCK", "WARP", "LEVEL_NAMES", "DESCRIBE", "EXIT"]


def _control_dependence_tree(deps: dict):
    """(parent, depth) of the control dependence relation when it is a forest, else False."""
    parent: dict = {}
    for node, edges in deps.items():
        branches = {b for b, _ in edges if b != ENTRY}
        if len(branches) > 1:
            return False
        parent[node] = branches.pop() if branches else None
    depth: dict = {}
    for node in parent:
        chain = []
        current = node
        while current is not None and current not in depth:
            if len(chain) > len(parent):
                return False  # a cycle: dependences around a loop
            chain.append(current)
            current = parent.get(current)
        base = depth[current] if current is not None else -1
        for k, n in enumerate(reversed(chain)):
            depth[n] = base + 1 + k
    return parent, depth


def _ancestors_below_common(tree, a, b) -> list:
    """Ancestors of `a` (in the control dependence tree) that are not ancestors of `b`."""
    parent, depth = tree
    out = []
    x, y = parent.get(a), parent.get(b)
    dx = depth[x] if x is not None else -1
    dy = depth[y] if y is not None else -1
    while dx > dy:
        out.append(x)
        x = parent.get(x)
        dx -= 1
    while dy > dx:
        y = parent.get(y)
        dy -= 1
    while x != y:
        out.append(x)
        x, y = parent.get(x), parent.get(y)
    return out
