"""Which state space a memory access really reaches: its own qualifier, or for a generic access
(`st.u32 [%rd]`) where the pointer comes from.

A generic address is shared memory when it is built from a `cvta.shared` / `cvta.to.shared`, a
shared variable or the reserved shared window (`%reserved_smem_offset_*`, the scratch that
cooperative groups and CUB reach through inline asm); global when it is built from `cvta.global`,
a global variable or a kernel's pointer parameter (the host can only pass device pointers). Where
the evidence is missing (a pointer loaded from memory) or mixed, the space is unknown (None).

For local memory, also which stack slot an access touches (`local_slot`) and what a load from it
reads back: the one store that writes the slot (`sole_local_store`), or whether any store that may
write it writes a value that differs between threads (`thread_dependent_local_store`). A store made
by a callee through an address the kernel passes it is not seen.
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Immediate, Instruction, Register, Symbol, registers_in

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


def may_reach_shared(ctx, ins: Instruction) -> bool:
    """Can the memory operand of `ins` touch shared memory? A generic address can unless it is
    traced to another space. A pointer loaded from memory counts as not shared when the kernel lets
    no shared address out into memory (`shared_addresses_escape`): memory then holds only what the
    host wrote there (device pointers: the host cannot name a block's shared memory) or addresses
    the kernel built from those. Cached per kernel context."""
    return _may_reach(ctx, ins, "shared", shared_addresses_escape)


def may_reach_local(ctx, ins: Instruction) -> bool:
    """Can the memory operand of `ins` touch the thread's local memory? As may_reach_shared, with
    `local_addresses_escape`."""
    return _may_reach(ctx, ins, "local", local_addresses_escape)


def _may_reach(ctx, ins: Instruction, space: str, escape) -> bool:
    if ins.space is not None and ins.space != "generic":
        return ins.space == space
    cache = ctx.__dict__.setdefault(f"_reaches_{space}", {})
    found = cache.get(ins.index)
    if found is None:
        traced = access_space(ctx, ins)
        if traced is None and not escape(ctx):
            traced = _trace(ctx, ins, loaded_pointers_global=True)[0]
        found = cache[ins.index] = traced is None or traced == space
    return found


def local_addresses_escape(ctx) -> bool:
    """Does the kernel write a local address into memory, or hand one to a function it calls other
    than `vprintf` (which only reads its argument buffer)? Cached per kernel context."""
    return _addresses_escape(ctx, "local")


def _feeds_printf(instructions: list, ins: Instruction) -> bool:
    """Is `ins` (a `st.param`) one of the argument stores of a call to `vprintf` just after it?"""
    for k in range(ins.index + 1, min(len(instructions), ins.index + 16)):
        after = instructions[k]
        if after.op == "call":
            return any(isinstance(o, Symbol) and o.name == "vprintf" for o in after.operands)
    return False


def local_object(ctx, ins: Instruction) -> Optional[int]:
    """The local object (its offset in the depot) an access of local memory reaches: nvcc gives
    each array or variable its own base, `add.u64 %rd3, %SPL, 1764`, and indexes from it; an
    access at a constant offset (local_slot) belongs to the object with the nearest base at or below
    it. None when the address does not lead back to the depot."""
    slot = local_slot(ctx, ins)
    if slot is not None:
        start = slot[0]
    else:
        mem = ins.memory_operand()
        start = _indexed_base(ctx, ins, mem.base) if mem is not None else None
        if start is None:
            return None
    return max((b for b in _local_bases(ctx) if b <= start), default=0)


def printf_buffers(ctx) -> set:
    """Offsets in the local depot of the argument buffers the kernel passes to `vprintf` (as the
    generic `%SP + offset`): the values stored there are printed, never loaded back."""
    cache = ctx.__dict__
    if "_printf_buffers" not in cache:
        instructions = ctx.function.instructions
        found = set()
        for ins in instructions:
            if ins.op == "st" and ins.space == "param" and len(ins.operands) > 1 \
                    and isinstance(ins.operands[1], Register) and _feeds_printf(instructions, ins):
                offset = _depot_offset(ctx, ins, ins.operands[1])
                if offset is not None:
                    found.add(offset)
        cache["_printf_buffers"] = found
    return cache["_printf_buffers"]


def _local_bases(ctx) -> list:
    """Depot offsets that some register is set to (`add.u64 %rd3, %SPL, 1764`): the objects' starts."""
    cache = ctx.__dict__
    if "_local_bases" not in cache:
        cache["_local_bases"] = sorted({0} | {
            int(i.operands[2].value) for i in ctx.function.instructions
            if i.op == "add" and len(i.operands) == 3 and isinstance(i.operands[1], Register)
            and i.operands[1].name == "%SPL" and isinstance(i.operands[2], Immediate)})
    return cache["_local_bases"]


def _indexed_base(ctx, ins: Instruction, reg, depth: int = 0) -> Optional[int]:
    """The depot offset an address indexed at run time starts from: `reg` is, through single `add`
    or `mov` definitions, a constant depot address (_depot_offset) plus registers or immediates.
    None when it does not lead back to the depot."""
    if not isinstance(reg, Register) or depth > 12:
        return None
    offset = _depot_offset(ctx, ins, reg)
    if offset is not None:
        return offset
    defs = ctx.dataflow.definitions(ins, reg)
    if len(defs) != 1:
        return None
    d = ctx.function.instructions[defs[0]]
    if d.guard is not None or d.op not in ("add", "mov"):
        return None
    for pointer in d.operands[1:]:
        found = _indexed_base(ctx, d, pointer, depth + 1)
        if found is not None:
            return found
    return None


def shared_addresses_escape(ctx) -> bool:
    """Does the kernel write a shared address into memory, or hand one to a function it calls (which
    might): a store, atomic or call argument whose value is built from a `cvta` of shared memory, a
    shared variable's address or the reserved shared window? Cached per kernel context."""
    return _addresses_escape(ctx, "shared")


def _addresses_escape(ctx, space: str) -> bool:
    """shared_addresses_escape / local_addresses_escape: for local memory a printf's arguments do not
    count (vprintf keeps no pointer it is given)."""
    key = f"_{space}_escape"
    cache = ctx.__dict__
    if key not in cache:
        instructions = ctx.function.instructions
        cache[key] = any(
            _stores_space_address(ctx, ins, space) for ins in instructions
            if ins.op in ("st", "atom", "red")
            and not (space == "local" and ins.space == "param" and _feeds_printf(instructions, ins)))
    return cache[key]


def _stores_space_address(ctx, ins: Instruction, space: str) -> bool:
    """Does `ins` store (or pass) a value built from an address of `space` (a `cvta` of it, a variable
    of it; for shared, the reserved shared window)?"""
    dataflow, instructions = ctx.dataflow, ctx.function.instructions
    if ins.op == "st" and ins.type_bits < 32:
        return False  # an 8- or 16-bit value holds no address
    mem = ins.memory_operand()
    values = ins.operands[ins.operands.index(mem) + 1:] if mem is not None else ins.operands[1:]
    stack = [(ins, r) for op in values for r in registers_in(op)]
    seen: set = set()
    while stack:
        if len(seen) >= MAX_DEFINITIONS:
            return True  # too far to follow: assume it may
        at, reg = stack.pop()
        if space == "shared" and is_shared_window_register(reg):
            return True
        for d in dataflow.definitions(at, reg):
            if d in seen:
                continue
            seen.add(d)
            definition = instructions[d]
            if definition.op == "cvta" and definition.space == space:
                return True
            if definition.op in _LOADING_OPS:
                continue
            if any(isinstance(op, Symbol) and _symbol_space(ctx, op.name) == space
                   for op in definition.operands[1:]):
                return True
            stack.extend((definition, r) for r in _value_sources(definition))
    return False


def _trace(ctx, ins: Instruction, loaded_pointers_global: bool = False) -> tuple:
    """(space of a generic address or None, whether it is built from the reserved shared window).
    With `loaded_pointers_global`, a pointer loaded from memory is evidence of global memory
    (see may_reach_shared) rather than of an unknown space."""
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
                        if loaded_pointers_global:
                            evidence.add("global")
                        else:
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


# Special registers that hold one value for every thread of a block: what a thread stores from them
# alone is what the other threads of its block store too (the evaluator keeps one block's threads;
# blocks are told apart by their blockIdx terms, as for any value).
_BLOCK_WIDE_REGISTERS = frozenset(
    "%ntid %ctaid %nctaid %nwarpid %smid %nsmid %gridid %dynamic_smem_size %total_smem_size %aggr_smem_size "
    "%is_explicit_cluster %clusterid %nclusterid %cluster_ctaid %cluster_nctaid %cluster_ctarank "
    "%cluster_nctarank %current_graph_exec "
    "%reserved_smem_offset_begin %reserved_smem_offset_end %reserved_smem_offset_cap "
    "%reserved_smem_offset_0 %reserved_smem_offset_1".split())
# results that differ from thread to thread whatever their inputs
_PER_THREAD_RESULTS = frozenset("atom shfl vote redux match activemask".split())
MAX_PRIVATE_DEFINITIONS = 4000  # definitions followed from the local stores of one kernel


def thread_dependent_local_store(ctx, load: Instruction) -> Optional[Instruction]:
    """The first store to the thread-private (local) memory `load` reads whose value may differ
    between the threads of a block: one computed from a thread index, from an atomic, shuffle or
    vote, from a load at such an address, or from a value this walk cannot follow (a device
    function's argument). None when every such store writes what every thread of the block writes.

    Local memory is each thread's own: two threads that load one local address read what each of
    them stored there. A store and a load are matched by their place in the thread's stack frame
    (`%SPL + 8` and `%SP + 8` are one word), or anywhere when an address is not a constant offset
    into it (an array indexed at run time). Values loaded back from local memory are followed no
    further on the way (they are what such stores wrote, each walked on its own)."""
    stores = _thread_dependent_local_stores(ctx)
    if not stores:
        return None
    slot = local_slot(ctx, load)
    for store, where in stores:
        if slot is None or where is None or (where[0] < slot[1] and slot[0] < where[1]):
            return store
    return None


def sole_local_store(ctx, load: Instruction) -> Optional[Instruction]:
    """The one store of the kernel that may write the bytes `load` reads from local memory, when it
    writes exactly those bytes (same frame offset and width), unconditionally, with a plain value;
    None otherwise (no store, several, one at a run-time index, a vector or guarded one). What the
    load reads is then what that store wrote, where the store runs before it."""
    slot = local_slot(ctx, load)
    if slot is None:
        return None
    found = None
    for store, where in _local_stores(ctx):
        if where is None:
            return None
        if where[0] < slot[1] and slot[0] < where[1]:
            if found is not None or where != slot:
                return None
            found = store
    if found is None or found.op != "st" or found.guard is not None or len(found.operands) != 2 \
            or not isinstance(found.operands[1], (Register, Immediate)):
        return None
    return found


def _local_stores(ctx) -> list:
    """[(store, its local_slot)] of every write to local memory in the kernel (cached)."""
    cache = ctx.__dict__
    if "_local_stores" not in cache:
        cache["_local_stores"] = [(i, local_slot(ctx, i)) for i in ctx.function.instructions
                                  if i.op in ("st", "atom", "red") and access_space(ctx, i) == "local"]
    return cache["_local_stores"]


def _thread_dependent_local_stores(ctx) -> list:
    """[(store, its local_slot)] of the kernel's local stores whose value may differ between the
    threads of a block (see thread_dependent_local_store). Cached per kernel context."""
    cache = ctx.__dict__
    if "_thread_dependent_local_stores" in cache:
        return cache["_thread_dependent_local_stores"]
    found = []
    dataflow, instructions = ctx.dataflow, ctx.function.instructions
    params = {p.name for p in ctx.function.params} if ctx.function.is_kernel else set()
    seen: set = set()
    for store, slot in _local_stores(ctx):
        values = list(store.operands[1:]) + ([store.guard] if store.guard is not None else [])
        if store.op != "st" or _may_differ(ctx, store, values, dataflow, instructions, params, seen):
            found.append((store, slot))
    cache["_thread_dependent_local_stores"] = found
    return found


def local_slot(ctx, ins: Instruction) -> Optional[tuple]:
    """(first byte, end) of a local access within the thread's stack frame (its `.local` depot),
    when its address is the depot plus a constant (through `%SPL`, `%SP`, `cvta.local`, `add`
    of an immediate); None when it is not (an index known only at run time)."""
    mem = ins.memory_operand()
    if mem is None:
        return None
    width = max(1, (ins.type_bits or 32) // 8) * ins.vector
    if isinstance(mem.base, Symbol):
        return (mem.offset, mem.offset + width) if _symbol_space(ctx, mem.base.name) == "local" else None
    offset = _depot_offset(ctx, ins, mem.base)
    return None if offset is None else (offset + mem.offset, offset + mem.offset + width)


def _depot_offset(ctx, at: Instruction, reg) -> Optional[int]:
    total = 0
    for _ in range(16):
        if not isinstance(reg, Register) or reg.is_special:
            return None
        definitions = ctx.dataflow.definitions(at, reg)
        if len(definitions) != 1:
            return None
        at = ctx.function.instructions[definitions[0]]
        operands = at.operands[1:]
        if at.op in ("mov", "cvta") and len(operands) == 1:
            if isinstance(operands[0], Symbol):
                return total if _symbol_space(ctx, operands[0].name) == "local" else None
            reg = operands[0]
            continue
        if at.op == "add" and len(operands) == 2:
            known = [op for op in operands if isinstance(op, Immediate)]
            other = [op for op in operands if not isinstance(op, Immediate)]
            if len(known) == 1 and len(other) == 1:
                total += int(known[0].value)
                reg = other[0]
                continue
        return None
    return None


def _may_differ(ctx, at: Instruction, operands: list, dataflow, instructions, params: set, seen: set) -> bool:
    """May the value of `operands` (read by `at`) differ between threads? `seen` (instruction
    indices already walked and found clean) is shared between calls."""
    stack = [(at, r) for op in operands for r in registers_in(op)]
    while stack:
        if len(seen) >= MAX_PRIVATE_DEFINITIONS:
            return True
        use, reg = stack.pop()
        if reg.is_special:
            if reg.name.split(".")[0] not in _BLOCK_WIDE_REGISTERS:
                return True
            continue
        definitions = dataflow.definitions(use, reg)
        if not definitions:
            return True  # a device function's argument, or undefined
        for d in definitions:
            if d in seen:
                continue
            seen.add(d)
            definition = instructions[d]
            if definition.op in _PER_THREAD_RESULTS:
                return True
            if definition.guard is not None:  # written by the threads whose predicate holds
                stack.extend((definition, r) for r in registers_in(definition.guard))
            if definition.op in ("ld", "ldu"):
                if definition.space == "param":
                    operand = definition.memory_operand()
                    name = operand.base.name if operand is not None and isinstance(operand.base, Symbol) else None
                    if name in params:
                        continue  # a kernel argument: one value for the launch
                    return True
                if access_space(ctx, definition) == "local":
                    continue  # what a local store wrote: each of those is walked on its own
                # elsewhere: as thread-dependent as the address it reads
                stack.extend((definition, r) for op in definition.operands[1:] for r in registers_in(op))
                continue
            if definition.op in _LOADING_OPS or definition.op == "call":
                return True
            stack.extend((definition, r) for op in definition.operands[1:] for r in registers_in(op))
    return False
