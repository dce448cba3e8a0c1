"""Kernel launches in host code, and the block shape each one uses when it is a compile-time value.

    find_launches("bitonic.cu") -> [Launch(kernel="bitonicSort", block=(128, 1, 1), line=273, ...)]
    launches_for_function("_Z11bitonicSortPj", launches) -> the launches of that PTX function

Approach. Launch shapes are found without nvcc (CI has none) and without a C++ front end:
1. `cpp_preprocess` tokenizes the translation unit and runs a small preprocessor (macros,
   local `#include`s, `#if` with three values), so launches written through macros are seen.
2. A hand-written pass over the tokens finds the structure a launch shape depends on, and only
   that: namespaces, classes, enums, function (template) definitions, and inside function bodies
   the statements (blocks, if/else, loops, switch/case, lambdas, simple statements). Full C++
   parsing is not needed: a simple statement is "tokens up to `;`", which is robust to code the
   pass does not understand (templates, operators, attributes...): such code is skipped, never
   fatal, and any value that depends on it is unknown.
3. Expressions (block arguments, initializers, template arguments) are read by a small LALR
   grammar, `grammars/launch.lark` (launch_expr.py), and evaluated to integers / `dim3` values.
A C++ front end (libclang) would see more but is a large native dependency that has to match the
CUDA headers; preprocessed output from `nvcc -E` needs nvcc. Neither is needed for the forms
launches take in practice: literals, macros, constants, `dim3` variables and template arguments.

Values. A block argument is evaluated where it is a compile-time value: integer literals and
arithmetic, macros, `const`/`constexpr`/`static const` integers (function, namespace, class
static, file scope), enumerators, `dim3 v(a, b)` / `dim3 v{a, b}` / `dim3 v = dim3(...)`,
`{a, b, c}`, a plain integer n (n x 1 x 1), and non-const local variables whose assignments
before the launch are straight-line (`v.x = 16;` included). In `switch (t) { case 256: ... }` and
`if (t == 256) ...` the variable equals the case value. A template parameter of the enclosing
function template takes the values it is explicitly instantiated with in the translation unit
(`run<128>()`, `template void run<128>()`), one launch per value. Everything else is unknown,
with the reason: function parameters, run-time values, variables assigned in a branch or in a
loop around the launch, variables whose address is taken, non-const globals.

Not seen: values passed by non-const reference or through pointers (other than `&v`), class
template parameters, launches through function pointers, `cuLaunchKernel` (driver API).

Layout. launch.py (`Launch`, the ways of launching), matching.py (`launches_for_function`: which
launches launch a PTX function), and the finder: finder.py (`LaunchFinder`, `find_launches`) made
of one mixin per pass over the tokens: brackets.py, declarations.py (pass 1: namespace and class
scope), statements.py (pass 2: function bodies), values.py (names' compile-time values),
launch_sites.py (launch statements), instantiations.py (calls of host functions and templates); their data
in structure.py and the words they recognize in syntax.py. Every name is importable from
`ptxlint.frontend.launches` as before the module became a package.
"""

from __future__ import annotations

from .finder import LaunchFinder, find_launches
from .launch import (
    HOW_CHEVRONS,
    LAUNCH_APIS,
    MAX_BINDINGS_PER_TEMPLATE,
    MAX_BLOCK_THREADS,
    Launch,
    PointerOffset,
)
from .launch_sites import _checked_block
from .matching import (
    _BUILTIN_TYPES,
    _DEMANGLED_NUMBER,
    _TYPE_ALIASES,
    _compare_arg,
    _number,
    canonical_type,
    launches_for_function,
    split_template_name,
)
from .structure import Decl, Frame, Function, Mod, Node
from .syntax import (
    _ASSIGN_OPS,
    _CONFIG_FIELDS,
    _CONFIG_TYPES,
    _DECL_SPECIFIERS,
    _DIM3_TYPES,
    _INT_TYPES,
    _NOT_A_FUNCTION_NAME,
    _QUALIFIERS_AFTER_PARAMS,
    _STATEMENT_KEYWORDS,
    _arg_text,
    _is_name,
    _type_text,
)
from .values import _get_path, _overlaps, _set_path, _value_kind, dchain_at

# Everything the module had before it became a package, helpers included (tests and the analyses
# import some of them from here).
__all__ = [
    "HOW_CHEVRONS",
    "LAUNCH_APIS",
    "MAX_BINDINGS_PER_TEMPLATE",
    "MAX_BLOCK_THREADS",
    "_ASSIGN_OPS",
    "_BUILTIN_TYPES",
    "_CONFIG_FIELDS",
    "_CONFIG_TYPES",
    "_DECL_SPECIFIERS",
    "_DEMANGLED_NUMBER",
    "_DIM3_TYPES",
    "_INT_TYPES",
    "_NOT_A_FUNCTION_NAME",
    "_QUALIFIERS_AFTER_PARAMS",
    "_STATEMENT_KEYWORDS",
    "_TYPE_ALIASES",
    "Decl",
    "Frame",
    "Function",
    "Launch",
    "LaunchFinder",
    "Mod",
    "Node",
    "_arg_text",
    "_checked_block",
    "_compare_arg",
    "_get_path",
    "_is_name",
    "_number",
    "_overlaps",
    "_set_path",
    "_type_text",
    "_value_kind",
    "canonical_type",
    "dchain_at",
    "find_launches",
    "launches_for_function",
    "split_template_name",
]
