"""`ptxlint launches PATH`: the block shapes each kernel is checked under, and where they come from.

The launches ptxlint found in the host code (`k<<<grid, block>>>`, `cudaLaunchKernel`, ...), the
ones whose block is a run-time value (and why), and the candidate shapes of kernels with none.
"""

from __future__ import annotations

import json
import sys

import click

from .bounded import internal_error
from .options import analysis_options, block_option, kernel_option
from ..analysis.launch import name_matches, plan_block_shapes
from ..api import discover, load_module, with_launches
from ..errors import InputError
from ..frontend.demangle import demangle, without_parameters


def kernel_plans(path: str, options) -> list:
    """[{kernel, demangled, known, shapes: [{block, source}], unknown_launches}] of one file."""
    module = load_module(path)
    analysis = with_launches(path, module, options)
    out = []
    for f in module.kernels:
        plan = plan_block_shapes(f, analysis)
        out.append({"kernel": f.name, "demangled": without_parameters(demangle(f.name)), "known": plan.known,
                    "shapes": [{"block": list(s.dims), "source": s.source} for s in plan.shapes],
                    "unknown_launches": list(plan.unknown_launches)})
    return out


def _text(path: str, plans: list) -> str:
    lines = [f"{path}:"]
    for p in plans:
        if p["known"]:
            shapes = "; ".join(f"{'x'.join(map(str, s['block']))} ({s['source']})" for s in p["shapes"])
        else:
            shapes = ("unknown: checked under " + ", ".join("x".join(map(str, s["block"])) for s in p["shapes"])
                      + " (correctness findings must hold under every one they admit)")
        lines.append(f"  {p['demangled']}: {shapes}")
        for u in p["unknown_launches"]:
            lines.append(f"      launch not used: {u}")
    return "\n".join(lines)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@block_option
@kernel_option
def launches(paths, fmt, blocks, kernel_glob):
    """Show the block shapes each kernel is checked under and where they come from."""

    options = analysis_options(blocks, None)
    files, errors = discover(paths)
    reports = []
    for path in files:
        try:
            plans = kernel_plans(path, options)
        except InputError as err:
            errors.append(err)
            continue
        except Exception as err:  # noqa: BLE001 - a bug of ptxlint: one message for this file, not a traceback
            errors.append(internal_error(path, err))
            continue
        if kernel_glob:
            plans = [p for p in plans if name_matches(p["kernel"], kernel_glob)]
        reports.append({"path": path, "kernels": plans})
    if fmt == "json":
        click.echo(json.dumps({"files": reports}, indent=2))
    else:
        for r in reports:
            click.echo(_text(r["path"], r["kernels"]))
    for err in errors:
        click.echo(str(err), err=True)
    sys.exit(2 if errors else 0)

