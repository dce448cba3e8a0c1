"""OCC: how many blocks an SM keeps resident, and the resource that stops it keeping more.

Needs the registers and shared memory ptxas gave the kernel: runs with `--level sass`.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.occupancy import (Occupancy, SmLimits, limits_for, occupancy, registers_for_more_blocks,
                                  smem_for_more_blocks)
from ..diagnostics import Diagnostic
from ..frontend.demangle import without_parameters
from .registry import RuleDoc, register


def better_block_sizes(limits: SmLimits, registers: int, static_smem: int, dynamic_smem: int,
                       current: Occupancy, max_threads: Optional[int] = None) -> list:
    """[(threads, occupancy)] of the block sizes (multiples of 32) with more resident warps per SM
    than `current`, best first (the dynamic shared memory per block kept as it is)."""
    out = []
    top = min(max_threads or limits.max_threads_per_block, limits.max_threads_per_block)
    for threads in range(32, top + 1, 32):
        occ = occupancy(limits, registers, threads, static_smem, dynamic_smem)
        if occ.warps_per_sm > current.warps_per_sm and not occ.exceeds_max_threads:
            out.append((threads, occ.occupancy))
    out.sort(key=lambda t: (-t[1], -t[0]))
    return out


def occupancy_finding(resources, limits: SmLimits, threads: int, dynamic_smem: int = 0,
                      max_threads: Optional[int] = None) -> Optional[tuple]:
    """(message, notes, fix, data) when the kernel's occupancy is limited by registers or shared
    memory (or the block cannot launch at all), else None."""
    regs, static = resources.registers, resources.static_smem
    occ = occupancy(limits, regs, threads, static, dynamic_smem, max_threads)
    data = {"registers": regs, "static_smem": static, "dynamic_smem": dynamic_smem, "block_threads": threads,
            "blocks_per_sm": occ.blocks_per_sm, "warps_per_sm": occ.warps_per_sm,
            "occupancy": round(occ.occupancy, 4), "limiter": occ.limiter, "limits": occ.limits}
    per_resource = ", ".join(f"{k} {v}" for k, v in occ.limits.items())
    notes = [f"{limits.name}: {limits.registers} registers per SM (per warp in units of {limits.register_unit}, "
             f"{limits.register_partitions} sub-partitions), {limits.smem_per_sm} bytes of shared memory "
             f"({limits.smem_reserved_per_block} reserved per block), {limits.max_threads} threads and "
             f"{limits.max_blocks} blocks per SM",
             f"blocks per SM each resource allows: {per_resource}"]
    if occ.exceeds_max_threads:
        if occ.limits["registers"] == 0:
            why = (f"{regs} registers x {threads} threads need more than the {limits.registers} registers of an SM")
        else:
            why = f"the kernel's __launch_bounds__ / .maxntid allow at most {max_threads} threads per block"
        return (f"a block of {threads} threads cannot be launched: {why}", notes,
                "launch smaller blocks, or lower the registers per thread (__launch_bounds__)",
                dict(data, launchable=False))
    if occ.limiter not in ("registers", "shared memory") or occ.warps_per_sm >= limits.max_warps:
        return None
    head = (f"occupancy {100 * occ.occupancy:.0f}% ({occ.blocks_per_sm} blocks of {threads} threads, "
            f"{occ.warps_per_sm} of {limits.max_warps} warps per SM) is limited by {occ.limiter}")
    fix = None
    if occ.limiter == "registers":
        fewer = registers_for_more_blocks(limits, regs, threads)
        head += f": {regs} registers per thread"
        if fewer is not None:
            head += f"; {fewer} or fewer ({regs - fewer} less) would fit {occ.blocks_per_sm + 1} blocks"
            fix = (f"__launch_bounds__({threads}, {occ.blocks_per_sm + 1}) asks ptxas for at most {fewer} "
                   f"registers (it may spill: check SPILL001), or keep fewer values live")
    else:
        used = static + dynamic_smem
        head += f": {used} bytes per block ({static} static, {dynamic_smem} dynamic)"
        fits = smem_for_more_blocks(limits, used)
        if fits is not None and fits < used:
            head += f"; {fits} bytes or fewer ({used - fits} less) would fit {occ.blocks_per_sm + 1} blocks"
            fix = f"use at most {fits} bytes of shared memory per block (smaller tiles, or fewer stages)"
    better = better_block_sizes(limits, regs, static, dynamic_smem, occ, max_threads)
    if better:
        shown = ", ".join(f"{t} ({100 * o:.0f}%)" for t, o in better[:6])
        notes.append(f"block sizes with higher occupancy: {shown}{', ...' if len(better) > 6 else ''}")
    else:
        notes.append("no other block size does better with these registers and shared memory")
    data["better_block_sizes"] = [t for t, _ in better]
    return head, notes, fix, dict(data, launchable=True)


def _kernel_position(ctx) -> tuple:
    for ins in ctx.function.instructions:
        path, line, column = ctx.position(ins)
        if line:
            return path, line, column
    return ctx.module.path, ctx.function.ptx_line, 1


@register(
    "OCC001", "occupancy-limited-by-resources", "info",
    "Fewer blocks fit on an SM than its threads allow, because of the kernel's registers or shared memory.",
    RuleDoc(
        what_it_does="""
With `--level sass`, reads the registers and static shared memory ptxas gave each kernel and
computes, with the occupancy limits of the architecture (registers per SM and their allocation
granularity, shared memory per SM and per block, the per-block reservation, threads and blocks
per SM), how many blocks of the assumed block shape stay resident on one SM. Reports kernels
whose resident warps are limited by registers or by shared memory, with how many registers or
bytes less would fit one more block and the block sizes that do better; and blocks that cannot
launch at all. The model reproduces `cudaOccupancyMaxActiveBlocksPerMultiprocessor` on an H100
for 4992 measured configurations (validation/occupancy/). Dynamic shared memory is taken as 0
here; `ptxlint kernels --dynamic-smem` shows other sizes.
""",
        why_is_this_bad="""
Resident warps are what hides memory and instruction latency. A kernel that needs 128 registers
per thread keeps at most 16 warps per SM (25%); when it is latency-bound, every warp more helps.
Occupancy is a trade-off, not a bug: the finding says which resource to trade and by how much.
""",
        example="""
__global__ void heavy(const float *in, float *out) {
    float acc[120];            // ~128 registers: 2 blocks of 256 threads per SM (25%)
    ...
}
""",
        use_instead="""
__global__ void __launch_bounds__(256, 3) heavy(const float *in, float *out) {
    float acc[120];            // ptxas keeps it within 80 registers: 3 blocks (37%)
    ...
}
""",
    ),
)
def check_occupancy(ctx):
    res = ctx.resources
    if res is None or not ctx.function.is_kernel:
        return
    arch = ctx.options.arch or ctx.module.arch
    try:
        limits = limits_for(arch)
    except ValueError:
        return  # an architecture without known limits: say nothing rather than guess
    max_threads = res.max_threads
    if max_threads is None and ctx.function.maxntid:
        max_threads = 1
        for d in ctx.function.maxntid:
            max_threads *= d
    found = occupancy_finding(res, limits, ctx.launch.threads, 0, max_threads)
    if found is None:
        return
    message, notes, fix, data = found
    path, line, column = _kernel_position(ctx)
    notes = [f"assumed {ctx.launch.describe()}, no dynamic shared memory",
             f"resources from {res.source}: {res.registers} registers, {res.static_smem} bytes of static shared "
             f"memory, {res.stack_frame} bytes of local memory per thread"] + notes
    yield Diagnostic(
        code="OCC001", severity="info", message=f"{message} in `{without_parameters(ctx.function.demangled)}`", path=path, line=line,
        column=column, kernel=ctx.function.name, ptx_path=ctx.module.path, ptx_line=ctx.function.ptx_line,
        notes=notes, fix=fix, data=dict(data, block=list(ctx.launch.dims), block_source=ctx.launch.source),
    )
