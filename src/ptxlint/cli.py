"""Command line: `ptxlint check PATH...`, `ptxlint accesses PATH`, `ptxlint rule CODE`.

`ptxlint PATH...` is short for `ptxlint check PATH...`. Exit codes: 0 no findings, 1 findings,
2 usage or input errors (the other files are still checked and reported).
"""

from __future__ import annotations

import sys

import click

from . import __version__
from .commands.options import analysis_options, block_option, parse_arches
from .api import CheckOptions, check_paths
from .errors import InputError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _DefaultToCheck(click.Group):
    """A group whose unknown first word is a path for `check`."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        return super().parse_args(ctx, args)


def _emit(text: str, output) -> None:
    """Write the report to `output` (a file) or stdout; a report that cannot be written is an input
    error (exit 2) with the reason on stderr, never a traceback."""
    try:
        if output:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        else:
            click.echo(text, nl=False)
            sys.stdout.flush()
    except OSError as err:
        where = output or "standard output"
        click.echo(f"ptxlint: cannot write the report to {where}: {err.strerror or err}", err=True)
        sys.exit(EXIT_ERROR)


def _parse_shard(value):
    """`I/N` -> (I, N) with 1 <= I <= N; None when not given."""
    if value is None:
        return None
    try:
        index, count = (int(v) for v in value.split("/"))
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected I/N, e.g. 2/4", param_hint="--shard") from None
    if not 1 <= index <= count:
        raise click.BadParameter(f"{value!r}: I must be between 1 and N", param_hint="--shard")
    return index, count


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ptxlint")
def main() -> None:
    """ptxlint: find shared-memory bank conflicts, divergent barriers, races and fence bugs in
    CUDA kernels, from the PTX that nvcc emits."""




FORMATS = ["text", "concise", "json", "sarif", "github"]


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: findings with source and notes; concise: one line each; json; sarif (2.1.0); "
                   "github: workflow commands that annotate a pull request.")
@click.option("--select", default="", help="Comma-separated rule codes or prefixes to run (default: all).")
@click.option("--ignore", default="", help="Comma-separated rule codes or prefixes to skip.")
@block_option
@click.option("--arch", "arches", multiple=True, metavar="SM",
              help="Architecture(s) to compile .cu files for (repeatable or comma-separated; default from "
                   "the config, else sm_90); for .ptx, the one to assume when the PTX does not say.")
@click.option("--nvcc", default=None, metavar="PATH", help="The nvcc to compile .cu files with.")
@click.option("--nvcc-arg", "nvcc_args", multiple=True, metavar="ARG",
              help="Extra argument for nvcc (repeatable), e.g. --nvcc-arg=-Iinclude --nvcc-arg=-DTILE=32.")
@click.option("--output", "-o", default=None, type=click.Path(dir_okay=False), help="Write the report to a file.")
@click.option("--statistics", is_flag=True, help="Print how many findings each rule has, instead of the findings.")
@click.option("--report-unused-suppressions", is_flag=True,
              help="Report `// ptxlint: ignore[...]` comments that suppress nothing (as SUPP001).")
@click.option("--no-cache", is_flag=True, help="Recompile and re-analyse every file; do not read or write the cache.")
@click.option("--cache-dir", default=None, metavar="DIR",
              help="Where to keep cached results (default: $PTXLINT_CACHE_DIR, else $XDG_CACHE_HOME/ptxlint, "
                   "else ~/.cache/ptxlint).")
@click.option("--isolated", is_flag=True, help="Ignore pyproject.toml / .ptxlint.toml configuration.")
@click.option("--trust-config", is_flag=True,
              help="Let the checked repository's configuration name the nvcc to run and any nvcc option "
                   "(refused by default: ptxlint runs only programs you name).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Files checked in parallel (default: CPUs).")
@click.option("--shard", default=None, metavar="I/N",
              help="Check only the I-th of N parts of the files (1-based; a stable split by path), for a CI "
                   "matrix of N jobs.")
@click.option("--toolkit-headers", is_flag=True,
              help="Also report findings located in CUDA toolkit headers (CUB, Thrust, libcu++), "
                   "which are hidden by default.")
@click.option("--level", type=click.Choice(["ptx", "sass"]), default="ptx", show_default=True,
              help="sass: also assemble with ptxas and read the SASS (OCC001, SPILL001; BANK002 states what "
                   "ptxas did). Needs ptxas and nvdisasm.")
@click.option("--analysis-budget", "analysis_budget", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
              help="CPU seconds the analysis of one kernel may take (default: 5, or `analysis-budget` in the "
                   "config; 0: no limit). A kernel that needs more is reported as incomplete.")
@click.option("--report", "report_path", default=None, type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the HTML report (as `ptxlint report`) of the checked files to FILE; the text "
                   "output links each finding to its kernel there.")
def check(paths, fmt, select, ignore, blocks, arches, nvcc, nvcc_args, output, statistics,
          report_unused_suppressions, no_cache, cache_dir, isolated, trust_config, jobs, shard, toolkit_headers, level,
          analysis_budget, report_path):
    """Check .cu, .ptx files (or directories of them) and report findings."""
    from .cache import default_cache_dir

    arch_list = parse_arches(arches)
    options = CheckOptions(
        select=[s.strip() for s in select.split(",") if s.strip()],
        ignore=[s.strip() for s in ignore.split(",") if s.strip()],
        analysis=analysis_options(blocks, arch_list[0] if arch_list else None, level, analysis_budget),
        arches=arch_list,
        nvcc=nvcc,
        nvcc_args=list(nvcc_args),
        use_config=not isolated,
        trust_config=trust_config,
        cache_dir=None if no_cache else (cache_dir or default_cache_dir()),
        jobs=jobs,
        shard=_parse_shard(shard),
        report_unused_suppressions=report_unused_suppressions,
        toolkit_headers=toolkit_headers,
    )
    try:
        from .rules.registry import resolve_selection

        rules = resolve_selection(options.select, options.ignore)
    except InputError as err:
        click.echo(f"ptxlint: {err.message}", err=True)
        sys.exit(EXIT_ERROR)
    results = check_paths(paths, options)
    report = None
    if report_path:
        from .commands.report import build_report, report_links, write_report

        doc, _ = build_report(paths, options, results)
        write_report(doc, report_path)
        report = (report_path, report_links(doc, report_path))
        if fmt != "text" or statistics:
            click.echo(f"ptxlint: report written to {report_path}", err=True)
    if statistics:
        _emit(_statistics(results), output)
    elif fmt == "json":
        from .report import json_report

        _emit(json_report.render(results), output)
    elif fmt == "sarif":
        from .report import sarif

        _emit(sarif.render(results, rules), output)
    elif fmt == "github":
        from .report import github

        _emit(github.render(results), output)
    elif fmt == "concise":
        from .report import concise

        _emit(concise.render(results), output)
    else:
        from .report import text

        _emit(text.render(results, colour=output is None and text.use_colour(sys.stdout), report=report), output)
    if output and any(r.errors for r in results):
        # The report went to a file; still tell the person at the terminal why the run failed.
        for r in results:
            for err in r.errors:
                click.echo(str(err), err=True)
    if any(r.errors for r in results):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if any(r.diagnostics for r in results) else EXIT_CLEAN)


def _statistics(results) -> str:
    """`COUNT CODE name` per rule, most frequent first, like `ruff --statistics`."""
    from .report import summary_line
    from .rules.registry import all_rules
    from .suppressions import DRIVER_RULES

    names = {r.code: r.name for r in list(all_rules()) + list(DRIVER_RULES)}
    counts: dict = {}
    for r in results:
        for d in r.diagnostics:
            counts[d.code] = counts.get(d.code, 0) + 1
    lines = [f"{n:>5}  {code:<9} {names.get(code, '')}".rstrip()
             for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    for r in results:
        for err in r.errors:
            lines.append(str(err))
    lines.append(summary_line(results))
    return "\n".join(lines) + "\n"


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Print the documentation of every rule.")
@click.option("--table", is_flag=True, help="Print a Markdown table of the rules (the README's).")
def rule(code, show_all, table):
    """Print the documentation of a rule (or list the rules)."""
    from .rules.registry import all_rules, get_rule
    from .suppressions import DRIVER_RULES

    rules = list(all_rules()) + list(DRIVER_RULES)
    if show_all:
        click.echo("\n".join(r.render_doc() for r in rules))
        return
    if table:
        click.echo("| Code | Name | Severity | What it finds |\n| --- | --- | --- | --- |")
        for r in rules:
            click.echo(f"| {r.code} | {r.name} | {r.severity} | {r.summary} |")
        return
    if not code:
        width = max(len(r.code) for r in rules)
        for r in rules:
            click.echo(f"{r.code:<{width}}  {r.name:<40} {r.severity:<8} {r.summary}")
        return
    driver = [r for r in DRIVER_RULES if code.upper() == r.code or code == r.name]
    try:
        click.echo((driver[0] if driver else get_rule(code)).render_doc())
    except InputError as err:
        click.echo(f"ptxlint: {err.message}", err=True)
        sys.exit(EXIT_ERROR)


if __name__ == "__main__":  # pragma: no cover
    main()


def _register_subcommands() -> None:
    from .commands.accesses import accesses
    from .commands.kernels import kernels
    from .commands.launches import launches
    from .commands.report import report

    main.add_command(accesses)
    main.add_command(report)
    main.add_command(kernels)
    main.add_command(launches)


_register_subcommands()
