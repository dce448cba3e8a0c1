"""`ptxlint accesses PATH`: every shared, constant and global access with its per-warp prediction."""

from __future__ import annotations

import json
import sys
from typing import Optional

import click

from .bounded import internal_error, within_budget
from .options import block_option, budget_option, command_settings, compile_options, config_options, kernel_option
from .settings import echo_notes, file_plan, load_planned, unmatched_globs
from ..analysis.accesses import variables_behind
from ..analysis.context import AnalysisOptions, KernelContext
from ..analysis.layout import source_name
from ..api import discover_run, load_module, with_launches
from ..cache import default_cache_dir
from ..check_options import CheckOptions
from ..errors import InputError
from ..frontend.demangle import demangle, without_parameters


def kernel_report(module, function, options: AnalysisOptions) -> dict:
    """The `accesses` JSON object of one kernel."""
    return context_report(KernelContext(module, function, options))


def context_report(ctx: KernelContext, entries=None) -> dict:
    """The `accesses` JSON object of the kernel `ctx` analyses (`entries`: its access_entries, when
    the caller has them)."""
    module, function = ctx.module, ctx.function
    return {
        "name": function.name, "demangled": without_parameters(demangle(function.name)),
        "block": list(ctx.launch.dims), "block_source": ctx.launch.source, "arch": module.arch,
        "accesses": [entry for entry, _ in (access_entries(ctx) if entries is None else entries)],
    }


def access_entries(ctx: KernelContext) -> list:
    """[(JSON entry, the analysis's access object)] of every shared, constant and global access,
    by PTX line: the report draws its grids from the objects behind the numbers it shows."""
    accesses = []
    for access in ctx.shared_accesses:
        ins = access.instruction
        path, line, _ = ctx.position(ins)
        entry = {
            "ptx_line": ins.ptx_line, "path": path, "line": line, "space": access.space, "op": access.kind,
            "bits": access.bits, "instruction": ins.opcode, "variables": variables_behind(ctx, access),
            "iterations": access.iterations,
        }
        if access.determined:
            entry["per_warp"] = [
                {"warp": w.warp, "active_lanes": w.cost.active_lanes if w.cost else len(w.lanes),
                 "wavefronts": w.cost.wavefronts if w.cost else None, "ideal": w.cost.ideal if w.cost else None,
                 **({"distinct_addresses": w.distinct_addresses} if access.space == "const" else {})}
                for w in access.warps
            ]
            entry.update(wavefronts=access.wavefronts, ideal=access.ideal, ways=access.ways)
            if access.space == "const":
                entry["distinct_addresses"] = max((w.distinct_addresses for w in access.warps if w.addresses),
                                                  default=0)
        else:
            entry.update(per_warp=None, wavefronts=None, ideal=None, ways=None, unknown=access.unknown_reason)
            if access.space == "const":
                entry["distinct_addresses"] = None
        if access.vector_group is not None:
            group = access.vector_group
            entry["sass_merge"] = {"bits": group.bits, "wavefronts": group.wavefronts, "ideal": group.ideal,
                                   "ptx_lines": [m.instruction.ptx_line for m in group.members]}
        entry["notes"] = access.notes
        accesses.append((entry, access))
    accesses.extend(global_entries(ctx))
    accesses.sort(key=lambda pair: pair[0]["ptx_line"])
    return accesses


def global_entries(ctx) -> list:
    """[(`accesses` JSON entry, GlobalAccess)] of the kernel's global-memory accesses (sectors per block)."""
    out = []
    for access in ctx.global_accesses:
        ins = access.instruction
        path, line, _ = ctx.position(ins)
        entry = {
            "ptx_line": ins.ptx_line, "path": path, "line": line, "space": "global", "op": access.kind,
            "bits": access.bits, "instruction": ins.opcode, "variables": access.variables,
            "iterations": access.iterations, "requests": access.requests,
        }
        if access.determined:
            entry.update(sectors=access.sectors, ideal_sectors=access.ideal, lines_128b=access.lines)
            entry["per_warp"] = [
                {"warp": w.warp, "active_lanes": len(w.lanes), "requests": sum(c.requests for _, _, c in w.evaluations),
                 "sectors": w.cost.sectors, "ideal_sectors": w.cost.ideal,
                 "byte_offsets": w.described or w.offsets}
                for w in access.warps
            ]
        else:
            entry.update(sectors=None, ideal_sectors=None, lines_128b=None, per_warp=None,
                         unknown=access.unknown_reason)
            if access.sectors_range is not None:
                entry["sectors_range"] = list(access.sectors_range)
        entry["assumptions"] = access.assumptions
        entry["notes"] = access.notes
        out.append((entry, access))
    return out


def _file_report(path: str, base_options, kernel_glob, level: str, names: Optional[list] = None) -> dict:
    """The `accesses` JSON object of one file; each kernel within the analysis budget.
    `base_options`: CheckOptions (the file's settings as `check` has them) or AnalysisOptions (no
    configuration); `names` collects the mangled names of every kernel of the file."""
    from ..analysis.launch import kernel_matches

    if isinstance(base_options, CheckOptions):
        module, options = load_planned(path, file_plan(path, base_options))
    else:
        module = load_module(path, cache_dir=default_cache_dir())  # the compile `check` made, if it did
        options = with_launches(path, module, base_options)
    if names is not None:
        names.extend(f.name for f in module.kernels)
    kernels = [f for f in module.kernels if kernel_glob is None or kernel_matches(f, kernel_glob)]
    if level == "sass":
        from .accesses_sass import sass_kernel_report
        from ..frontend.sass.load import program_for_module

        program = program_for_module(path, module)
        return {"path": path, "kernels": [
            within_budget(lambda f=f: sass_kernel_report(module, f, options, program.function(f.name)), f,
                          options.budget)
            for f in kernels if program.function(f.name) is not None]}
    return {"path": path, "kernels": [within_budget(lambda f=f: kernel_report(module, f, options), f, options.budget)
                                      for f in kernels]}


def _text(report: dict, path: str) -> str:
    out = []
    for k in report["kernels"]:
        if "incomplete" in k:
            out.append(f"{path}: kernel {k['demangled']} ({k['name']}): {k['incomplete']}")
            continue
        out.append(f"{path}: kernel {k['demangled']} ({k['name']}), block {'x'.join(map(str, k['block']))} "
                   f"({k['block_source']}), {k['arch']}")
        if not k["accesses"]:
            out.append("    no shared, constant or global accesses")
            continue
        out.append(f"    {'line':>6} {'ptx':>6} {'space':6} {'op':9} {'bits':>4} {'iters':>5} {'wavefronts':>10} "
                   f"{'ideal':>6} {'ways':>4}  variable")
        for a in k["accesses"]:
            if a["space"] == "global":
                sectors = "?" if a["sectors"] is None else str(a["sectors"])
                ideal = "?" if a["ideal_sectors"] is None else str(a["ideal_sectors"])
                iters = "?" if a["iterations"] is None else str(a["iterations"])
                var = ", ".join(v.replace(f"{k['name']}_param_", "param ") for v in a["variables"])
                out.append(f"    {a['line'] or '-':>6} {a['ptx_line']:>6} {a['space']:6} {a['op']:9} {a['bits']:>4} "
                           f"{iters:>5} {sectors:>10} {ideal:>6} {'':>4}  {var} ({a['requests']} requests)")
                if a.get("unknown"):
                    out.append(f"           unknown: {a['unknown']}")
                continue
            wf = "?" if a["wavefronts"] is None else str(a["wavefronts"])
            ideal = "?" if a["ideal"] is None else str(a["ideal"])
            ways = "?" if a["ways"] is None else str(a["ways"])
            var = ", ".join(source_name(v) for v in a["variables"])
            out.append(f"    {a['line'] or '-':>6} {a['ptx_line']:>6} {a['space']:6} {a['op']:9} {a['bits']:>4} "
                       f"{a['iterations']:>5} {wf:>10} {ideal:>6} {ways:>4}  {var}")
            if a.get("unknown"):
                out.append(f"           unknown: {a['unknown']}")
            if a.get("sass_merge"):
                m = a["sass_merge"]
                out.append(f"           ptxas merges PTX lines {m['ptx_lines']} into one {m['bits']}-bit load: "
                           f"{m['wavefronts']} wavefronts (ideal {m['ideal']})")
        if any(a["space"] == "global" for a in k["accesses"]):
            out.append("    global rows: 32-byte sectors per block and their ideal, in the wavefronts/ideal columns")
    return "\n".join(out)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@block_option
@kernel_option
@click.option("--level", type=click.Choice(["ptx", "sass"]), default="ptx", show_default=True,
              help="ptx: the PTX accesses; sass: the SASS instructions ptxas makes of them (needs ptxas and "
                   "nvdisasm), each costed with its PTX access's addresses at the SASS width.")
@budget_option
@click.option("--arch", "arches", multiple=True, metavar="SM",
              help="Architecture to compile .cu files for (default from the config, else sm_90).")
@config_options
@compile_options
def accesses(paths, fmt, blocks, kernel_glob, level, analysis_budget, arches, config_path, compile_commands, nvcc,
             nvcc_args, isolated, trust_config):
    """List every shared, constant and global memory access with its predicted cost per warp
    (shared: wavefronts; constant: distinct addresses; global: 32-byte sectors)."""
    options = command_settings(blocks, arches, config_path=config_path, compile_commands=compile_commands,
                               nvcc=nvcc, nvcc_args=nvcc_args, isolated=isolated, trust_config=trust_config,
                               budget=analysis_budget)
    run = discover_run(paths, options)
    errors = list(run.errors)
    reports = []
    names: list = []
    for path in run.files:
        try:
            report = _file_report(path, options, kernel_glob, level, names)
        except InputError as err:
            errors.append(err)
            continue
        except Exception as err:  # noqa: BLE001 - a bug of ptxlint: one message for this file, not a traceback
            errors.append(internal_error(path, err))
            continue
        if kernel_glob and not report["kernels"]:
            continue  # a file without a matching kernel is not listed
        reports.append((path, report))
    errors += unmatched_globs(options, names, kernel_glob)
    echo_notes(run.notes)
    for err in errors:
        click.echo(str(err), err=True)
    if fmt == "json":
        doc = reports[0][1] if len(reports) == 1 else {"files": [r for _, r in reports]}
        if len(reports) == 1:
            doc = {"kernels": doc["kernels"]}
        click.echo(json.dumps(doc, indent=2))
    elif level == "sass":
        from .accesses_sass import sass_text

        click.echo("\n\n".join(sass_text(r, p) for p, r in reports))
    elif reports:
        click.echo("\n\n".join(_text(r, p) for p, r in reports))
    sys.exit(2 if errors else 0)
