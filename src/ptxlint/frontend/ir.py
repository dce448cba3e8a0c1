"""The PTX intermediate representation: the only view of a program that analyses and rules see.

Module -> Function -> BasicBlock -> Instruction, plus declared variables. Operands are small
immutable value objects. Nothing here knows about Lark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

# ---------------------------------------------------------------------------------------------
# Source locations


# A register declared in a nested scope `{ .reg .pred %p2; ... }` where the function already declares
# %p2 is another register: the parser names it `%p2~N` (N counts such scopes) until the scope closes.
SCOPED_SUFFIX = "~"


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """A `.cu` position taken from the last `.loc` before an instruction.

    `inlined_at` is the call site when the code was inlined from another function (`.loc ...,
    inlined_at F L C`); following the chain leads to the line in the kernel the user wrote.
    """

    file: str
    line: int
    column: int
    function_name: Optional[str] = None
    inlined_at: Optional["SourceLocation"] = None

    def outermost(self) -> "SourceLocation":
        """The call site in the user's kernel at the end of the inlined-at chain."""
        loc = self
        while loc.inlined_at is not None:
            loc = loc.inlined_at
        return loc


# ---------------------------------------------------------------------------------------------
# Operands


@dataclass(frozen=True, slots=True)
class Register:
    """A virtual register (`%r4`, or a name declared with `.reg` in inline asm) or a special
    register (`%tid.x`, `%laneid`, ...)."""

    name: str

    @property
    def source_name(self) -> str:
        """The name as the PTX writes it: a register of a nested scope that shadows the function's
        has a name of its own here (`%p2~3`, see SCOPED_SUFFIX) but reads `%p2` in the text."""
        return self.name.partition(SCOPED_SUFFIX)[0]

    @property
    def is_special(self) -> bool:
        return self.name in SPECIAL_REGISTERS or self.name.split(".")[0] in SPECIAL_REGISTER_BASES


SPECIAL_REGISTER_BASES = frozenset(
    "%tid %ntid %ctaid %nctaid %laneid %warpid %nwarpid %smid %nsmid %gridid %clock %clock64 "
    "%clock_hi %globaltimer %globaltimer_lo %globaltimer_hi %lanemask_eq %lanemask_le "
    "%lanemask_lt %lanemask_ge %lanemask_gt %pm0 %pm1 %pm2 %pm3 %pm4 %pm5 %pm6 %pm7 "
    "%dynamic_smem_size %total_smem_size %aggr_smem_size %is_explicit_cluster %clusterid "
    "%nclusterid %cluster_ctaid %cluster_nctaid %cluster_ctarank %cluster_nctarank "
    "%current_graph_exec %reserved_smem_offset_begin %reserved_smem_offset_end "
    "%reserved_smem_offset_cap %reserved_smem_offset_0 %reserved_smem_offset_1".split()
)
SPECIAL_REGISTERS = frozenset(f"%envreg{i}" for i in range(32))


@dataclass(frozen=True, slots=True)
class Immediate:
    """An integer or floating-point literal (`-1`, `0x1f`, `0f3F800000`)."""

    value: Union[int, float]
    text: str


@dataclass(frozen=True, slots=True)
class Symbol:
    """A reference by name: a variable, a function, a label, a parameter."""

    name: str


@dataclass(frozen=True, slots=True)
class Address:
    """A memory operand `[base+offset]`; base is a Register, a Symbol, or None for `[imm]`."""

    base: Optional[Union[Register, Symbol]]
    offset: int = 0


@dataclass(frozen=True, slots=True)
class TextureAddress:
    """`[tex, {coords}]` and other multi-part bracketed operands."""

    parts: tuple


@dataclass(frozen=True, slots=True)
class VectorOperand:
    """`{%f1, %f2, %f3, %f4}`."""

    elements: tuple


@dataclass(frozen=True, slots=True)
class PairOperand:
    """`%r1|%p1`: an instruction with two destinations (shfl, setp)."""

    first: "Operand"
    second: "Operand"


@dataclass(frozen=True, slots=True)
class Negated:
    """`!%p1` as a source operand."""

    operand: "Operand"


@dataclass(frozen=True, slots=True)
class OperandList:
    """A parenthesised list `(param0, param1)` of a `call`."""

    items: tuple


Operand = Union[
    Register, Immediate, Symbol, Address, TextureAddress, VectorOperand, PairOperand, Negated, OperandList
]

# ---------------------------------------------------------------------------------------------
# Instructions

STATE_SPACES = ("shared", "global", "local", "const", "param", "tex", "generic")
# Qualifiers that select a state space; `shared::cta`/`shared::cluster` count as shared.
_SPACE_OF = {
    "shared": "shared", "shared::cta": "shared", "shared::cluster": "shared",
    "global": "global", "local": "local", "const": "const", "param": "param",
    "param::entry": "param", "param::func": "param",
}
_TYPE_NAMES = frozenset(
    f"{k}{w}" for k in "bsuf" for w in (8, 16, 32, 64, 128)
) | {"pred", "f16x2", "bf16", "bf16x2", "tf32", "e4m3", "e5m2", "e4m3x2", "e5m2x2", "e2m1x2"}
# Ops for which the space qualifier names the memory they access.
MEMORY_OPS = frozenset(
    "ld st atom red ldu prefetch prefetchu cp ldmatrix stmatrix mbarrier cvta isspacep "
    "multimem tensormap".split()
)


@dataclass(slots=True)
class Instruction:
    """One PTX instruction with its opcode split into parts.

    `ld.volatile.shared.v4.u32` -> op `ld`, space `shared`, vector 4, type `u32`,
    qualifiers (`volatile`,). `modifiers` keeps every dotted part in order.
    """

    opcode: str
    operands: tuple
    guard: Optional[Register] = None
    guard_negated: bool = False
    ptx_line: int = 0
    loc: Optional[SourceLocation] = None
    op: str = ""
    modifiers: tuple = ()
    space: Optional[str] = None
    type: Optional[str] = None
    vector: int = 1
    qualifiers: tuple = ()
    index: int = -1  # position in Function.instructions
    # register lists, computed on first use: every analysis asks for them, many times
    _destinations: Optional[tuple] = field(default=None, init=False, repr=False, compare=False)
    _sources: Optional[tuple] = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = self.opcode.split(".")
        self.op = parts[0]
        self.modifiers = tuple(parts[1:])
        quals = []
        for part in self.modifiers:
            if part in ("v2", "v4", "v8"):
                self.vector = int(part[1:])
            elif part in _TYPE_NAMES:
                self.type = part  # the last type wins (cvt.f32.s32 -> destination first)
            elif self.space is None and part in _SPACE_OF and self.op in MEMORY_OPS:
                self.space = _SPACE_OF[part]
            else:
                quals.append(part)
        if self.op == "cvt" or self.op == "cvta":
            # keep the first type as the destination type for conversions
            types = [p for p in self.modifiers if p in _TYPE_NAMES]
            if types:
                self.type = types[0]
        self.qualifiers = tuple(quals)

    @property
    def is_branch(self) -> bool:
        return self.op in ("bra", "brx")

    @property
    def ends_block(self) -> bool:
        return self.op in ("bra", "brx", "ret", "exit", "trap")

    @property
    def type_bits(self) -> int:
        """Width in bits of one element of the instruction's type (0 if none)."""
        t = self.type
        if t is None:
            return 0
        if t == "pred":
            return 1
        digits = "".join(ch for ch in t if ch.isdigit())
        if t.endswith("x2"):
            return 32
        return int(digits) if digits else 0

    def has(self, qualifier: str) -> bool:
        return qualifier in self.modifiers

    def destinations(self) -> tuple:
        """Registers written by this instruction (first operand for most ops)."""
        found = self._destinations
        if found is None:
            found = self._destinations = () if not self.operands or self._writes_nothing() else \
                tuple(registers_in(self.operands[0]))
        return found

    def sources(self) -> tuple:
        """Registers read by this instruction, guard included."""
        found = self._sources
        if found is None:
            found = self._sources = self._read_registers()
        return found

    def _read_registers(self) -> tuple:
        regs = []
        ops = self.operands if self._writes_nothing() else self.operands[1:]
        for operand in ops:
            regs.extend(registers_in(operand))
        if not self._writes_nothing() and self.operands and isinstance(self.operands[0], Address):
            regs.extend(registers_in(self.operands[0]))  # an address is read, never written
        if self.guard is not None:
            regs.append(self.guard)
        return tuple(regs)

    def _writes_nothing(self) -> bool:
        # `bar.red` / `barrier.red` (__syncthreads_or/and/count) write their first operand
        return self.op in NO_DESTINATION_OPS and not (self.op in ("bar", "barrier") and "red" in self.modifiers)

    def memory_operand(self) -> Optional[Address]:
        """The `[address]` operand of a memory instruction, if any."""
        for operand in self.operands:
            if isinstance(operand, Address):
                return operand
        return None

    def __str__(self) -> str:
        guard = ""
        if self.guard is not None:
            guard = f"@{'!' if self.guard_negated else ''}{self.guard.source_name} "
        return f"{guard}{self.opcode} {', '.join(format_operand(o) for o in self.operands)};"


# Instructions whose first operand is read, not written.
NO_DESTINATION_OPS = frozenset(
    "st bra brx ret exit trap bar barrier membar fence red call prefetch prefetchu "
    "stmatrix cp pmevent nanosleep griddepcontrol setmaxnreg".split()
)


def registers_in(operand) -> Iterator[Register]:
    """The registers an operand names (an address's base, a vector's elements, ...)."""
    if isinstance(operand, Register):
        yield operand
    elif isinstance(operand, Address):
        if isinstance(operand.base, Register):
            yield operand.base
    elif isinstance(operand, (VectorOperand, TextureAddress, OperandList)):
        items = operand.elements if isinstance(operand, VectorOperand) else (
            operand.parts if isinstance(operand, TextureAddress) else operand.items)
        for item in items:
            yield from registers_in(item)
    elif isinstance(operand, PairOperand):
        yield from registers_in(operand.first)
        yield from registers_in(operand.second)
    elif isinstance(operand, Negated):
        yield from registers_in(operand.operand)


def format_operand(operand) -> str:
    """PTX text of an operand."""
    if isinstance(operand, Register):
        return operand.source_name
    if isinstance(operand, Immediate):
        return operand.text
    if isinstance(operand, Symbol):
        return operand.name
    if isinstance(operand, Address):
        base = format_operand(operand.base) if operand.base is not None else ""
        if base and operand.offset:
            return f"[{base}+{operand.offset}]"
        return f"[{base or operand.offset}]"
    if isinstance(operand, TextureAddress):
        return "[" + ", ".join(format_operand(p) for p in operand.parts) + "]"
    if isinstance(operand, VectorOperand):
        return "{" + ", ".join(format_operand(e) for e in operand.elements) + "}"
    if isinstance(operand, PairOperand):
        return f"{format_operand(operand.first)}|{format_operand(operand.second)}"
    if isinstance(operand, Negated):
        return "!" + format_operand(operand.operand)
    if isinstance(operand, OperandList):
        return "(" + ", ".join(format_operand(i) for i in operand.items) + ")"
    return str(operand)


# ---------------------------------------------------------------------------------------------
# Declarations


@dataclass(slots=True)
class Variable:
    """A declared variable: `.shared .align 4 .b8 tile[4096];`, `.extern .shared .b8 smem[];`."""

    name: str
    space: str
    type: str
    align: Optional[int] = None
    array_dims: tuple = ()  # () for a scalar; (None,) for `[]` (extern, size unknown)
    vector: int = 1
    linkage: Optional[str] = None  # visible, extern, weak, common
    initializer: object = None
    ptx_line: int = 0
    attributes: tuple = ()

    @property
    def element_bytes(self) -> int:
        digits = "".join(ch for ch in self.type if ch.isdigit())
        return (int(digits) // 8 if digits else 0) * self.vector

    @property
    def size_bytes(self) -> Optional[int]:
        """Total size in bytes, None for an unsized (`[]`) array."""
        total = self.element_bytes
        for dim in self.array_dims:
            if dim is None:
                return None
            total *= dim
        return total


@dataclass(slots=True)
class Parameter:
    """A kernel or function parameter (`.param .u64 .ptr .global .align 8 p`)."""

    name: str
    space: str
    type: str
    array_dims: tuple = ()
    align: Optional[int] = None
    pointer_space: Optional[str] = None  # from `.ptr .global`
    attributes: tuple = ()


@dataclass(slots=True)
class Label:
    """A label definition inside a body (`$L__BB0_2:`)."""

    name: str
    ptx_line: int


@dataclass(slots=True)
class BasicBlock:
    """A maximal straight-line sequence of instructions; entered at its first, left at its last."""

    id: int
    labels: list = field(default_factory=list)
    instructions: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.labels[0] if self.labels else f"<block {self.id}>"


@dataclass(slots=True)
class Function:
    """A kernel (`.entry`) or device function (`.func`)."""

    name: str
    is_kernel: bool
    params: list = field(default_factory=list)
    return_params: list = field(default_factory=list)
    linkage: Optional[str] = None
    directives: dict = field(default_factory=dict)  # maxntid, reqntid, minnctapersm, ...
    pragmas: list = field(default_factory=list)
    registers: dict = field(default_factory=dict)  # register name -> type
    register_ranges: dict = field(default_factory=dict)  # "%r" -> (type, count) for %r<N>
    variables: list = field(default_factory=list)  # .shared/.local/.param declared in the body
    instructions: list = field(default_factory=list)
    labels: dict = field(default_factory=dict)  # label name -> index of next instruction
    blocks: list = field(default_factory=list)
    has_body: bool = True
    ptx_line: int = 0
    branch_targets: dict = field(default_factory=dict)  # .branchtargets label -> [labels]
    callprototypes: dict = field(default_factory=dict)
    call_targets: dict = field(default_factory=dict)  # .calltargets label -> [function names]

    @property
    def demangled(self) -> str:
        from .demangle import demangle

        return demangle(self.name)

    @property
    def reqntid(self) -> Optional[tuple]:
        return self.directives.get("reqntid")

    @property
    def maxntid(self) -> Optional[tuple]:
        return self.directives.get("maxntid")

    def register_type(self, name: str) -> Optional[str]:
        """The declared type of a register (`.reg .f32 %f<9>` declares %f1 as f32), None if undeclared."""
        declared = self.registers.get(name)
        if declared is None:
            declared = self.register_ranges.get(name.rstrip("0123456789"), (None,))[0]
        return declared

    def block_of(self, instruction: Instruction) -> "BasicBlock":
        return self._block_index[instruction.index]

    def finish(self) -> None:
        """Number instructions and split the body into basic blocks."""
        for i, ins in enumerate(self.instructions):
            ins.index = i
        leaders = {0} if self.instructions else set()
        leaders.update(i for i in self.labels.values() if i < len(self.instructions))
        for i, ins in enumerate(self.instructions):
            if ins.ends_block and i + 1 < len(self.instructions):
                leaders.add(i + 1)
        labels_at: dict = {}
        for name, i in self.labels.items():
            labels_at.setdefault(i, []).append(name)
        order = sorted(leaders)
        self.blocks = []
        index = [None] * len(self.instructions)
        for n, start in enumerate(order):
            end = order[n + 1] if n + 1 < len(order) else len(self.instructions)
            block = BasicBlock(id=n, labels=labels_at.get(start, []), instructions=self.instructions[start:end])
            for i in range(start, end):
                index[i] = block
            self.blocks.append(block)
        self._block_index = index

    _block_index: list = field(default_factory=list)


@dataclass(slots=True)
class Module:
    """One PTX file."""

    path: str
    version: Optional[str] = None
    target: tuple = ()
    address_size: int = 64
    files: dict = field(default_factory=dict)  # .file index -> path
    variables: list = field(default_factory=list)
    functions: list = field(default_factory=list)
    aliases: list = field(default_factory=list)
    sections: dict = field(default_factory=dict)  # DWARF section name -> entry count
    ptx_text: Optional[str] = None  # the PTX nvcc made, for a .cu input (ptxas assembles it: --level sass)
    sass: object = None  # frontend.sass.load.SassProgram, once assembled (cached)

    @property
    def kernels(self) -> list:
        return [f for f in self.functions if f.is_kernel and f.has_body]

    @property
    def arch(self) -> Optional[str]:
        """The `sm_XX` target (first of `.target`)."""
        for t in self.target:
            if t.startswith(("sm_", "compute_")):
                return t
        return None

    @property
    def sm_version(self) -> int:
        """Numeric architecture (90 for sm_90a); 0 if unknown."""
        arch = self.arch or ""
        digits = "".join(ch for ch in arch.split("_", 1)[-1] if ch.isdigit())
        return int(digits) if digits else 0

    def function(self, name: str) -> Optional[Function]:
        for f in self.functions:
            if f.name == name:
                return f
        return None

    def variable(self, name: str) -> Optional[Variable]:
        for v in self.variables:
            if v.name == name:
                return v
        return None
