"""BANK002 with `--level sass`: what ptxas did with shared loads, read from the SASS, instead of
what the PTX lets one predict (rules/bank.py registers the rule)."""

from __future__ import annotations

from ..diagnostics import Diagnostic


def merged_loads_in_sass(ctx, assumptions: list):
    """BANK002 findings for the SASS loads that ptxas made of several PTX loads (those with a bank
    conflict that BANK001 reports are left to it)."""
    from .bank import conflicting_merged_loads

    in_bank001 = {tuple(id(m) for m in members) for _, members, _, _ in conflicting_merged_loads(ctx)}
    for s in ctx.sass_accesses:
        if tuple(id(m) for m in s.ptx) in in_bank001:
            continue
        if s.how != "merged" or s.wavefronts is None:
            continue
        members = s.ptx
        ptx_wf = sum(m.wavefronts for m in members if m.determined)
        ptx_ideal = sum(m.ideal for m in members if m.determined)
        if s.wavefronts <= s.ideal and ptx_wf <= ptx_ideal:
            continue
        ins = s.instruction
        first = members[0].instruction
        path, line, column = ctx.position(first)
        message = (f"ptxas merged {len(members)} shared loads into one {ins.opcode} (SASS offset {ins.offset:#06x}): "
                   f"{s.wavefronts} wavefronts (ideal {s.ideal}) vs {ptx_wf} for the PTX loads")
        notes = assumptions + [
            f"SASS: `{ins.text}` comes from PTX lines {', '.join(str(m.instruction.ptx_line) for m in members)}",
            "read from the SASS ptxas produced (--level sass), costed with the PTX loads' per-lane addresses",
        ]
        yield Diagnostic(
            code="BANK002", severity="info", message=message, path=path, line=line, column=column,
            kernel=ctx.function.name, ptx_path=ctx.module.path, ptx_line=first.ptx_line, notes=notes,
            data={"sass_wavefronts": s.wavefronts, "sass_ideal": s.ideal, "ptx_wavefronts": ptx_wf, "bits": s.bits,
                  "sass_offset": ins.offset, "sass": ins.text, "level": "sass"},
        )
