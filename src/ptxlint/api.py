"""Entry points: check a path, a PTX string. The CLI is a thin layer over these."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Optional

from .analysis.context import AnalysisOptions, KernelContext
from .diagnostics import Diagnostic
from .errors import InputError
from .frontend.ir import Module
from .frontend.parser import parse_ptx, parse_ptx_file

PTX_SUFFIXES = (".ptx",)
SOURCE_SUFFIXES = (".cu",)


@dataclass
class CheckOptions:
    """Options of one `ptxlint check` run."""

    select: list = field(default_factory=list)
    ignore: list = field(default_factory=list)
    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)


@dataclass
class FileResult:
    path: str
    diagnostics: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # InputError


def discover(paths: Iterable[str]) -> tuple:
    """Expand directories into the PTX (and .cu) files under them. Returns (files, errors)."""
    files: list = []
    errors: list = []
    for path in paths:
        if os.path.isdir(path):
            found = []
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.endswith(PTX_SUFFIXES + SOURCE_SUFFIXES):
                        found.append(os.path.join(root, name))
            if not found:
                errors.append(InputError(path, "directory holds no .ptx or .cu files"))
            files.extend(found)
        elif not os.path.exists(path):
            errors.append(InputError(path, "no such file or directory"))
        else:
            files.append(path)
    return files, errors


def check_module(module: Module, options: Optional[CheckOptions] = None) -> list:
    """Run the selected rules on every function with a body; return sorted diagnostics."""
    from .rules.registry import resolve_selection

    options = options or CheckOptions()
    rules = resolve_selection(options.select, options.ignore)
    diagnostics: list = []
    for function in module.functions:
        if not function.has_body:
            continue
        context = KernelContext(module, function, options.analysis)
        for rule in rules:
            diagnostics.extend(rule.check(context))
    return sorted(diagnostics, key=Diagnostic.sort_key)


def load_module(path: str) -> Module:
    """Parse a `.ptx` file; `.cu` files are compiled first (see ptxlint.frontend.nvcc)."""
    if path.endswith(SOURCE_SUFFIXES):
        raise InputError(path, ".cu input needs nvcc support, which this version does not have yet")
    return parse_ptx_file(path)


def check_file(path: str, options: Optional[CheckOptions] = None) -> FileResult:
    result = FileResult(path)
    try:
        module = load_module(path)
        result.diagnostics = check_module(module, options)
    except InputError as err:
        result.errors.append(err)
    return result


def check_paths(paths: Iterable[str], options: Optional[CheckOptions] = None) -> list:
    """Check every file under `paths`; bad files give errors, the others are still checked."""
    files, errors = discover(paths)
    results = [FileResult(e.path, errors=[e]) for e in errors]
    results.extend(check_file(f, options) for f in files)
    return results


def check_string(text: str, path: str = "<string>", options: Optional[CheckOptions] = None) -> list:
    return check_module(parse_ptx(text, path), options)
