"""Command-line options shared by `check` (cli.py) and the commands in this package: defined once,
below both, so that neither imports the other."""

from __future__ import annotations

import click

from ..analysis.context import AnalysisOptions

block_option = click.option(
    "--block", "blocks", multiple=True, metavar="[KERNEL=]XxYxZ",
    help="Block shape to assume (KERNEL is a glob on the mangled or demangled name). Repeatable.",
)
kernel_option = click.option("--kernel", "kernel_glob", default=None, help="Only kernels matching this glob.")


def parse_block(value: str) -> tuple:
    """`KERNEL=32x8x1` or `32x8` -> (glob or None, (x, y, z))."""
    from ..config import parse_block_shape

    glob, shape = value.rsplit("=", 1) if "=" in value else (None, value)
    try:
        return glob, parse_block_shape(shape)
    except ValueError as err:
        raise click.BadParameter(f"{err}; expected [KERNEL=]XxYxZ, e.g. 32x8 or transpose*=32x32x1") from None


def parse_arches(values) -> list:
    """`--arch` values (repeatable, comma-separated) as checked architecture names."""
    from ..frontend.nvcc import check_arch

    try:
        return [check_arch(a) for v in values for a in v.split(",") if a.strip()]
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--arch") from None


def analysis_options(blocks, arch, level: str = "ptx", budget=None) -> AnalysisOptions:
    """What the command line says about the launch and the target."""
    overrides = [(*parse_block(b), "command line (--block)") for b in blocks]
    return AnalysisOptions(block_overrides=overrides, arch=arch, level=level, budget=budget)


budget_option = click.option(
    "--analysis-budget", "analysis_budget", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
    help="CPU seconds the analysis of one kernel may take (default: 5; 0: no limit). A kernel that needs "
         "more is reported as incomplete.")
