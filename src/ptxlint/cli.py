"""Command line: `ptxlint check PATH...`, `ptxlint accesses PATH`, `ptxlint rule CODE`.

`ptxlint PATH...` is short for `ptxlint check PATH...`. Exit codes: 0 no findings, 1 findings,
2 usage or input errors (the other files are still checked and reported).
"""

from __future__ import annotations

import sys

import click

from . import __version__
from .analysis.context import AnalysisOptions
from .api import CheckOptions, check_paths
from .errors import InputError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _DefaultToCheck(click.Group):
    """A group whose unknown first word is a path for `check`."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        return super().parse_args(ctx, args)


def _parse_block(value: str) -> tuple:
    """`KERNEL=32x8x1` or `32x8` -> (glob or None, (x, y, z))."""
    glob = None
    shape = value
    if "=" in value:
        glob, shape = value.rsplit("=", 1)
    try:
        dims = [int(p) for p in shape.lower().split("x")]
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected [KERNEL=]XxYxZ, e.g. 32x8 or transpose*=32x32x1") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise click.BadParameter(f"{value!r}: expected 1 to 3 positive sizes, e.g. 32x8")
    dims += [1] * (3 - len(dims))
    if dims[0] * dims[1] * dims[2] > 1024:
        raise click.BadParameter(f"{value!r}: a block has at most 1024 threads")
    return glob, tuple(dims)


def _analysis_options(blocks, arch) -> AnalysisOptions:
    overrides = [(*_parse_block(b), "command line (--block)") for b in blocks]
    return AnalysisOptions(block_overrides=overrides, arch=arch)


def _emit(text: str, output) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        click.echo(text, nl=False)


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ptxlint")
def main() -> None:
    """ptxlint: find shared-memory bank conflicts, divergent barriers, races and fence bugs in
    CUDA kernels, from the PTX that nvcc emits."""


_block_option = click.option(
    "--block", "blocks", multiple=True, metavar="[KERNEL=]XxYxZ",
    help="Block shape to assume (KERNEL is a glob on the mangled or demangled name). Repeatable.",
)


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--select", default="", help="Comma-separated rule codes or prefixes to run (default: all).")
@click.option("--ignore", default="", help="Comma-separated rule codes or prefixes to skip.")
@_block_option
@click.option("--arch", default=None, help="Architecture to assume when the PTX does not say (sm_90).")
@click.option("--output", "-o", default=None, type=click.Path(dir_okay=False), help="Write the report to a file.")
def check(paths, fmt, select, ignore, blocks, arch, output):
    """Check PTX files (or directories of them) and report findings."""
    options = CheckOptions(
        select=[s for s in select.split(",") if s.strip()],
        ignore=[s for s in ignore.split(",") if s.strip()],
        analysis=_analysis_options(blocks, arch),
    )
    try:
        from .rules.registry import resolve_selection

        resolve_selection(options.select, options.ignore)
    except InputError as err:
        click.echo(f"ptxlint: {err.message}", err=True)
        sys.exit(EXIT_ERROR)
    results = check_paths(paths, options)
    if fmt == "json":
        from .report import json_report

        _emit(json_report.render(results), output)
    else:
        from .report import text

        _emit(text.render(results, colour=output is None and text.use_colour(sys.stdout)), output)
    if any(r.errors for r in results):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if any(r.diagnostics for r in results) else EXIT_CLEAN)


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Print the documentation of every rule.")
def rule(code, show_all):
    """Print the documentation of a rule (or of all rules)."""
    from .rules.registry import all_rules, get_rule

    if show_all:
        click.echo("\n".join(r.render_doc() for r in all_rules()))
        return
    if not code:
        for r in all_rules():
            click.echo(f"{r.code}  {r.name:<40} {r.severity:<8} {r.summary}")
        return
    try:
        click.echo(get_rule(code).render_doc())
    except InputError as err:
        click.echo(f"ptxlint: {err.message}", err=True)
        sys.exit(EXIT_ERROR)


if __name__ == "__main__":  # pragma: no cover
    main()


def _register_subcommands() -> None:
    from .commands.accesses import accesses

    main.add_command(accesses)


_register_subcommands()
