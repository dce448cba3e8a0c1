"""A PTX module's text cut into parts that parse on their own, for parsing and checking a large
file in several processes at once (module_check.py).

A part is the whole text with the other parts' function definitions replaced by as many newlines
as they spanned: module-level declarations and `.file` lines stay in every part, and every line
keeps its number. DWARF `.section`s (nothing downstream reads them, yet they are most of what a
part would parse besides its functions) are kept in one part only, which still checks that they
parse. Definitions are found with a light scan of the text, not the grammar; a caller checks that
each part parsed into the functions and sections it was given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

_START = re.compile(r"^[ \t]*(?:(?P<function>(?:\.(?:visible|weak|extern)[ \t]+)*\.(?:entry|func))|\.section)\b",
                    re.MULTILINE)
# Comments and strings are matched whole so that the braces and semicolons in them are skipped;
# runs of other characters are matched whole too, which keeps the scan at C speed.
_HEADER_TOKENS = re.compile(r'[^{;"/]+|//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|.', re.DOTALL)
_BODY_TOKENS = re.compile(r'[^{}"/]+|//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|.', re.DOTALL)


@dataclass
class Outline:
    """(start, end, newlines) of each function definition and each section, in text order."""

    functions: list
    sections: list
    device_functions: set = field(default_factory=set)  # indices into `functions` of `.func` definitions


def outline(text: str) -> Optional[Outline]:
    """Where the function definitions (declarations without a body left out) and sections are;
    None when a body does not close."""
    found = Outline([], [])
    pos = 0
    while True:
        start = _START.search(text, pos)
        if start is None:
            return found
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
        if start.group("function") and start.group("function").endswith(".func"):
            found.device_functions.add(len(found.functions))
        spans = found.functions if start.group("function") else found.sections
        spans.append((start.start(), end, text.count("\n", start.start(), end)))
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


def part_text(text: str, layout: Outline, functions: set, with_sections: bool) -> str:
    """`text` with the function definitions whose indices are not in `functions` blanked out,
    and the sections too unless `with_sections`."""
    blanked = [span for k, span in enumerate(layout.functions) if k not in functions]
    if not with_sections:
        blanked = sorted(blanked + layout.sections)
    pieces = []
    pos = 0
    for start, end, newlines in blanked:
        pieces.append(text[pos:start])
        pieces.append("\n" * newlines)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def scheduled_parts(spans: list, workers: int) -> list:
    """Function indices in parts, in the order to hand them out to `workers` that each take the
    next part when done: largest functions first, each part about half of an even share of
    what is left (guided self-scheduling). The first parts are large, which keeps the per-part
    cost (parsing the module skeleton) small; the last are single small functions, so that the
    workers finish together. Length of text stands for the cost: it is what parsing costs, and
    checking follows it roughly."""
    def size(k):
        return spans[k][1] - spans[k][0]

    order = sorted(range(len(spans)), key=lambda k: -size(k))
    left = sum(size(k) for k in order)
    parts = []
    part: set = set()
    part_size = 0
    for k in order:
        part.add(k)
        part_size += size(k)
        if part_size >= left / (2 * workers):
            parts.append(part)
            left -= part_size
            part, part_size = set(), 0
    if part:
        parts.append(part)
    return parts
