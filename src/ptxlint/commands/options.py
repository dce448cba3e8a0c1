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


def _settings_decorators() -> list:
    from ..compile_commands import DATABASE_NAME

    return [
        click.option("--config", "config_path", default=None, type=click.Path(exists=True, dir_okay=False),
                     metavar="PATH",
                     help="Read the configuration from this file (a .ptxlint.toml or a pyproject.toml) instead "
                          "of the nearest one above each checked file."),
        click.option("-p", "--compile-commands", "compile_commands", default=None, type=click.Path(exists=True),
                     metavar="DIR|FILE",
                     help=f"Take each .cu file's -I, -D, -std, ... from a {DATABASE_NAME} (CMake, Bear, Meson): "
                          "the build directory that holds it, or the file itself."),
    ]


def config_options(command):
    """`--config PATH` and `-p DIR` / `--compile-commands FILE`: for every command that reads the
    configuration or compiles (`check`, `accesses`, `launches`, `kernels`)."""
    for decorate in reversed(_settings_decorators()):
        command = decorate(command)
    return command


def compile_options(command):
    """`--nvcc`, `--nvcc-arg`, `--isolated`, `--trust-config`: the explain commands take them as
    `check` does (cli.py declares its own, with the same meaning)."""
    decorators = [
        click.option("--nvcc", default=None, metavar="PATH", help="The nvcc to compile .cu files with."),
        click.option("--nvcc-arg", "nvcc_args", multiple=True, metavar="ARG",
                     help="Extra argument for nvcc (repeatable), e.g. --nvcc-arg=-Iinclude --nvcc-arg=-DTILE=32."),
        click.option("--isolated", is_flag=True, help="Ignore pyproject.toml / .ptxlint.toml configuration."),
        click.option("--trust-config", is_flag=True,
                     help="Let the checked repository's configuration name the nvcc to run and any nvcc option."),
    ]
    for decorate in reversed(decorators):
        command = decorate(command)
    return command


def command_settings(blocks=(), arches=(), *, config_path=None, compile_commands=None, nvcc=None, nvcc_args=(),
                     isolated=False, trust_config=False, level="ptx", budget=None):
    """The CheckOptions of the command line of any command: the one settings loader (file_plan._plan)
    merges them over the user's and the repository's configuration for each file, for `check` and
    the explain commands alike."""
    from ..check_options import CheckOptions
    from ..compile_commands import database_path

    arch_list = parse_arches(arches)
    return CheckOptions(
        analysis=analysis_options(blocks, arch_list[0] if arch_list else None, level, budget),
        arches=arch_list, nvcc=nvcc, nvcc_args=list(nvcc_args), use_config=not isolated,
        trust_config=trust_config, config_path=config_path,
        compile_commands=database_path(compile_commands) if compile_commands else None,
    )
