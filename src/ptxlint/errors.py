"""Errors about the user's input: reported as `path:line:col: message`, exit code 2."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass
class InputError(Exception):
    """Bad input: a file that cannot be read, parsed, compiled, or a bad option or config.

    Never shown as a traceback: the CLI prints `path:line:col: message` and exits 2.
    """

    path: str
    message: str
    line: Optional[int] = None
    column: Optional[int] = None

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"

    def to_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column, "message": self.message}
