"""The value domain of the per-lane evaluator (lanes.py): what a register holds in every thread.

A vector of per-thread `symbolic.Value`s comes in three forms: `Affine` (every thread shares its
unknown terms and differs by a known integer: index arithmetic on thread ids, kept as an int list),
`Varying` (a different unknown in every thread: loaded data), or a plain list. Here are the forms,
the conversions between them, three-valued predicate filtering (`where_predicate`), and the integer
semantics of the opcodes on known values. lanes.py walks the IR and combines these; this module
knows nothing about instructions beyond an opcode's modifiers.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import Optional

from ..frontend.ir import Instruction

SIGNED = {"s8", "s16", "s32", "s64"}


def bits_of(type_name: Optional[str], default: int = 32) -> int:
    if not type_name:
        return default
    digits = "".join(ch for ch in type_name if ch.isdigit())
    return int(digits) if digits else default


class Affine(Sequence):
    """Per-thread values that share their unknown terms: thread t holds (consts[t], terms).

    Index arithmetic on thread ids stays in this form, and is computed on plain int lists
    instead of one symbolic value per thread (most of the analysis' work)."""

    __slots__ = ("consts", "terms")

    def __init__(self, consts: list, terms: tuple = ()) -> None:
        self.consts = consts
        self.terms = terms

    def __len__(self) -> int:
        return len(self.consts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [(c, self.terms) for c in self.consts[i]]
        return (self.consts[i], self.terms)

    def __iter__(self):
        return zip(self.consts, repeat(self.terms))

    def count(self, value) -> int:
        return self.consts.count(value[0]) if value[1] == self.terms else 0

    def __eq__(self, other) -> bool:
        if isinstance(other, Affine):
            return self.terms == other.terms and self.consts == other.consts
        return equal_per_thread(self, other)

    __hash__ = None


def equal_per_thread(a, b) -> bool:
    """Thread-by-thread equality that stops at the first difference (vectors of different
    forms rarely agree, and most per-thread values are then never built)."""
    return len(a) == len(b) and all(x == y for x, y in zip(a, b))


def uniform_vector(value, n: int) -> "Affine":
    return Affine([value[0]] * n, value[1])


def as_affine(values) -> Optional["Affine"]:
    """`values` as an Affine vector, or None when threads differ in their unknown terms."""
    if type(values) is Affine:
        return values
    if type(values) is Varying:
        return None
    terms = values[0][1]
    if any(v[1] != terms for v in values):
        return None
    return Affine([v[0] for v in values], terms)


def equal_under_bit(values, bit: int) -> bool:
    """Does every thread t hold the value of thread t ^ 2^bit (both in the block)? Compared as
    strided slices of the vector (an Affine's int list), not thread by thread."""
    items = values.consts if type(values) is Affine else values if type(values) is list else list(values)
    n = len(items)
    step = 1 << bit
    if step < n and items[0] != items[step]:  # threads 0 and 2^bit: the first pair either loop compares
        return False
    period = step << 1
    if step <= n // period:  # few offsets: one strided slice per offset within a period
        for r in range(min(step, n)):
            partners = items[r + step::period]
            if items[r::period][:len(partners)] != partners:
                return False
        return True
    for base in range(0, n, period):  # few periods: one contiguous slice per period
        high = base + step
        if high >= n:
            break
        partners = items[high:min(base + period, n)]
        if items[base:base + len(partners)] != partners:
            return False
    return True


def wrap_consts(consts: list, bits: int, signed: bool) -> list:
    if bits >= 128:
        return consts
    mask = (1 << bits) - 1
    if signed:
        half = 1 << (bits - 1)
        return [((c & mask) ^ half) - half for c in consts]
    return [c & mask for c in consts]


def uniform_const(vec: "Affine") -> Optional[int]:
    consts = vec.consts
    if vec.terms or consts.count(consts[0]) != len(consts):
        return None
    return consts[0]


class Varying(Sequence):
    """Per-thread values that are all different unknowns (data loaded per thread, clocks, ...):
    thread t holds the symbol `base#t`. Anything computed from them is again all-different and
    unknown, so it is not computed; the per-thread values are made only when looked at."""

    __slots__ = ("base", "n")

    def __init__(self, base: str, n: int) -> None:
        self.base = base
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[t] for t in range(self.n)[i]]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        return (0, ((f"{self.base}#{i}", 1),))

    def __iter__(self):
        base = self.base
        return ((0, ((f"{base}#{t}", 1),)) for t in range(self.n))

    def count(self, value) -> int:
        return 1 if value in self else 0

    def plus(self, offset: int) -> list:
        """Thread t's unknown plus a known offset, per thread (an address `[base + offset]`)."""
        base = self.base
        return [(offset, ((f"{base}#{t}", 1),)) for t in range(self.n)]

    def __eq__(self, other) -> bool:
        if isinstance(other, Varying):
            return self.base == other.base and self.n == other.n
        return equal_per_thread(self, other)

    __hash__ = None



def apply_per_distinct(fn, rows: list) -> list:
    """[fn(*row) for row in rows], calling fn once per distinct row, in the order rows first
    appear (fn may intern symbols, which are numbered in the order they are made)."""
    results = {row: fn(*row) for row in dict.fromkeys(rows)}
    return list(map(results.__getitem__, rows))


def where_predicate(reach: list, predicate: list, value: bool) -> tuple:
    """Per thread: still active after requiring `predicate == value` (None where the predicate is
    unknown), and whether any active thread's predicate was unknown."""
    if type(predicate) is Affine:  # the common forms, one comprehension each
        if not predicate.terms:
            return [False if r is False else (r if (c != 0) == value else False)
                    for r, c in zip(reach, predicate.consts)], False
        out = [False if r is False else None for r in reach]
        return out, None in out
    if type(predicate) is Varying:  # a different unknown in every thread
        out = [False if r is False else None for r in reach]
        return out, None in out
    out = []
    unknown = False
    for r, p in zip(reach, predicate):
        if r is False:
            out.append(False)
        elif not p[1]:
            out.append(r if (p[0] != 0) == value else False)
        else:
            unknown = True
            out.append(None)
    return out, unknown


def single_symbol(v) -> Optional[str]:
    """The symbol s when v is exactly s (no constant, coefficient 1)."""
    return v[1][0][0] if v[0] == 0 and len(v[1]) == 1 and v[1][0][1] == 1 else None


def exact_quotient(op: str, ins: Instruction, a: "Affine", k: Optional[int]) -> Optional["Affine"]:
    """`a >> k` or `a / k` term by term, when every unknown coefficient is a multiple of the
    divisor and the known parts are not negative: (c + d*m) / d = c / d + m (`gid / 4` with
    gid = blockIdx.x * 256 + threadIdx.x is blockIdx.x * 64 + threadIdx.x / 4)."""
    if k is None or k < 0:
        return None
    if op == "shr" and k >= 32:  # before the shift: a fuzzed `shr` by 2^64 - 1 made 1 << k a MemoryError
        return None
    d = 1 << k if op == "shr" else k
    if d <= 0 or op == "div" and ins.type in SIGNED:
        return None
    if any(c % d for _, c in a.terms) or any(c < 0 for c in a.consts):
        return None
    return Affine([c // d for c in a.consts], tuple((s, c // d) for s, c in a.terms))


def disjoint_bits_sum(a: "Affine", b: "Affine") -> Optional["Affine"]:
    """`a | b` (or `a ^ b`) as `a + b` when the bits cannot overlap: one side is known and below
    2^k while every constant and unknown coefficient of the other is a multiple of 2^k (nvcc
    writes `row * 1024 + lane` as an `or`)."""
    if a.terms and b.terms:
        return None
    low, high = (b, a) if a.terms else (a, b)
    top = max(low.consts, default=0)
    if min(low.consts, default=0) < 0:
        return None
    step = 1 << top.bit_length()
    if all(c % step == 0 for c in high.consts) and all(c % step == 0 for _, c in high.terms):
        return Affine([x + y for x, y in zip(high.consts, low.consts)], high.terms)
    return None


def with_low_bits(op: str, const: int, terms: tuple, k: int) -> Optional[int]:
    """The known part of `(const + U) ^ k` (or `| k`) when every unknown coefficient of U is a
    multiple of a power of two above k: adding U never changes the low bits k touches, so only
    the known part's low bits change (`gid ^ 1` with gid = 256 * blockIdx.x + tid is
    256 * blockIdx.x + (tid ^ 1)). None when the unknowns may reach those bits."""
    if k <= 0:
        return None
    step = 1 << k.bit_length()
    if not all(c % step == 0 for _, c in terms):
        return None
    low = const & (step - 1)
    return const - low + (low ^ k if op == "xor" else low | k)


def low_bits_changed(op: str, a: "Affine", b: "Affine") -> Optional["Affine"]:
    """`a ^ k` / `a | k` for a block-wide constant k (either side) by with_low_bits, per thread."""
    if a.terms and b.terms:
        return None
    x, k = (a, b) if a.terms else (b, a)
    value = uniform_const(k)
    if value is None or not x.terms:
        return None
    consts = [with_low_bits(op, c, x.terms, value) for c in x.consts]
    return None if any(c is None for c in consts) else Affine(consts, x.terms)


def masked_away(terms: tuple, mask: int) -> bool:
    """Do unknown terms vanish under `x & mask`? They do when each is a multiple of the power of two
    above the mask's highest bit: adding them never changes the bits the mask keeps (`i & 3` with
    i = blockIdx.x * 256 + threadIdx.x is threadIdx.x & 3)."""
    step = 1 << mask.bit_length()
    return all(c % step == 0 for _, c in terms)


def all_distinct_unknowns(values: list) -> bool:
    """Every thread holds a different value and none is known."""
    if type(values) is Varying:
        return True
    return all(v[1] for v in values) and len(set(values)) == len(values)


def _u(x, bits):
    return x & ((1 << bits) - 1)


def _shr(ins, v, bits, signed):
    x, k = v
    if signed:
        x = x - (1 << bits) if _u(x, bits) >> (bits - 1) else _u(x, bits)
        return x >> min(k, bits - 1)
    return _u(x, bits) >> k if k < bits else 0


def _div(ins, v, bits, signed):
    x, y = v
    if signed:
        q = abs(x) // abs(y)
        return q if (x >= 0) == (y >= 0) else -q
    return _u(x, bits) // _u(y, bits)


def _rem(ins, v, bits, signed):
    x, y = v
    if signed:
        r = abs(x) % abs(y)
        return r if x >= 0 else -r
    return _u(x, bits) % _u(y, bits)


def _bfe(ins, v, bits, signed):
    x, pos, length = v[0], v[1] & 0xFF, v[2] & 0xFF
    if length == 0:
        return 0
    field = (_u(x, bits) >> pos) & ((1 << length) - 1) if pos < bits else 0
    if signed and field >> (length - 1):
        field -= 1 << length
    return field


def _bfi(ins, v, bits, signed):
    a, b, pos, length = v[0], v[1], v[2] & 0xFF, v[3] & 0xFF
    mask = ((1 << length) - 1) << pos
    return (_u(b, bits) & ~mask) | ((a << pos) & mask)


def _prmt(ins, v, bits, signed):
    a, b, sel = _u(v[0], 32), _u(v[1], 32), v[2]
    src = a | (b << 32)
    out = 0
    for k in range(4):
        s = (sel >> (4 * k)) & 0xF
        byte = (src >> (8 * (s & 7))) & 0xFF
        if s & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * k)
    return out


def _mul_hi(ins, v, bits, signed):
    return (v[0] * v[1]) >> bits


CONCRETE_OPS = {
    "and": lambda ins, v, bits, s: v[0] & v[1],
    "or": lambda ins, v, bits, s: v[0] | v[1],
    "xor": lambda ins, v, bits, s: v[0] ^ v[1],
    "not": lambda ins, v, bits, s: ~v[0],
    "shr": _shr,
    "div": _div,
    "rem": _rem,
    "min": lambda ins, v, bits, s: min(v[0], v[1]),
    "max": lambda ins, v, bits, s: max(v[0], v[1]),
    "abs": lambda ins, v, bits, s: abs(v[0]),
    "bfe": _bfe,
    "bfi": _bfi,
    "prmt": _prmt,
    "mul": _mul_hi,  # mul.hi (mul.lo / mul.wide are linear and handled before)
    "popc": lambda ins, v, bits, s: bin(_u(v[0], bits)).count("1"),
    "clz": lambda ins, v, bits, s: bits - _u(v[0], bits).bit_length(),
    "brev": lambda ins, v, bits, s: int(format(_u(v[0], bits), f"0{bits}b")[::-1], 2),
}

# Opcodes whose result is a function of their operands alone (no memory, no other thread, no
# clock) and that the evaluator has no closer model of: threads with equal inputs get equal values.
PURE_OPS = frozenset([
    "fma", "mad", "mul24", "mad24", "sad", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh",
    "copysign", "testp", "lop3", "shf", "dp4a", "dp2a", "bfind", "fns", "cnot", "set", "slct", "bmsk",
    "szext",
])

AFFINE_OPS = frozenset(["add", "sub", "mul", "mad", "shl", "cvt", "mov", "cvta"]) | frozenset(CONCRETE_OPS)

COMPARE = {
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y,
    "lo": lambda x, y: x < y, "ls": lambda x, y: x <= y, "hi": lambda x, y: x > y, "hs": lambda x, y: x >= y,
}
