"""A PTX module's text cut into parts that parse on their own, for parsing and checking a large
file in several processes at once (api.py).

A part is the whole text with the bodies of the other parts' functions replaced by as many
newlines as they spanned: module-level declarations, `.file` lines and DWARF sections stay in
every part, and every line keeps its number. The functions are found with a light scan of the
text, not the grammar; a caller checks that each part parsed into the functions it was given.
"""

from __future__ import annotations

import re
from typing import Optional

_FUNCTION_START = re.compile(r"^[ \t]*(?:\.(?:visible|weak|extern)[ \t]+)*\.(?:entry|func)\b", re.MULTILINE)
# comments and strings are matched whole so that the braces and semicolons in them are skipped
_HEADER_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{;]', re.DOTALL)
_BODY_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{}]', re.DOTALL)


def function_spans(text: str) -> Optional[list]:
    """(start, end) of each function definition (header and body), in order; declarations without
    a body are left out. None when a body does not close."""
    spans = []
    pos = 0
    while True:
        start = _FUNCTION_START.search(text, pos)
        if start is None:
            return spans
        body = None
        pos = len(text)
        for token in _HEADER_TOKENS.finditer(text, start.end()):
            if token.group() in ("{", ";"):
                body = token.start() if token.group() == "{" else None
                pos = token.end()
                break
        if body is None:  # a declaration
            continue
        end = _body_end(text, body)
        if end is None:
            return None
        spans.append((start.start(), end))
        pos = end


def _body_end(text: str, brace: int) -> Optional[int]:
    depth = 0
    for token in _BODY_TOKENS.finditer(text, brace):
        if token.group() == "{":
            depth += 1
        elif token.group() == "}":
            depth -= 1
            if depth == 0:
                return token.end()
    return None


def part_text(text: str, spans: list, keep: set) -> str:
    """`text` with the functions of `spans` whose indices are not in `keep` blanked out."""
    pieces = []
    pos = 0
    for k, (start, end) in enumerate(spans):
        if k in keep:
            continue
        pieces.append(text[pos:start])
        pieces.append("\n" * text.count("\n", start, end))
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def balanced_parts(spans: list, parts: int) -> list:
    """Function indices in `parts` groups of about equal text, largest functions placed first
    (parsing and checking time both grow with a function's length)."""
    groups = [set() for _ in range(parts)]
    sizes = [0] * parts
    for k in sorted(range(len(spans)), key=lambda k: -(spans[k][1] - spans[k][0])):
        smallest = sizes.index(min(sizes))
        groups[smallest].add(k)
        sizes[smallest] += spans[k][1] - spans[k][0]
    return [g for g in groups if g]
