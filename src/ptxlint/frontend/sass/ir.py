"""SASS as an IR: a module of functions, each a list of instructions that know their source line.

Built by `sass.parser` from nvdisasm's listing. Operands keep their structure (registers, the
parts of an address, constant-bank slots), so analyses never look at text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class Address:
    """The inside of `[...]`: registers (with .64/.X4 flags), uniform registers and a byte offset."""

    registers: list = field(default_factory=list)  # ["R4"], ["R2.64"] as written, RZ left out
    uniform: list = field(default_factory=list)  # ["UR4"], URZ left out
    offset: int = 0

    def text(self) -> str:
        parts = self.registers + self.uniform
        if self.offset or not parts:
            parts.append(("-" if self.offset < 0 else "") + hex(abs(self.offset)))
        return "+".join(parts).replace("+-", "+-")


@dataclass
class Operand:
    """One operand. `kind`: reg, ureg, pred, special, imm, const, mem, desc, target, reloc, name."""

    kind: str
    text: str
    name: Optional[str] = None  # register / predicate / special register / target name
    value: Optional[float] = None  # immediates
    address: Optional[Address] = None  # mem, desc (the second [...]), const (the slot)
    bank: Optional[str] = None  # const: the bank (0x0); desc: its uniform register
    modifiers: tuple = ()  # .reuse, .64, .H1 ... and the sign (-, !, ~, |)


@dataclass
class SassInstruction:
    offset: int  # byte offset in the function (the /*0140*/ column)
    opcode: str  # LDS.128, with every modifier, as printed
    operands: list
    guard: Optional[str] = None  # P0, UP1, PT
    guard_negated: bool = False
    path: Optional[str] = None  # source file of the nearest preceding `//## File` marker
    line: Optional[int] = None
    listing_line: int = 0  # line in the nvdisasm listing (for error messages and reports)
    function: str = ""  # the kernel or device function it belongs to
    index: int = 0  # position in the function

    @property
    def base(self) -> str:
        """The opcode without modifiers: LDS for LDS.U.128."""
        return self.opcode.split(".", 1)[0]

    @property
    def modifiers(self) -> list:
        return self.opcode.split(".")[1:]

    def has(self, modifier: str) -> bool:
        return modifier in self.modifiers

    @property
    def text(self) -> str:
        """The instruction as nvdisasm prints it (spacing normalised)."""
        guard = f"@{'!' if self.guard_negated else ''}{self.guard} " if self.guard else ""
        return f"{guard}{self.opcode} {', '.join(o.text for o in self.operands)}".rstrip()

    def memory_operand(self) -> Optional[Operand]:
        """The `[...]` or `desc[..][...]` operand of a load, store or atomic."""
        for op in self.operands:
            if op.kind in ("mem", "desc"):
                return op
        return None


@dataclass
class SassFunction:
    name: str
    is_kernel: bool = False
    instructions: list = field(default_factory=list)
    labels: dict = field(default_factory=dict)  # label -> index of the instruction it precedes
    listing_line: int = 0
    registers: Optional[int] = None  # from `.sectioninfo @"SHI_REGISTERS=N"`


@dataclass
class SassModule:
    path: str
    arch: Optional[str] = None  # sm_90 (from `.target`)
    functions: list = field(default_factory=list)

    @property
    def kernels(self) -> list:
        return [f for f in self.functions if f.is_kernel]

    def function(self, name: str) -> Optional[SassFunction]:
        return next((f for f in self.functions if f.name == name), None)
