"""What a finding is: a value produced by rules and formatted by reporters."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Optional

SEVERITIES = ("error", "warning", "info")


@dataclass
class Diagnostic:
    """One finding. `path`/`line`/`column` point at the `.cu` source when `.loc` says where;
    otherwise at the PTX. `notes` say what was assumed and why the rule fired; `fix` is a
    suggested change, verified where the rule can verify it."""

    code: str
    severity: str
    message: str
    path: str
    line: Optional[int]
    column: Optional[int]
    kernel: Optional[str] = None
    ptx_path: Optional[str] = None
    ptx_line: Optional[int] = None
    notes: list = field(default_factory=list)
    fix: Optional[str] = None
    data: dict = field(default_factory=dict)
    # the fix as source edits, for `check --fix` (fixes/): {"safe": bool, "edits": [{"path", "line",
    # "start", "end", "old", "new"}]} (1-based line, 0-based columns, end exclusive); None when the
    # fix is advice only. Safe: certain to keep the program's meaning; unsafe: needs --unsafe-fixes.
    fix_edits: Optional[dict] = None

    def sort_key(self) -> tuple:
        return (self.path, self.line or 0, self.column or 0, self.code, self.ptx_line or 0)

    def to_dict(self) -> dict:
        out = asdict(self)
        return out
