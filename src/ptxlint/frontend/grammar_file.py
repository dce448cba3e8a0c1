"""Finds the grammars (`ptx.lark`, `launch.lark`, `sass.lark`): inside the installed wheel
(ptxlint/grammars/) or in a source checkout's top-level `grammars/`."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

GRAMMAR_NAME = "ptx.lark"


def grammar_path(name: str = GRAMMAR_NAME) -> Path:
    """Path of the grammar file `name`; the wheel copy wins over the checkout's `grammars/`."""
    package_dir = Path(__file__).resolve().parent.parent
    candidates = [
        package_dir / "grammars" / name,  # installed wheel
        package_dir.parent.parent / "grammars" / name,  # checkout: src/ptxlint -> repo root
    ]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{name} not found in: " + ", ".join(str(c) for c in candidates))


@lru_cache(maxsize=None)
def grammar_text(name: str = GRAMMAR_NAME) -> str:
    """The text of a grammar file (default: the PTX one)."""
    return grammar_path(name).read_text(encoding="utf-8")
