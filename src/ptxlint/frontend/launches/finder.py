"""`LaunchFinder`, the passes over one preprocessed translation unit put together, and the entry
point `find_launches`.

Each pass is a mixin in its own module (brackets.py, declarations.py, statements.py, values.py,
launch_sites.py, relations.py, instantiations.py); the state they share is made here.
"""

from __future__ import annotations

import os
from typing import Optional

from ..cpp_preprocess import preprocess
from .brackets import Brackets
from .declarations import DeclarationReader
from .instantiations import HostCallBindings
from .launch_sites import LaunchSites
from .relations import LaunchRelations
from .statements import BodyWalker
from .values import ValueResolver


class LaunchFinder(Brackets, DeclarationReader, BodyWalker, ValueResolver, LaunchSites,
                   LaunchRelations, HostCallBindings):
    """Finds launches in one preprocessed translation unit."""

    def __init__(self, tokens: list):
        self.toks = tokens
        self.n = len(tokens)
        self.match = self._match_brackets()
        self.registry: dict = {}  # qualified name -> [Decl] (namespace and class members)
        self.usings: dict = {}  # prefix -> [namespace names used there]
        self.functions: list = []
        self.templates_by_name: dict = {}  # unqualified name -> [Function]
        self.callables_by_name: dict = {}  # unqualified name -> [Function]: host functions with parameters
        self.instantiations: dict = {}  # Function -> {binding key: binding}
        self.binding_origins: dict = {}  # (Function, binding key) -> {(calling function, its binding key)}
        self.launches: list = []
        self._seen: set = set()
        self._collecting = False
        self._evaluating: set = set()
        self._value_cache: dict = {}
        # while an argument's factor is asked for (`_multiple`), names the host code does not give
        # read as Multiple(1); their values are cached apart so no exact read sees one
        self._factor_mode = False
        self._factor_cache: dict = {}
        self._assumed: set = set()  # what the values read for the launch being recorded assume
        self._wrappers: set = set()  # functions whose unbound parameters that launch's shape is (launch_sites.py)
        # (start, end, namespace) of each `using namespace N;` in a function body, found once the
        # declarations are read (values.py)
        self._local_using_spans: Optional[list] = None
        self._relation_steps = 0  # what reading one argument's relation to the launch may still take (relations.py)

    def run(self):
        self._decl_seq(0, self.n, "", [], ())
        self._find_local_usings()
        self._walk_all()
        return [launch for _, _, launch in sorted(self.launches, key=lambda x: x[:2])]


def find_launches(path: str, text: Optional[str] = None, include_dirs=(), defines=None, read=None,
                  unknown_switches: bool = False, files_read: Optional[list] = None) -> list:
    """Kernel launches in the translation unit `path` (its text read with `read(path)`, the
    preprocessor's reader by default, unless `text` is given), with their block and grid shapes
    where they are compile-time values. `include_dirs` are searched for `#include`s (after the
    including file's directory); `defines` are `-D` macros ({name: value}). Never raises on code it
    does not understand: such launches are not found, or their block is None with the reason.
    `unknown_switches`: the build's -D options are not known (see cpp_preprocess.preprocess).
    `files_read` gets every file the preprocessor read."""
    pp = preprocess(path, text, include_dirs, defines, read, unknown_switches)
    if files_read is not None:
        files_read.extend(pp.files)
    return LaunchFinder(pp.tokens).run()


def find_launches_with_callers(path: str, callers: list, include_dirs=(), defines=None, read=None,
                               unknown_switches: bool = False) -> list:
    """find_launches of `path` read together with the translation units `callers` that call its
    launch wrappers (host_sources.caller_sources): the calls there bind the wrappers' block and
    grid parameters as calls in `path` would. Only launch statements of `path`'s own reading are
    returned (a caller's own launches belong to the caller's kernels)."""
    # one unit that includes the source, then each caller: a header they share is read once (its
    # include guard holds across them), as the wrappers' prototypes and inline overloads are
    units = [os.path.abspath(p) for p in [path, *callers]]
    text = "".join(f'#include "{u}"\n' for u in units if '"' not in u and "\n" not in u)
    return LaunchFinder(preprocess(path, text, include_dirs, defines, read, unknown_switches).tokens).run()
