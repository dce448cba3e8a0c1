"""What the commands that look at one module (`accesses`, `kernels`, `launches`) share with `check`
(kernel_check.py, file_check.py) about hostile input: each kernel is analysed within the analysis
budget, and nothing ends the command with a traceback."""

from __future__ import annotations

from ..analysis.budget import BudgetExhausted, describe, kernel_budget
from ..errors import InputError
from ..frontend.demangle import demangle, without_parameters

TOO_DEEP = "the kernel's structure is nested too deeply to follow"


def within_budget(report, function, budget, lost: str = "its accesses are not listed") -> dict:
    """`report()` (one kernel's dict) within the kernel's analysis budget; a kernel whose analysis
    runs out of it, or is nested too deeply to follow, is `{name, demangled, incomplete: why}`
    (`lost`: what the command does not show of it)."""
    try:
        with kernel_budget(budget):
            return report()
    except BudgetExhausted as err:
        reason = err.reason
    except RecursionError:
        reason = TOO_DEEP
    return {"name": function.name, "demangled": without_parameters(demangle(function.name)),
            "incomplete": describe(reason, budget, lost)}


def internal_error(path: str, err: BaseException) -> InputError:
    """A bug of ptxlint met while reading `path`: one message for that file (exit 2), not a traceback
    that also costs the other files their results."""
    return InputError(path, f"internal error in ptxlint while reading this file ({type(err).__name__}: {err}); "
                            "please report it")
