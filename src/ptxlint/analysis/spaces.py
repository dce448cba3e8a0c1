"""Which state space a memory access really reaches: its own qualifier, or for a generic access
(`st.u32 [%rd]`) where the pointer comes from.

A generic address is shared memory when it is built from a `cvta.shared` / `cvta.to.shared`, a
shared variable or the reserved shared window (`%reserved_smem_offset_*`, the scratch that
cooperative groups and CUB reach through inline asm); global when it is built from `cvta.global`,
a global variable or a kernel's pointer parameter (the host can only pass device pointers). Where
the evidence is missing (a pointer loaded from memory) or mixed, the space is unknown (None).
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Instruction, Register, Symbol, registers_in

MAX_DEFINITIONS = 200  # definitions followed per address, as in provenance.AddressRoots

# special registers that hold offsets into the shared-memory window
_SHARED_WINDOW_REGISTERS = ("%reserved_smem_offset_",)
_LOADING_OPS = frozenset("ld ldu atom shfl vote redux match tex tld4 suld ldmatrix".split())


def access_space(ctx, ins: Instruction) -> Optional[str]:
    """The state space `ins` accesses: 'shared', 'global', 'local', 'const', 'param', or None when a
    generic address cannot be traced to one space. Cached per kernel context."""
    cache = ctx.__dict__.setdefault("_access_spaces", {})
    found = cache.get(ins.index, False)
    if found is False:
        found = cache[ins.index] = ins.space if ins.space is not None else _trace(ctx, ins)[0]
    return found


def in_reserved_shared_window(ctx, ins: Instruction) -> bool:
    """Is the address of `ins` computed from `%reserved_smem_offset_*`: the shared scratch that
    cooperative groups (multi-warp tiles) and other toolkit code reach through inline asm?"""
    cache = ctx.__dict__.setdefault("_reserved_window", {})
    found = cache.get(ins.index)
    if found is None:
        found = cache[ins.index] = _trace(ctx, ins)[1]
    return found


def is_shared_window_register(reg: Register) -> bool:
    """`%reserved_smem_offset_begin/end/cap/0/1`: offsets of the shared memory the toolkit reserves."""
    return reg.name.startswith(_SHARED_WINDOW_REGISTERS)


def _trace(ctx, ins: Instruction) -> tuple:
    """(space of a generic address or None, whether it is built from the reserved shared window)."""
    mem = ins.memory_operand()
    if mem is None:
        return None, False
    evidence: set = set()
    unknown = reserved = False
    if isinstance(mem.base, Symbol):
        evidence.add(_symbol_space(ctx, mem.base.name))
    elif isinstance(mem.base, Register):
        dataflow, instructions = ctx.dataflow, ctx.function.instructions
        params = {p.name for p in ctx.function.params} if ctx.function.is_kernel else set()
        # `decides`: whether what is found still decides the space; past a cvta only the reserved
        # window is looked for (the cvta already named the space)
        stack, seen = [(ins, mem.base, True)], set()
        while stack:
            if len(seen) >= MAX_DEFINITIONS:
                unknown = True
                break
            at, reg, decides = stack.pop()
            if is_shared_window_register(reg):
                if decides:
                    evidence.add("shared")
                reserved = True
                continue
            definitions = dataflow.definitions(at, reg)
            if decides and not definitions and not reg.is_special:
                unknown = True  # a register never written here: a device function's argument
            for d in definitions:
                if (d, decides) in seen:
                    continue
                seen.add((d, decides))
                definition = instructions[d]
                if definition.op == "cvta":
                    # `cvta.shared`, `cvta.to.shared`, `cvta.to.global`: the instruction names the space
                    if decides:
                        evidence.add(definition.space)
                    stack.extend((definition, r, False) for r in _value_sources(definition))
                    continue
                if definition.op == "ld" and definition.space == "param":
                    operand = definition.memory_operand()
                    name = operand.base.name if operand is not None and isinstance(operand.base, Symbol) else None
                    if decides and name in params:
                        evidence.add("global")  # a kernel's pointer argument comes from the host
                    elif decides:
                        unknown = True
                    continue
                if definition.op in _LOADING_OPS:
                    # a 64-bit value loaded from memory may be a pointer to anywhere; narrower ones
                    # are indices added to a base found elsewhere
                    if decides and definition.type_bits >= 64:
                        unknown = True
                    continue
                for op in definition.operands[1:] if decides else ():
                    if isinstance(op, Symbol):
                        space = _symbol_space(ctx, op.name)
                        if space is not None:
                            evidence.add(space)
                stack.extend((definition, r, decides) for r in _value_sources(definition))
    evidence.discard(None)
    if unknown or len(evidence) != 1:
        return None, reserved
    return evidence.pop(), reserved


def _value_sources(ins: Instruction) -> list:
    """Registers whose values flow into the result of `ins`: not its guard, not `selp`'s predicate,
    not special registers other than the shared window (`%tid.x` is never a pointer)."""
    operands = ins.operands[1:3] if ins.op == "selp" else ins.operands[1:]
    return [r for op in operands for r in registers_in(op) if not r.is_special or is_shared_window_register(r)]


def _symbol_space(ctx, name: str) -> Optional[str]:
    for var in ctx.function.variables + ctx.module.variables:
        if var.name == name:
            return var.space
    return None
