"""`ptxlint launches PATH`: the block shapes each kernel is checked under, and where they come from.

The launches ptxlint found in the host code (`k<<<grid, block>>>`, `cudaLaunchKernel`, ...), the
ones whose block is a run-time value (and why), and the candidate shapes of kernels with none. Per
kernel, every launch of its name is listed with its block, its grid and where it is, and for each
one not used, why (another instantiation's template arguments, a run-time block, ...); a kernel
with no launch of its name says which host files were read.
"""

from __future__ import annotations

import json
import os
import sys

import click

from .bounded import internal_error
from .options import block_option, command_settings, compile_options, config_options, kernel_option
from .settings import echo_notes, file_plan, load_planned, unmatched_globs
from ..analysis.launch import ONE_THREAD_SOURCE, name_matches, plan_block_shapes
from ..api import discover_run, load_module, with_launches
from ..cache import default_cache_dir
from ..check_options import CheckOptions
from ..errors import InputError
from ..frontend.demangle import demangle, without_parameters
from ..frontend.host_sources import launch_sources
from ..frontend.launch_expr import Multiple
from ..frontend.launches import PointerOffset
from ..frontend.launches.launch import CoversGrid, LaunchShare
from ..frontend.launches.matching import launch_verdicts, split_template_name


def kernel_plans(path: str, options) -> list:
    """[{kernel, demangled, known, shapes: [{block, grid, source}], unknown_launches, launches,
    host_sources}] of one file: `launches` are those of the kernel's name found in the host code,
    each with `used` and, when not, `not_used_because`. `options`: AnalysisOptions (the file read
    with no configuration) or CheckOptions (its settings as `check` has them)."""
    if isinstance(options, CheckOptions):
        module, analysis = load_planned(path, file_plan(path, options))
    else:
        module = load_module(path, cache_dir=default_cache_dir())  # the compile `check` made, if it did
        analysis = with_launches(path, module, options)
    sources = launch_sources(module.files.values(), path)
    out = []
    for f in module.kernels:
        plan = plan_block_shapes(f, analysis)
        out.append({"kernel": f.name, "demangled": without_parameters(demangle(f.name)), "known": plan.known,
                    "shapes": [{"block": list(s.dims), "grid": _grid_json(s.grid), "source": s.source}
                               for s in plan.shapes],
                    "unknown_launches": list(plan.unknown_launches),
                    "launches": _launches_of(f, analysis.launches, plan),
                    "host_sources": [_shown(p) for p in sources]})
    return out


def _grid_json(grid):
    return None if grid is None else [d if d is not None else None for d in grid]


def _shown(path: str) -> str:
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel


def _launches_of(function, launches, plan) -> list:
    """Every launch of `function`'s name: where, block, grid, and whether it gave a shape to `plan`."""
    plain = without_parameters(demangle(function.name))
    name = split_template_name(plain)[1]
    out = []
    overridden = plan.known and plan.shapes and not plan.shapes[0].source.startswith("from the launch")
    for launch, why in launch_verdicts(function.name, [x for x in launches or () if x.kernel == name]):
        if why is None and launch.block is None:
            why = launch.unknown_because or "its block shape is not known"
        if why is None and overridden:
            why = f"the block is given by {plan.shapes[0].source}"
        entry = {"where": f"{_shown(launch.path)}:{launch.line}", "kernel": launch.kernel, "how": launch.how,
                 "block": list(launch.block) if launch.block else _grid_json(launch.block_form),
                 "grid": _grid_json(launch.grid),
                 "grid_unknown_because": launch.grid_unknown_because,
                 "template_args": list(launch.template_args) if launch.template_args is not None else None,
                 "deduced": launch.deduced, "assumes": launch.assumes,
                 # the integer values the call passes, where the host code gives them (null elsewhere)
                 "call_arguments": [str(a) if isinstance(a, (PointerOffset, Multiple, CoversGrid, LaunchShare)) else a
                                    for a in launch.call_arguments], "used": why is None}
        if why is not None:
            entry["not_used_because"] = why
        out.append(entry)
    return out


def _dims(values) -> str:
    return "?" if values is None else "x".join("?" if d is None else str(d) for d in values)


def _text(path: str, plans: list) -> str:
    lines = [f"{path}:"]
    for p in plans:
        if p["known"]:
            shapes = "; ".join(f"{'x'.join(map(str, s['block']))} ({s['source']})" for s in p["shapes"])
        elif len(p["shapes"]) == 1 and p["shapes"][0]["source"] == ONE_THREAD_SOURCE:
            shapes = "unknown: checked as one thread (the kernel reads no thread or block index)"
        else:
            shapes = ("unknown: checked under " + ", ".join("x".join(map(str, s["block"])) for s in p["shapes"])
                      + " (correctness findings must hold under every one they admit)")
        lines.append(f"  {p['demangled']}: {shapes}")
        for u in p["unknown_launches"]:
            lines.append(f"      launch not used: {u}")
        for launch in p["launches"]:
            args = ""
            if launch["template_args"] is not None:
                args = f"<{', '.join(launch['template_args'])}>"
            kernel = launch["kernel"] + args
            if launch["how"] == "<<<>>>":
                text = f"      {launch['where']}: {kernel}<<<{_dims(launch['grid'])}, {_dims(launch['block'])}>>>"
            else:
                text = (f"      {launch['where']}: {launch['how']}({kernel}, grid {_dims(launch['grid'])}, "
                        f"block {_dims(launch['block'])})")
            if launch["deduced"]:
                text += " (template arguments deduced from the call)"
            if launch["used"]:
                text += " (used" + (f", assuming {launch['assumes']}" if launch["assumes"] else "") + ")"
            else:
                text += f" (not used: {launch['not_used_because']})"
            lines.append(text)
        if not p["launches"]:
            read = ", ".join(p["host_sources"]) or "none"
            lines.append(f"      no launch of `{split_template_name(p['demangled'])[1]}` found (host code read: "
                         f"{read})")
    return "\n".join(lines)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@block_option
@kernel_option
@click.option("--arch", "arches", multiple=True, metavar="SM",
              help="Architecture to compile .cu files for (default from the config, else sm_90).")
@config_options
@compile_options
def launches(paths, fmt, blocks, kernel_glob, arches, config_path, compile_commands, nvcc, nvcc_args, isolated,
             trust_config):
    """Show the block shapes each kernel is checked under and where they come from."""

    options = command_settings(blocks, arches, config_path=config_path, compile_commands=compile_commands,
                               nvcc=nvcc, nvcc_args=nvcc_args, isolated=isolated, trust_config=trust_config)
    run = discover_run(paths, options)
    errors = list(run.errors)
    notes = list(run.notes)
    reports = []
    kernels = []
    for path in run.files:
        try:
            plans = kernel_plans(path, options)
        except InputError as err:
            errors.append(err)
            continue
        except Exception as err:  # noqa: BLE001 - a bug of ptxlint: one message for this file, not a traceback
            errors.append(internal_error(path, err))
            continue
        kernels.extend(p["kernel"] for p in plans)
        if kernel_glob:
            plans = [p for p in plans if name_matches(p["kernel"], kernel_glob)]
            if not plans:
                continue  # a file without a matching kernel is not listed
        reports.append({"path": path, "kernels": plans})
    errors += unmatched_globs(options, kernels, kernel_glob)
    if fmt == "json":
        click.echo(json.dumps({"files": reports}, indent=2))
    else:
        for r in reports:
            click.echo(_text(r["path"], r["kernels"]))
    echo_notes(notes)
    for err in errors:
        click.echo(str(err), err=True)
    sys.exit(2 if errors else 0)
