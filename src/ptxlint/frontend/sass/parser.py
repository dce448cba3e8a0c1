"""nvdisasm's SASS listing -> SASS IR, with the Lark grammar in `grammars/sass.lark`.

LALR with the contextual lexer; callbacks build the IR while parsing (no parse tree). Every line
of the listing must match the grammar: an unknown construct is a syntax error with its line, so
nothing is skipped silently.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, VisitError

from ...errors import InputError
from ..grammar_file import grammar_text
from .ir import Address, Operand, SassFunction, SassInstruction, SassModule

SASS_GRAMMAR = "sass.lark"

_MARKER = re.compile(r'//## File "(?P<path>[^"]*)", line (?P<line>\d+)')
_SECTION = re.compile(r"\.section\s+\.text\.(?P<name>[^\s,]+)")
_OTHER_ENTRY = re.compile(r'\.other\s+(?P<name>[^\s,]+)\s*,\s*@"[^"]*STO_CUDA_ENTRY')
_TARGET = re.compile(r"\.target\s+(?P<arch>sm_\w+)")
_REGISTERS = re.compile(r'\.sectioninfo\s+@"SHI_REGISTERS=(?P<n>\d+)"')


_REGISTER = re.compile(r"(?P<sign>[-!~]?)(?P<abs>\|?)(?P<name>U?R(?:\d+|Z))(?:\.(?P<suffixes>[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*))?\|?(?:\.[A-Za-z0-9_]+)*")
_CONSTANT = re.compile(r"cx?\[(?P<bank>0x[0-9a-fA-F]+|\d+|UR\d+|URZ)\]\[(?P<slot>[^\]]*)\]")
_DESCRIPTOR = re.compile(r"(?P<kind>[a-z]*desc|tmem)\[(?P<desc>[^\]]*)\](?:\[(?P<address>[^\]]*)\])?(?:\.(?P<suffixes>[A-Za-z0-9_.]+))?")
# one term of an address: a sign (+, -, +-), then a register (R2, R2.64, R0.X4, UR4) or a number
_ADDRESS_TERM = re.compile(r"(?P<sign>\+-|\+|-)(?P<term>U?R(?:\d+|Z)(?:\.(?:64|X\d+|U32))*|0x[0-9a-fA-F]+|\d+)(?=[+-]|$)|(?P<bad>.+)")


def _number(text: str) -> float:
    t = text.lower()
    if t.startswith("0x"):
        return int(t, 16)
    if t in ("inf", "nan", "qnan"):
        return float("inf") if t == "inf" else float("nan")
    if re.fullmatch(r"\d+", t):
        return int(t)
    return float(t)


class _Builder:
    """Tree-less callbacks: rules return operands; lines update the module being built."""

    def __init__(self) -> None:
        self.reset("<string>")

    def reset(self, path: str) -> None:
        self.module = SassModule(path)
        self.function = None
        self.location = (None, None)
        self.pending_labels: list = []

    # ---- lines
    def directive(self, c):
        text = str(c[0])
        m = _SECTION.match(text)
        if m:
            self.function = SassFunction(m.group("name"), listing_line=c[0].line)
            self.module.functions.append(self.function)
            self.location = (None, None)
            return None
        m = _OTHER_ENTRY.match(text)
        if m:
            f = self.module.function(m.group("name"))
            if f is not None:
                f.is_kernel = True
            return None
        m = _TARGET.match(text)
        if m:
            self.module.arch = m.group("arch")
        m = _REGISTERS.match(text)
        if m and self.function is not None:
            self.function.registers = int(m.group("n"))
        return None

    def label(self, c):
        name = str(c[0])[:-1]
        if self.function is not None:
            self.function.labels[name] = len(self.function.instructions)
        return None

    def marker(self, c):
        m = _MARKER.match(str(c[0]))
        if m is None:
            raise InputError(self.module.path, f"unrecognised source marker {str(c[0])!r}", c[0].line)
        self.location = (m.group("path"), int(m.group("line")))
        return None

    def comment(self, c):
        return None

    def instruction(self, c):
        offset_tok, body = c[0], c[1]
        if self.function is None:
            raise InputError(self.module.path, "instruction outside any .text section", offset_tok.line)
        guard, negated, opcode, operands = self.decode(body)
        path, line = self.location
        ins = SassInstruction(
            offset=int(str(offset_tok)[2:-2], 16), opcode=opcode, operands=operands, guard=guard,
            guard_negated=negated, path=path, line=line, listing_line=offset_tok.line,
            function=self.function.name, index=len(self.function.instructions),
        )
        self.function.instructions.append(ins)
        return None

    def instruction_body(self, c):
        """The grammar's own reading of an instruction (the `instruction_body` start rule)."""
        guard, negated, k = None, False, 0
        if isinstance(c[0], tuple):
            (guard, negated), k = c[0], 1
        operands = c[k + 1] if len(c) > k + 1 else []
        return guard, negated, str(c[k]), operands

    def decode(self, body):
        """INSTRUCTION token -> (guard, negated, opcode, operands), scanning with the grammar's
        own terminals for guards, opcodes and operands."""
        text = str(body)[:-1]
        scanner = self.scanner
        m = scanner.guard.match(text)
        guard, negated = None, False
        pos = 0
        if m:
            guard, negated = self.guard([m.group("pred")])
            pos = m.end()
        m = scanner.opcode.match(text, pos)
        if m is None:
            raise self._bad(body, "opcode")
        opcode = m.group(0)
        pos = m.end()
        operands = []
        n = len(text)
        expect_operand = True
        while True:
            m = scanner.space.match(text, pos)
            pos = m.end()
            if pos >= n:
                break
            if text[pos] == ",":
                if expect_operand:
                    raise self._bad(body, "operand list")
                expect_operand = True
                pos += 1
                continue
            m = scanner.operand.match(text, pos)
            if m is None:
                raise self._bad(body, f"operand at {text[pos:pos + 30]!r} in")
            terminal = m.lastgroup
            tok = Token(terminal, m.group(terminal), line=body.line, column=body.column + pos)
            operands.append(getattr(self, _Scanner.OPERAND_TERMINALS[terminal])([tok]))
            pos = m.end()
            expect_operand = False
        if expect_operand and operands:
            raise self._bad(body, "operand list")
        return guard, negated, opcode, operands

    def guard(self, c):
        text = str(c[-1])
        return (text.lstrip("!"), text.startswith("!"))

    def operands(self, c):
        return [x for x in c if not isinstance(x, Token)]

    # ---- operands: each is one token, decoded here with a pattern that accepts only what it knows
    def register(self, c):
        tok = c[0]
        m = _REGISTER.fullmatch(str(tok))
        if m is None:
            raise self._bad(tok, "register")
        name = m.group("name")
        mods = tuple(x for x in (m.group("sign"), "|" if m.group("abs") else "") if x)
        mods += tuple("." + x for x in (m.group("suffixes") or "").split(".") if x)
        return Operand("ureg" if name.startswith("UR") else "reg", str(tok), name=name, modifiers=mods)

    def predicate(self, c):
        text = str(c[0])
        return Operand("pred", text, name=text.lstrip("!"), modifiers=("!",) if text.startswith("!") else ())

    def special(self, c):
        text = str(c[0])
        name = text if text.startswith("SR_") else text.split(".")[0]
        return Operand("special", text, name=name)

    def immediate(self, c):
        text = str(c[0])
        digits = text.strip("+-|")
        digits = digits.lstrip("-|").rstrip("|")
        value = _number(digits)
        if text.startswith("-"):
            value = -value
        return Operand("imm", text, value=value)

    def constant(self, c):
        tok = c[0]
        m = _CONSTANT.fullmatch(str(tok))
        if m is None:
            raise self._bad(tok, "constant-bank operand")
        return Operand("const", str(tok), bank=m.group("bank"), address=self._address(tok, m.group("slot")))

    def memory(self, c):
        tok = c[0]
        return Operand("mem", str(tok), address=self._address(tok, str(tok)[1:-1]))

    def descriptor(self, c):
        tok = c[0]
        m = _DESCRIPTOR.fullmatch(str(tok))
        if m is None:
            raise self._bad(tok, "descriptor operand")
        address = self._address(tok, m.group("address")) if m.group("address") is not None else None
        mods = tuple("." + x for x in (m.group("suffixes") or "").split(".") if x)
        return Operand("desc", str(tok), name=m.group("kind"), bank=m.group("desc"), address=address, modifiers=mods)

    def target(self, c):
        text = str(c[0])
        return Operand("target", text, name=text[2:-1])

    def relocation(self, c):
        return Operand("reloc", str(c[0]), name=str(c[0]))

    def name(self, c):
        return Operand("name", str(c[0]), name=str(c[0]))

    def annotation(self, c):
        return Operand("name", str(c[0]), name=str(c[0]))

    def _address(self, tok, inside: str) -> Address:
        """`R2.64+UR4+-0x10` -> Address; anything else inside the brackets is an error."""
        addr = Address()
        inside = inside.replace(" ", "")
        if not inside:
            raise self._bad(tok, "address")
        for m in _ADDRESS_TERM.finditer("+" + inside if inside[0] not in "+-" else inside):
            if m.group("bad"):
                raise self._bad(tok, "address")
            term, sign = m.group("term"), -1 if m.group("sign").endswith("-") else 1
            if term[0].isdigit():
                addr.offset += sign * int(term, 0)
            elif term.split(".")[0] in ("RZ", "URZ"):
                continue
            elif term.startswith("UR"):
                addr.uniform.append(term)
            else:
                addr.registers.append(term)
        return addr

    def _bad(self, tok, what: str) -> InputError:
        return InputError(self.module.path, f"SASS: cannot decode the {what} {str(tok)!r}; please report this "
                                            "construct", tok.line, tok.column)

    def start(self, c):
        return self.module


class _Scanner:
    """Regular expressions made of the grammar's terminals, to decode an INSTRUCTION token the way
    the rule `instruction_body` reads it (operand terminals tried by priority, then in order)."""

    # terminal -> the rule (callback) that reads it
    OPERAND_TERMINALS = {"REGISTER": "register", "PREDICATE": "predicate", "SPECIAL": "special",
                         "IMMEDIATE": "immediate", "CONSTANT": "constant", "MEMORY": "memory",
                         "DESCRIPTOR": "descriptor", "TARGET": "target", "RELOCATION": "relocation",
                         "NAME": "name", "SHAPE": "name", "ANNOTATION": "annotation"}

    def __init__(self, lark: Lark) -> None:
        terms = {t.name: t for t in lark.terminals}
        pattern = {name: terms[name].pattern.to_regexp() for name in terms}
        self.guard = re.compile(r"@(?P<pred>%s)\s+" % pattern["PREDICATE"])
        self.opcode = re.compile(pattern["OPCODE"])
        self.space = re.compile(r"[ \t]*")
        ordered = sorted(self.OPERAND_TERMINALS, key=lambda n: -terms[n].priority)
        self.operand = re.compile("|".join(f"(?P<{n}>{pattern[n]})" for n in ordered))


@lru_cache(maxsize=1)
def _parser() -> tuple:
    builder = _Builder()
    lark = Lark(grammar_text(SASS_GRAMMAR), parser="lalr", lexer="contextual", transformer=builder,
                maybe_placeholders=False, cache=True, start=["start", "instruction_body"])
    builder.scanner = _Scanner(lark)
    return lark, builder


def parse_instruction(text: str) -> tuple:
    """(guard, negated, opcode, operands) of one instruction (`@P0 LDS R0, [R1] ;`) read with the
    grammar's rule `instruction_body`; the listing parser decodes the same text faster, with
    the same terminals (tests compare the two)."""
    lark, builder = _parser()
    return lark.parse(text, start="instruction_body")


def decode_instruction(text: str) -> tuple:
    """What the listing parser makes of one instruction's text (ending with `;`)."""
    lark, builder = _parser()
    return builder.decode(Token("INSTRUCTION", text, line=1, column=1))


def parse_sass(text: str, path: str = "<string>") -> SassModule:
    """Parse an nvdisasm listing. Raises InputError (path:line: message) on anything unknown."""
    lark, builder = _parser()
    builder.reset(path)
    if not text.endswith("\n"):
        text += "\n"
    try:
        return lark.parse(text, start="start")
    except UnexpectedInput as err:
        line = err.line if err.line not in (None, -1) else None
        shown = text.splitlines()[line - 1].strip() if line and line <= len(text.splitlines()) else ""
        raise InputError(path, f"SASS syntax error: cannot read {shown[:80]!r} "
                               f"({type(err).__name__}); please report this construct", line,
                         err.column if err.column not in (None, -1) else None) from None
    except VisitError as err:
        if isinstance(err.orig_exc, InputError):
            raise err.orig_exc from None
        raise


def parse_sass_file(path: str) -> SassModule:
    """Parse a `.sass` file (nvdisasm output)."""
    from ...gate import MAX_PTX_BYTES, read_checked

    return parse_sass(read_checked(path, MAX_PTX_BYTES).decode("utf-8", errors="replace"), path)
