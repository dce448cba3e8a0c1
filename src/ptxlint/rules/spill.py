"""SPILL: registers that ptxas spills to local memory. Needs the SASS: runs with `--level sass`."""

from __future__ import annotations

import os

from ..diagnostics import Diagnostic
from ..frontend.demangle import without_parameters
from .registry import RuleDoc, register


def spill_finding(resources, sass_function=None) -> tuple:
    """(message, notes, data) for a kernel whose ptxas output reports spills, else None. The SASS
    (when given) shows the local loads and stores and the source lines they come from."""
    if resources.spill_stores + resources.spill_loads == 0:
        return None
    message = (f"ptxas spills registers: {resources.spill_stores} bytes stored and {resources.spill_loads} bytes "
               f"loaded per thread, with {resources.registers} registers")
    notes = [f"from {resources.source}: {resources.stack_frame} bytes of stack frame (local memory) per thread"]
    data = {"spill_stores": resources.spill_stores, "spill_loads": resources.spill_loads,
            "registers": resources.registers, "local_bytes": resources.stack_frame}
    if sass_function is not None:
        stores = [i for i in sass_function.instructions if i.base == "STL"]
        loads = [i for i in sass_function.instructions if i.base == "LDL"]
        lines = sorted({(os.path.basename(i.path), i.line) for i in stores + loads if i.path and i.line})
        shown = ", ".join(f"{f}:{n}" for f, n in lines[:8]) + (", ..." if len(lines) > 8 else "")
        notes.append(f"in the SASS: {len(stores)} local stores (STL) and {len(loads)} local loads (LDL)"
                     + (f", at source lines {shown}" if lines else ""))
        data.update(local_stores=len(stores), local_loads=len(loads), lines=[n for _, n in lines])
    return message, notes, data


@register(
    "SPILL001", "register-spills", "warning",
    "ptxas ran out of registers and keeps values in local memory (spill stores and loads).",
    RuleDoc(
        what_it_does="""
With `--level sass`, reads what ptxas reports for each kernel (`ptxas -v`: bytes of spill stores
and spill loads per thread) and shows the local-memory loads and stores (LDL/STL) in the SASS
with the source lines they come from. Reports kernels with any spill.
""",
        why_is_this_bad="""
A spilled value goes to local memory, which lives in DRAM behind the L1 cache: every spill load
that misses costs hundreds of cycles, and the spill traffic competes with the kernel's own memory
accesses. Spills usually come from a `__launch_bounds__` (or `-maxrregcount`) that asks for more
resident blocks than the kernel's live values allow, or from large per-thread arrays indexed with
run-time values.
""",
        example="""
__global__ void __launch_bounds__(256, 4) accumulate(const float *in, float *out) {
    float acc[96];             // 96 live values, but at most 64 registers per thread: spills
    ...
}
""",
        use_instead="""
__global__ void __launch_bounds__(256, 2) accumulate(const float *in, float *out) {
    float acc[96];             // up to 128 registers: no spills
    ...
}
""",
    ),
)
def check_spills(ctx):
    res = ctx.resources
    if res is None or not ctx.function.is_kernel:
        return
    found = spill_finding(res, ctx.sass_function)
    if found is None:
        return
    message, notes, data = found
    from .occupancy import _kernel_position

    path, line, column = _kernel_position(ctx)
    bounds = ctx.function.directives.get("maxntid")
    if bounds or ctx.function.directives.get("minnctapersm"):
        notes.append(f"the kernel has launch bounds (.maxntid {bounds}, .minnctapersm "
                     f"{ctx.function.directives.get('minnctapersm')}): they cap the registers ptxas may use")
    yield Diagnostic(
        code="SPILL001", severity="warning", message=f"{message} in `{without_parameters(ctx.function.demangled)}`",
        path=path, line=line, column=column, kernel=ctx.function.name, ptx_path=ctx.module.path,
        ptx_line=ctx.function.ptx_line, notes=notes,
        fix="relax __launch_bounds__ / -maxrregcount, or keep fewer values live at once (smaller per-thread arrays, "
            "split the loop)", data=data,
    )
