"""Kernel arguments the launch computes from its own grid and block.

`k<<<blocks, threads>>>(blocks * threads)` passes the launch's thread count, whatever the run-time
values of `blocks` and `threads`; `for (base = 0; ...; base += blocks * threads) k<<<blocks,
threads>>>(base)` passes a multiple of it. Neither is a value the host code gives, yet the kernel
can rely on the relation: an index bounded by the first never reaches it, and an offset of the
second keeps every block's threads aligned as `blockIdx.x * blockDim.x + threadIdx.x` is. The
relation is read as products of host names (a `LaunchShare`); a name that changes between its
definition and the launch is no factor, except a variable that only ever holds multiples.

A mixin of `LaunchFinder` (finder.py).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Optional

from ..cpp_preprocess import IDENT, Unknown
from ..launch_expr import Multiple
from .launch import LaunchShare

MAX_DEPTH = 8  # variables followed through their definitions, at most
# expressions and variables one argument's relation is read through, at most: a variable may be
# assigned many times from variables assigned many times, which would branch without end, and a
# product of thousands of factors would cost their square
MAX_STEPS = 256
_TYPE_WORDS = {"unsigned", "signed", "int", "long", "short", "char", "size_t", "const", "::", "*"}
_FAILURES = (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError)


class LaunchRelations:
    """Arguments related to the launch's grid and block (`LaunchShare`)."""

    def _launch_shares(self, frame, chain, grid, block, call, pos, region, values: tuple) -> tuple:
        """`values` (the call's argument values) with a LaunchShare where an argument the host
        code does not give (or gives only a factor of) is a product of the launch's x extents
        (`blocks * threads`, or `blocks * threads / 8` when the block is `threads << 3`) or a multiple
        of one."""
        if call is None or grid is None or block is None \
                or not any(v is None or isinstance(v, Multiple) for v in values):
            return values
        self._relation_steps = MAX_STEPS
        grid_x = self._dimension_x(frame, chain, *grid, pos, region)
        block_x = self._dimension_x(frame, chain, *block, pos, region)
        if block_x is None:
            return values
        both = _times(grid_x, block_x) if grid_x is not None else None
        out = list(values)
        for k, (a, b) in enumerate(self._kernel_call_args(call)):
            if k >= len(out) or out[k] is not None and not isinstance(out[k], Multiple):
                continue  # a value, or a pointer offset: nothing to add
            self._relation_steps = MAX_STEPS
            term = self._product(frame, chain, a, b, pos, region, 0)
            if term is None:  # not one product: a sum of multiples, or a variable that only holds them
                def multiple_of(of, a=a, b=b):
                    return self._is_multiple(frame, chain, a, b, of, pos, region, 0, set())
            else:
                def multiple_of(of, term=term):
                    return _divides(of, term)
            if term is not None and both is not None and term[1] == both[1] and term[0] > 0:
                out[k] = LaunchShare.of(term[0] / both[0], grid=True, multiple=False)
            elif term is not None and term[1] == block_x[1] and term[1] and term[0] > 0:
                out[k] = LaunchShare.of(term[0] / block_x[0], grid=False, multiple=False)
            elif both is not None and multiple_of(both):
                out[k] = LaunchShare.of(Fraction(1), grid=True, multiple=True)
            elif multiple_of(block_x):
                out[k] = LaunchShare.of(Fraction(1), grid=False, multiple=True)
        return tuple(out)

    def _dimension_x(self, frame, chain, a, b, pos, region):
        """The x extent of a grid or block argument as a product, where y and z are 1 (an integer,
        `dim3(n)`, or a variable declared so); None otherwise."""
        a, b = self._without_parens(a, b)
        toks = self.toks
        if toks[a].text == "dim3" and a + 1 < b and toks[a + 1].text in ("(", "{"):
            return self._first_of_three(frame, chain, a + 2, self._close(a + 1, b), pos, region)
        if b - a == 1 and toks[a].kind == IDENT:
            decl, dframe = self._lookup_decl(frame, chain, toks[a].text, pos)
            if decl is not None and decl.kind == "var" and "dim3" in decl.type_text:
                if decl.init is None or dframe is not frame or frame.mods.get(decl.name):
                    return None
                how, s, e = decl.init
                if how == "=":
                    return self._dimension_x(frame, chain, s, e, pos, region)
                return self._first_of_three(frame, chain, s, e, pos, region)
        return self._product(frame, chain, a, b, pos, region, 0)

    def _first_of_three(self, frame, chain, a, b, pos, region):
        pieces = self._split_commas(a, b)
        if not pieces:
            return None
        for s, e in pieces[1:]:
            try:
                if self._evaluate(frame, chain, s, e, pos, region, None) != 1:
                    return None
            except _FAILURES:
                return None
        return self._product(frame, chain, *pieces[0], pos, region, 0)

    def _product(self, frame, chain, a, b, pos, region, depth) -> Optional[tuple]:
        """(coefficient, names) with the expression in tokens a..b equal to the coefficient times
        the product of the names (a sorted tuple, repeated names repeated): `blocks * threads` is
        (1, ("blocks", "threads")), `ctx->threads << 3` (8, ("ctx->threads",)). Names are host
        values read as they are at the launch; a variable is followed to its definition when
        nothing changes it after. None for anything that is not such a product."""
        if depth > MAX_DEPTH or not self._step():
            return None
        a, b = self._bare(a, b)
        if a >= b:
            return None
        try:
            value = self._evaluate(frame, chain, a, b, pos, region, None)
        except _FAILURES:
            value = None
        if isinstance(value, int) and not isinstance(value, bool):
            return Fraction(value), ()
        toks = self.toks
        operators = [j for j in self._top_level(a, b) if toks[j].text in ("+", "-", "*", "/", "%", "<<", ">>",
                                                                        "&", "|", "^", "?", ":", "&&", "||")]
        if not operators:
            return self._name_product(frame, chain, a, b, pos, region, depth)
        if all(toks[j].text == "*" for j in operators):
            total = (Fraction(1), ())
            for s, e in zip([a] + [j + 1 for j in operators], operators + [b]):
                part = self._product(frame, chain, s, e, pos, region, depth + 1)
                if part is None:
                    return None
                total = _times(total, part)
            return total
        if len(operators) == 1 and toks[operators[0]].text == "<<":
            j = operators[0]
            left = self._product(frame, chain, a, j, pos, region, depth + 1)
            try:
                shift = self._evaluate(frame, chain, j + 1, b, pos, region, None)
            except _FAILURES:
                return None
            if left is None or not isinstance(shift, int) or isinstance(shift, bool) or not 0 <= shift < 63:
                return None
            return left[0] * (1 << shift), left[1]
        return None

    def _name_product(self, frame, chain, a, b, pos, region, depth) -> Optional[tuple]:
        """A name or member access (`threads`, `ctx->device_threads`) as a product: a local
        variable nothing changes after its definition is its definition; any other is a name."""
        toks = self.toks
        if any(t.kind != IDENT and t.text not in ("->", ".", "::") for t in toks[a:b]):
            return None
        if b - a == 1:
            decl, dframe = self._lookup_decl(frame, chain, toks[a].text, pos)
            if decl is not None and decl.kind == "var":
                init = self._single_initializer(decl)
                if dframe is not frame or frame.mods.get(decl.name) or init is None:
                    return None  # a variable that changes holds no one product
                return self._product(frame, chain, *init, pos, region, depth + 1)
            if decl is not None and decl.kind == "param" and frame.mods.get(decl.name):
                return None
        return Fraction(1), (" ".join(t.text for t in toks[a:b]),)

    def _is_multiple(self, frame, chain, a, b, of: tuple, pos, region, depth, visiting: set) -> bool:
        """Is the expression in tokens a..b an integer multiple of the product `of`, whatever the
        values the host code does not give: a product holding it, 0, a sum or difference of such,
        or a variable that only ever holds such (`base = 0; ...; base += run` with `run` one)?"""
        if depth > MAX_DEPTH or not self._step():
            return False
        a, b = self._bare(a, b)
        if a >= b:
            return False
        term = self._product(frame, chain, a, b, pos, region, depth + 1)
        if term is not None:
            return term[0] == 0 or _divides(of, term)
        toks = self.toks
        top = self._top_level(a, b)
        signs = [j for j in top if toks[j].text in ("+", "-") and j > a and toks[j - 1].text not in _BINARY]
        if signs and not any(toks[j].text in ("?", ":", "<<", ">>", "&", "|", "^", "/", "%") for j in top):
            return all(self._is_multiple(frame, chain, s, e, of, pos, region, depth + 1, visiting)
                       for s, e in zip([a] + [j + 1 for j in signs], signs + [b]))
        if b - a != 1 or toks[a].kind != IDENT:
            return False
        decl, dframe = self._lookup_decl(frame, chain, toks[a].text, pos)
        if decl is None or decl.kind != "var" or dframe is not frame:
            return False
        if decl.name in visiting:
            return True  # `base += run` read inside base's own update: the induction's hypothesis
        mods = frame.mods.get(decl.name, [])
        if not mods or any(m.kind != "assign" or m.path or m.op not in ("=", "+=", "-=") or m.rhs is None
                           for m in mods):
            return False
        inner = visiting | {decl.name}
        sources = [m.rhs for m in mods]
        if decl.init is not None:
            init = self._single_initializer(decl)
            if init is None:
                return False
            sources.append(init)
        return all(self._is_multiple(frame, chain, s, e, of, pos, region, depth + 1, inner) for s, e in sources)

    def _step(self) -> bool:
        """Spend one of the MAX_STEPS an argument's relation may take; False once they are spent
        (the argument then has no relation: a finding keeps what it would have without one)."""
        self._relation_steps -= 1
        return self._relation_steps >= 0

    def _single_initializer(self, decl) -> Optional[tuple]:
        """(start, end) of the one expression a variable is initialised with (`= e`, `(e)`, `{e}`)."""
        if decl.init is None:
            return None
        how, s, e = decl.init
        if how == "=":
            return s, e
        pieces = self._split_commas(s, e)
        return pieces[0] if len(pieces) == 1 else None

    def _bare(self, a, b):
        """a..b without parentheses around it and without leading casts (`(uint32_t)`,
        `static_cast<int>(...)`), which leave a product a product."""
        toks = self.toks
        while True:
            a, b = self._without_parens(a, b)
            if b - a > 2 and toks[a].text == "(" and self.match[a] is not None and self.match[a] < b - 1 \
                    and all(t.text in _TYPE_WORDS or t.kind == IDENT and t.text.endswith("_t")
                            for t in toks[a + 1:self.match[a]]):
                a = self.match[a] + 1
                continue
            if toks[a].text == "static_cast" and a + 1 < b and toks[a + 1].text == "<":
                close = self._angle_close(a + 1, b)
                if close is None or close + 1 >= b or toks[close + 1].text != "(" \
                        or self.match[close + 1] != b - 1:
                    return a, b
                a, b = close + 2, b - 1
                continue
            return a, b


_BINARY = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "(", ",", "=", "?", ":"}


def _times(x: tuple, y: tuple) -> tuple:
    return x[0] * y[0], tuple(sorted(x[1] + y[1]))


def _divides(of: tuple, term: tuple) -> bool:
    """Is `term` an integer multiple of `of`: every name of `of` among its names (as often), and
    an integer coefficient ratio?"""
    if of[0] == 0:
        return False
    left = Counter(term[1])
    left.subtract(Counter(of[1]))
    ratio = term[0] / of[0]
    return min(left.values(), default=0) >= 0 and ratio.denominator == 1
