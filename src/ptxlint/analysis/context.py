"""Per-kernel analyses, built lazily and cached: a rule asks for them, never recomputes them.

`KernelContext.cfg`, `.uniformity`, `.launch`, `.lanes` ... each is computed on first use and then
shared by every rule that looks at the same kernel.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from ..frontend.ir import Function, Instruction, Module
from ..frontend.sourcemap import source_position


@dataclass
class AnalysisOptions:
    """What the user told us about the launch and the target."""

    # [(kernel glob or None, (x, y, z), origin)], or with the launch's grid as a fourth item
    block_overrides: list = field(default_factory=list)
    arch: Optional[str] = None
    launches: tuple = ()  # frontend.launches.Launch found in the host code of the checked sources
    level: str = "ptx"  # "sass": also assemble with ptxas and look at the SASS (--level sass)
    budget: Optional[float] = None  # CPU seconds per kernel (budget.py); None: the default, 0: no limit
    # analyse kernels whose code lies wholly in CUDA toolkit headers (a CUB kernel instantiated by the
    # user's call); off when their findings would be hidden anyway (no --toolkit-headers)
    toolkit_kernels: bool = True


class KernelContext:
    """Everything the rules may ask about one kernel (or device function) of one module."""

    def __init__(self, module: Module, function: Function, options: AnalysisOptions, shape=None,
                 focus=None) -> None:
        self.module = module
        self.function = function
        self.options = options
        # a run that only confirms findings made under another block shape (kernel_check.py):
        # (PTX lines, (path, line) places) it asks about; a rule may skip work that can report
        # nowhere else. None: every place counts
        self.focus = focus
        # what a rule could not check in this kernel, by rule code (e.g. accesses whose address
        # comes from run-time data): reported as "not checked" counts, never as findings
        self.not_checked: Counter = Counter()
        if shape is not None:
            self.launch = shape  # one of the kernel's shapes (analysis/launch.py plans them)

    @cached_property
    def cfg(self):
        from .cfg import ControlFlowGraph

        return ControlFlowGraph(self.function)

    @cached_property
    def dataflow(self):
        from .dataflow import ReachingDefinitions

        return ReachingDefinitions(self.function, self.cfg)

    @cached_property
    def intervals(self):
        from .intervals import BarrierIntervals

        return BarrierIntervals(self.function, self.cfg)

    @cached_property
    def address_roots(self):
        from .provenance import AddressRoots

        return AddressRoots(self)

    @cached_property
    def uniformity(self):
        from .uniformity import UniformityAnalysis

        return UniformityAnalysis(self)

    @cached_property
    def launch(self):
        from .launch import resolve_block_shape

        return resolve_block_shape(self.function, self.options)

    @cached_property
    def lanes(self):
        from .lanes import LaneEvaluator

        return LaneEvaluator(self)

    @cached_property
    def bank_model(self):
        from .bankmodel import bank_model_for

        return bank_model_for(self.module.sm_version)

    @cached_property
    def shared_accesses(self):
        from .accesses import analyse_shared_accesses

        return analyse_shared_accesses(self)

    @cached_property
    def sass_program(self):
        """The SASS of this module (frontend.sass.load.SassProgram) when the run asked for it
        (`--level sass`), else None. Needs ptxas and nvdisasm (a missing one is an input error)."""
        if self.options.level != "sass":
            return None
        from ..frontend.sass.load import program_for_module

        path = self.module.path.split(" (", 1)[0]
        return program_for_module(path, self.module, self.options.arch)

    @cached_property
    def sass_function(self):
        """This kernel's SASS (frontend.sass.ir.SassFunction), or None without `--level sass`."""
        program = self.sass_program
        return program.function(self.function.name) if program is not None else None

    @cached_property
    def resources(self):
        """Registers, spills, shared memory and barriers ptxas gave this kernel
        (analysis.resources.KernelResources), or None without `--level sass`."""
        program = self.sass_program
        return program.resources.get(self.function.name) if program is not None else None

    @cached_property
    def sass_accesses(self):
        """The SASS shared accesses matched to their PTX accesses (analysis.sass_accesses)."""
        if self.sass_function is None:
            return []
        from .sass_accesses import match_sass_accesses

        return match_sass_accesses(self, self.sass_function)

    @property
    def global_accesses(self):
        """Every global-memory access with its sectors per warp (analysis/global_accesses.py)."""
        from .global_accesses import analyse_global_accesses

        return analyse_global_accesses(self)

    def loop_iterations(self, header, body):
        """Per-iteration evaluators of a loop whose trip count can be followed (cached), or None."""
        cache = self.__dict__.setdefault("_loop_iterations", {})
        if header not in cache:
            from .loops import simulate_loop

            cache[header] = simulate_loop(self, header, body)
        return cache[header]

    def release(self) -> None:
        """Drop the cached analyses. They refer back to this context (an evaluator keeps its
        context), so without this they are a reference cycle that only the garbage collector
        frees, after scanning every value the analysis made."""
        for name in [n for n in self.__dict__ if n not in ("module", "function", "options", "launch", "not_checked")]:
            del self.__dict__[name]

    def position(self, ins: Instruction) -> tuple:
        """(path, line, column) to report a finding on `ins`."""
        return source_position(ins, self.module.path)

    def shared_declaration(self, variable: str, near: Instruction):
        """The source declaration (frontend.declarations.SharedDeclaration) of the shared variable
        `variable` (its PTX name) that the access `near` uses, with every dimension known; None
        when the source cannot be read (outside the repository, PTX only) or does not declare it
        in a form the declaration parser knows (`extern __shared__`, several lines)."""
        cache = self.__dict__.setdefault("_shared_declarations", {})
        if variable not in cache:
            from ..frontend.declarations import find_shared_declaration
            from ..frontend.sourcemap import is_toolkit_header
            from ..gate import read_lines
            from .layout import source_name

            declared = next((v for v in self.module.variables + self.function.variables if v.name == variable), None)
            size = declared.size_bytes if declared is not None else None
            path, line, _ = self.position(near)
            files = [f for f in self.module.files.values() if not is_toolkit_header(f)]
            cache[variable] = find_shared_declaration(source_name(variable), size, (path, line), files, read_lines)
        return cache[variable]
