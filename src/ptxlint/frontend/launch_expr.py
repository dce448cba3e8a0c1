"""Compile-time values of C++ expressions in host code: block arguments, `const` initializers,
template arguments, `#if` conditions. The grammar is `grammars/launch.lark` (LALR); the values are
Python ints, `(x, y, z)` tuples for `dim3`, `Braces` for `{a, b, c}` lists and dicts for structs
(`cudaLaunchConfig_t`). Anything that is not a compile-time value raises `Unknown(reason)`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import gcd

from lark import Lark, Token, Tree
from lark.exceptions import LarkError

from .cpp_preprocess import Unknown
from .declarations import TYPE_BYTES
from .grammar_file import grammar_text

INT_BITS = {"char": 8, "short": 16, "int": 32, "long": 64, "size_t": 64, "bool": 1}
_MIN_MAX = {"min", "max", "std::min", "std::max", "::min", "::max", "cuda::std::min", "cuda::std::max"}


class Braces(tuple):
    """A `{a, b, c}` list; elements that are not compile-time values are `Unknown` instances."""


@dataclass(frozen=True)
class Multiple:
    """An integer the host code does not give whose form says it is a multiple of `factor`:
    `nbodies * 1024`, `size << 20`, the sum of two such. Names evaluate to `Multiple(1)` only where a
    caller asks for factors (`ValueResolver._multiple`); everywhere else they stay Unknown."""

    factor: int

    def __str__(self) -> str:
        return f"a multiple of {self.factor}"


def factor_of(v) -> int:
    """What an integer or a Multiple is known to be a multiple of (0 for the integer 0)."""
    return v.factor if isinstance(v, Multiple) else abs(_int(v))


def _multiple_binop(op: str, a, b):
    """`a op b` where a side is a Multiple: products multiply factors, sums keep the common one,
    a left shift by a known count scales; any other operation loses what is known."""
    if op == "mul":
        f = factor_of(a) * factor_of(b)
        return 0 if f == 0 else Multiple(f)
    if op in ("add", "sub"):
        return Multiple(gcd(factor_of(a), factor_of(b)))
    if op == "shl" and isinstance(a, Multiple) and not isinstance(b, Multiple) and 0 <= _int(b) <= 63:
        return Multiple(a.factor << _int(b))
    raise Unknown("an operation on a value the host code does not give")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    # the analysed grammar is cached in the temp directory, as the PTX grammar's is: building its
    # tables took most of the CPU time of checking a small file
    return Lark(grammar_text("launch.lark"), parser="lalr", lexer="contextual", maybe_placeholders=True, cache=True)


@lru_cache(maxsize=8192)
def parse_expression(text: str) -> Tree:
    """Parse tree of one expression; raises Unknown when the grammar does not read it."""
    try:
        return _parser().parse(text)
    except LarkError:
        raise Unknown(f"ptxlint cannot read the expression `{text}`") from None


def tokens_text(tokens) -> str:
    return " ".join(t.text for t in tokens)


def evaluate_tokens(tokens, lookup, factors: bool = False, call=None):
    """Value of the expression made of `tokens`; `lookup(name)` gives a name's value or raises
    Unknown. A token that carries a doubt (see cpp_preprocess) makes the value unknown. With
    `factors`, an operand that is not a compile-time value is some integer (`Multiple(1)`), so
    `atoi(s) * 64` is a Multiple(64). `call(name, arguments)` gives the value of a call of a
    function by its name (arguments evaluated, Unknown where not known) or raises Unknown."""
    for t in tokens:
        if t.doubt:
            raise Unknown(t.doubt)
    if not tokens:
        raise Unknown("empty expression")
    return evaluate_text(tokens_text(tokens), lookup, factors, call)


def evaluate_text(text: str, lookup, factors: bool = False, call=None):
    return Evaluator(lookup, factors, call).eval(parse_expression(text))


def parse_int_literal(text: str) -> int:
    s = text.replace("'", "").rstrip("uUlLzZ")
    if s[:2] in ("0x", "0X"):
        return int(s[2:], 16)
    if s[:2] in ("0b", "0B"):
        return int(s[2:], 2)
    if len(s) > 1 and s[0] == "0":
        return int(s, 8)
    return int(s)


_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8, "f": 12, "v": 11}


def _char_value(text: str) -> int:
    body = text[text.index("'") + 1:-1]
    if body.startswith("\\"):
        if body[1:] in _ESCAPES:
            return _ESCAPES[body[1:]]
        if body[1] == "x":
            return int(body[2:], 16)
        return int(body[1:], 8)
    if len(body) == 1:
        return ord(body)
    raise Unknown(f"multi-character literal {text}")


def type_text(tree) -> str:
    return " ".join(str(t) for t in tree.children)


def _int(v, what="value"):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    raise Unknown(f"{what} is not an integer")


class Evaluator:
    """Evaluates a parse tree of launch.lark with a name lookup."""

    def __init__(self, lookup, factors: bool = False, call=None):
        self.lookup = lookup
        self.factors = factors  # operands that are not values read as Multiple(1) (evaluate_tokens)
        self.call = call  # name, arguments -> the value of a call of the host code's own function

    def eval(self, tree):
        if isinstance(tree, Token):
            raise Unknown(f"unexpected `{tree}`")
        method = getattr(self, "_" + tree.data, None)
        if method is None:
            binop = _BINARY.get(tree.data)
            if binop is None:
                raise Unknown(f"ptxlint does not evaluate `{tree.data}`")
            a = self._operand(tree.children[0])
            b = self._operand(tree.children[1])
            if isinstance(a, Multiple) or isinstance(b, Multiple):
                return _multiple_binop(tree.data, a, b)
            return binop(_int(a), _int(b))
        return method(tree.children)

    def _operand(self, tree):
        if not self.factors:
            return self.eval(tree)
        try:
            return self.eval(tree)
        except Unknown:
            return Multiple(1)

    # ---- literals and names
    def _int_lit(self, c):
        return parse_int_literal(str(c[0]))

    def _float_lit(self, c):
        raise Unknown(f"`{c[0]}` is a floating-point value")

    def _char_lit(self, c):
        return _char_value(str(c[0]))

    def _string_lit(self, c):
        raise Unknown("a string")

    def _true_lit(self, c):
        return 1

    def _false_lit(self, c):
        return 0

    def _null_lit(self, c):
        raise Unknown("nullptr")

    def _qname(self, c):
        return self.lookup("".join(str(t) for t in c))

    # ---- operators
    def _ternary(self, c):
        return self.eval(c[1]) if _int(self.eval(c[0])) else self.eval(c[2])

    def _or_(self, c):
        return 1 if _int(self.eval(c[0])) else int(bool(_int(self.eval(c[1]))))

    def _and_(self, c):
        return 0 if not _int(self.eval(c[0])) else int(bool(_int(self.eval(c[1]))))

    def _neg(self, c):
        return -_int(self.eval(c[0]))

    def _pos(self, c):
        return _int(self.eval(c[0]))

    def _not_(self, c):
        return int(not _int(self.eval(c[0])))

    def _inv(self, c):
        return ~_int(self.eval(c[0]))

    def _addr(self, c):
        raise Unknown("an address")

    def _index(self, c):
        raise Unknown("an array element")

    def _cast(self, c):
        return self._convert(type_text(c[0]), self.eval(c[1]))

    def _named_cast(self, c):
        return self._convert(type_text(c[1]), self.eval(c[2]))

    def _functional_cast(self, c):
        args = self._args(c[1])
        if len(args) != 1:
            raise Unknown("a cast with several arguments")
        return self._convert(type_text(c[0]), args[0])

    def _convert(self, ty, v):
        if "float" in ty or "double" in ty:
            raise Unknown(f"a conversion to {ty}")
        if isinstance(v, Multiple):
            return Multiple(v.factor & -v.factor)  # wrapping to the type's width keeps powers of two
        v = _int(v)
        words = ty.replace("const", "").replace("volatile", "").split()
        if "bool" in words:
            return int(bool(v))
        unsigned = "unsigned" in words or ty.startswith("uint") or " uint" in ty or "size_t" in words
        bits = 32
        for w in words:
            if w.startswith(("int", "uint")) and w.endswith("_t"):
                bits = int(w.strip("uint_").rstrip("_t") or 32)
            elif w in INT_BITS:
                bits = INT_BITS[w] if w != "int" or bits == 32 else bits
        if words.count("long") >= 1:
            bits = 64
        if unsigned:
            return v & ((1 << bits) - 1)
        v &= (1 << bits) - 1
        return v - (1 << bits) if v >> (bits - 1) else v

    def _sizeof_type(self, c):
        return self._size(type_text(c[0]))

    def _sizeof_expr(self, c):
        inner = c[0]
        if isinstance(inner, Tree) and inner.data == "qname":
            return self._size("".join(str(t) for t in inner.children))
        raise Unknown("sizeof of an expression")

    def _size(self, ty):
        ty = " ".join(w for w in ty.split() if w not in ("const", "volatile"))
        if ty in TYPE_BYTES:
            return TYPE_BYTES[ty]
        raise Unknown(f"sizeof({ty})")

    # ---- aggregates
    def _args(self, tree):
        if tree is None:
            return []
        return [self.eval(a) for a in tree.children]

    def _lazy_args(self, tree):
        out = []
        for a in ([] if tree is None else tree.children):
            try:
                out.append(self.eval(a))
            except Unknown as e:
                out.append(e)
        return out

    def _braces(self, c):
        return Braces(self._lazy_args(c[0]))

    def _dim3(self, c):
        return to_dim3(self._args(c[0]), "dim3(...)")

    def _call(self, c):
        callee = c[0]
        name = "".join(str(t) for t in callee.children) if isinstance(callee, Tree) and callee.data == "qname" else None
        if name in _MIN_MAX:
            args = [_int(a) for a in self._args(c[1])]
            if len(args) == 2:
                return min(args) if name.endswith("min") else max(args)
        if name in ("dim3", "make_uint3", "make_int3"):
            return to_dim3(self._args(c[1]), f"{name}(...)")
        if name is not None and self.call is not None:
            return self.call(name, self._lazy_args(c[1]))
        raise Unknown(f"the value of a call to `{name or 'a function'}`")

    def _member(self, c):
        base = self.eval(c[0])
        field = str(c[1])
        if isinstance(base, tuple) and not isinstance(base, Braces) and field in ("x", "y", "z"):
            return base["xyz".index(field)]
        if isinstance(base, dict):
            if field not in base:
                raise Unknown(f"`.{field}` is not set")
            v = base[field]
            if isinstance(v, Unknown):
                raise v
            return v
        raise Unknown(f"member `.{field}`")


def _c_div(a, b):
    if b == 0:
        raise Unknown("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_mod(a, b):
    return a - b * _c_div(a, b)


def _shl(a, b):
    if b < 0 or b > 63:
        raise Unknown("a shift out of range")
    return a << b


def _shr(a, b):
    if b < 0 or b > 63:
        raise Unknown("a shift out of range")
    return a >> b


_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _c_div, "mod": _c_mod, "shl": _shl, "shr": _shr,
    "bitand": lambda a, b: a & b, "bitor": lambda a, b: a | b, "bitxor": lambda a, b: a ^ b,
    "eq": lambda a, b: int(a == b), "ne": lambda a, b: int(a != b), "lt": lambda a, b: int(a < b),
    "gt": lambda a, b: int(a > b), "le": lambda a, b: int(a <= b), "ge": lambda a, b: int(a >= b),
}


def to_dim3(values, what="the value"):
    """(x, y, z) from up to three integers (missing ones are 1), as `dim3`'s constructor does."""
    if len(values) > 3:
        raise Unknown(f"{what} has more than three components")
    out = []
    for v in values:
        if isinstance(v, Unknown):
            raise v
        out.append(_int(v, what))
    return tuple(out + [1] * (3 - len(out)))


def as_block(value):
    """A block argument's value as (x, y, z): an integer n is n x 1 x 1."""
    if isinstance(value, Braces):
        return to_dim3(list(value), "the brace list")
    if isinstance(value, tuple):
        return value
    if isinstance(value, dict):
        raise Unknown("a struct is not a block shape")
    return (_int(value), 1, 1)
