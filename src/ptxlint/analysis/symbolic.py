"""Symbolic values, one per thread: a known integer plus unknown terms.

A value is a pair `(const, terms)` where `terms` is a sorted tuple of `(symbol, coefficient)`.
Unknowns the analysis cannot know (kernel parameters, loaded data, %ctaid) are symbols. A symbol
that is the same for every thread is *uniform*; a lane-varying unknown gets a symbol of its own per
thread, so two threads' values differ by a known amount exactly when their terms are equal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

Value = tuple  # (const: int, terms: tuple[(str, int), ...])

MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1


def const(c: int) -> Value:
    return (c, ())


ZERO = const(0)


def is_known(v: Value) -> bool:
    return not v[1]


def add(a: Value, b: Value) -> Value:
    if not b[1]:
        return (a[0] + b[0], a[1])
    if not a[1]:
        return (a[0] + b[0], b[1])
    if len(a[1]) == 1 and len(b[1]) == 1:  # one unknown on each side (the common case), without a dict
        (sa, ca), = a[1]
        (sb, cb), = b[1]
        if sa == sb:
            return (a[0] + b[0], ((sa, ca + cb),) if ca + cb else ())
        return (a[0] + b[0], ((sa, ca), (sb, cb)) if sa < sb else ((sb, cb), (sa, ca)))
    terms = dict(a[1])
    for sym, coef in b[1]:
        terms[sym] = terms.get(sym, 0) + coef
    return (a[0] + b[0], tuple(sorted((s, c) for s, c in terms.items() if c)))


def difference_known(a: Value, b: Value) -> bool:
    """Whether a - b is known, without computing it: values are built by the functions here,
    which keep terms sorted and drop zero coefficients, so a - b has no terms exactly when a
    and b have the same terms."""
    return a[1] == b[1]


def scale(a: Value, k: int) -> Value:
    if k == 0:
        return ZERO
    return (a[0] * k, tuple((s, c * k) for s, c in a[1]))


def neg(a: Value) -> Value:
    return scale(a, -1)


def sub(a: Value, b: Value) -> Value:
    return add(a, neg(b))


class ComputedFrom:
    """The description of a value computed from unknowns, named after one of them and worked out
    on first use (most symbols never appear in a message). `source` is the symbol to name, or a
    key to search for the first symbol that has a description. Plain data rather than a closure
    over the evaluator: a closure would make the symbol table part of a reference cycle, left for
    the garbage collector instead of freed when the analysis is dropped."""

    __slots__ = ("source",)

    def __init__(self, source) -> None:
        self.source = source


class _Origins(dict):
    """Symbol -> description; a description may be a ComputedFrom or a callable, computed on first
    use (most symbols never appear in a message)."""

    def __getitem__(self, key):
        if key not in self and isinstance(key, str) and "#" in key:
            key = key.split("#", 1)[0]  # a per-thread copy of a symbol: the symbol's description
        value = dict.__getitem__(self, key)
        if isinstance(value, ComputedFrom):
            value = self._computed_from(value.source)
            self[key] = value
        elif callable(value):
            value = value()
            self[key] = value
        return value

    def _computed_from(self, source) -> str:
        if isinstance(source, str):
            origin = self.get(source)
        else:
            origin = self._first_origin_in(source)
        if origin is None:
            origin = "unknowns"
        return origin if origin.startswith("a value computed") else f"a value computed from {origin}"

    def _first_origin_in(self, key):
        """The description of the first (symbol, coefficient) pair found in `key`, breadth first."""
        stack = [key]
        while stack:
            item = stack.pop(0)
            if isinstance(item, tuple):
                if len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], int) and item[0] in self:
                    return self[item[0]]
                stack.extend(item)
        return None

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


@dataclass
class SymbolTable:
    """Interns opaque symbols and remembers, for messages, where each came from."""

    def __post_init__(self) -> None:
        self._by_key: dict = {}
        self._key_of: dict = {}  # symbol -> its key
        self.origin: dict = _Origins()
        self.uniform: dict = {}

    def symbol(self, key, origin, uniform: bool) -> str:
        """The symbol for `key` (the same key gives the same symbol). `origin` is a description
        or a function returning one."""
        name = self._by_key.get(key)
        if name is None:
            name = f"u{len(self._by_key)}" if uniform else f"v{len(self._by_key)}"
            self._by_key[key] = name
            self._key_of[name] = key
            self.origin[name] = origin
            self.uniform[name] = uniform
        return name

    def interned(self, key) -> Optional[str]:
        """The symbol already made for `key`, or None."""
        return self._by_key.get(key)

    def key_of(self, name: str):
        """The key a symbol was made for (a per-thread copy `v3#5` gives its symbol's key), or None."""
        return self._key_of.get(name.split("#", 1)[0])

    def value(self, key, origin, uniform: bool = True) -> Value:
        return (0, ((self.symbol(key, origin, uniform), 1),))


def wrap(v: Value, bits: int, signed: bool = False) -> Value:
    """Wrap a known value to `bits` (two's complement when signed); unknown values are kept."""
    if v[1] or bits >= 128:
        return v
    mask = (1 << bits) - 1
    c = v[0] & mask
    if signed and c >> (bits - 1):
        c -= 1 << bits
    return (c, ())


def uniform_across(values) -> bool:
    """True when every thread holds the same value."""
    if type(values).__name__ == "Affine":
        # lane_values' vector with one shared unknown part: its known parts decide, compared in C
        consts = values.consts
        return not consts or consts.count(consts[0]) == len(consts)
    it = iter(values)
    first = next(it, None)
    return all(v == first for v in it)


def differences_known(values) -> bool:
    """True when all values share their unknown terms: pairwise differences are then known."""
    terms = None
    for v in values:
        if v is None:
            continue
        if terms is None:
            terms = v[1]
        elif v[1] != terms:
            return False
    return True


def describe(v: Value, table: Optional[SymbolTable] = None) -> str:
    parts = [str(v[0])] if v[0] or not v[1] else []
    for sym, coef in v[1]:
        name = table.origin.get(sym, sym) if table else sym
        parts.append(name if coef == 1 else f"{coef}*{name}")
    return " + ".join(parts)


def key_tuples(table: "SymbolTable", roots):
    """Every tuple in the keys of `roots` (symbols or keys) and, through the symbols they name, in
    the keys of those (each symbol once): what an unknown was computed from."""
    seen: set = set()
    stack = list(roots)
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            yield item
            stack.extend(item)
        elif isinstance(item, str) and item not in seen:
            seen.add(item)
            inner = table.key_of(item)
            if inner is not None:
                stack.append(inner)
