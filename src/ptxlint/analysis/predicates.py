"""Three-valued predicates: one thread's predicate is true, false, or unknown.

A predicate is a `symbolic.Value` that is 0 or 1: known ones are the constants 0 and 1, unknown
ones are sums of boolean symbols (each 0 or 1). The complement of an unknown `p` is kept exactly as
`1 - p`, so that `x < n` and `x >= n` are recognised as complements of one unknown, and logic
short-circuits where one side is known: `true || unknown` is true, `false && unknown` is false.

Literals and contradictions: a thread that runs an access under an unknown condition carries the
literal (value, wanted) -- "this predicate had to be `wanted`". Two literals contradict when they
ask one predicate value (the same symbolic value, so the same unknown in both threads) to be true
and false at once.
"""

from __future__ import annotations

from typing import Callable, Optional

from . import symbolic as S

TRUE = S.const(1)
FALSE = S.const(0)

Opaque = Callable[[tuple], tuple]  # key -> an unknown that is equal for equal keys


def known_truth(v) -> Optional[bool]:
    """True / False for a known predicate, None for an unknown one."""
    if v[1]:
        return None
    return v[0] != 0


def p_not(v):
    """`not.pred` (and `!p`): exact, also for unknowns (1 - p)."""
    if not v[1]:
        return FALSE if v[0] != 0 else TRUE
    return (1 - v[0], tuple((sym, -c) for sym, c in v[1]))  # 1 - p, terms stay sorted and nonzero


def complementary(a, b) -> bool:
    """a is `not b` (both unknown): their sum is the constant 1."""
    return bool(a[1]) and S.add(a, b) == TRUE


def p_and(a, b, opaque: Opaque):
    """`and.pred`: false when either side is false, the other side when one is true."""
    ta, tb = known_truth(a), known_truth(b)
    if ta is False or tb is False:
        return FALSE
    if ta is True:
        return b if tb is None else TRUE
    if tb is True:
        return a
    if a == b:
        return a
    if complementary(a, b):
        return FALSE
    return opaque(("pred-and",) + tuple(sorted((a, b))))


def p_or(a, b, opaque: Opaque):
    """`or.pred`: true when either side is true; `a || b` is `!(!a && !b)`, so that both share symbols."""
    return p_not(p_and(p_not(a), p_not(b), opaque))


def p_xor(a, b, opaque: Opaque):
    """`xor.pred`: known when both sides are, else the other side or its complement when one is."""
    ta, tb = known_truth(a), known_truth(b)
    if ta is not None and tb is not None:
        return TRUE if ta != tb else FALSE
    if ta is not None:
        return p_not(b) if ta else b
    if tb is not None:
        return p_not(a) if tb else a
    if a == b:
        return FALSE
    if complementary(a, b):
        return TRUE
    return opaque(("pred-xor",) + tuple(sorted((a, b))))


COMBINE = {"and": p_and, "or": p_or, "xor": p_xor}

# integer comparisons written with `lt` (or `lo`) and `eq` only: x >= y is not (x < y), x > y is y < x
# (not for floats: every ordered float comparison is false on a NaN, so `ge` is not `not lt` there)
_CANONICAL = {
    "lt": ("lt", False, False), "ge": ("lt", False, True), "gt": ("lt", True, False), "le": ("lt", True, True),
    "lo": ("lo", False, False), "hs": ("lo", False, True), "hi": ("lo", True, False), "ls": ("lo", True, True),
    "eq": ("eq", False, False), "ne": ("eq", False, True),
}
_UNSIGNED_ALIASES = {"lt": "lo", "le": "ls", "gt": "hi", "ge": "hs"}


def canonical_form(cmp: str, type_name: Optional[str]) -> Optional[tuple]:
    """(base comparison, swap the operands, negate the result, width) of an integer comparison in
    the canonical terms of canonical_compare; None for the ones it does not canonicalise."""
    if not type_name or type_name[:1] not in "usb" or not type_name[1:].isdigit():
        return None
    if type_name[:1] in "ub":
        cmp = _UNSIGNED_ALIASES.get(cmp, cmp)
    form = _CANONICAL.get(cmp)
    return None if form is None else form + (type_name[1:],)


def canonical_key(form: tuple, x, y) -> tuple:
    """The unknown's key of canonical_compare for operands x, y in a canonical form."""
    base, swap, _, bits = form
    if swap:
        x, y = y, x
    if base == "eq":
        x, y = sorted((x, y))
    return ("compare", base, bits, x, y)


def canonical_compare(cmp: str, type_name: Optional[str], x, y, opaque: Opaque):
    """An integer comparison of values whose difference is unknown, as one boolean unknown per
    (comparison, operands) or its complement: `setp.ge x, n` is `1 - setp.lt x, n`. None for
    comparisons this does not canonicalise (floats, unordered forms)."""
    form = canonical_form(cmp, type_name)
    if form is None:
        return None
    value = opaque(canonical_key(form, x, y))
    return p_not(value) if form[2] else value


def common_stride(x, y, bits: int) -> int:
    """The largest power of two that divides every unknown coefficient of x and y, at most 2^15 and
    below 2^(bits-1): a stride must divide 2^w for every width w the values were wrapped to on their
    way (a 16-bit value widened to 32 bits), and block-sized strides are far smaller."""
    g = 0
    for _, c in x[1] + y[1]:
        g |= abs(c)
    if not g:
        return 1
    return min(g & -g, 1 << min(bits - 1, 15))


def strided_compare(cmp: str, type_name: Optional[str], x, y, opaque: Opaque):
    """An integer comparison whose unknown parts are multiples of a power of two m, decided by the
    known parts' quotients by m: for x = c + U and y = d + V (m divides U and V, c = m*q + r and
    d = m*q' + r' with 0 <= r, r' < m), `x < y` is `m*q + U < m*q' + V` when r >= r' and
    `!(m*q' + V < m*q + U)` when r < r', also with wrap-around (m divides 2^bits), so threads whose
    known parts share a quotient get the same unknown: `tid + 128*k < 128*n` for tid in 0..127 is
    one value for the whole block (a loop bounded by a multiple of its stride), `tid/32 + 8*b < n`
    one per warp. None when no stride helps (m = 1) or for comparisons this does not handle."""
    form = canonical_form(cmp, type_name)
    if form is None:
        return None
    m = common_stride(x, y, int(form[3]))
    if m <= 1:
        return None
    q, r = divmod(x[0], m)
    q2, r2 = divmod(y[0], m)
    big_x, big_y = (q * m, x[1]), (q2 * m, y[1])
    less = "lt" if type_name[:1] == "s" else "lo"
    kind, swap, negate, _ = form
    if kind == "eq":
        if r != r2:
            return TRUE if negate else FALSE
        return canonical_compare("ne" if negate else "eq", type_name, big_x, big_y, opaque)
    if swap:
        big_x, big_y, r, r2 = big_y, big_x, r2, r
    # x < y: X < Y, or X == Y and r < r'
    if r < r2:
        found = canonical_compare(less, type_name, big_y, big_x, opaque)  # !(Y < X)
        return found if negate else p_not(found)
    found = canonical_compare(less, type_name, big_x, big_y, opaque)
    return p_not(found) if negate else found


def boolean_compare(cmp: str, x, y, is_boolean: Callable[[str], bool]):
    """`x == k` / `x != k` where x = c + d*s for one boolean unknown s (nvcc's `selp 1, 0, p` then
    `setp.ne r, 0`): s itself, its complement, or a constant. None when x is not of that form."""
    if cmp not in ("eq", "ne") or not S.is_known(y) or len(x[1]) != 1:
        if cmp in ("eq", "ne") and S.is_known(x) and len(y[1]) == 1:
            x, y = y, x
        else:
            return None
    (sym, d), = x[1]
    if not is_boolean(sym):
        return None
    s = (0, ((sym, 1),))
    k = y[0]
    if k == x[0]:
        equal = p_not(s)  # x == c exactly when s == 0
    elif k == x[0] + d:
        equal = s
    else:
        equal = FALSE
    return p_not(equal) if cmp == "ne" else equal


def literal(value, wanted: bool) -> tuple:
    """The requirement `value == wanted` in a canonical form: (unknown value, wanted), the value
    taken with its unit coefficient positive (1 - p wanted false is p wanted true)."""
    if value[1] and value[1][0][1] < 0:
        return (p_not(value), not wanted)
    return (value, wanted)


def contradict(literals_a, literals_b, key_of=None) -> bool:
    """Can no run satisfy both sets of literals? True when one unknown must be both true and false,
    or (given `key_of`, the symbol table's symbol -> key) when two equalities must both hold whose
    sides differ by the same unknown and different constants: `iy == iy_end - 1` in two threads of
    one block whose iy differ (a guard that admits one row) cannot hold in both."""
    if not literals_a or not literals_b:
        return False
    wanted = dict(literals_a)
    if any(wanted.get(v, w) != w for v, w in literals_b):
        return True
    if key_of is None:
        return False
    held_a = _all_equalities_held(literals_a, key_of)
    if held_a:
        for d_b in _all_equalities_held(literals_b, key_of):
            for d_a in held_a:
                if d_a[0] == d_b[0] and d_a[2] == d_b[2] and d_a[1] != d_b[1]:
                    return True
    if not _bounds_meet(literals_a, literals_b, key_of):
        return True
    windows_a = _unsigned_windows(tuple(literals_a), key_of)
    if windows_a:
        for key, window_b in _unsigned_windows(tuple(literals_b), key_of).items():
            window_a = windows_a.get(key)
            if window_a is not None and not _windows_meet(window_a, window_b, key[1]):
                return True
    return False


def _unsigned_windows(literals, key_of) -> dict:
    return _cached(key_of, "_unsigned_windows", literals, _find_unsigned_windows)


def _find_unsigned_windows(literals, key_of) -> dict:
    """{(unknown terms, modulus): (low, high)}: the values modulo 2^bits that the unknown terms may
    take, from unsigned comparisons with a known side that the literals require: `x <u K` for x =
    terms + c holds only for terms in [-c, K - 1 - c] (wrapping), and fails only for terms in [K -
    c, -1 - c]. Two threads whose x differ only in c (`(p - 16 * t) <u 16` with t the thread's
    index) pass such a test together only when their windows meet: one thread in 16 here."""
    found: dict = {}
    for key, holds in (fact for lit in literals for fact in _comparisons_held(lit, key_of)):
        if key[1] != "lo":
            continue
        _, _, bits, x, y = key
        try:
            modulus = 1 << int(bits)
        except ValueError:
            continue
        if S.is_known(y) and x[1]:  # x < K
            terms, c, k = x[1], x[0], y[0] % modulus
            low, high = (0, k - 1) if holds else (k, modulus - 1)
        elif S.is_known(x) and y[1]:  # K < y
            terms, c, k = y[1], y[0], x[0] % modulus
            low, high = (k + 1, modulus - 1) if holds else (0, k)
        else:
            continue
        if low > high:
            continue
        window = ((low - c) % modulus, high - low)  # start of the window for the terms, and its width
        if (terms, modulus) in found and found[(terms, modulus)] != window:
            continue  # two windows on one unknown: keep the first (a narrower meet is not needed)
        found[(terms, modulus)] = window
    return found


def _windows_meet(a: tuple, b: tuple, modulus: int) -> bool:
    """Do the windows (start, width) of values modulo `modulus` share a value?"""
    (sa, wa), (sb, wb) = a, b
    return (sb - sa) % modulus <= wa or (sa - sb) % modulus <= wb


def held_equalities(literals, key_of) -> dict:
    """{(unknown terms, modulus): constant} of the integer equalities `x == y` the literals require,
    x - y written as terms + constant: threads whose equalities on one key have different constants
    cannot run together (contradict())."""
    out = {}
    for terms, constant, modulus in _all_equalities_held(literals, key_of):
        out[(terms, modulus)] = constant
    return out


def _all_equalities_held(literals, key_of) -> list:
    """The equalities of _equalities_held, and those that bounds from both sides pin down: a thread
    that passes `x < w` and fails `x + 1 < w` has x - w == -1."""
    return _stated_equalities(tuple(literals), key_of) + _pinned_by_bounds(literals, key_of)


def _stated_equalities(literals: tuple, key_of) -> list:
    """_equalities_held of every literal, once per set of literals (`_cached`)."""
    return _cached(key_of, "_stated_equalities", literals,
                   lambda found, key: [d for lit in found for d in _equalities_held(lit, key)])


def _pinned_by_bounds(literals, key_of) -> list:
    """[(unknown terms, constant, modulus)] of `terms + constant == 0` for each difference of two
    values that the literals' comparisons bound from above and below by the same number
    (`_difference_bounds`)."""
    found = []
    for (terms, bits, _), (low, high) in _difference_bounds(tuple(literals), key_of).items():
        if low is not None and low == high:
            try:
                modulus = 1 << int(bits)
            except ValueError:
                continue
            found.append((terms, (-low) % modulus, modulus))
    return found


def _difference_bounds(literals, key_of) -> dict:
    return _cached(key_of, "_difference_bounds", literals, _find_difference_bounds)


def _cached(key_of, name: str, literals: tuple, find):
    """find(literals, key_of), worked out once per set of literals and kept with the symbol table
    `key_of` belongs to (so it goes with the kernel's analysis): contradict() is asked for many pairs
    of threads with the same literals."""
    owner = getattr(key_of, "__self__", None)
    cache = owner.__dict__.setdefault(name, {}) if owner is not None and hasattr(owner, "__dict__") else None
    if cache is None:
        return find(literals, key_of)
    found = cache.get(literals)
    if found is None:
        found = cache[literals] = find(literals, key_of)
    return found


def _find_difference_bounds(literals, key_of) -> dict:
    """{(unknown terms, bits, "lt" or "lo"): [lowest, highest]} (None where unbounded) of the value of
    the unknown terms of each difference of two values that the literals' signed or unsigned
    comparisons (`lt`/`lo`, with their complements `ge`/`hs`; `gt` and `le` swap the operands), also
    inside conjunctions that must hold, bound (signed and unsigned ones apart: a negative n read as
    unsigned is a huge count). The difference is taken as the integer it is written as (no wrap-around), as the values
    of a kernel's index arithmetic are. Unsigned ones too: an `x < y` that holds leaves room above x
    (y >= 1), so the `x + 1 < y` that fails beside it does not wrap, and x == y - 1 as for signed
    values: a thread that passes `x < w` and fails `x + 1 < w` has x - w == -1."""
    bounds: dict = {}  # (terms, bits, comparison) -> [lowest, highest] value of the terms
    for key, holds in (fact for lit in literals for fact in _comparisons_held(lit, key_of)):
        if key[1] not in ("lt", "lo"):
            continue
        _, _, bits, x, y = key
        constant, difference = S.sub(x, y)  # x < y holds: difference + constant <= -1; else >= 0
        if not difference:
            continue
        sign = 1
        if difference[0][1] < 0:
            sign, difference = -1, tuple((sym, -c) for sym, c in difference)
        limit = -1 - constant if holds else -constant  # sign * terms <= limit (holds), >= limit (not)
        bound = bounds.setdefault((difference, bits, key[1]), [None, None])
        if (sign == 1) == holds:  # an upper bound on the terms
            bound[1] = limit * sign if bound[1] is None else min(bound[1], limit * sign)
        else:
            bound[0] = limit * sign if bound[0] is None else max(bound[0], limit * sign)
    return bounds


def _bounds_meet(literals_a, literals_b, key_of) -> bool:
    """Can the unknowns take values that satisfy both threads' bounds (`_difference_bounds`), with
    each thread's equalities (`_stated_equalities`) as bounds of one value? Threads that share an
    unknown (a parameter, blockIdx) cannot run together where one pins it to 1 (`i == nbg - 1` with
    i = 0) and the other bounds it above 1 (`i < nbg` with i = 1)."""
    sides = []
    for literals in (literals_a, literals_b):
        bounds = {key: list(value) for key, value in _difference_bounds(tuple(literals), key_of).items()}
        for terms, constant, modulus in _stated_equalities(tuple(literals), key_of):
            bits = str(modulus.bit_length() - 1)
            value = (-constant) % modulus
            if value >= modulus // 2:
                value -= modulus  # the difference as the integer it is written as, as the bounds take it
            for kind in ("lo", "lt"):
                bound = bounds.setdefault((terms, bits, kind), [None, None])
                bound[0] = value if bound[0] is None else max(bound[0], value)
                bound[1] = value if bound[1] is None else min(bound[1], value)
        sides.append(bounds)
    for key, (low_a, high_a) in sides[0].items():
        other = sides[1].get(key)
        if other is None:
            continue
        lows = [v for v in (low_a, other[0]) if v is not None]
        highs = [v for v in (high_a, other[1]) if v is not None]
        if lows and highs and max(lows) > min(highs):
            return False
    return True


def _comparisons_held(literal, key_of, depth: int = 0) -> list:
    """[(comparison key, whether it holds)] that the literal requires: its unknown's comparison, or
    those of every part of a conjunction that must be true."""
    value, wanted = literal
    terms = value[1]
    if len(terms) != 1 or depth > 8:
        return []
    symbol, coef = terms[0]
    if (value[0], coef) == (0, 1):
        holds = bool(wanted)
    elif (value[0], coef) == (1, -1):
        holds = not wanted
    else:
        return []
    key = key_of(symbol)
    if isinstance(key, tuple) and len(key) == 2 and key[0] == "opaque":
        key = key[1]
    if not isinstance(key, tuple) or not key:
        return []
    if key[0] == "pred-and" and len(key) == 3:
        return [f for part in key[1:] for f in _comparisons_held((part, True), key_of, depth + 1)] if holds else []
    if len(key) == 5 and key[0] == "compare":
        return [(key, holds)]
    return []


def _equalities_held(literal, key_of) -> list:
    """[(unknown terms, constant, modulus) of x - y] for every integer equality `x == y` that the
    literal requires to hold: its canonical unknown true (or its complement false), also inside a
    conjunction that must be true (nvcc's `and.pred` of `x < nx` and `y == ny - 1`)."""
    found = []
    for key, holds in _comparisons_held(literal, key_of):
        if not holds or key[1] != "eq":
            continue
        _, _, bits, x, y = key
        difference = S.sub(x, y)
        if difference[1] and difference[1][0][1] < 0:  # x == y is y == x: one sign for the unknowns
            difference = S.sub(y, x)
        try:
            modulus = 1 << int(bits)
        except ValueError:
            continue
        found.append((difference[1], difference[0] % modulus, modulus))
    return found
