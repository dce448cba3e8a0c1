"""Command line: `ptxlint check PATH...`, `ptxlint accesses PATH`, `ptxlint rule CODE`.

`ptxlint PATH...` is short for `ptxlint check PATH...`. Exit codes: 0 nothing that fails the run,
1 findings at or above `--fail-on` (default: warning) or a kernel not fully analysed, 2 usage,
input or I/O errors (the other files are still checked and reported; in text form the errors go
to stderr).
"""

from __future__ import annotations

import sys

import click

from . import __version__
from .commands.options import analysis_options, block_option, config_options, parse_arches
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
FAIL_ON = ["error", "warning", "info"]


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: findings with source and notes; concise: one line each; json; sarif (2.1.0); "
                   "github: workflow commands that annotate a pull request.")
@click.option("--select", "select", multiple=True, metavar="CODES",
              help="Rule codes or prefixes to run, comma-separated and repeatable (default: all). "
                   "SUPP001 selects the report of unused suppressions.")
@click.option("--ignore", "ignore", multiple=True, metavar="CODES",
              help="Rule codes or prefixes to skip, comma-separated and repeatable.")
@click.option("--verbose", "-v", is_flag=True,
              help="Show every note of each finding (the full evidence), not only the assumption, one line "
                   "of evidence and the fix.")
@click.option("--exit-zero", is_flag=True,
              help="Exit 0 even when findings are reported (input errors still exit 2).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="warning", show_default=True,
              help="The least severe finding that makes the run exit 1: error, warning (also a kernel not "
                   "fully analysed within its budget) or info (any finding).")
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
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes to use (default: CPUs): files checked in parallel, and the parts of a large file; "
                   "1 runs everything in this process.")
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
@config_options
@click.option("--fix", "apply_fixes", is_flag=True,
              help="Apply the safe fixes (BANK001 padding of a __shared__ declaration): each edit is compiled and "
                   "checked first and kept only when its finding is gone and no new one appears.")
@click.option("--unsafe-fixes", is_flag=True,
              help="With --fix or --diff, also apply unsafe fixes (an edit whose meaning ptxlint cannot prove "
                   "unchanged, e.g. an inserted __syncwarp()).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the verified fixes as a unified diff instead of writing them (exit 1 when there is one).")
@click.option("--report", "report_path", default=None, type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the HTML report (as `ptxlint report`) of the checked files to FILE; the text "
                   "output links each finding to its kernel there.")
def check(paths, fmt, select, ignore, verbose, exit_zero, fail_on, blocks, arches, nvcc, nvcc_args, output,
          statistics, report_unused_suppressions, no_cache, cache_dir, isolated, trust_config, jobs, shard,
          toolkit_headers, level, analysis_budget, config_path, compile_commands, apply_fixes, unsafe_fixes,
          show_diff, report_path):
    """Check .cu, .ptx files (or directories of them) and report findings."""
    from .cache import default_cache_dir
    from .commands.settings import echo_notes
    from .compile_commands import database_path
    from .suppressions import UNUSED_SUPPRESSION, split_driver_selectors

    if statistics and fmt not in ("text", "concise", "json"):
        raise click.UsageError(f"--statistics prints text or JSON, not {fmt}")
    arch_list = parse_arches(arches)
    selectors = _selectors(select)
    select, select_unused = split_driver_selectors(selectors)
    # `--select SUPP001` alone: run every rule (a suppression is unused only among rules that ran)
    # but show only the unused suppressions
    only_unused = bool(selectors) and not select
    ignore, ignore_unused = split_driver_selectors(_selectors(ignore))
    options = CheckOptions(
        select=select,
        ignore=ignore,
        analysis=analysis_options(blocks, arch_list[0] if arch_list else None, level, analysis_budget),
        arches=arch_list,
        nvcc=nvcc,
        nvcc_args=list(nvcc_args),
        use_config=not isolated,
        trust_config=trust_config,
        cache_dir=None if no_cache else (cache_dir or default_cache_dir()),
        jobs=jobs,
        shard=_parse_shard(shard),
        report_unused_suppressions=(report_unused_suppressions or select_unused) and not ignore_unused,
        toolkit_headers=toolkit_headers,
        config_path=config_path,
        compile_commands=database_path(compile_commands) if compile_commands else None,
    )
    try:
        from .rules.registry import resolve_selection

        rules = resolve_selection(options.select, options.ignore)
    except InputError as err:
        click.echo(f"ptxlint: {err.message}", err=True)
        sys.exit(EXIT_ERROR)
    results = check_paths(paths, options)
    echo_notes(note for r in results for note in r.notes)
    fixed = None
    if apply_fixes or show_diff:
        from .fixes import fix_results

        fixed = fix_results(results, options, unsafe=unsafe_fixes, write=not show_diff)
        if show_diff:
            _emit(fixed.diff(), output)
            click.echo(fixed.summary("Would fix").rstrip("\n"), err=True)
            errors = [e for r in results for e in r.errors]
            for err in errors:
                click.echo(str(err), err=True)
            sys.exit(EXIT_ERROR if errors else (EXIT_FINDINGS if fixed.files else EXIT_CLEAN))
        if fixed.files:
            results = check_paths(paths, options)  # what remains, as the files now are
    report = None
    if report_path:
        from .commands.report import build_report, report_links, write_report

        doc, _ = build_report(paths, options, results)
        write_report(doc, report_path)
        report = (report_path, report_links(doc, report_path))
        if fmt != "text" or statistics:
            click.echo(f"ptxlint: report written to {report_path}", err=True)
    if only_unused:
        for r in results:
            r.diagnostics = [d for d in r.diagnostics if d.code == UNUSED_SUPPRESSION.code]
    # Text forms are read by a person: input and I/O errors go to stderr, findings to stdout.
    errors_in_report = fmt in ("json", "sarif", "github")
    if statistics and fmt == "json":
        _emit(_statistics_json(results), output)
    elif statistics:
        _emit(_statistics(results, with_errors=bool(output)), output)
    elif fmt == "json":
        from .report import json_report

        _emit(json_report.render(results), output)
    elif fmt == "sarif":
        from .report import sarif

        _emit(sarif.render(results, rules, verbose=verbose), output)
    elif fmt == "github":
        from .report import github

        _emit(github.render(results, verbose=verbose), output)
    elif fmt == "concise":
        from .report import concise

        _emit(concise.render(results, with_errors=bool(output)), output)
    else:
        from .report import text

        _emit(text.render(results, colour=output is None and text.use_colour(sys.stdout), verbose=verbose,
                          with_errors=bool(output), report=report), output)
    if fixed is not None:
        # after the report on a terminal; on stderr when stdout carries a machine format or a file
        click.echo(fixed.summary().rstrip("\n"), err=bool(output) or fmt not in ("text", "concise") or statistics)
    if output or not errors_in_report:
        # Still tell the person at the terminal why the run failed.
        for r in results:
            for err in r.errors:
                click.echo(str(err), err=True)
    sys.exit(exit_status(results, fail_on, exit_zero))


def _selectors(values) -> list:
    """`--select A --select B,C` -> [A, B, C]: every occurrence counts, commas split."""
    return [s.strip() for v in values for s in v.split(",") if s.strip()]


def exit_status(results, fail_on: str = "warning", exit_zero: bool = False) -> int:
    """2 for any input or I/O error; else 1 when a finding is at least as severe as `fail_on`, or
    (for warning and info) a kernel's analysis stopped early, since its clean result is not one;
    else 0. `exit_zero` turns 1 into 0, never 2 into 0."""
    from .diagnostics import SEVERITIES

    if any(r.errors for r in results):
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    failing = SEVERITIES[:SEVERITIES.index(fail_on) + 1]
    if any(d.severity in failing for r in results for d in r.diagnostics):
        return EXIT_FINDINGS
    if fail_on != "error" and any(getattr(r, "incomplete", ()) for r in results):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _statistic_rows(results) -> list:
    """(count, code, rule name) per rule, most frequent first."""
    from .rules.registry import all_rules
    from .suppressions import DRIVER_RULES

    names = {r.code: r.name for r in list(all_rules()) + list(DRIVER_RULES)}
    counts: dict = {}
    for r in results:
        for d in r.diagnostics:
            counts[d.code] = counts.get(d.code, 0) + 1
    return [(n, code, names.get(code, "")) for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _statistics(results, with_errors: bool = False) -> str:
    """`COUNT CODE name` per rule, most frequent first, like `ruff --statistics`."""
    from .report import summary_line

    lines = [f"{n:>5}  {code:<9} {name}".rstrip() for n, code, name in _statistic_rows(results)]
    lines += [str(err) for r in results for err in r.errors] if with_errors else []
    lines.append(summary_line(results))
    return "\n".join(lines) + "\n"


def _statistics_json(results) -> str:
    """`--statistics --format json`: the counts per rule, the input errors and the incomplete kernels."""
    import json

    doc = {
        "statistics": [{"code": code, "name": name, "count": n} for n, code, name in _statistic_rows(results)],
        "errors": [e.to_dict() for r in results for e in r.errors],
        "incomplete": [dict(s) for r in results for s in getattr(r, "incomplete", ())],
    }
    return json.dumps(doc, indent=2) + "\n"


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
