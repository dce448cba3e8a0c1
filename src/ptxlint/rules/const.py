"""CONST: `__constant__` reads whose address differs between the lanes of a warp."""

from __future__ import annotations

import json
from pathlib import Path

from ..analysis.layout import source_name
from ..analysis.uniformity import WARP
from ..frontend.ir import Register
from .registry import RuleDoc, register
from .sync import diagnostic

# Measured on the GPU (validation/const/): loaded once, quoted by every finding.
COST = json.loads((Path(__file__).parent / "data" / "const_cost.json").read_text())


def measured_cost(k: int) -> str:
    """What k distinct addresses per warp cost on the measured GPU, as a sentence."""
    rows = [r for r in COST["rows"] if r["layout"] == "same_line"]
    base = COST["baseline_uniform_cycles"]
    row = min(rows, key=lambda r: abs(r["distinct_addresses"] - k))
    exact = row["distinct_addresses"] == k
    latency = row["cycles_per_load"] if exact else base + 11 * (k - 1)
    throughput = row["throughput_sm_cycles_per_warp_load"] if exact else 2 * k
    return (f"measured on an {COST['gpu']} ({COST['arch']}): a warp-wide constant load with {k} distinct "
            f"addresses takes {latency:.0f} cycles latency vs {base:.0f} uniform, and "
            f"{throughput:.0f} vs {COST['baseline_uniform_throughput_sm_cycles_per_warp_load']:.0f} SM cycles of "
            f"throughput (one constant-cache request per distinct address)")


@register(
    "CONST001", "non-uniform-constant-access", "warning",
    "A `__constant__` read whose address differs between lanes of a warp is serialised.",
    RuleDoc(
        what_it_does="""
Finds `ld.const` loads whose address depends on the lane (`threadIdx.x`, a loaded value ...) and
counts, for every warp of the block, how many distinct addresses the warp reads: the number of
times the constant cache serialises the load. Uniform indexing (a loop counter, `blockIdx.x`) is
a broadcast and stays silent.
""",
        why_is_this_bad="""
The constant cache serves one address per request: k distinct addresses in a warp cost k requests
(measured on an H100: 38 + 11(k-1) cycles of latency, 2k SM cycles of throughput), so a lane-indexed
table is up to 32 times slower than the same table in global memory through the read-only path.
""",
        example="""
__constant__ float c_table[256];
out[i] = in[i] * c_table[threadIdx.x % 32];     // 32 addresses per warp: 32 requests
""",
        use_instead="""
__device__ const float g_table[256];             // read through the read-only data cache
out[i] = in[i] * __ldg(&g_table[threadIdx.x % 32]);
// or stage the table in __shared__ memory once per block
""",
    ),
)
def check_nonuniform_constant(ctx):
    u = ctx.uniformity
    seen = set()
    candidates = [i for i in ctx.function.instructions if i.op in ("ld", "ldu") and i.space == "const"
                  and isinstance(getattr(i.memory_operand(), "base", None), Register)]
    if not any(u.is_divergent(i, i.memory_operand().base, WARP) for i in candidates):
        return  # every constant read is warp-uniform: no need for per-lane addresses
    for access in ctx.shared_accesses:
        if access.space != "const" or access.kind != "load":
            continue
        ins = access.instruction
        mem = ins.memory_operand()
        base = getattr(mem, "base", None)
        if not isinstance(base, Register) or not u.is_divergent(ins, base, WARP):
            continue
        per_warp = [w.distinct_addresses for w in access.warps if w.addresses]
        position = ctx.position(ins)
        if position in seen:
            continue
        seen.add(position)
        var = f"`{source_name(access.variables[0])}`" if len(access.variables) == 1 else "constant memory"
        why = u.why(ins, base)
        if access.determined and per_warp:
            worst = max(per_warp)
            if worst <= 1:
                continue
            counts = ", ".join(f"warp {w.warp}: {w.distinct_addresses}" for w in access.warps if w.addresses)
            message = (f"{var} read with {worst} distinct addresses per warp: the constant cache serialises "
                       f"it {worst}x; the index depends on {why}")
            notes = [f"distinct addresses per warp: {counts}", measured_cost(worst)]
        else:
            worst = None
            message = (f"{var} read at an address that depends on {why}: up to 32 distinct addresses per "
                       f"warp, each a separate constant-cache request")
            notes = [access.unknown_reason or "the addresses depend on run-time data", measured_cost(32)]
        notes += access.notes
        fix = ("read the table through the read-only data cache (`const __restrict__` pointer or `__ldg`, PTX "
               "`ld.global.nc`) or stage it in shared memory; keep `__constant__` for warp-uniform indices")
        yield diagnostic(ctx, "CONST001", "warning", ins, message, notes, fix,
                         {"distinct_addresses_per_warp": per_warp, "serialization": worst, "gpu": COST["gpu"]})
