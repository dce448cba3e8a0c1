"""`ptxlint accesses --level sass`: the shared accesses of the SASS, each costed from its PTX access.

See analysis/sass_accesses.py for how a SASS instruction is matched to the PTX access(es) it
comes from, and why the costs reuse the PTX per-lane addresses at the SASS width.
"""

from __future__ import annotations


from ..analysis.accesses import variables_behind
from ..analysis.context import AnalysisOptions, KernelContext
from ..analysis.sass_accesses import match_sass_accesses, sass_matrices
from ..frontend.demangle import demangle, without_parameters


def sass_kernel_report(module, function, options: AnalysisOptions, sass_function) -> dict:
    """The `accesses` JSON object of one kernel at SASS level."""
    ctx = KernelContext(module, function, options)
    accesses = []
    for s in match_sass_accesses(ctx, sass_function):
        ins = s.instruction
        if s.ptx:
            path, line, _ = ctx.position(s.ptx[0].instruction)
        else:
            path, line = ins.path, ins.line
        entry = {
            "sass_offset": ins.offset, "sass": ins.text, "ptx_line": s.ptx[0].instruction.ptx_line if s.ptx else None,
            "ptx_lines": [a.instruction.ptx_line for a in s.ptx], "path": path, "line": line, "space": "shared",
            "op": s.kind, "bits": s.bits, "instruction": ins.opcode, "match": s.how,
            "variables": variables_behind(ctx, s.ptx[0]) if s.ptx else [],
            "iterations": s.costed.iterations if s.costed is not None else 1,
        }
        if s.kind in ("ldmatrix", "stmatrix"):
            entry["matrices"] = sass_matrices(ins)
        costed = s.costed
        if s.wavefronts is not None:
            entry["per_warp"] = [
                {"warp": w.warp, "active_lanes": w.cost.active_lanes if w.cost else len(w.lanes),
                 "wavefronts": w.cost.wavefronts if w.cost else None, "ideal": w.cost.ideal if w.cost else None}
                for w in costed.warps
            ]
            entry.update(wavefronts=s.wavefronts, ideal=s.ideal, ways=s.ways)
        else:
            entry.update(per_warp=None, wavefronts=None, ideal=None, ways=None, unknown=s.reason)
        entry["notes"] = list(costed.notes) if costed is not None and s.how == "same" else []
        if s.how == "merged":
            entry["notes"].append(f"ptxas merged PTX lines {entry['ptx_lines']} into this {s.bits}-bit access")
        elif s.how == "split":
            entry["notes"].append(f"ptxas split the {s.ptx[0].bits}-bit PTX access at line {entry['ptx_line']}")
        accesses.append(entry)
    return {
        "name": function.name, "demangled": without_parameters(demangle(function.name)),
        "block": list(ctx.launch.dims), "block_source": ctx.launch.source, "arch": module.arch, "level": "sass",
        "accesses": accesses,
    }


def sass_text(report: dict, path: str) -> str:
    """The text table of `accesses --level sass`."""
    out = []
    for k in report["kernels"]:
        if "incomplete" in k:
            out.append(f"{path}: kernel {k['demangled']} ({k['name']}): {k['incomplete']}")
            continue
        out.append(f"{path}: kernel {k['demangled']} ({k['name']}), block {'x'.join(map(str, k['block']))} "
                   f"({k['block_source']}), {k['arch']}, SASS")
        if not k["accesses"]:
            out.append("    no shared accesses in the SASS")
            continue
        out.append(f"    {'line':>6} {'sass':>6} {'ptx':>11} {'op':9} {'bits':>4} {'wavefronts':>10} {'ideal':>6} "
                   f"{'ways':>4}  instruction")
        for a in k["accesses"]:
            def show(v):
                return "?" if v is None else str(v)

            ptx = ",".join(map(str, a["ptx_lines"])) or "-"
            if len(ptx) > 11:
                ptx = f"{a['ptx_lines'][0]}+{len(a['ptx_lines']) - 1}"
            out.append(f"    {a['line'] or '-':>6} {a['sass_offset']:>6x} {ptx:>11} {a['op']:9} {a['bits']:>4} "
                       f"{show(a['wavefronts']):>10} {show(a['ideal']):>6} {show(a['ways']):>4}  {a['sass']}")
            if a.get("unknown"):
                out.append(f"           unknown: {a['unknown']}")
    return "\n".join(out)
