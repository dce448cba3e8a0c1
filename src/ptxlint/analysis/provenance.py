"""Which named memory an address points into: the parameters and variables it is computed from.

A cheap walk back along reaching definitions (no per-thread evaluation), so it answers even where
the per-lane evaluator cannot know the address: `tile + f(loop variable)` is still in `tile`.
"""

from __future__ import annotations

from ..frontend.ir import Instruction, Register, Symbol

MAX_DEFINITIONS = 200  # definitions followed per address; enough for nvcc's index arithmetic


class AddressRoots:
    """`roots(ins)`: the names (kernel parameters, module or function variables) the address of the
    memory operand of `ins` is computed from. Pointers loaded from memory end the walk: what they
    point to is unknown."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._found: dict = {}

    def roots(self, ins: Instruction) -> tuple:
        found = self._found.get(ins.index)
        if found is None:
            found = self._found[ins.index] = self._walk(ins)
        return found

    def _walk(self, ins: Instruction) -> tuple:
        mem = ins.memory_operand()
        names = set()
        if mem is not None and isinstance(mem.base, Symbol):
            names.add(mem.base.name)
        elif mem is not None and isinstance(mem.base, Register):
            dataflow, instructions = self.ctx.dataflow, self.ctx.function.instructions
            stack, seen = [(ins, mem.base)], set()
            while stack and len(seen) < MAX_DEFINITIONS:
                at, reg = stack.pop()
                for d in dataflow.definitions(at, reg):
                    if d in seen:
                        continue
                    seen.add(d)
                    definition = instructions[d]
                    if definition.op == "ld" and definition.space == "param":
                        operand = definition.memory_operand()
                        if operand is not None and isinstance(operand.base, Symbol):
                            names.add(operand.base.name)
                        continue
                    if definition.op in ("ld", "ldu", "atom"):
                        continue
                    names.update(op.name for op in definition.operands[1:] if isinstance(op, Symbol))
                    stack.extend((definition, r) for r in definition.sources() if not r.is_special)
        return tuple(sorted(names))
