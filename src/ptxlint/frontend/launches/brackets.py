"""Bracket matching over the tokens of a translation unit: the partner of each `(`, `[`, `{`, the
`>` that closes a template's `<`, and the top-level comma-separated pieces of a range.

A mixin of `LaunchFinder` (finder.py), like the passes beside it: it reads `self.toks`, `self.n`
and `self.match` (filled by `_match_brackets` when the finder is made).
"""

from __future__ import annotations

from ..cpp_preprocess import IDENT


class Brackets:
    """Bracket matching and comma splitting over `self.toks`."""

    # ---- brackets
    def _match_brackets(self):
        match = [None] * self.n
        stack = []
        pairs = {")": "(", "]": "[", "}": "{"}
        for i, t in enumerate(self.toks):
            if t.text in ("(", "[", "{"):
                stack.append(i)
            elif t.text in pairs:
                # unbalanced code (e.g. both branches of an unknown #if): skip to the right opener
                while stack and self.toks[stack[-1]].text != pairs[t.text]:
                    stack.pop()
                if stack:
                    j = stack.pop()
                    match[i], match[j] = j, i
        return match

    def _close(self, i, limit=None):
        """Index of the bracket closing the one at i (or `limit`/end when unbalanced)."""
        j = self.match[i]
        if j is None or j < i:
            return (limit if limit is not None else self.n) - 1
        return j

    def _angle_close(self, i, end):
        """Index of the `>` closing the template `<` at i, or None."""
        depth = 0
        k = i
        while k < end:
            t = self.toks[k].text
            if t in ("(", "[", "{"):
                k = self._close(k, end) + 1
                continue
            if t == "<":
                depth += 1
            elif t == ">":
                depth -= 1
                if depth == 0:
                    return k
            elif t == ">>":
                depth -= 2
                if depth <= 0:
                    return k
            elif t in (";", "{", "}", "&&", "||") or t in (")", "]"):
                return None
            k += 1
        return None

    def _without_parens(self, a, b):
        """a..b without parentheses around the whole of it."""
        while b - a >= 2 and self.toks[a].text == "(" and self.match[a] == b - 1:
            a, b = a + 1, b - 1
        return a, b

    def _top_level(self, a, b) -> list:
        """The token indices in a..b outside any bracket."""
        out, k = [], a
        while k < b:
            if self.toks[k].text in ("(", "[", "{"):
                k = self._close(k, b) + 1
                continue
            out.append(k)
            k += 1
        return out

    def _kernel_call_args(self, call) -> list:
        """[(s, e)] of the kernel's arguments in a launch: `call` is the index of the `(` after
        `k<<<...>>>`, or (index of an API call's `(`, how many of its arguments come before the
        kernel's own: 5 for `hipLaunchKernelGGL(k, grid, block, shared, stream, args...)`)."""
        if isinstance(call, tuple):
            start, skip = call
            return self._split_commas(start + 1, self._close(start), angles=True)[skip:]
        close = self._close(call)
        return self._split_commas(call + 1, close, angles=True) if close > call + 1 else []

    def _split_commas(self, start, end, angles=False):
        """[(s, e)] of the top-level comma-separated pieces of start..end."""
        parts = []
        s = k = start
        while k < end:
            t = self.toks[k].text
            if t in ("(", "[", "{"):
                k = self._close(k, end) + 1
                continue
            if angles and t == "<" and k > start and self.toks[k - 1].kind == IDENT:
                c = self._angle_close(k, end)
                if c is not None:
                    k = c + 1
                    continue
            if t == ",":
                parts.append((s, k))
                s = k + 1
            k += 1
        if s < end or parts:
            parts.append((s, end))
        return parts
