"""Per-kernel analyses, built lazily and cached: a rule asks for them, never recomputes them.

`KernelContext.cfg`, `.uniformity`, `.launch`, `.lanes` ... each is computed on first use and then
shared by every rule that looks at the same kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from ..frontend.ir import Function, Instruction, Module
from ..frontend.sourcemap import source_position


@dataclass
class AnalysisOptions:
    """What the user told us about the launch and the target."""

    block_overrides: list = field(default_factory=list)  # [(kernel glob or None, (x, y, z), origin)]
    arch: Optional[str] = None
    budget: Optional[float] = None  # CPU seconds per kernel (budget.py); None: the default, 0: no limit


class KernelContext:
    """Everything the rules may ask about one kernel (or device function) of one module."""

    def __init__(self, module: Module, function: Function, options: AnalysisOptions) -> None:
        self.module = module
        self.function = function
        self.options = options

    @cached_property
    def cfg(self):
        from .cfg import ControlFlowGraph

        return ControlFlowGraph(self.function)

    @cached_property
    def dataflow(self):
        from .dataflow import ReachingDefinitions

        return ReachingDefinitions(self.function, self.cfg)

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
        for name in [n for n in self.__dict__ if n not in ("module", "function", "options")]:
            del self.__dict__[name]

    def position(self, ins: Instruction) -> tuple:
        """(path, line, column) to report a finding on `ins`."""
        return source_position(ins, self.module.path)
