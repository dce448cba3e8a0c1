"""`ptxlint check --fix`: apply the fixes that rules give as source edits, each one verified.

Rules stay in charge of *what* to change: a finding's `fix_edits` (diagnostics.py) holds edit
ranges and whether the change is safe (certain to keep the program's meaning) or unsafe. This
package only applies them (edits.py) and proves them (engine.py): the edited text is compiled and
checked before anything is written, and kept only when the finding is gone and nothing new
appears. ruff's model: `--fix` applies safe fixes, `--unsafe-fixes` the unsafe ones too, `--diff`
prints what `--fix` would write.
"""

from .engine import FixReport, fix_results

__all__ = ["FixReport", "fix_results"]
