"""What a `check` run is asked to do (`CheckOptions`) and which files it reads (by suffix).

Kept below every stage of a run (module_check.py, file_plan.py, file_check.py, results.py, api.py)
so that each can take the options without importing the one above it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .analysis.context import AnalysisOptions

PTX_SUFFIXES = (".ptx",)
SOURCE_SUFFIXES = (".cu",)
HEADER_SUFFIXES = (".cuh",)


@dataclass
class CheckOptions:
    """Options of one `ptxlint check` run. Empty/None fields defer to the configuration."""

    select: list = field(default_factory=list)
    ignore: list = field(default_factory=list)
    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)
    arches: list = field(default_factory=list)  # for .cu files; several = compile for each
    nvcc: Optional[str] = None
    nvcc_args: list = field(default_factory=list)
    use_config: bool = True
    cache_dir: Optional[str] = None  # None = no cache
    jobs: Optional[int] = None  # None = one per CPU
    shard: Optional[tuple] = None  # (I, N): only the I-th of N parts of the files (api.in_shard)
    report_unused_suppressions: bool = False
    toolkit_headers: bool = False  # report findings located in CUDA toolkit headers too
    # the directories files may be read from (gate.py): the checked paths' repositories; empty:
    # the repository (else the directory) of each file checked
    boundary: tuple = ()
    trust_config: bool = False  # a repository's config may name programs and nvcc options
    config_path: Optional[str] = None  # --config: this file instead of the nearest configuration
    compile_commands: Optional[str] = None  # -p / --compile-commands: a compile_commands.json
