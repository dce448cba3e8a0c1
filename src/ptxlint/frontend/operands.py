"""Operand lists of PTX instructions: `%r1, [%rd2+8], {%f1, %f2}, 0f3F800000`.

The grammar lexes an instruction's whole operand list as one token (most of a PTX file is operand
lists, and one token instead of ten is what makes parsing fast); this module decodes that text
into IR operands with one regular expression and a small recursive-descent parser:

    operands := operand ("," operand)*
    operand  := REG ["|" REG] | NAME ["|" NAME] | number | "!" REG | "[" address "]"
              | "{" operand ("," operand)* "}" | "(" [operand ("," operand)*] ")"
    address  := (REG | NAME | INT) [SIGNED_INT] | operand ("," operand)+
"""

from __future__ import annotations

import re
import struct

from . import ir

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<hexfloat>-?0[fFdD][0-9a-fA-F]{8}(?:[0-9a-fA-F]{8})?\b)
    | (?P<float>-?\d+\.\d*(?:[eE][-+]?\d+)?)
    | (?P<int>[-+]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uU]?)
    | (?P<reg>%[A-Za-z_$][\w$]*(?:\.[xyzw])?)
    | (?P<name>[A-Za-z_$][\w$]*)
    | (?P<punct>[\[\]{}(),|!+\-])
    | (?P<comment>//[^\n]*)
    )""",
    re.X,
)


class OperandSyntaxError(ValueError):
    """Bad operand text; `offset` is the character position inside the operand list."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def parse_int(text: str) -> int:
    """A PTX integer literal (decimal, 0x hex, 0b binary, 0 octal, optional sign and U suffix).
    Raises OperandSyntaxError (a ValueError) for anything else."""
    digits = text.rstrip("uU")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    try:
        if digits[:2] in ("0x", "0X"):
            return sign * int(digits[2:], 16)
        if digits[:2] in ("0b", "0B"):
            return sign * int(digits[2:], 2)
        if len(digits) > 1 and digits[0] == "0" and digits.isdigit():
            return sign * int(digits, 8)
        return sign * int(digits, 10)
    except ValueError:
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise OperandSyntaxError(f"{shown!r} is not an integer", 0) from None


def parse_float(text: str) -> float:
    neg = text.startswith("-")
    body = text[1:] if neg else text
    if body[:2] in ("0f", "0F"):
        value = struct.unpack(">f", bytes.fromhex(body[2:]))[0]
    elif body[:2] in ("0d", "0D"):
        value = struct.unpack(">d", bytes.fromhex(body[2:]))[0]
    else:
        value = float(body)
    return -value if neg else value


def _tokens(text: str) -> list:
    out = []
    pos = 0
    end = len(text)
    match = _TOKEN.match
    while pos < end:
        m = match(text, pos)
        if m is None or m.end() == pos:
            rest = text[pos:].lstrip()
            if not rest:
                break
            offset = len(text) - len(rest)
            raise OperandSyntaxError(f"unexpected character {rest[0]!r} in operands", offset)
        kind = m.lastgroup
        if kind != "comment":
            out.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()
    return out


# PTX nests operands two deep at most (`call (%r1), f, ({%r2, %r3});`); a deeper nesting is an
# error, not a recursion as deep as the input.
MAX_NESTING = 8


class _Decoder:
    __slots__ = ("toks", "i", "text", "depth")

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None, len(self.text))

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expect(self, value: str):
        kind, text, pos = self.take()
        if text != value:
            shown = "end of operands" if kind is None else repr(text)
            raise OperandSyntaxError(f"expected '{value}' in operands, found {shown}", pos)

    def operands(self) -> tuple:
        if not self.toks:
            return ()
        items = [self.operand()]
        while self.peek()[1] == ",":
            self.take()
            items.append(self.operand())
        kind, text, pos = self.peek()
        if kind is not None:
            raise OperandSyntaxError(f"unexpected {text!r} after an operand; expected ',' or ';'", pos)
        return tuple(items)

    def _list(self, close: str) -> list:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise OperandSyntaxError(f"operands nested more than {MAX_NESTING} deep", self.peek()[2])
        try:
            return self._items(close)
        finally:
            self.depth -= 1

    def _items(self, close: str) -> list:
        items = []
        if self.peek()[1] == close:
            self.take()
            return items
        items.append(self.operand())
        while self.peek()[1] == ",":
            self.take()
            items.append(self.operand())
        self.expect(close)
        return items

    def operand(self):
        kind, text, pos = self.take()
        if kind == "reg" or kind == "name":
            first = ir.Register(text) if kind == "reg" else ir.Symbol(text)
            if self.peek()[1] == "|":
                self.take()
                k2, t2, p2 = self.take()
                if k2 not in ("reg", "name"):
                    raise OperandSyntaxError("expected a register after '|'", p2)
                second = ir.Register(t2) if k2 == "reg" else ir.Symbol(t2)
                return ir.PairOperand(first, second)
            return first
        if kind == "int":
            return ir.Immediate(parse_int(text), text)
        if kind in ("hexfloat", "float"):
            return ir.Immediate(parse_float(text), text)
        if text == "!":
            k2, t2, p2 = self.take()
            if k2 not in ("reg", "name"):
                raise OperandSyntaxError("expected a predicate after '!'", p2)
            return ir.Negated(ir.Register(t2) if k2 == "reg" else ir.Symbol(t2))
        if text == "{":
            return ir.VectorOperand(tuple(self._list("}")))
        if text == "(":
            return ir.OperandList(tuple(self._list(")")))
        if text == "[":
            return self.address(pos)
        if text == "-":  # `-x` on a name is not PTX; a negative literal lexes as one int
            raise OperandSyntaxError("unexpected '-' in operands", pos)
        shown = "end of operands" if kind is None else repr(text)
        raise OperandSyntaxError(f"expected an operand, found {shown}", pos)

    def address(self, start: int):
        kind, text, pos = self.peek()
        nxt_kind, nxt, _ = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else (None, None, 0)
        signed_int = nxt_kind == "int" and nxt[:1] in "+-"
        if kind in ("reg", "name", "int") and (nxt in ("]", "+", "-") or signed_int):
            self.take()
            if kind == "int":
                base, offset = None, parse_int(text)
            else:
                base = ir.Register(text) if kind == "reg" else ir.Symbol(text)
                offset = 0
                k2, t2, p2 = self.peek()
                if t2 in ("+", "-"):
                    self.take()
                    k3, t3, p3 = self.take()
                    if k3 != "int":
                        raise OperandSyntaxError("expected an integer offset in the address", p3)
                    offset = parse_int(t3) * (-1 if t2 == "-" else 1)
                elif k2 == "int" and t2[:1] in "+-":
                    self.take()
                    offset = parse_int(t2)
            self.expect("]")
            return ir.Address(base, offset)
        parts = self._list("]")
        if len(parts) == 1 and isinstance(parts[0], (ir.Register, ir.Symbol)):
            return ir.Address(parts[0], 0)
        return ir.TextureAddress(tuple(parts))


_SIMPLE_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+)[uU]?\Z")
_SIMPLE_NAME = re.compile(r"[A-Za-z_$][\w$]*\Z")
_SIMPLE_REG = re.compile(r"%[A-Za-z_$][\w$]*(?:\.[xyzw])?\Z")
_SIMPLE_ADDRESS = re.compile(r"\[\s*(%?[A-Za-z_$][\w$]*)\s*(?:\+\s*([-+]?\d+))?\s*\]\Z")
_registers: dict = {}


def _simple(piece: str):
    """One operand in the common forms, or None to use the full decoder."""
    first = piece[:1]
    if first == "%":
        if _SIMPLE_REG.match(piece):
            reg = _registers.get(piece)
            if reg is None:
                reg = _registers[piece] = ir.Register(piece)
            return reg
        return None
    if first == "[":
        m = _SIMPLE_ADDRESS.match(piece)
        if m is None:
            return None
        base, offset = m.groups()
        return ir.Address(ir.Register(base) if base[0] == "%" else ir.Symbol(base), int(offset) if offset else 0)
    if _SIMPLE_INT.match(piece):
        return ir.Immediate(parse_int(piece), piece)
    if _SIMPLE_NAME.match(piece) and not (piece[0] == "0" and len(piece) > 1):
        return ir.Symbol(piece)
    return None


def decode_operands(text: str) -> tuple:
    """Operands of one instruction from the text between its opcode and its ';'."""
    if "{" not in text and "(" not in text and "/" not in text and "|" not in text:
        out = []
        for piece in text.split(","):
            operand = _simple(piece.strip())
            if operand is None:
                break
            out.append(operand)
        else:
            return tuple(out)
    return _Decoder(text).operands()
