"""PTX text -> IR, with the Lark grammar in `grammars/ptx.lark`.

The parser is LALR with the contextual lexer and builds IR objects in callbacks (no parse tree).
Instructions, `.loc` lines and DWARF section bodies are single tokens, decoded in their callbacks.
"""

from __future__ import annotations

import dataclasses

import re
from functools import lru_cache
from typing import Optional

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ..errors import InputError
from ..gc_pause import collector_paused
from . import ir
from .arity import missing_operands
from .grammar_file import grammar_text
from .operands import OperandSyntaxError, decode_operands
from .operands import parse_float as _float
from .operands import parse_int as _int_text
from .sourcemap import relocated_sources

# ---------------------------------------------------------------------------------------------
# Callbacks: one per grammar rule, building IR directly.


class _IrBuilder:
    """Lark tree-less callbacks. Body statements are collected in order while parsing a function."""

    def __init__(self) -> None:
        self.line_offset = 0
        self.path = "<string>"
        self.collected_items = []
        self.pending_run = None  # an INSTRUCTIONS token lexed but not yet built (see lexed_run)
        self._reset_body()

    def _reset_body(self) -> None:
        self.instructions: list = []
        self.labels: dict = {}
        self.body_variables: list = []
        self.pragmas: list = []
        self.targets_by_label: dict = {}
        self.call_targets_by_label: dict = {}
        self.callprototypes: dict = {}
        self.current_loc = None  # raw tuple (file_index, line, col, function_name, inlined_at)
        self.recent_locs: dict = {}  # (file, line, col) -> the raw .loc last seen at that position
        self.open_scopes: list = []  # per nested scope open: (first instruction, first variable) in it
        self.scopes_renamed = 0  # scopes whose registers were renamed (`scope`)

    # ---- module level
    def start(self, c):
        items, self.collected_items = self.collected_items, []
        return items

    def top_items(self, c):
        if c[-1] is not None:
            self.collected_items.append(c[-1])
        return None

    def statements(self, c):
        return None

    def version(self, c):
        return ("version", str(c[0]))

    def target(self, c):
        return ("target", tuple(str(t) for t in c))

    def address_size(self, c):
        size = self._int(c[0])
        if size not in (32, 64):
            raise InputError(self.path, f"`.address_size {c[0]}`: expected 32 or 64", c[0].line + self.line_offset,
                             c[0].column)
        return ("address_size", size)

    def file_decl(self, c):
        index = self._int(c[0])
        if index < 0:
            raise InputError(self.path, f"`.file {c[0]}`: a file number is not negative", c[0].line + self.line_offset,
                             c[0].column)
        name = str(c[1])[1:-1]
        if "\x00" in name:  # no file system has such a name (and Python's path functions refuse it)
            raise InputError(self.path, f"`.file {c[0]}`: the file name contains a NUL byte",
                             c[1].line + self.line_offset, c[1].column)
        return ("file", index, name)

    def _int(self, token) -> int:
        """An INT token's value; a literal Python cannot read (4300 digits and more) is an input
        error at the token."""
        try:
            return _int(token)
        except ValueError as err:
            raise InputError(self.path, f"bad integer: {err}", token.line + self.line_offset, token.column) from None

    def alias(self, c):
        return ("alias", str(c[0]), str(c[1]))

    def pragma(self, c):
        return ("pragma", [str(s)[1:-1] for s in c])

    def section(self, c):
        name, body = str(c[0]), c[1]
        entries = 0
        for n, line in enumerate(str(body)[1:-1].split("\n")):
            text = line.split("//", 1)[0].strip()
            if not text:
                continue
            if not _SECTION_LINE.match(text):
                raise InputError(self.path, f"malformed {name} entry: {text[:40]!r}; expected a label or "
                                 "`.b8/.b16/.b32/.b64 values`", body.line + n + self.line_offset)
            entries += 1
        return ("section", name, entries)

    # ---- declarations
    def decl_word(self, c):
        return (str(c[0])[1:], None)

    def decl_word_int(self, c):
        return (str(c[0])[1:], self._int(c[1]))

    def decl_attribute(self, c):
        return ("attribute", tuple(str(t)[1:] for t in c))

    def decl_words(self, c):
        return c

    decl_words_nonempty = decl_words

    def register_range(self, c):
        return ("range", self._int(c[0]))

    def array_dim(self, c):
        return ("dim", self._int(c[0]) if c and c[0] is not None else None)

    def var_declarator(self, c):
        name = c[0]
        rest = c[1:]
        reg_range = None
        dims = []
        for item in rest:
            if item[0] == "range":
                reg_range = item[1]
            else:
                dims.append(item[1])
        return (str(name), reg_range, tuple(dims), name.line)

    def var_declarator_list(self, c):
        return c

    def initializer(self, c):
        return c[0]

    def init_list(self, c):
        return [x for x in c if x is not None]

    def init_field(self, c):
        return (str(c[0]), str(c[1]))

    def init_int(self, c):
        return self._int(c[0])

    def init_symbol(self, c):
        return ir.Symbol(str(c[0]))

    def init_symbol_offset(self, c):
        return (ir.Symbol(str(c[0])), self._int(c[1]))

    def init_generic(self, c):
        return ir.Symbol(str(c[1]))

    def init_generic_offset(self, c):
        return (ir.Symbol(str(c[1])), self._int(c[2]))

    def float_literal(self, c):
        return ir.Immediate(_float(str(c[0])), str(c[0]))

    def _variables(self, words, declarators, init):
        linkage, space, vtype, align, vector, attrs = _classify_words(words)
        out = []
        for name, reg_range, dims, line in declarators:
            out.append(
                ir.Variable(
                    name=name, space=space or "", type=vtype or "", align=align, array_dims=dims,
                    vector=vector, linkage=linkage, initializer=init, ptx_line=line + self.line_offset,
                    attributes=attrs,
                )
            )
            if reg_range is not None:
                out[-1].array_dims = ("range", reg_range)
        return out

    def module_variable(self, c):
        words, declarators = c[0], c[1]
        init = c[2] if len(c) > 2 else None
        return ("variables", self._variables(words, declarators, init))

    def param(self, c):
        words, name = c[0], c[1]
        dims = tuple(d[1] for d in c[2:])
        linkage, space, ptype, align, vector, attrs = _classify_words(words)
        pointer_space = None
        names = [w for w, _ in words]
        if "ptr" in names:
            i = names.index("ptr")
            if i + 1 < len(names) and names[i + 1] in ir.STATE_SPACES:
                pointer_space = names[i + 1]
        return ir.Parameter(
            name=str(name), space=space or "param", type=ptype or "", array_dims=dims, align=align,
            pointer_space=pointer_space, attributes=attrs,
        )

    def param_list(self, c):
        return [p for p in c if p is not None]

    def kind_entry(self, c):
        return "entry"

    def kind_func(self, c):
        return "func"

    def function_directive(self, c):
        name = str(c[0])[1:]
        values = tuple(self._int(v) for v in c[1:] if v is not None)
        if name in ("maxntid", "reqntid"):
            line = c[0].line + self.line_offset
            if not 1 <= len(values) <= 3 or any(v < 1 for v in values):
                raise InputError(self.path, f"`.{name}` takes 1 to 3 positive thread counts", line, c[0].column)
            threads = values[0] * (values[1] if len(values) > 1 else 1) * (values[2] if len(values) > 2 else 1)
            if threads > MAX_THREADS_PER_BLOCK:
                raise InputError(self.path, f"`.{name} {', '.join(map(str, values))}` asks for {threads} threads: a "
                                 f"block has at most {MAX_THREADS_PER_BLOCK}", line, c[0].column)
        return ("directive", name, values)

    def function_pragma(self, c):
        return ("pragma", [str(s)[1:-1] for s in c])

    def body(self, c):
        return "body"

    def function_tail(self, c):
        return c[0] if c else None

    def function(self, c):
        words = c[0]
        rest = [x for x in c[1:] if x is not None]
        # rest: [param_list?] NAME [param_list?] directives* tail
        ret_params: list = []
        params: list = []
        name_tok = None
        directives: dict = {}
        pragmas: list = []
        has_body = False
        is_kernel = False
        for item in rest:
            if isinstance(item, Token):
                name_tok = item
            elif isinstance(item, list):
                if name_tok is None:
                    ret_params = item
                else:
                    params = item
            elif isinstance(item, tuple) and item[0] == "directive":
                directives[item[1]] = _directive_value(item[1], item[2])
            elif isinstance(item, tuple) and item[0] == "pragma":
                pragmas.extend(item[1])
            elif item == "body":
                has_body = True
            elif item in ("entry", "func"):
                is_kernel = item == "entry"
        names = [w for w, _ in words]
        linkage = next((w for w in names if w in ("visible", "extern", "weak", "common")), None)
        func = ir.Function(
            name=str(name_tok),
            is_kernel=False,
            params=params,
            return_params=ret_params,
            linkage=linkage,
            directives=directives,
            pragmas=pragmas,
            has_body=has_body,
            ptx_line=name_tok.line + self.line_offset,
        )
        func.is_kernel = is_kernel
        if has_body:
            self._fill_body(func)
        self._reset_body()
        return ("function", func)

    def _fill_body(self, func: ir.Function) -> None:
        func.instructions = self.instructions
        func.labels = self.labels
        func.pragmas.extend(self.pragmas)
        func.branch_targets = self.targets_by_label
        func.callprototypes = self.callprototypes
        func.call_targets = self.call_targets_by_label
        for var in self.body_variables:
            if var.space == "reg":
                if len(var.array_dims) == 2 and var.array_dims[0] == "range":
                    func.register_ranges[var.name] = (var.type, var.array_dims[1])
                else:
                    func.registers[var.name] = var.type
            else:
                func.variables.append(var)
        plain_names = {n for n in func.registers if not n.startswith("%")}
        if plain_names:
            # inline asm declares registers without '%': operands naming them are registers
            for ins in func.instructions:
                ins.operands = tuple(_rename_registers(o, plain_names) for o in ins.operands)
                if ins.guard is not None and isinstance(ins.guard, ir.Symbol):
                    ins.guard = ir.Register(ins.guard.name)
        func.finish()

    # ---- body statements
    def label(self, c):
        self.labels[str(c[0])[:-1]] = len(self.instructions)
        return None

    def body_variable(self, c):
        words, declarators = c[0], c[1]
        init = c[2] if len(c) > 2 else None
        self.body_variables.extend(self._variables(words, declarators, init))
        return None

    def body_pragma(self, c):
        self.pragmas.extend(str(s)[1:-1] for s in c)
        return None

    def scope_open(self, c):
        self.open_scopes.append((len(self.instructions), len(self.body_variables)))
        return None

    def scope(self, c):
        """A nested scope ends. Its own registers that another declaration of the function already
        names (nvcc's `__syncthreads_or` declares %p1 and %p2 in a scope, beside the kernel's %p1 and
        %p2) get names of their own there (`%p2~3`), so a definition inside never reaches a use of
        the function's register after the scope."""
        first_instruction, first_variable = self.open_scopes.pop()
        declared, ranges = set(), {}
        for var in self.body_variables[:first_variable]:
            if var.space == "reg" and len(var.array_dims) == 2 and var.array_dims[0] == "range":
                ranges[var.name] = max(ranges.get(var.name, 0), var.array_dims[1])
            elif var.space == "reg":
                declared.add(var.name)

        def taken(name: str) -> bool:
            base = name.rstrip("0123456789")
            return name in declared or (base != name and int(name[len(base):]) < ranges.get(base, 0))

        renamed = {}
        kept = self.body_variables[:first_variable]
        for var in self.body_variables[first_variable:]:
            is_range = len(var.array_dims) == 2 and var.array_dims[0] == "range"
            names = [f"{var.name}{i}" for i in range(var.array_dims[1])] if is_range else [var.name]
            if var.space != "reg" or not any(taken(n) for n in names):
                kept.append(var)
                continue
            self.scopes_renamed += 1
            for name in names:  # (a range becomes single registers)
                new = renamed[name] = f"{name}{ir.SCOPED_SUFFIX}{self.scopes_renamed}" if taken(name) else name
                kept.append(dataclasses.replace(var, name=new, array_dims=()))
        self.body_variables = kept
        if renamed:
            for ins in self.instructions[first_instruction:]:
                ins.operands = tuple(_rename_scoped(o, renamed) for o in ins.operands)
                if ins.guard is not None and ins.guard.name in renamed:
                    ins.guard = ir.Register(renamed[ins.guard.name])
        return None

    def statement(self, c):
        return None

    def branch_targets(self, c):
        # attached to the label defined just before (`$L_brx_0: .branchtargets ...`)
        names = [str(t) for t in c]
        owner = next((n for n, i in self.labels.items() if i == len(self.instructions)), None)
        self.targets_by_label[owner or ""] = names
        return None

    def call_targets(self, c):
        # `Ftable: .calltargets f1, f2;`: the functions an indirect call through Ftable may reach
        owner = next((n for n, i in self.labels.items() if i == len(self.instructions)), None)
        self.call_targets_by_label[owner or ""] = [str(t) for t in c]
        return None

    def callprototype(self, c):
        name, _, rest = str(c[0]).partition(":")
        self.callprototypes[name.strip()] = rest.strip().rstrip(";")
        return None

    def loc(self, c):
        token = c[0]
        self._add_loc(str(token), token.end_line + self.line_offset)
        return None

    def lexed_run(self, token):
        """Lexer callback: the INSTRUCTIONS token just lexed, which the parser reduces (and
        `instruction_run` builds) only once it has lexed the token after it."""
        self.pending_run = token
        return token

    def instruction_run(self, c):
        """A run of instructions, each with the `.loc` lines before it (one INSTRUCTIONS token)."""
        token = c[0]
        self.pending_run = None
        text = str(token)
        line = token.line + self.line_offset
        counted = 0  # the newlines of text[:counted] are counted in `line`
        for item in _RUN_ITEM.finditer(text):
            start, begin = item.start(), item.start(2)
            line += text.count("\n", counted, start)
            counted = start
            loc_start = start
            while loc_start < begin:  # each .loc line before it, at its own line number
                stop = text.find("\n", text.find(".loc", loc_start))
                self._add_loc(text[loc_start:stop], line + text.count("\n", start, stop))
                loc_start = stop + 1
            newline = text.rfind("\n", 0, begin)  # the column its text starts at (for errors)
            self._add_instruction(item.group(2), line + text.count("\n", start, begin),
                                  token.column + begin if newline < 0 else begin - newline)
        return None

    def _add_loc(self, text: str, line: int) -> None:
        decoded = _decode_loc(text)
        if isinstance(decoded, str):
            raise InputError(self.path, decoded, line, None)
        file_index, line, column, function_name, inlined = decoded
        if inlined is not None:
            # nvcc writes a chain of inlining as consecutive .loc lines, each naming the position of
            # the one before as its `inlined_at`: link to that .loc to keep the whole chain
            inlined = _bounded_chain(self.recent_locs.get(inlined, inlined + (None, None)))
        loc = (file_index, line, column, function_name, inlined)
        self.recent_locs[loc[:3]] = loc
        self.current_loc = loc

    def _add_instruction(self, text: str, line: int, token_column: int) -> None:
        """An instruction token's text, starting at `line` (its leading whitespace included)."""
        m = _INSTRUCTION_PARTS.match(text)
        negated, guard_name, opcode, operand_text = m.groups()
        operands = ()
        if operand_text.strip():
            try:
                operands = decode_operands(operand_text)
            except OperandSyntaxError as err:
                offset = m.start(4) + err.offset
                before = text[:offset]
                err_line = line + before.count("\n")
                column = offset - before.rfind("\n") if "\n" in before else token_column + offset
                column = max(column, 1)
                raise InputError(self.path, f"syntax error: {err}", err_line, column) from None
        ins = ir.Instruction(
            opcode=opcode, operands=operands, guard=ir.Register(guard_name) if guard_name else None,
            guard_negated=bool(negated), ptx_line=line + text[: m.start(3)].count("\n"), loc=self.current_loc,
        )
        wrong = missing_operands(ins.op, ins.modifiers, len(operands))
        if wrong is not None:
            raise InputError(self.path, f"syntax error: {wrong}", ins.ptx_line, None)
        self.instructions.append(ins)


@lru_cache(maxsize=8192)
def _decode_loc(token_text: str):
    """`.loc FILE LINE COLUMN[, function_name NAME][, inlined_at FILE LINE COLUMN]` -> (file, line,
    column, function name, (file, line, column) inlined at), or an error message. Cached: a
    large module repeats each .loc line about eight times."""
    text = token_text.split("//", 1)[0].lstrip()
    head, *extras = text[4:].split(",")
    fields = head.split()
    if len(fields) != 3 or not all(_is_number(f) for f in fields):
        return "malformed .loc: expected `.loc FILE LINE COLUMN`"
    function_name = None
    inlined = None
    for extra in extras:
        words = extra.split()
        if len(words) == 2 and words[0] == "function_name":
            function_name = words[1]
        elif len(words) == 4 and words[0] == "inlined_at" and all(_is_number(w) for w in words[1:]):
            inlined = (int(words[1]), int(words[2]), int(words[3]))
        else:
            return f"malformed .loc: unexpected {extra.strip()!r}"
    return int(fields[0]), int(fields[1]), int(fields[2]), function_name, inlined


def _is_number(word: str) -> bool:
    """A `.loc` number: ASCII digits, of a size a line or file number can have."""
    return word.isascii() and word.isdigit() and len(word) <= 18


# One unambiguous form for numbers, hex and label expressions: alternatives that could both match
# a run of digits backtrack exponentially on a long malformed `.b8` line.
_SECTION_VALUE = r"[-+]?[.$\w]+(?:[-+][.$\w]+)*"
_SECTION_LINE = re.compile(rf"(?:[$\w]+:|\.b(?:8|16|32|64)\s+{_SECTION_VALUE}(?:\s*,\s*{_SECTION_VALUE})*)\Z")
# one instruction of an INSTRUCTIONS run: the .loc lines before it, then its text up to the ';' (the
# grammar's INSTRUCTION_TEXT has no ';' inside, and a .loc line runs to its newline)
_RUN_ITEM = re.compile(r"((?:\s*\.loc[ \t][^\n]*\n)*)([^;]*;)")
_INSTRUCTION_PARTS = re.compile(r"\s*(?:@(!?)(%?[\w$]+)\s+)?([a-z][\w.:]*)(.*);", re.S)


# Inlining depth kept per `.loc` (nvcc's chains are as deep as the calls inlined into each other,
# rarely over 20); a deeper chain keeps its innermost links and its outermost, the user's call site.
MAX_INLINING_DEPTH = 64


def _bounded_chain(raw):
    """`raw` (file, line, column, function, inlined_at) with at most MAX_INLINING_DEPTH links:
    a chain of thousands would make every later `.loc` cost as much to hash as it is deep."""
    node, depth = raw, 0
    while node is not None and depth < MAX_INLINING_DEPTH:
        node, depth = node[4], depth + 1
    if node is None:
        return raw
    outermost = node
    while outermost[4] is not None:
        outermost = outermost[4]
    links = []
    node = raw
    for _ in range(MAX_INLINING_DEPTH - 1):
        links.append(node[:4])
        node = node[4]
    chain = outermost
    for link in reversed(links):
        chain = link + (chain,)
    return chain


MAX_THREADS_PER_BLOCK = 1024  # every architecture PTX targets


def _rename_registers(operand, names):
    """The operand with inline asm's registers (declared without '%', parsed as Symbols) as Registers."""
    return _map_names(operand, lambda r: ir.Register(r.name) if isinstance(r, ir.Symbol) and r.name in names else None)


def _rename_scoped(operand, renamed: dict):
    """The operand with the registers of a closed scope (name -> its own name) renamed (inline asm's
    registers have no '%': they are still Symbols then)."""
    return _map_names(operand, lambda r: ir.Register(renamed[r.name]) if r.name in renamed else None)


def _map_names(operand, change):
    """The operand with each Register or Symbol for which `change` gives a Register replaced by it, in an
    address's base, a vector's elements, a pair, a negation or a texture address too."""
    if isinstance(operand, (ir.Register, ir.Symbol)):
        return change(operand) or operand
    if isinstance(operand, ir.Address) and isinstance(operand.base, (ir.Register, ir.Symbol)):
        base = change(operand.base)
        return operand if base is None else ir.Address(base, operand.offset)
    if isinstance(operand, ir.VectorOperand):
        return ir.VectorOperand(tuple(_map_names(e, change) for e in operand.elements))
    if isinstance(operand, ir.PairOperand):
        return ir.PairOperand(_map_names(operand.first, change), _map_names(operand.second, change))
    if isinstance(operand, ir.Negated):
        return ir.Negated(_map_names(operand.operand, change))
    if isinstance(operand, ir.TextureAddress):
        return ir.TextureAddress(tuple(_map_names(p, change) for p in operand.parts))
    return operand


_SPACES = {"global", "shared", "const", "local", "param", "reg", "tex", "sreg"}
_LINKAGES = {"visible", "extern", "weak", "common"}


def _classify_words(words):
    linkage = space = vtype = None
    align = None
    vector = 1
    attrs = []
    for word, value in words:
        if word in _LINKAGES:
            linkage = word
        elif word in _SPACES and space is None:
            space = word
        elif word == "align":
            align = value
        elif word in ("v2", "v4", "v8"):
            vector = int(word[1:])
        elif word == "attribute":
            attrs.extend(value)
        elif word == "ptr" or (space is not None and word in _SPACES):
            attrs.append(word)
        else:
            vtype = word
    return linkage, space, vtype, align, vector, tuple(attrs)


def _directive_value(name, values):
    if name in ("maxntid", "reqntid", "reqnctapercluster"):
        padded = tuple(values) + (1,) * (3 - len(values))
        return padded[:3]
    if len(values) == 1:
        return values[0]
    return values or True


def _int(tok) -> int:
    return _int_text(str(tok))


# ---------------------------------------------------------------------------------------------
# The parser object


@lru_cache(maxsize=1)
def _parser() -> tuple:
    """The Lark parser and its callback object, built once per process."""
    builder = _IrBuilder()
    lark = Lark(grammar_text(), parser="lalr", lexer="contextual", transformer=builder, maybe_placeholders=True,
                lexer_callbacks={"INSTRUCTIONS": builder.lexed_run},
                cache=True)  # the analysed grammar is cached in the temp directory: faster start
    return lark, builder


_TERMINAL_DESCRIPTIONS = {
    "SEMICOLON": "';'", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'",
    "LPAR": "'('", "RPAR": "')'", "INSTRUCTIONS": "an instruction", "REG": "a register", "NAME": "a name",
    "LOC": "a .loc", "SECTION_BODY": "a section body", "CALLPROTOTYPE": "a .callprototype",
    "INT": "an integer", "DOTWORD": "a directive", "LABEL_DEF": "a label", "STRING": "a string",
    "HEX_FLOAT": "a float", "DEC_FLOAT": "a float", "VERSION_NUMBER": "a version number", "PLUS": "'+'",
    "MINUS": "'-'", "AT": "'@'", "BANG": "'!'", "VBAR": "'|'", "LESSTHAN": "'<'", "MORETHAN": "'>'",
    "COLON": "':'", "EQUAL": "'='",
}


def _describe_expected(expected) -> str:
    lark, _ = _parser()
    by_name = {t.name: t for t in lark.terminals}
    words = set()
    for name in expected:
        if name in _TERMINAL_DESCRIPTIONS:
            words.add(_TERMINAL_DESCRIPTIONS[name])
        elif name in by_name and by_name[name].pattern.type == "str":
            words.add(f"'{by_name[name].pattern.value}'")
        else:
            words.add(name.lower())
    ordered = sorted(words)
    if len(ordered) > 8:
        ordered = ordered[:8] + ["..."]
    return ", ".join(ordered)


def _last_line(text: str) -> int:
    return len(text.rstrip().split("\n"))


def _shown(token_text: str) -> str:
    first = token_text.split("\n", 1)[0]
    return repr(first[:40] + ("..." if len(first) > 40 or "\n" in token_text else ""))


def _syntax_error(path: str, text: str, err: UnexpectedInput, line_offset: int) -> InputError:
    line = (err.line if err.line not in (None, -1) else _last_line(text)) + line_offset
    column = err.column if err.column not in (None, -1) else 1
    if isinstance(err, UnexpectedCharacters):
        char = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
        message = f"syntax error: unexpected character {char!r}"
        allowed = getattr(err, "allowed", None)
        if allowed:
            message += f"; expected {_describe_expected(allowed)}"
    elif isinstance(err, UnexpectedEOF):
        message = f"syntax error: unexpected end of file; expected {_describe_expected(err.expected)}"
    elif isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":  # where the text ends: after its last character that is not a space
            shown = "end of file"
            end = text.rstrip()
            line = _last_line(text) + line_offset
            column = len(end) - end.rfind("\n")
        else:  # of a run of instructions, the first (with the .loc lines before it)
            shown = _shown(_RUN_ITEM.match(str(tok)).group(0) if tok.type == "INSTRUCTIONS" else str(tok))
        message = f"syntax error: unexpected {shown}; expected {_describe_expected(err.expected)}"
    else:
        message = f"syntax error: {err}"
    return InputError(path, message, line, column)


def _parse_text(path: str, text: str, line_offset: int = 0) -> list:
    lark, builder = _parser()
    builder._reset_body()
    builder.collected_items = []
    builder.line_offset = line_offset
    builder.path = path
    builder.pending_run = None
    try:
        return lark.parse(text)
    except InputError:
        raise
    except UnexpectedInput as err:
        if builder.pending_run is not None and builder.pending_run is not getattr(err, "token", None):
            # the run of instructions before the error is not built yet (the parser waited for the
            # token after it): an error inside it comes first in the file
            builder.instruction_run([builder.pending_run])
        raise _syntax_error(path, text, err, line_offset) from None
    except VisitError as err:  # a callback rejected its input
        if isinstance(err.orig_exc, InputError):
            raise err.orig_exc from None
        raise InputError(path, f"cannot build IR: {err.orig_exc}") from None


def parse_ptx(text: str, path: str = "<string>", jobs: Optional[int] = None, source_name=None) -> ir.Module:
    """Parse PTX text into an `ir.Module`. Raises InputError with a location on bad input.
    `source_name`: maps a `.file` path as written to the file it stands for (nvcc compiled a
    staged copy: frontend/nvcc.py).

    `jobs` is accepted for API stability; parsing runs in this process (measured: sending the IR of
    a 5 MB module back from worker processes costs more than the parse it saves; files are
    checked in parallel instead)."""
    if not text.strip():
        raise InputError(path, "empty file: expected PTX (a `.version` directive first)", 1, 1)
    if "\x00" in text[:4096]:
        raise InputError(path, "binary file: expected PTX text", 1, 1)
    with collector_paused():
        return _assemble(path, _parse_text(path, text), source_name)


def _assemble(path: str, items: list, source_name=None) -> ir.Module:
    module = ir.Module(path=path)
    for item in items:
        if item is None:
            continue
        kind = item[0]
        if kind == "version":
            module.version = item[1]
        elif kind == "target":
            module.target = item[1]
        elif kind == "address_size":
            module.address_size = item[1]
        elif kind == "file":
            module.files[item[1]] = item[2]
        elif kind == "variables":
            module.variables.extend(item[1])
        elif kind == "function":
            module.functions.append(item[1])
        elif kind == "alias":
            module.aliases.append((item[1], item[2]))
        elif kind == "section":
            module.sections[item[1]] = item[2]
    if module.version is None:
        raise InputError(path, "not PTX: no `.version` directive", 1, 1)
    if source_name is not None:
        module.files = {k: source_name(v) for k, v in module.files.items()}
    module.files = relocated_sources(module.files, path)
    _resolve_locations(module)
    return module


def _resolve_locations(module: ir.Module) -> None:
    """Turn raw `.loc` tuples into SourceLocations naming files (`.file` comes last in nvcc output)."""
    memo: dict = {}
    files = module.files

    def resolve(raw):
        if raw is None:
            return None
        found = memo.get(raw)
        if found is not None:
            return found
        chain = []  # the links not resolved yet, innermost first (the parser bounds their number)
        node = raw
        while node is not None and node not in memo:
            chain.append(node)
            node = node[4]
        outer = memo[node] if node is not None else None
        for link in reversed(chain):
            file_index, line, col, function_name, _ = link
            outer = memo[link] = ir.SourceLocation(files.get(file_index, f"<file {file_index}>"), line, col,
                                                   function_name, outer)
        return outer

    for func in module.functions:
        for ins in func.instructions:
            if ins.loc is not None:
                ins.loc = resolve(ins.loc)


def parse_ptx_file(path: str, jobs: Optional[int] = None) -> ir.Module:
    """Read and parse a `.ptx` file; every failure is an InputError naming the file."""
    return parse_ptx(read_ptx_file(path), path, jobs=jobs)


def read_ptx_file(path: str) -> str:
    """The text of a `.ptx` file; every failure is an InputError naming the file. It is read
    through the gate (gate.py): a regular file inside the repository (else the directory) it is
    named in, of at most MAX_PTX_BYTES."""
    from ..gate import MAX_PTX_BYTES, read_checked

    data = read_checked(path, MAX_PTX_BYTES)
    if b"\x00" in data[:4096]:
        raise InputError(path, "binary file: expected PTX text", 1, 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise InputError(path, f"not UTF-8 text: invalid byte 0x{data[err.start]:02x}", line, col) from None
    return text
