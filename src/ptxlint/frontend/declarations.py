"""`__shared__` array declarations as the user wrote them, read from the CUDA source.

The PTX knows a shared variable only as a byte count (`.shared .align 4 .b8 _ZZ...E2As[1024];`),
so a fix hint in the PTX's terms ("[8][32]") does not match a `float As[16][16]`. This small
parser finds the declaration in the source (read through the gate, so only files inside the
checked repository) and returns its shape: element type, each dimension's text and value, and
where the dimensions are written (for an edit).

Only the common form is understood: one declaration per statement on one line,
`[static] [volatile] __shared__ [qualifiers] TYPE NAME[D1][D2]...;` (with `__align__(N)` anywhere
before the name). A dimension is a literal, a `#define`d or `constexpr`/`const` integer of the same
file, or an expression over those; anything else stays unknown and is worked out from the PTX
size when it is the only unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

# after `__shared__`: the type words, the name, then only `[...]` groups (a linear scan, no backtracking)
_DIMENSIONS = re.compile(r"(?:\s*\[[^\[\]]+\])+\s*(?:=.*)?")
_DIMENSION = re.compile(r"\[([^\[\]]+)\]")
_DEFINE = re.compile(r"\s*#\s*define\s+([A-Za-z_]\w*)\s+([^/]+)")
_CONSTANT = re.compile(r"\b(?:constexpr|const)\s+(?:static\s+)?(?:unsigned\s+)?(?:int|unsigned|size_t|long|"
                       r"std::size_t|uint32_t|int32_t)?\s*([A-Za-z_]\w*)\s*=([^;=]{1,80});")
MAX_CONSTANT_LINE = 300  # a longer line is no constant definition worth reading (and keeps this linear)
_ARITHMETIC = re.compile(r"[0-9\s+\-*/()%]+")

# sizeof of the CUDA C++ types source code commonly names (bytes): a shared array's elements, a
# launch configuration's `sizeof(T)`, what a pointer argument points to
TYPE_BYTES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "int8_t": 1, "uint8_t": 1, "bool": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2,
    "__nv_bfloat16": 2, "nv_bfloat16": 2,
    "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4,
    "__half2": 4, "half2": 4, "__nv_bfloat162": 4, "char4": 4, "uchar4": 4,
    "double": 8, "long long": 8, "unsigned long long": 8, "int64_t": 8, "uint64_t": 8, "long": 8,
    "unsigned long": 8, "size_t": 8, "float2": 8, "int2": 8, "uint2": 8,
    "float4": 16, "int4": 16, "uint4": 16, "double2": 16, "float3": 12, "int3": 12,
}
_QUALIFIERS = {"static", "volatile", "const", "extern", "__device__", "register"}


@dataclass(frozen=True)
class Dimension:
    """One `[...]` of a declaration: its text, its value (None when unknown) and its columns
    (0-based, the text between the brackets) on the declaration's line."""

    text: str
    value: Optional[int]
    start: int
    end: int

    @property
    def is_literal(self) -> bool:
        return self.text.strip().isdigit()


@dataclass(frozen=True)
class SharedDeclaration:
    """`__shared__ TYPE NAME[D1]...[Dn];` at `path`:`line` (1-based)."""

    path: str
    line: int
    name: str
    element_type: str
    element_bytes: Optional[int]
    dims: tuple  # Dimension, outermost first
    # every other use of the name in the file indexes it fully (`As[r][c]`): no pointer arithmetic,
    # `sizeof` or partial indexing that a change of the row length would silently break
    only_indexed: bool = False

    @property
    def shape(self) -> tuple:
        """The dimensions' values, outermost first (None where unknown)."""
        return tuple(d.value for d in self.dims)

    def written(self, inner: Optional[str] = None) -> str:
        """`As[16][16]` as written (with the innermost dimension replaced by `inner`)."""
        texts = [d.text.strip() for d in self.dims]
        if inner is not None:
            texts[-1] = inner
        return self.name + "".join(f"[{t}]" for t in texts)


def _constants(lines: list) -> dict:
    """Integer constants the file defines (`#define TILE 32`, `constexpr int TILE = 32;`)."""
    found: dict = {}
    for text in lines:
        if len(text) > MAX_CONSTANT_LINE or ("define" not in text and "const" not in text):
            continue
        m = _DEFINE.match(text) or _CONSTANT.search(text)
        if m:
            value = evaluate(m.group(2), found)
            if value is not None:
                found[m.group(1)] = value
    return found


def evaluate(expression: str, constants: dict) -> Optional[int]:
    """The value of an integer expression of literals and known constants, or None."""
    text = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expression.strip())
    text = re.sub(r"[A-Za-z_]\w*", lambda m: str(constants[m.group(0)]) if m.group(0) in constants else "?", text)
    if not text or len(text) > 100 or "?" in text or not _ARITHMETIC.fullmatch(text) or "**" in text:
        return None
    try:
        value = eval(compile(text.replace("/", "//").replace("////", "//"), "<dim>", "eval"),  # noqa: S307
                     {"__builtins__": {}}, {})
    except (SyntaxError, ZeroDivisionError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    return value if isinstance(value, int) and value > 0 else None


def _element_type(written: str) -> str:
    words = [w for w in re.sub(r"__align__\s*\(\s*\d+\s*\)", " ", written).split() if w not in _QUALIFIERS]
    return " ".join(words)


def parse_shared_declarations(lines: list, path: str = "") -> list:
    """Every one-line `__shared__` array declaration of a file's `lines`, in order."""
    constants = _constants(lines)
    out = []
    for number, text in enumerate(lines, 1):
        if "__shared__" not in text or "extern" in text.split("__shared__", 1)[0]:
            continue
        code = text.split("//", 1)[0]
        at = code.find("__shared__")
        while at >= 0:
            found = _declaration_at(code, at + len("__shared__"))
            if found is not None:
                element, name, dims_at, dims_text = found
                dims = tuple(Dimension(d.group(1), evaluate(d.group(1), constants), dims_at + d.start(1),
                                       dims_at + d.end(1)) for d in _DIMENSION.finditer(dims_text))
                out.append(SharedDeclaration(path, number, name, element, TYPE_BYTES.get(element), dims,
                                             _only_indexed(lines, name, len(dims), number)))
            at = code.find("__shared__", at + 1)
    return out


def _declaration_at(code: str, start: int) -> Optional[tuple]:
    """(element type, name, column of the dimensions, their text) of the declaration whose
    `__shared__` ends at `start` in `code`, or None when it is not one array on this line."""
    end = code.find(";", start)
    if end < 0:
        return None
    statement = code[start:end]
    bracket = statement.find("[")
    if bracket < 0 or "," in statement[bracket:].split("=", 1)[0].replace("][", ""):
        return None
    head = re.sub(r"__align__\s*\(\s*\d+\s*\)", lambda m: " " * len(m.group(0)), statement[:bracket])
    if "(" in head or ")" in head or "," in head:
        return None
    words = head.split()
    if len(words) < 2 or not re.fullmatch(r"[A-Za-z_]\w*", words[-1]):
        return None
    tail = statement[bracket:]
    if tail.count("[") > 8 or not _DIMENSIONS.fullmatch(tail):
        return None
    return _element_type(" ".join(words[:-1])), words[-1], start + bracket, tail


def _only_indexed(lines: list, name: str, rank: int, declared_at: int) -> bool:
    """Is every use of `name` in `lines` (but its declaration) an element, `name` followed by
    `rank` plain `[...]` and not its address?"""
    use = re.compile(r"(?<![\w.>])" + re.escape(name) + r"\b((?:\s*\[[^\[\]]*\])*)")
    for number, text in enumerate(lines, 1):
        if number == declared_at or name not in text:
            continue
        code = text.split("//", 1)[0]
        for m in use.finditer(code):
            # an element's address (`&As[r][c]`) may be moved by arithmetic that spells the old row
            if len(_DIMENSION.findall(m.group(1))) != rank or re.search(r"(?<!&)&\s*$", code[:m.start()]):
                return False
    return True


def resolve_unknowns(declaration: SharedDeclaration, size_bytes: Optional[int]) -> Optional[SharedDeclaration]:
    """The declaration with every dimension and the element size known, using the PTX variable's
    byte size for what the source does not say (a template parameter, a macro from elsewhere):
    one unknown is size / the rest; unknowns written alike (`[N][N]`) are equal. None when the
    source and the size disagree or it cannot be solved."""
    from dataclasses import replace
    from math import isqrt, prod

    element = declaration.element_bytes
    dims = list(declaration.dims)
    unknown = [k for k, d in enumerate(dims) if d.value is None]
    if size_bytes is None:
        return declaration if element and not unknown else None
    known = prod(d.value for d in dims if d.value is not None)
    if element is None:
        if unknown or size_bytes % known:
            return None
        element = size_bytes // known
    if not unknown:
        return replace(declaration, element_bytes=element) if known * element == size_bytes else None
    rest, remainder = divmod(size_bytes, known * element)
    if remainder:
        return None
    texts = {dims[k].text.strip() for k in unknown}
    if len(unknown) == 1:
        value = rest
    elif len(texts) == 1 and len(unknown) == 2 and isqrt(rest) ** 2 == rest:
        value = isqrt(rest)
    else:
        return None
    for k in unknown:
        dims[k] = replace(dims[k], value=value)
    return replace(declaration, element_bytes=element, dims=tuple(dims))


def find_shared_declaration(name: str, size_bytes: Optional[int], near: tuple, files, read_lines) -> \
        Optional[SharedDeclaration]:
    """The declaration of the shared array `name` (its source name) of `size_bytes` bytes: in the
    file of `near` ((path, line) of an access to it) the last one before that line, else the
    first in the other `files` (the sources the PTX was compiled from). `read_lines(path)` gives a
    file's lines or None (the gate's: nothing outside the checked repository is read)."""
    near_path, near_line = near
    ordered = [near_path] + [f for f in files if f != near_path]
    for path in ordered:
        lines = read_lines(path) if path else None
        if not lines:
            continue
        found = [d for d in parse_shared_declarations(lines, path) if d.name == name]
        if path == near_path and near_line:
            before = [d for d in found if d.line <= near_line]
            found = before[::-1] + [d for d in found if d.line > near_line]
        for declaration in found:
            resolved = resolve_unknowns(declaration, size_bytes)
            if resolved is not None:
                return resolved
    return None
