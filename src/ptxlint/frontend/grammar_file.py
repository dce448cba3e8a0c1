"""Finds `ptx.lark`: inside the installed wheel (ptxlint/grammars/) or in a source checkout."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

GRAMMAR_NAME = "ptx.lark"


def grammar_path() -> Path:
    """Path of the grammar file; the wheel copy wins over the checkout's top-level `grammars/`."""
    package_dir = Path(__file__).resolve().parent.parent
    candidates = [
        package_dir / "grammars" / GRAMMAR_NAME,  # installed wheel
        package_dir.parent.parent / "grammars" / GRAMMAR_NAME,  # checkout: src/ptxlint -> repo root
    ]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{GRAMMAR_NAME} not found in: " + ", ".join(str(c) for c in candidates))


@lru_cache(maxsize=1)
def grammar_text() -> str:
    return grammar_path().read_text(encoding="utf-8")
