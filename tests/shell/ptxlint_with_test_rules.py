"""`ptxlint` with a test-only rule, TEST001, that flags every barrier.

The shell tests drive the real command line; this lets them do so before (and independently of)
the real rule families. Registration runs at import, so worker processes started by spawn or
fork see the rule too.
"""

import sys

from ptxlint.diagnostics import Diagnostic
from ptxlint.rules.registry import RuleDoc, register


@register(
    "TEST001", "test-barrier", "warning", "Flags every bar.sync (test-only rule).",
    RuleDoc("Flags every barrier.", "It is a test.", "__syncthreads();", "/* nothing */"),
)
def _test_barrier(context):
    for ins in context.function.instructions:
        if ins.op in ("bar", "barrier"):
            path, line, column = context.position(ins)
            yield Diagnostic(
                code="TEST001", severity="warning",
                message=f"barrier in {context.function.name} for {context.module.arch}; {context.launch.describe()}",
                path=path, line=line, column=column, kernel=context.function.name,
                ptx_path=context.module.path, ptx_line=ins.ptx_line,
                notes=["test rule: every barrier is flagged"],
            )


if __name__ == "__main__":
    from ptxlint.cli import main

    sys.argv[0] = "ptxlint"
    main()
