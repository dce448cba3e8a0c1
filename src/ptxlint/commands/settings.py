"""What the explain commands (`accesses`, `launches`, `kernels`) share with `check` about a file's
settings: the same plan (file_plan._plan: the command line over the user's and the repository's
configuration, the compilation database), the same module (the `.cu` compiled with the plan's nvcc
options, for its first architecture) and the same launches (host code read with the plan's include
directories and defines), so that every command shows a kernel under the block and numbers `check`
reports. Globs that match no kernel are errors here as in `check`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..errors import InputError


def file_plan(path: str, options):
    """The plan `check` would run `path` with; its notes are said on stderr. Raises InputError (a
    bad configuration, a bad compilation database)."""
    from ..file_plan import _plan, _trust_sources_of
    from ..gate import trust_checked_path

    trust_checked_path(path)
    # the explain commands list every kernel, those wholly inside toolkit headers too
    plan = _plan(path, replace(options, toolkit_headers=True))
    if isinstance(plan, InputError):
        raise plan
    _trust_sources_of(plan)
    echo_notes(plan.notes)  # flags borrowed from another file's compile_commands.json entry
    return plan


def first_arch_compile(plan, arch: Optional[str] = None):
    """The plan's nvcc options for one architecture (`arch`, else the plan's first), or None for a
    file that is not compiled."""
    if plan.compile is None:
        return None
    return replace(plan.compile, arches=(arch or plan.compile.arches[0],))


def load_planned(path: str, plan, arch: Optional[str] = None) -> tuple:
    """(module, analysis options): `path` parsed or compiled as `check` does (first architecture),
    with the launches of its host code found as `check` finds them."""
    from ..api import load_module, with_launches
    from ..cache import default_cache_dir

    compile_options = first_arch_compile(plan, arch)
    module = load_module(path, compile_options, cache_dir=default_cache_dir())  # the compile `check` made, if it did
    analysis = plan.analysis
    if compile_options is not None:
        analysis = replace(analysis, arch=compile_options.arches[0])
    return module, with_launches(path, module, analysis, plan.host)


def unmatched_globs(options, kernels: list, kernel_glob: Optional[str] = None) -> list:
    """InputErrors for a `--block KERNEL=...` or `--kernel` glob that names none of `kernels` (mangled
    names of the files read): a typo or a renamed kernel, said rather than silently ignored."""
    from ..results import unmatched_block_glob_errors

    errors = unmatched_block_glob_errors(options.analysis.block_overrides, kernels)
    if kernel_glob is not None:
        from ..analysis.launch import name_matches

        if not any(name_matches(k, kernel_glob) for k in kernels):
            listed = ", ".join(sorted(set(kernels))[:8]) or "none"
            errors.append(InputError("<command line>", f"--kernel {kernel_glob} matches no kernel of the checked "
                                                       f"files; kernels: {listed}"))
    return errors


def echo_notes(notes) -> None:
    """What the run decided about its inputs, on stderr (never mixed into a report)."""
    import click

    for note in dict.fromkeys(notes):
        click.echo(f"ptxlint: note: {note}", err=True)
