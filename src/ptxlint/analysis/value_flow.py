"""Where the value one instruction returns goes: which branches it decides, which addresses it becomes.

A forward taint over the kernel, flow-insensitive (by register name, as PTX's virtual registers are
nearly single-assignment), through arithmetic, moves and shared memory (`s = atomicAdd(...)` stored to
a `__shared__` variable by one thread and read back by the block after a barrier). Optionally also
through loads: the value found at an address computed from the source (`q[i]` for an index `i`) is
derived from it too. Rules ask what a counter's or flag's value is used for: a slot whose value is
an address, a test that decides control flow, an equality test (the last-arriver's `ticket == n - 1`).
"""

from __future__ import annotations

from ..frontend.ir import Instruction, Register, registers_in

_EQUALITY = ("eq", "ne")


class ValueFlow:
    """The registers and shared variables that hold values computed from what `source` returns."""

    def __init__(self, ctx, source: Instruction, through_loads: bool) -> None:
        self.ctx = ctx
        self.source = source
        fn = ctx.function
        shared = {v.name for v in ctx.module.variables + fn.variables if v.space == "shared"}
        self.registers: set = {r.name for r in source.destinations()}
        self.shared: set = set()  # shared variables the value was stored to at addresses not known
        self.shared_slots: set = set()  # (variable, byte offset) it was stored to, one address for all threads
        self._shared_names = shared
        self._places: dict = {}  # instruction index -> _shared_place (asked again each pass below)
        changed = True
        while changed:
            changed = False
            for ins in fn.instructions:
                if ins.index == source.index:
                    continue
                if ins.op == "st" and ins.space in ("shared", None):
                    stored = [r.name for op in ins.operands[1:] for r in registers_in(op)]
                    if any(r in self.registers for r in stored):
                        names, offset = self._shared_place(ins)
                        if offset is not None:
                            new_slots = {(n, offset) for n in names} - self.shared_slots
                            if new_slots:
                                self.shared_slots |= new_slots
                                changed = True
                        elif names - self.shared:
                            self.shared |= names
                            changed = True
                    continue
                if ins.op in ("ld", "ldu", "atom"):
                    # memory gives back what is stored, not the source's value: a shared variable the
                    # value was stored to, or (through loads) whatever lies at an address computed from it
                    reads = ins.space in ("shared", None) and self._reads_tainted_shared(ins)
                    reads = reads or (through_loads and self._address_is_derived(ins))
                else:
                    reads = any(r.name in self.registers for r in ins.sources() if r is not ins.guard)
                if reads:
                    new = {r.name for r in ins.destinations()} - self.registers
                    if new:
                        self.registers |= new
                        changed = True

    def _shared_place(self, ins: Instruction) -> tuple:
        """(shared variables the address is in, its byte offset when every thread uses that one
        offset, else None): the words of one `extern __shared__` array carved into a tail counter,
        a queue and a base (`tail_bin = l_mem; shift = &l_q2[N]; base = &shift[1]`) are told apart."""
        found = self._places.get(ins.index)
        if found is None:
            found = self._places[ins.index] = self._find_shared_place(ins)
        return found

    def _find_shared_place(self, ins: Instruction) -> tuple:
        names = set(self.ctx.address_roots.roots(ins)) & self._shared_names
        if not names:
            return names, None
        lanes = self.ctx.lanes
        try:
            addresses, _ = lanes.collect(lanes.address, ins)
        except RecursionError:  # pragma: no cover - a pathological kernel
            return names, None
        if type(addresses).__name__ != "Affine" or not addresses.consts:
            return names, None
        first = addresses.consts[0]
        if any(c != first for c in addresses.consts):
            return names, None
        return names, (addresses.terms, first)

    def reads_stored_value(self, ins: Instruction) -> bool:
        """Does the shared load `ins` read back a place the value was stored to?"""
        return self._reads_tainted_shared(ins)

    def _reads_tainted_shared(self, ins: Instruction) -> bool:
        names, offset = self._shared_place(ins)
        if names & self.shared:
            return True
        if offset is not None:
            return any((n, offset) in self.shared_slots for n in names)
        return any(n == slot[0] for slot in self.shared_slots for n in names)

    def _address_registers(self, ins: Instruction) -> list:
        mem = ins.memory_operand()
        return [mem.base.name] if mem is not None and isinstance(mem.base, Register) else []

    def _address_is_derived(self, ins: Instruction) -> bool:
        return any(r in self.registers for r in self._address_registers(ins))

    def is_address_of(self, ins: Instruction) -> bool:
        """Is the address of the memory instruction `ins` computed from the value?"""
        return ins.index != self.source.index and self._address_is_derived(ins)

    def addresses(self) -> list:
        """The memory instructions whose address is computed from the value."""
        return [i for i in self.ctx.function.instructions if i.memory_operand() is not None and self.is_address_of(i)]

    def guards(self) -> list:
        """Instructions predicated on (or branches decided by) the value."""
        return [i for i in self.ctx.function.instructions
                if i.guard is not None and i.guard.name in self.registers and i.index != self.source.index]

    def equality_tested(self) -> bool:
        """Is the value compared for equality (`ticket == gridDim.x - 1`, `old != 0`)?"""
        return any(i.op == "setp" and any(m in _EQUALITY for m in i.modifiers)
                   and any(r.name in self.registers for r in i.sources() if r is not i.guard)
                   for i in self.ctx.function.instructions)


def value_flow(ctx, source: Instruction, through_loads: bool = False) -> ValueFlow:
    """The flow of `source`'s result, cached per kernel."""
    cache = ctx.__dict__.setdefault("_value_flow", {})
    key = (source.index, through_loads)
    found = cache.get(key)
    if found is None:
        found = cache[key] = ValueFlow(ctx, source, through_loads)
    return found
