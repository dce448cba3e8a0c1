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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from .cpp_preprocess import IDENT, Token, Unknown, preprocess
from .demangle import demangle, without_parameters
from .launch_expr import Braces, as_block, evaluate_tokens, parse_int_literal, to_dim3

HOW_CHEVRONS = "<<<>>>"
LAUNCH_APIS = {
    "cudaLaunchKernel": "cudaLaunchKernel",
    "cudaLaunchCooperativeKernel": "cudaLaunchCooperativeKernel",
    "cudaLaunchKernelEx": "cudaLaunchKernelEx",
    "cudaLaunchKernelExC": "cudaLaunchKernelEx",
}
MAX_BLOCK_THREADS = 1024
MAX_BINDINGS_PER_TEMPLATE = 32


@dataclass(frozen=True)
class Launch:
    """One launch statement (for a function template: under one set of its template arguments)."""

    kernel: str  # the kernel's name as written, without namespace qualification or template args
    template_args: Optional[tuple]  # explicit template arguments, evaluated where possible ("float", "256")
    block: Optional[tuple]  # (x, y, z) when the block argument is a compile-time value
    path: str  # file of the launch statement
    line: int  # its line (1-based) in that file
    how: str  # "<<<>>>", "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelEx"
    unknown_because: Optional[str]  # why block is None
    qualifier: str = ""  # namespace/class qualification as written (`blas` for `blas::scale<<<...>>>`)

    def describe(self) -> str:
        """`block 128x1x1 from the launch at bitonic.cu:273`"""
        if self.block is None:
            return f"unknown block at the launch at {self.path}:{self.line} ({self.unknown_because})"
        x, y, z = self.block
        return f"block {x}x{y}x{z} from the launch at {self.path}:{self.line}"


# ---------------------------------------------------------------------------------------------
# Words

_DECL_SPECIFIERS = {
    "static", "const", "constexpr", "constinit", "inline", "register", "volatile", "thread_local",
    "extern", "mutable", "__shared__", "__device__", "__constant__", "__host__", "__managed__",
    "__restrict__", "typename", "struct", "class", "enum", "union", "signed", "unsigned", "long",
    "short", "int", "char", "bool", "float", "double", "void", "auto", "__forceinline__",
}
_INT_TYPES = {
    "int", "unsigned", "signed", "long", "short", "char", "bool", "size_t", "ssize_t", "ptrdiff_t",
    "uint", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "std::size_t", "std::int32_t", "std::uint32_t", "std::int64_t", "std::uint64_t", "std::ptrdiff_t",
    "unsigned int", "long long", "unsigned long", "unsigned long long",
}
_DIM3_TYPES = {"dim3", "uint3"}
_CONFIG_TYPES = {"cudaLaunchConfig_t", "cudaLaunchConfig"}
_CONFIG_FIELDS = ("gridDim", "blockDim", "dynamicSmemBytes", "stream", "attrs", "numAttrs")
_STATEMENT_KEYWORDS = {"if", "for", "while", "do", "switch", "case", "default", "return", "break",
                       "continue", "goto", "try", "catch", "throw", "else", "delete", "new", "co_return",
                       "co_await", "co_yield", "sizeof", "operator", "using", "typedef", "template",
                       "namespace", "public", "private", "protected", "friend", "static_assert"}
_NOT_A_FUNCTION_NAME = {"__launch_bounds__", "__attribute__", "alignas", "decltype", "noexcept",
                        "throw", "__declspec", "requires", "sizeof", "alignof", "__cluster_dims__",
                        "__maxnreg__", "if", "for", "while", "switch", "return"}
_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
_QUALIFIERS_AFTER_PARAMS = {"const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&",
                            "constexpr", "consteval", "__device__", "__host__", "throw"}


def _is_name(tok: Token) -> bool:
    return tok.kind == IDENT and tok.text not in _STATEMENT_KEYWORDS


# ---------------------------------------------------------------------------------------------
# Structure: scopes, declarations, statements


@dataclass(eq=False)
class Decl:
    name: str
    kind: str  # "var", "param", "tparam", "enum", "type"
    pos: int  # token index of the name
    type_text: str = ""
    const: bool = False
    static: bool = False
    init: Optional[tuple] = None  # (kind "=", "(", "{", token start, token end)
    region: tuple = ()
    node: object = None  # statement node whose scope holds it (function-local declarations)
    loop_scoped: bool = False  # declared in a for-statement's header (lives across iterations)
    owner: object = None  # Function for params/tparams, Scope for namespace members
    enum_value: object = None  # for enumerators: (base decl or None, offset, tokens)
    extra: dict = field(default_factory=dict)


@dataclass(eq=False)
class Node:
    """A statement of a function body. `start`..`end` are token indices (end exclusive)."""

    kind: str  # block, if, loop, switch, case, simple, jump, label, lambda, empty
    start: int
    end: int
    parent: Optional["Node"] = None
    children: list = field(default_factory=list)
    head: Optional[tuple] = None  # (start, end) of the condition / for-header / case label
    decls: list = field(default_factory=list)

    def contains(self, pos: int) -> bool:
        return self.start <= pos < self.end

    def ancestors(self):
        n = self
        while n is not None:
            yield n
            n = n.parent


@dataclass(eq=False)
class Function:
    name: str  # unqualified
    qualified: str  # with namespaces and classes
    prefix: str  # lookup prefix: enclosing namespaces/classes ("" at file scope)
    tparams: list  # Decl(kind="tparam") of its own template header
    outer_tparams: list  # template parameters of enclosing class templates (never bound)
    params: list  # Decl(kind="param")
    body: tuple  # (start, end): the braces' indices
    param_words: set = field(default_factory=set)  # identifiers in the parameter list


@dataclass(eq=False)
class Frame:
    """One walk of a function body (or a lambda's) under one binding of its template parameters."""

    function: Function
    root: Node
    binding: Optional[dict]  # tparam name -> value (int or type text) or None
    parent: Optional["Frame"] = None  # enclosing frame, for lambdas
    lambda_pos: int = 0  # where the lambda is defined in the parent frame
    mods: dict = field(default_factory=dict)  # name -> [Mod]


@dataclass(eq=False)
class Mod:
    name: str
    pos: int
    kind: str  # "assign", "incdec", "address"
    op: str = ""
    path: tuple = ()  # member path: ("x",) for v.x = ...
    rhs: Optional[tuple] = None  # (start, end)


class LaunchFinder:
    """Finds launches in one preprocessed translation unit."""

    def __init__(self, tokens: list):
        self.toks = tokens
        self.n = len(tokens)
        self.match = self._match_brackets()
        self.registry: dict = {}  # qualified name -> [Decl] (namespace and class members)
        self.usings: dict = {}  # prefix -> [namespace names used there]
        self.functions: list = []
        self.templates_by_name: dict = {}  # unqualified name -> [Function]
        self.instantiations: dict = {}  # Function -> {binding key: binding}
        self.launches: list = []
        self._seen: set = set()
        self._collecting = False
        self._evaluating: set = set()
        self._value_cache: dict = {}

    # ---- brackets
    def _match_brackets(self):
        match = [None] * self.n
        stack = []
        pairs = {")": "(", "]": "[", "}": "{"}
        for i, t in enumerate(self.toks):
            if t.text in ("(", "[", "{"):
                stack.append(i)
            elif t.text in pairs:
                # unbalanced code (e.g. both branches of an unknown #if): skip to the right opener
                while stack and self.toks[stack[-1]].text != pairs[t.text]:
                    stack.pop()
                if stack:
                    j = stack.pop()
                    match[i], match[j] = j, i
        return match

    def _close(self, i, limit=None):
        """Index of the bracket closing the one at i (or `limit`/end when unbalanced)."""
        j = self.match[i]
        if j is None or j < i:
            return (limit if limit is not None else self.n) - 1
        return j

    def _angle_close(self, i, end):
        """Index of the `>` closing the template `<` at i, or None."""
        depth = 0
        k = i
        while k < end:
            t = self.toks[k].text
            if t in ("(", "[", "{"):
                k = self._close(k, end) + 1
                continue
            if t == "<":
                depth += 1
            elif t == ">":
                depth -= 1
                if depth == 0:
                    return k
            elif t == ">>":
                depth -= 2
                if depth <= 0:
                    return k
            elif t in (";", "{", "}", "&&", "||") or t in (")", "]"):
                return None
            k += 1
        return None

    def _split_commas(self, start, end, angles=False):
        """[(s, e)] of the top-level comma-separated pieces of start..end."""
        parts = []
        s = k = start
        while k < end:
            t = self.toks[k].text
            if t in ("(", "[", "{"):
                k = self._close(k, end) + 1
                continue
            if angles and t == "<" and k > start and self.toks[k - 1].kind == IDENT:
                c = self._angle_close(k, end)
                if c is not None:
                    k = c + 1
                    continue
            if t == ",":
                parts.append((s, k))
                s = k + 1
            k += 1
        if s < end or parts:
            parts.append((s, end))
        return parts

    # ---- pass 1: declarations and functions at namespace/class scope
    def run(self):
        self._decl_seq(0, self.n, "", [], ())
        self._walk_all()
        return [launch for _, _, launch in sorted(self.launches, key=lambda x: x[:2])]

    def _decl_seq(self, start, end, prefix, outer_tparams, namespace_path):
        """Declarations of a file, namespace or class body."""
        i = start
        toks = self.toks
        while i < end:
            while i + 1 < end and toks[i].text in ("public", "private", "protected") and toks[i + 1].text == ":":
                i += 2
            h = i
            # collect a header up to ';' or a block '{'
            k = i
            block_at = None
            while k < end:
                t = toks[k].text
                if t == ";":
                    break
                if t == "}":
                    break
                if t in ("(", "["):
                    k = self._close(k, end) + 1
                    continue
                if t == "{":
                    if self._is_block_brace(h, k):
                        block_at = k
                        break
                    k = self._close(k, end) + 1
                    continue
                k += 1
            if block_at is None:
                if k > h:
                    self._namespace_statement(h, k, prefix)
                i = k + 1
                continue
            close = self._close(block_at, end)
            self._namespace_block(h, block_at, close, prefix, outer_tparams, namespace_path)
            i = close + 1
            # `struct S {...} s;` / `enum E {...};`: the rest up to ';' belongs to it
            if self._header_kind(h, block_at)[0] in ("class", "enum"):
                while i < end and toks[i].text not in (";", "}"):
                    if toks[i].text in ("(", "[", "{"):
                        i = self._close(i, end)
                    i += 1
                i += 1

    def _is_block_brace(self, h, k):
        """Is the `{` at k a body (function, class, namespace, lambda) rather than an initializer?"""
        if k == h:
            return True
        prev = self.toks[k - 1].text
        kind = self._header_kind(h, k)[0]
        if kind in ("namespace", "class", "enum", "extern"):
            return True
        if prev in ("=", ",", "(", "[", "return", "<", "?", ":"):
            return False
        return self._function_parens(h, k) is not None

    def _skip_template_headers(self, h, k):
        """Index after leading `template <...>` groups and attributes."""
        toks = self.toks
        while h < k:
            if toks[h].text == "template" and h + 1 < k and toks[h + 1].text == "<":
                c = self._angle_close(h + 1, k)
                if c is None:
                    return h
                h = c + 1
            elif toks[h].text == "[" and h + 1 < k and toks[h + 1].text == "[":
                h = self._close(h, k) + 1
            elif toks[h].text in ("__global__", "__host__", "__device__", "static", "inline", "constexpr",
                                  "__forceinline__", "extern", "typedef", "__noinline__"):
                if toks[h].text == "extern" and h + 1 < k and toks[h + 1].kind == "string":
                    return h
                h += 1
            else:
                return h
        return h

    def _header_kind(self, h, k):
        """("namespace"|"class"|"enum"|"extern"|"function"|"other", detail) of the header h..k."""
        toks = self.toks
        s = self._skip_template_headers(h, k)
        if s < k:
            t = toks[s].text
            if t == "namespace":
                return "namespace", s
            if t == "extern" and s + 1 < k and toks[s + 1].kind == "string":
                return "extern", s
            if t in ("class", "struct", "union") and self._function_parens(h, k) is None:
                return "class", s
            if t == "enum":
                return "enum", s
        if self._function_parens(h, k) is not None:
            return "function", s
        return "other", s

    def _function_parens(self, h, k):
        """(name index, '(' index) of a function definition header h..k, or None."""
        toks = self.toks
        s = self._skip_template_headers(h, k)
        i = s
        found = None
        while i < k:
            t = toks[i]
            if t.text == "(":
                close = self._close(i, k)
                if i > s and toks[i - 1].kind == IDENT and toks[i - 1].text not in _NOT_A_FUNCTION_NAME \
                        and toks[i - 1].text not in _DECL_SPECIFIERS and found is None:
                    found = (i - 1, i, close)
                i = close + 1
                continue
            if t.text in ("=", ";"):
                return None
            if t.text in ("[",):
                i = self._close(i, k) + 1
                continue
            if t.text == "<":
                c = self._angle_close(i, k)
                if c is not None and found is None:
                    i = c + 1
                    continue
            i += 1
        if found is None:
            return None
        # after the parameters: qualifiers, a trailing return type, or a constructor's init list
        j = found[2] + 1
        while j < k:
            t = toks[j].text
            if t in _QUALIFIERS_AFTER_PARAMS or t in ("->", "::", "*", ",", "<", ">") or toks[j].kind == IDENT:
                if t in ("noexcept", "throw") and j + 1 < k and toks[j + 1].text == "(":
                    j = self._close(j + 1, k) + 1
                    continue
                j += 1
                continue
            if t == ":":
                return found[:2]  # constructor initializer list
            if t in ("(", "{"):
                j = self._close(j, k) + 1
                continue
            return None
        return found[:2]

    def _namespace_block(self, h, open_, close, prefix, outer_tparams, namespace_path):
        kind, s = self._header_kind(h, open_)
        toks = self.toks
        if kind == "namespace":
            names = [t.text for t in toks[s + 1:open_] if t.kind == IDENT and t.text != "inline"]
            sub = "::".join([prefix] + names if prefix else names) if names else prefix
            self._decl_seq(open_ + 1, close, sub, outer_tparams, namespace_path)
            return
        if kind == "extern":
            self._decl_seq(open_ + 1, close, prefix, outer_tparams, namespace_path)
            return
        if kind == "class":
            name = None
            k = s + 1
            while k < open_ and toks[k].text not in (":", "{"):
                if toks[k].kind == IDENT and toks[k].text not in ("final", "alignas", "__align__"):
                    name = toks[k].text
                if toks[k].text == "<":
                    c = self._angle_close(k, open_)
                    if c is not None:
                        k = c
                k += 1
            tparams = outer_tparams + self._template_params(h, open_)
            sub = f"{prefix}::{name}" if prefix and name else (name or prefix)
            self._decl_seq(open_ + 1, close, sub, tparams, namespace_path)
            return
        if kind == "enum":
            self._enum(s, open_, close, prefix, None)
            return
        if kind == "function":
            self._function(h, open_, close, prefix, outer_tparams)

    def _template_params(self, h, k):
        """Decl(kind="tparam") of the template header(s) at the start of h..k (the last header)."""
        toks = self.toks
        out = []
        i = h
        while i < k and toks[i].text == "template" and i + 1 < k and toks[i + 1].text == "<":
            c = self._angle_close(i + 1, k)
            if c is None:
                break
            out = []
            for a, b in self._split_commas(i + 2, c, angles=True):
                eq = next((j for j in range(a, b) if toks[j].text == "="), b)
                names = [j for j in range(a, eq) if toks[j].kind == IDENT]
                if not names:
                    continue
                j = names[-1]
                is_type = toks[a].text in ("typename", "class") or (toks[a].text == "template")
                d = Decl(toks[j].text, "tparam", j, type_text="type" if is_type else "value")
                d.extra["default"] = (eq + 1, b) if eq < b else None
                out.append(d)
            i = c + 1
        return out

    def _function(self, h, open_, close, prefix, outer_tparams):
        toks = self.toks
        name_i, paren = self._function_parens(h, open_)
        # qualified name as written: a::b::f
        q = [toks[name_i].text]
        j = name_i - 1
        while j - 1 >= h and toks[j].text == "::" and toks[j - 1].kind == IDENT:
            q.insert(0, toks[j - 1].text)
            j -= 2
        qualified = "::".join(([prefix] if prefix else []) + q)
        lookup_prefix = "::".join(([prefix] if prefix else []) + q[:-1])
        tparams = self._template_params(self._skip_attrs(h, open_), open_)
        params = []
        pclose = self._close(paren, open_)
        for a, b in self._split_commas(paren + 1, pclose, angles=True):
            eq = next((j for j in range(a, b) if toks[j].text == "="), b)
            e = eq
            while e > a and toks[e - 1].text == "]":
                e = self.match[e - 1] if self.match[e - 1] is not None else a
            idents = [j for j in range(a, e) if toks[j].kind == IDENT and toks[j].text not in _DECL_SPECIFIERS]
            if idents and e - a >= 2 and idents[-1] == e - 1:
                params.append(Decl(toks[e - 1].text, "param", e - 1))
        fn = Function(q[-1], qualified, lookup_prefix, tparams, list(outer_tparams), params, (open_, close))
        fn.param_words = {t.text for t in toks[paren + 1:pclose] if t.kind == IDENT}
        for d in tparams + params:
            d.owner = fn
        self.functions.append(fn)
        if tparams:
            self.templates_by_name.setdefault(fn.name, []).append(fn)

    def _in_parameters(self, fn, name):
        """Does the template parameter `name` appear in `fn`'s function parameters (deducible)?"""
        return name in fn.param_words

    def _skip_attrs(self, h, k):
        while h < k and self.toks[h].text == "[" and h + 1 < k and self.toks[h + 1].text == "[":
            h = self._close(h, k) + 1
        return h

    def _enum(self, s, open_, close, prefix, local_node):
        """Enumerators of `enum [class] E { A = 1, B };` registered at `prefix` (or a local node)."""
        toks = self.toks
        scoped = s + 1 < open_ and toks[s + 1].text in ("class", "struct")
        ename = None
        for k in range(s + 1, open_):
            if toks[k].text == ":":
                break
            if toks[k].kind == IDENT and toks[k].text not in ("class", "struct"):
                ename = toks[k].text
        prev = None
        offset = -1
        for a, b in self._split_commas(open_ + 1, close):
            if a >= b or toks[a].kind != IDENT:
                continue
            name = toks[a].text
            if b - a > 2 and toks[a + 1].text == "=":
                prev, offset = (a + 2, b), 0
            else:
                offset += 1
            d = Decl(name, "enum", a, region=toks[a].region)
            d.enum_value = (prev, offset)
            d.extra["prefix"] = prefix
            names = [f"{ename}::{name}"] if ename else []
            if not scoped:
                names.append(name)
            for nm in names:
                if local_node is not None:
                    d2 = Decl(nm, "enum", a, region=toks[a].region, node=local_node)
                    d2.enum_value, d2.extra = d.enum_value, d.extra
                    local_node.decls.append(d2)
                else:
                    self.registry.setdefault(f"{prefix}::{nm}" if prefix else nm, []).append(d)

    def _namespace_statement(self, h, k, prefix):
        """A declaration at namespace or class scope: constants, aliases, using-directives."""
        toks = self.toks
        if toks[h].text == "using" and h + 1 < k and toks[h + 1].text == "namespace":
            name = "".join(t.text for t in toks[h + 2:k])
            self.usings.setdefault(prefix, []).append(name.lstrip(":"))
            return
        # explicit instantiation: template void run<128>(...);
        if toks[h].text == "template" and h + 1 < k and toks[h + 1].text != "<":
            self._explicit_instantiation(h + 1, k, prefix)
            return
        for d in self._declarations(h, k, None):
            key = f"{prefix}::{d.name}" if prefix else d.name
            self.registry.setdefault(key, []).append(d)
            d.extra["prefix"] = prefix

    def _explicit_instantiation(self, h, k, prefix):
        toks = self.toks
        for i in range(h, k):
            if toks[i].text == "<" and i > h and toks[i - 1].kind == IDENT and toks[i - 1].text in self.templates_by_name:
                c = self._angle_close(i, k)
                if c is not None and c + 1 < k and toks[c + 1].text == "(":
                    self._record_call(toks[i - 1].text, i, c, None, None, prefix)
                return

    # ---- declarations (namespace scope and statements)
    def _declarations(self, h, k, node):
        """Variables, aliases declared by the statement h..k (a best effort that never raises)."""
        toks = self.toks
        if h >= k:
            return []
        if toks[h].text == "using" and h + 3 < k and toks[h + 1].kind == IDENT and toks[h + 2].text == "=":
            d = Decl(toks[h + 1].text, "type", h + 1, type_text=_type_text(toks[h + 3:k]), node=node,
                     region=toks[h].region)
            return [d]
        if toks[h].text == "typedef":
            if toks[k - 1].kind == IDENT:
                return [Decl(toks[k - 1].text, "type", k - 1, type_text=_type_text(toks[h + 1:k - 1]), node=node,
                             region=toks[h].region)]
            return []
        if toks[h].text in _STATEMENT_KEYWORDS:
            return []
        # specifiers and type
        i = h
        words = []
        while i < k:
            t = toks[i]
            if t.text in _DECL_SPECIFIERS:
                words.append(t.text)
                i += 1
                continue
            if t.text == "[" and i + 1 < k and toks[i + 1].text == "[":
                i = self._close(i, k) + 1
                continue
            if t.text in ("__align__", "alignas", "__launch_bounds__") and i + 1 < k and toks[i + 1].text == "(":
                i = self._close(i + 1, k) + 1
                continue
            break
        type_words = [w for w in words if w not in ("static", "const", "constexpr", "constinit", "inline",
                                                    "register", "volatile", "thread_local", "extern",
                                                    "mutable", "typename", "__host__", "__device__",
                                                    "__forceinline__", "__restrict__")]
        if not any(w in ("int", "unsigned", "signed", "long", "short", "char", "bool", "float", "double", "void",
                         "auto") for w in type_words):
            # a named type: a::b<...> then the declarator name
            if i >= k or toks[i].kind != IDENT:
                return []
            start = i
            if toks[i].text == "struct":
                i += 1
            while i < k and toks[i].kind == IDENT:
                i += 1
                if i < k and toks[i].text == "<":
                    c = self._angle_close(i, k)
                    if c is None:
                        return []
                    i = c + 1
                if i < k and toks[i].text == "::" and i + 1 < k and toks[i + 1].kind == IDENT:
                    i += 1
                    continue
                break
            type_words.append("".join(t.text for t in toks[start:i]))
            while i < k and toks[i].text in ("const", "volatile", "__restrict__"):
                words.append(toks[i].text)
                i += 1
        else:
            while i < k and toks[i].text in ("const", "volatile"):
                words.append(toks[i].text)
                i += 1
        if i >= k:
            return []
        type_text = " ".join(type_words)
        const = "const" in words or "constexpr" in words
        static = "static" in words
        out = []
        for a, b in self._split_commas(i, k, angles=False):
            j = a
            pointer = False
            while j < b and toks[j].text in ("*", "&", "&&", "const", "__restrict__"):
                pointer = pointer or toks[j].text in ("*", "&", "&&")
                j += 1
            if j >= b or not _is_name(toks[j]) or toks[j].text in _DECL_SPECIFIERS:
                if not out:
                    return []
                continue
            name_i = j
            j += 1
            is_array = False
            while j < b and toks[j].text == "[":
                is_array = True
                j = self._close(j, b) + 1
            if j < b and toks[j].text not in ("=", "(", "{", ":"):
                if not out:
                    return []  # not a declaration (an expression statement)
                continue
            if j < b and toks[j].text == "(" and node is not None and not out and not words:
                # `T x(args)` vs a call `f(x)`: a call has no type before the name; here there is one
                pass
            init = None
            if j < b:
                if toks[j].text == "=":
                    init = ("=", j + 1, b)
                elif toks[j].text in ("(", "{"):
                    init = (toks[j].text, j + 1, self._close(j, b))
            d = Decl(toks[name_i].text, "var", name_i, type_text=type_text, const=const and not pointer,
                     static=static, init=init, region=toks[h].region, node=node)
            if pointer or is_array:
                d.type_text = type_text + (" *" if pointer else " []")
            out.append(d)
        return out

    # ---- pass 2: walk function bodies
    def _walk_all(self):
        """Walk every function body. Function templates are walked once per binding of their
        template parameters that the translation unit instantiates; the bindings are collected
        first (walks that record no launch, until no new binding appears), then the launches."""
        templates = [f for f in self.functions if f.tparams]
        self._collecting = True
        for f in self.functions:
            if not f.tparams:
                self._walk(f, None)
        done: dict = {}
        for _round in range(6):
            progress = False
            for f in templates:
                walked = done.setdefault(id(f), set())
                for key, b in list(self.instantiations.get(id(f), {}).items())[:MAX_BINDINGS_PER_TEMPLATE]:
                    if key not in walked:
                        walked.add(key)
                        self._walk(f, b)
                        progress = True
            if not progress:
                break
        self._collecting = False
        for f in self.functions:
            if not f.tparams:
                self._walk(f, None)
                continue
            bindings = list(self.instantiations.get(id(f), {}).values())[:MAX_BINDINGS_PER_TEMPLATE]
            for b in bindings or [None]:
                self._walk(f, b)

    def _walk(self, fn: Function, binding):
        start, end = fn.body
        root = Node("block", start, end + 1)
        self._statements(start + 1, end, root)
        frame = Frame(fn, root, binding)
        frame.mods = self._modifications(start + 1, end)
        self._visit(frame, root, [])

    def _statements(self, i, end, parent):
        while i < end:
            node, i = self._statement(i, end, parent)
            if node is not None:
                parent.children.append(node)

    def _statement(self, i, end, parent):
        toks = self.toks
        t = toks[i].text
        if t == "{":
            c = self._close(i, end)
            node = Node("block", i, c + 1, parent)
            self._statements(i + 1, c, node)
            return node, c + 1
        if t == ";":
            return None, i + 1
        if t in ("if", "while", "switch", "for") or (t == "catch"):
            j = i + 1
            while j < end and toks[j].text in ("constexpr", "consteval", "!"):
                j += 1
            if j >= end or toks[j].text != "(":
                return self._simple(i, end, parent)
            c = self._close(j, end)
            kind = {"if": "if", "while": "loop", "for": "loop", "switch": "switch", "catch": "block"}[t]
            node = Node(kind, i, c + 1, parent, head=(j + 1, c))
            if c + 1 >= end:
                return node, end
            body, k = self._statement(c + 1, end, node)
            if body is not None:
                node.children.append(body)
            if t == "if" and k < end and toks[k].text == "else":
                other, k = self._statement(k + 1, end, node)
                if other is not None:
                    node.children.append(other)
            node.end = k
            return node, k
        if t == "do":
            node = Node("loop", i, i + 1, parent)
            body, k = self._statement(i + 1, end, node)
            if body is not None:
                node.children.append(body)
            if k < end and toks[k].text == "while" and k + 1 < end and toks[k + 1].text == "(":
                c = self._close(k + 1, end)
                node.head = (k + 2, c)
                k = c + 1
                if k < end and toks[k].text == ";":
                    k += 1
            node.end = k
            return node, k
        if t == "try":
            node = Node("block", i, i + 1, parent)
            k = i + 1
            while k < end and toks[k].text in ("{", "catch"):
                body, k = self._statement(k, end, node)
                if body is not None:
                    node.children.append(body)
            node.end = k
            return node, k
        if t in ("case", "default"):
            j = i + 1
            while j < end and toks[j].text != ":":
                if toks[j].text in ("(", "["):
                    j = self._close(j, end)
                j += 1
            return Node("case", i, j + 1, parent, head=(i + 1, j) if t == "case" else None), j + 1
        if toks[i].kind == IDENT and i + 1 < end and toks[i + 1].text == ":" and t not in (
                "public", "private", "protected"):
            return Node("label", i, i + 2, parent), i + 2
        if t in ("return", "break", "continue", "goto", "throw", "co_return"):
            node, k = self._simple(i, end, parent)
            node.kind = "jump"
            return node, k
        return self._simple(i, end, parent)

    def _simple(self, i, end, parent):
        toks = self.toks
        k = i
        while k < end and toks[k].text != ";":
            if toks[k].text in ("(", "[", "{"):
                k = self._close(k, end) + 1
                continue
            if toks[k].text == "}":
                break
            k += 1
        node = Node("simple", i, min(k + 1, end), parent, head=(i, k))
        return node, min(k + 1, end) if k < end and toks[k].text == ";" else k

    # ---- modifications of variables
    def _modifications(self, start, end):
        toks = self.toks
        mods: dict = {}
        for i in range(start, end):
            t = toks[i]
            if t.kind != IDENT:
                continue
            if i > start and toks[i - 1].text in (".", "->", "::"):
                continue
            j = i + 1
            path = []
            while j + 1 < end and toks[j].text == "." and toks[j + 1].kind == IDENT:
                path.append(toks[j + 1].text)
                j += 2
            nxt = toks[j].text if j < end else ""
            prev = toks[i - 1].text if i > start else ""
            if nxt in _ASSIGN_OPS:
                if self._declares_at(i):
                    continue
                e = self._expression_end(j + 1, end)
                mods.setdefault(t.text, []).append(Mod(t.text, i, "assign", nxt, tuple(path), (j + 1, e)))
            elif nxt in ("++", "--") or prev in ("++", "--"):
                mods.setdefault(t.text, []).append(Mod(t.text, i, "incdec", nxt if nxt in ("++", "--") else prev,
                                                       tuple(path)))
            elif prev == "&" and i - 2 >= start and toks[i - 2].text in ("(", ",", "=", "{", "return", ";", "?", ":"):
                if self._is_ex_config_argument(i):
                    continue
                mods.setdefault(t.text, []).append(Mod(t.text, i, "address", path=tuple(path)))
        return mods

    def _declares_at(self, i):
        """Is the name at i a declarator (its `=` an initializer, not an assignment)?"""
        toks = self.toks
        p = i - 1
        while p >= 0 and toks[p].text in ("*", "&", "&&", "const"):
            p -= 1
        if p < 0:
            return False
        prev = toks[p]
        if prev.kind == IDENT and prev.text not in _STATEMENT_KEYWORDS:
            return True  # `int x = ...`, `T x = ...`
        if prev.text == ">":
            return True  # `std::vector<int> x = ...`
        if prev.text == ",":
            # `int a = 1, b = 2`: a declaration list if the statement starts with a type
            q = p
            while q > 0 and toks[q].text not in (";", "{", "}", "(", ")"):
                q -= 1
            first = toks[q + 1] if q + 1 < i else None
            return first is not None and (first.text in _DECL_SPECIFIERS or first.text in _INT_TYPES
                                          or first.text in _DIM3_TYPES)
        return False

    def _is_ex_config_argument(self, i):
        toks = self.toks
        return (i >= 3 and toks[i - 2].text == "(" and toks[i - 3].text in ("cudaLaunchKernelEx", "cudaLaunchKernelExC"))

    def _expression_end(self, k, end):
        toks = self.toks
        while k < end:
            t = toks[k].text
            if t in ("(", "[", "{"):
                k = self._close(k, end) + 1
                continue
            if t in (";", ",", ")", "]", "}"):
                return k
            k += 1
        return end

    # ---- the walk
    def _visit(self, frame: Frame, node: Node, chain: list):
        """Visit statements in order; `chain` is the list of enclosing nodes (innermost last)."""
        toks = self.toks
        if node.kind in ("loop", "if", "switch"):
            if node.kind == "loop" and toks[node.start].text == "for" and node.head:
                for d in self._for_declarations(node):
                    d.loop_scoped = True
                    node.decls.append(d)
            if node.head:
                self._scan(frame, node.head[0], node.head[1], chain + [node], node)
            for c in node.children:
                self._visit(frame, c, chain + [node])
            return
        if node.kind == "block":
            for c in node.children:
                self._visit(frame, c, chain + [node])
            return
        if node.kind in ("simple", "jump"):
            s, e = node.head
            scope = chain[-1] if chain else frame.root
            if toks[s].text == "enum":
                brace = next((j for j in range(s, e) if toks[j].text == "{"), None)
                if brace is not None:
                    self._enum(s, brace, self._close(brace, e), "", scope)
            elif toks[s].text == "using" and s + 1 < e and toks[s + 1].text == "namespace":
                pass
            else:
                for d in self._declarations(s, e, scope):
                    scope.decls.append(d)
            self._scan(frame, s, e, chain, node)

    def _for_declarations(self, node):
        s, e = node.head
        semi = next((j for j in range(s, e) if self.toks[j].text in (";", ":")), e)
        return self._declarations(s, semi, node)

    def _scan(self, frame, s, e, chain, node):
        """Launches, lambdas and template calls in the tokens s..e of `node`."""
        toks = self.toks
        i = s
        while i < e:
            t = toks[i]
            if t.text == "{" and self._is_lambda_brace(i, s):
                c = self._close(i, e)
                self._walk_lambda(frame, i, c, s, chain)
                i = c + 1
                continue
            if t.text == "<<<":
                self._chevron_launch(frame, i, s, e, chain, node)
            elif t.kind == IDENT and t.text in LAUNCH_APIS and i + 1 < e and toks[i + 1].text == "(":
                self._api_launch(frame, i, e, chain, node)
            elif t.kind == IDENT and t.text in self.templates_by_name and (i == s or toks[i - 1].text not in (".", "->")):
                self._template_call(frame, i, e, chain)
            i += 1

    def _is_lambda_brace(self, i, s):
        toks = self.toks
        j = i - 1
        while j >= s and (toks[j].text in ("mutable", "constexpr", "noexcept", "__device__", "__host__")):
            j -= 1
        if j >= s and toks[j].kind == IDENT and j - 1 >= s and toks[j - 1].text in ("->",):
            j -= 2
        if j >= s and toks[j].text == "]":
            return True
        if j >= s and toks[j].text == ")":
            o = self.match[j]
            return o is not None and o - 1 >= s and toks[o - 1].text == "]"
        return False

    def _walk_lambda(self, frame, open_, close, s, chain):
        toks = self.toks
        params = []
        j = open_ - 1
        while j > s and toks[j].text != ")" and toks[j].text != "]":
            j -= 1
        if toks[j].text == ")" and self.match[j] is not None:
            o = self.match[j]
            for a, b in self._split_commas(o + 1, j, angles=True):
                idents = [x for x in range(a, b) if toks[x].kind == IDENT and toks[x].text not in _DECL_SPECIFIERS]
                if idents and b - a >= 2:
                    params.append(Decl(toks[idents[-1]].text, "param", idents[-1]))
        fn = Function("a lambda", "a lambda", frame.function.prefix, [], frame.function.outer_tparams, params,
                      (open_, close))
        for p in params:
            p.owner = fn
        # the lambda sees the enclosing frame's names as they are where it is defined
        lam = Frame(fn, Node("block", open_, close + 1), frame.binding, frame, open_)
        lam.chain = chain  # enclosing block nodes in the parent frame
        self._statements(open_ + 1, close, lam.root)
        lam.mods = self._modifications(open_ + 1, close)
        self._visit(lam, lam.root, [])

    # ---- name lookup
    def _lookup_decl(self, frame, chain, name, pos):
        """The declaration `name` refers to at `pos` (innermost scope first), with its frame."""
        f = frame
        ch = chain
        p = pos
        while f is not None:
            if "::" not in name:
                for node in reversed(ch):
                    best = None
                    for d in node.decls:
                        if d.name == name and d.pos < p and (not d.loop_scoped or node.contains(p)):
                            best = d
                    if best is not None:
                        return best, f
                for d in f.function.params:
                    if d.name == name:
                        return d, f
                for d in f.function.tparams:
                    if d.name == name:
                        return d, f
            else:
                for node in reversed(ch):
                    for d in reversed(node.decls):
                        if d.kind == "enum" and d.name == name and d.pos < p:
                            return d, f
            if f.parent is None:
                break
            ch = getattr(f, "chain", [])
            p = f.lambda_pos
            f = f.parent
        top = frame
        while top.parent is not None:
            top = top.parent
        if "::" not in name:
            for d in top.function.outer_tparams:
                if d.name == name:
                    return d, None
        return self._lookup_registry(top.function.prefix, name, pos), None

    def _lookup_registry(self, prefix, name, pos):
        if name.startswith("::"):
            prefixes = [""]
            name = name[2:]
        else:
            parts = prefix.split("::") if prefix else []
            prefixes = ["::".join(parts[:k]) for k in range(len(parts), -1, -1)]
        found = []
        for pre in prefixes:
            keys = [f"{pre}::{name}" if pre else name]
            for used in self.usings.get(pre, []):
                keys.append(f"{used}::{name}")
            for key in keys:
                for d in self.registry.get(key, []):
                    found.append(d)
            if found:
                break
        if not found:
            return None
        # the latest declaration before the use (a redefinition in another #if branch is a new one)
        before = [d for d in found if d.pos < pos] or found
        return before[-1]

    def _value(self, frame, chain, name, pos, region, field=()):
        """Value of `name` at `pos`; raises Unknown with the reason."""
        decl, dframe = self._lookup_decl(frame, chain, name, pos)
        if decl is None:
            if name in ("true", "false"):
                return int(name == "true")
            raise Unknown(f"`{name}` is not a compile-time value ptxlint can see")
        # switch (name) { case V: ... } and if (name == V) around the use
        if dframe is not None:
            v = self._value_from_branch(dframe, decl, name, pos, frame, chain)
            if v is not None:
                return v
        if decl.region and region[:len(decl.region)] != decl.region:
            raise Unknown(f"`{name}` is declared under a preprocessor condition ptxlint cannot evaluate")
        if decl.kind == "param":
            raise Unknown(f"`{name}` is a parameter of `{decl.owner.name if decl.owner else 'a function'}`"
                          " (a run-time value)")
        if decl.kind == "tparam":
            return self._tparam_value(decl, dframe)
        if decl.kind == "enum":
            return self._enum_value(decl, frame, chain)
        if decl.kind == "type":
            raise Unknown(f"`{name}` is a type")
        return self._var_value(decl, dframe, frame, chain, pos, field)

    def _tparam_value(self, decl, dframe):
        owner = decl.owner
        if dframe is not None and dframe.binding is not None and decl.name in dframe.binding:
            v = dframe.binding[decl.name]
            if isinstance(v, Unknown):
                raise v
            if isinstance(v, str):
                raise Unknown(f"`{decl.name}` is the type {v}")
            return v
        where = f"of `{owner.name}`" if owner else "of a class template"
        raise Unknown(f"`{decl.name}` is a template parameter {where} with no explicit instantiation "
                      "in this translation unit")

    def _enum_value(self, decl, frame, chain):
        key = ("enum", id(decl))
        if key in self._value_cache:
            return self._value_cache[key]
        if key in self._evaluating:
            raise Unknown(f"`{decl.name}` depends on itself")
        self._evaluating.add(key)
        try:
            base, offset = decl.enum_value
            prefix = decl.extra.get("prefix", "")
            if base is None:
                v = offset
            else:
                v = self._evaluate(None, [], base[0], base[1], decl.pos, decl.region, prefix) + offset
        finally:
            self._evaluating.discard(key)
        self._value_cache[key] = v
        return v

    def _var_value(self, decl, dframe, frame, chain, pos, field):
        name = decl.name
        ty = decl.type_text
        kind = _value_kind(ty)
        if kind is None:
            raise Unknown(f"`{name}` has type `{ty or '?'}`")
        if dframe is None:
            # namespace or class scope
            if not decl.const:
                raise Unknown(f"`{name}` is a non-const global variable")
            key = ("global", id(decl))
            if key not in self._value_cache:
                if key in self._evaluating:
                    raise Unknown(f"`{name}` depends on itself")
                self._evaluating.add(key)
                try:
                    self._value_cache[key] = self._initial(decl, None, [], kind)
                except Unknown as e:
                    self._value_cache[key] = e
                finally:
                    self._evaluating.discard(key)
            v = self._value_cache[key]
            if isinstance(v, Unknown):
                raise v
            return v
        dchain = self._chain_to(dframe, decl, frame, chain)
        key = ("local", id(decl), id(dframe))
        if key in self._evaluating:
            raise Unknown(f"`{name}` depends on itself")
        self._evaluating.add(key)
        try:
            value = self._initial(decl, dframe, dchain, kind)
        except Unknown as e:
            value = e
        finally:
            self._evaluating.discard(key)
        if decl.const:
            if isinstance(value, Unknown):
                raise value
            return value
        use = pos if dframe is frame else self._pos_in(dframe, frame, pos)
        mods = [m for m in dframe.mods.get(name, []) if m.pos > decl.pos and _overlaps(m.path, field)
                and (decl.node is None or decl.node.contains(m.pos))]
        if decl.static and mods:
            raise Unknown(f"`{name}` is a static variable changed at line {self.toks[mods[0].pos].line}")
        if dframe is not frame:
            later = [m for m in mods if m.pos > use]
            if later:
                raise Unknown(f"`{name}` is captured by a lambda and changed at line {self.toks[later[0].pos].line}")
        use_node = self._node_at(dframe.root, use)
        # the last straight-line full assignment before the use: earlier iterations do not matter
        before = [m for m in mods if m.pos < use]
        straight = [m for m in before if self._straight_line(dframe, decl, m, use, use_node)]
        kill = None
        for m in straight:
            if m.kind == "assign" and m.op == "=" and len(m.path) <= len(field) and m.path == field[:len(m.path)]:
                kill = m
        for loop in use_node.ancestors():
            if loop.kind != "loop" or not self._inside_scope(decl, loop):
                continue
            if kill is not None and loop.contains(kill.pos):
                break
            inside = [m for m in mods if loop.contains(m.pos)]
            if inside:
                raise Unknown(f"`{name}` is changed at line {self.toks[inside[0].pos].line}, inside the loop "
                              f"around the launch")
        for m in before:
            line = self.toks[m.pos].line
            if m.kind == "address":
                raise Unknown(f"the address of `{name}` is taken at line {line}")
            if m not in straight:
                raise Unknown(f"`{name}` is assigned at line {line} in a branch or loop the launch is not in")
            value = self._apply(m, value, dframe, dchain_at(self, dframe, m), decl)
        if isinstance(value, Unknown):
            raise value
        return value

    def _pos_in(self, dframe, frame, pos):
        f = frame
        while f is not None and f.parent is not dframe and f is not dframe:
            f = f.parent
        return f.lambda_pos if f is not None and f is not dframe else pos

    def _chain_to(self, dframe, decl, frame, chain):
        """The chain of blocks in `dframe` that encloses the declaration."""
        if dframe is frame:
            ch = chain
        else:
            f = frame
            ch = chain
            while f is not None and f is not dframe:
                ch = getattr(f, "chain", [])
                f = f.parent
        if decl.node is not None and decl.node in ch:
            return ch[:ch.index(decl.node) + 1]
        return ch

    def _inside_scope(self, decl, node):
        """Is `node` inside the scope of `decl` (so that it runs more than once per declaration)?"""
        if decl.node is None:
            return True
        if decl.loop_scoped and node is decl.node:
            return True
        return node is not decl.node and decl.node.contains(node.start) and node.start > decl.pos

    def _straight_line(self, dframe, decl, m, use, use_node):
        """Does the modification `m` always run before `use` (no branch, loop or label between)?"""
        if self._node_at(dframe.root, m.pos) is use_node and use_node.kind in ("simple", "jump"):
            return True
        node = self._node_at(dframe.root, m.pos)
        for anc in node.ancestors():
            if decl.node is not None and (anc is decl.node or not decl.node.contains(anc.start)):
                break
            if anc.kind in ("simple", "jump") and anc is node:
                continue
            if not anc.contains(use):
                return False
            if anc.kind == "block":
                # a case label or label between m and the use: jumps may skip m
                for c in anc.children:
                    if c.kind in ("case", "label") and m.pos < c.start < use:
                        return False
        if decl.node is not None:
            for c in decl.node.children:
                if c.kind in ("case", "label") and m.pos < c.start < use:
                    return False
        return True

    def _node_at(self, root, pos):
        node = root
        while True:
            for c in node.children:
                if c.contains(pos):
                    node = c
                    break
            else:
                return node

    def _initial(self, decl, dframe, dchain, kind):
        """Value of a variable right after its declaration."""
        init = decl.init
        prefix = decl.extra.get("prefix") if dframe is None else None

        def ev(a, b):
            return self._evaluate(dframe, dchain, a, b, decl.pos, decl.region, prefix)

        if init is None:
            if kind == "dim3":
                return (1, 1, 1)
            if kind == "config":
                return {}
            raise Unknown(f"`{decl.name}` is declared without a value")
        how, a, b = init
        if kind == "config":
            return self._config_value(decl, how, a, b, ev)
        if how == "=":
            v = ev(a, b)
            if kind == "dim3":
                return as_block(v)
            if isinstance(v, Braces):
                if len(v) != 1:
                    raise Unknown(f"`{decl.name}` is initialized with a list")
                v = v[0]
                if isinstance(v, Unknown):
                    raise v
            return v
        if a >= b:
            return (1, 1, 1) if kind == "dim3" else 0
        args = [ev(x, y) for x, y in self._split_commas(a, b)]
        if kind == "dim3":
            return to_dim3(args, f"`{decl.name}`")
        if len(args) != 1:
            raise Unknown(f"`{decl.name}` is initialized with several values")
        return args[0]

    def _config_value(self, decl, how, a, b, ev):
        toks = self.toks
        if how == "=" and a < b and toks[a].text == "{":
            a, b = a + 1, self._close(a, b)
        fields = {}
        for k, (x, y) in enumerate(self._split_commas(a, b)):
            if x >= y:
                continue
            if toks[x].text == "." and x + 2 < y and toks[x + 2].text == "=":
                fname, x = toks[x + 1].text, x + 3
            elif k < len(_CONFIG_FIELDS):
                fname = _CONFIG_FIELDS[k]
            else:
                continue
            try:
                fields[fname] = ev(x, y)
            except Unknown as e:
                fields[fname] = e
        return fields

    def _apply(self, m, value, dframe, dchain, decl):
        if m.kind == "incdec":
            if m.path:
                raise Unknown(f"`{decl.name}.{'.'.join(m.path)}` is incremented")
            if isinstance(value, Unknown):
                raise value
            return value + (1 if m.op == "++" else -1)
        rhs = self._evaluate(dframe, dchain, m.rhs[0], m.rhs[1], m.pos, (), None)
        if m.op != "=":
            current = _get_path(value, m.path, decl.name)
            from .launch_expr import _BINARY  # the same arithmetic as expressions
            op = {"+=": "add", "-=": "sub", "*=": "mul", "/=": "div", "%=": "mod", "<<=": "shl", ">>=": "shr",
                  "&=": "bitand", "|=": "bitor", "^=": "bitxor"}[m.op]
            if not isinstance(current, int) or not isinstance(rhs, int):
                raise Unknown(f"`{decl.name}` is updated with `{m.op}` from a non-integer")
            rhs = _BINARY[op](current, rhs)
        return _set_path(value, m.path, rhs, decl)

    def _value_from_branch(self, dframe, decl, name, pos, frame, chain):
        """The value a `switch (name)` case or an `if (name == V)` around `pos` gives, or None."""
        toks = self.toks
        use = pos if dframe is frame else self._pos_in(dframe, frame, pos)
        node = self._node_at(dframe.root, use)
        child = node
        for anc in list(node.ancestors())[1:]:
            if decl.node is not None and not decl.node.contains(anc.start) and decl.node is not anc:
                break
            if anc.head is not None and anc.kind in ("switch", "if"):
                hs, he = anc.head
                if anc.kind == "switch" and he - hs == 1 and toks[hs].text == name and anc.children:
                    body = anc.children[0]
                    if self._modified_between(dframe, name, anc.start, use):
                        return None
                    return self._case_value(dframe, body, child if child is not body else node, use, decl, name)
                if anc.kind == "if" and anc.children and anc.children[0] is child:
                    v = self._equality(dframe, chain, hs, he, name, decl)
                    if v is not None and not self._modified_between(dframe, name, anc.start, use):
                        return v
            child = anc
        return None

    def _modified_between(self, dframe, name, a, b):
        return any(a <= m.pos < b for m in dframe.mods.get(name, []))

    def _case_value(self, dframe, body, inner, use, decl, name):
        if body.kind != "block":
            return None
        # the statement of the switch body that holds the use
        holder = next((c for c in body.children if c.contains(use)), None)
        if holder is None:
            return None
        k = body.children.index(holder)
        labels = []
        j = k if holder.kind == "case" else k - 1
        while j >= 0 and body.children[j].kind == "case":
            labels.append(body.children[j])
            j -= 1
        if len(labels) != 1 or labels[0].head is None:
            return None
        # a fallthrough from the statements before the label would bring other values
        if j >= 0 and body.children[j].kind not in ("jump",) and not self._ends_with_jump(body.children[j]):
            return None
        a, b = labels[0].head
        try:
            return self._evaluate(dframe, [body], a, b, labels[0].start, (), None)
        except Unknown:
            return None

    def _ends_with_jump(self, node):
        if node.kind == "jump":
            return self.toks[node.start].text in ("break", "return", "continue", "throw", "goto")
        if node.kind == "block" and node.children:
            return self._ends_with_jump(node.children[-1])
        return False

    def _equality(self, dframe, chain, hs, he, name, decl):
        toks = self.toks
        if he - hs < 3:
            return None
        if toks[hs].text == name and toks[hs + 1].text == "==":
            a, b = hs + 2, he
        elif toks[he - 1].text == name and toks[he - 2].text == "==":
            a, b = hs, he - 2
        else:
            return None
        if any(toks[x].text in ("&&", "||", "?", ",") for x in range(a, b)):
            return None
        try:
            return self._evaluate(dframe, [], a, b, hs, (), None)
        except Unknown:
            return None

    def _evaluate(self, frame, chain, a, b, pos, region, prefix, field=()):
        """Value of the expression in tokens a..b, seen from `pos`."""
        toks = self.toks[a:b]

        def lookup(name):
            if frame is None:
                d = self._lookup_registry(prefix or "", name, pos)
                if d is None:
                    if name in ("true", "false"):
                        return int(name == "true")
                    raise Unknown(f"`{name}` is not a compile-time value ptxlint can see")
                return self._value_of_global(d, pos, region)
            return self._value(frame, chain, name, pos, region)

        return evaluate_tokens(toks, lookup)

    def _value_of_global(self, d, pos, region):
        if d.region and region[:len(d.region)] != d.region:
            raise Unknown(f"`{d.name}` is declared under a preprocessor condition ptxlint cannot evaluate")
        if d.kind == "enum":
            return self._enum_value(d, None, [])
        if d.kind == "type":
            raise Unknown(f"`{d.name}` is a type")
        return self._var_value(d, None, None, [], pos, ())

    # ---- launches
    def _kernel_before(self, j, s):
        """(name, qualifier, template arg ranges or None, first token index) of `k<...>` ending at j-1."""
        toks = self.toks
        k = j - 1
        targs = None
        if k >= s and toks[k].text in (">", ">>"):
            depth = 0
            q = k
            while q >= s:
                t = toks[q].text
                if t in (")", "]", "}"):
                    o = self.match[q]
                    if o is None:
                        return None
                    q = o - 1
                    continue
                if t == ">":
                    depth += 1
                elif t == ">>":
                    depth += 2
                elif t == "<":
                    depth -= 1
                    if depth == 0:
                        break
                elif t in (";", "{", "}"):
                    return None
                q -= 1
            if q < s:
                return None
            if toks[k].text == ">>":
                return None  # `k<A<int>><<<`: two lists close at once; rare, not read
            targs = self._split_commas(q + 1, k, angles=True)
            k = q - 1
        if k < s or toks[k].kind != IDENT:
            return None
        name = toks[k].text
        first = k
        quals = []
        while first - 2 >= s and toks[first - 1].text == "::" and toks[first - 2].kind == IDENT:
            quals.insert(0, toks[first - 2].text)
            first -= 2
        if first - 1 >= s and toks[first - 1].text == "::":
            first -= 1
        return name, "::".join(quals), targs, first

    def _chevron_launch(self, frame, j, s, e, chain, node):
        toks = self.toks
        found = self._kernel_before(j, s)
        if found is None:
            return
        name, qual, targs, first = found
        k = j + 1
        close = None
        while k < e:
            t = toks[k].text
            if t in ("(", "[", "{"):
                k = self._close(k, e) + 1
                continue
            if t == ">>>":
                close = k
                break
            if t == ";":
                break
            k += 1
        if close is None:
            return
        args = self._split_commas(j + 1, close)
        block = args[1] if len(args) >= 2 else None
        self._record(frame, chain, first, name, qual, targs, block, HOW_CHEVRONS, "block")

    def _api_launch(self, frame, i, e, chain, node):
        toks = self.toks
        how = LAUNCH_APIS[toks[i].text]
        close = self._close(i + 1, e)
        args = self._split_commas(i + 2, close, angles=True)
        if how == "cudaLaunchKernelEx":
            if len(args) < 2:
                return
            kern = self._kernel_expression(*args[1])
            if kern is None:
                return
            name, qual, targs = kern
            cfg = args[0]
            self._record(frame, chain, i, name, qual, targs, cfg, how, "config")
            return
        if len(args) < 3:
            return
        kern = self._kernel_expression(*args[0])
        if kern is None:
            return
        name, qual, targs = kern
        self._record(frame, chain, i, name, qual, targs, args[2], how, "block")

    def _kernel_expression(self, a, b):
        """(name, qualifier, template args) of `(void*)ns::k<T, 4>`, `&k`, `reinterpret_cast<...>(k)`."""
        toks = self.toks
        while a < b:
            t = toks[a].text
            if t == "(" and self.match[a] is not None and self.match[a] < b:
                c = self.match[a]
                inner = [x.text for x in toks[a + 1:c]]
                if c == b - 1:
                    a, b = a + 1, c  # (k)
                    continue
                if inner and all(x in ("void", "const", "*", "char") for x in inner):
                    a = c + 1  # (void*)k
                    continue
                return None
            if t in ("&",):
                a += 1
                continue
            if t in ("reinterpret_cast", "static_cast", "const_cast") and a + 1 < b and toks[a + 1].text == "<":
                c = self._angle_close(a + 1, b)
                if c is None or c + 1 >= b or toks[c + 1].text != "(":
                    return None
                cl = self._close(c + 1, b)
                a, b = c + 2, cl
                continue
            break
        if a >= b:
            return None
        end = b
        targs = None
        if toks[b - 1].text == ">":
            # find its '<'
            depth = 0
            q = b - 1
            while q >= a:
                if toks[q].text == ">":
                    depth += 1
                elif toks[q].text == "<":
                    depth -= 1
                    if depth == 0:
                        break
                q -= 1
            if q < a:
                return None
            targs = self._split_commas(q + 1, b - 1, angles=True)
            end = q
        names = [t for t in toks[a:end]]
        if not names or names[-1].kind != IDENT:
            return None
        for x, t in enumerate(names):
            if t.kind != IDENT and t.text != "::":
                return None
        quals = [t.text for t in names[:-1] if t.kind == IDENT]
        return names[-1].text, "::".join(quals), targs

    def _record(self, frame, chain, first, name, qual, targs, arg, how, what):
        if self._collecting:
            return
        toks = self.toks
        tok = toks[first]
        region = tok.region
        block, why = None, None
        try:
            if arg is None:
                raise Unknown("the launch has no block argument")
            a, b = arg
            if what == "config":
                block = self._config_block(frame, chain, a, b, first, region)
            else:
                block = self._block_value(frame, chain, a, b, first, region)
        except Unknown as e:
            block, why = None, str(e) or "not a compile-time value"
        except RecursionError:
            block, why = None, "the expression is too deeply nested"
        if why is not None and arg is not None:
            why = f"{'configuration' if what == 'config' else 'block'} argument " \
                  f"`{_type_text(toks[arg[0]:arg[1]])}`: {why}"
        args = None
        if targs is not None:
            args = tuple(self._template_arg(frame, chain, a, b, first, region) for a, b in targs)
        launch = Launch(name, args, block, tok.path, tok.line, how, why, qual)
        if launch not in self._seen:
            self._seen.add(launch)
            self.launches.append((first, len(self.launches), launch))

    def _block_value(self, frame, chain, a, b, pos, region):
        text = " ".join(t.text for t in self.toks[a:b])
        value = self._evaluate(frame, chain, a, b, pos, region, None)
        block = as_block(value)
        return _checked_block(block, text)

    def _config_block(self, frame, chain, a, b, pos, region):
        toks = self.toks
        if b - a == 2 and toks[a].text == "&" and toks[a + 1].kind == IDENT:
            cfg = self._value(frame, chain, toks[a + 1].text, pos, region, field=("blockDim",))
        else:
            raise Unknown("the launch configuration is passed through a pointer")
        if not isinstance(cfg, dict) or "blockDim" not in cfg:
            raise Unknown(f"`{toks[a + 1].text}.blockDim` is not set before the launch")
        v = cfg["blockDim"]
        if isinstance(v, Unknown):
            raise v
        return _checked_block(as_block(v), f"{toks[a + 1].text}.blockDim")

    def _template_arg(self, frame, chain, a, b, pos, region):
        toks = self.toks
        try:
            v = self._evaluate(frame, chain, a, b, pos, region, None)
            if isinstance(v, int):
                return str(v)
        except (Unknown, RecursionError):
            pass
        if b - a == 1 and toks[a].kind == IDENT:
            decl, dframe = self._lookup_decl(frame, chain, toks[a].text, pos)
            if decl is not None and decl.kind == "tparam" and dframe is not None and dframe.binding:
                v = dframe.binding.get(decl.name)
                if isinstance(v, str):
                    return v
            if decl is not None and decl.kind == "type":
                return decl.type_text
        return _arg_text(toks[a:b])

    # ---- template instantiations
    def _template_call(self, frame, i, e, chain):
        toks = self.toks
        name = toks[i].text
        if i + 1 < e and toks[i + 1].text == "<":
            c = self._angle_close(i + 1, e)
            if c is not None and c + 1 < e and toks[c + 1].text == "(":
                self._record_call(name, i + 1, c, frame, chain, None)
                return
        if i + 1 < e and toks[i + 1].text == "(":
            self._record_call(name, None, None, frame, chain, None)

    def _record_call(self, name, lt, gt, frame, chain, prefix):
        """A call `name<args>(...)` (lt, gt: the angle brackets; None for `name(...)`) of a function
        template: the binding of its template parameters it instantiates."""
        toks = self.toks
        pieces = self._split_commas(lt + 1, gt, angles=True) if lt is not None else []
        site = lt if lt is not None else 0
        for fn in self.templates_by_name.get(name, []):
            if len(pieces) > len(fn.tparams):
                continue
            binding = {}
            for k, d in enumerate(fn.tparams):
                if k < len(pieces):
                    a, b = pieces[k]
                    rng, fr, ch = (a, b), frame, chain
                else:
                    default = d.extra.get("default")
                    if default is None or self._in_parameters(fn, d.name):
                        # deduced from the call's arguments (or a default the deduction overrides)
                        binding[d.name] = Unknown(f"`{d.name}` of `{fn.name}` is deduced from the arguments")
                        continue
                    rng, fr, ch = default, None, []
                if d.type_text == "type":
                    binding[d.name] = self._template_arg(fr, ch, rng[0], rng[1], site, toks[rng[0]].region) \
                        if fr is not None else _type_text(toks[rng[0]:rng[1]])
                    continue
                try:
                    if fr is None:
                        v = self._evaluate(None, [], rng[0], rng[1], rng[0], toks[rng[0]].region,
                                           prefix or fn.prefix)
                    else:
                        v = self._evaluate(fr, ch, rng[0], rng[1], site, toks[rng[0]].region, None)
                    binding[d.name] = v if isinstance(v, int) else Unknown(f"`{d.name}` is not an integer")
                except Unknown as err:
                    binding[d.name] = Unknown(f"`{d.name}` of `{fn.name}` is instantiated with a value "
                                              f"ptxlint cannot evaluate ({err})")
            key = tuple((k, v if not isinstance(v, Unknown) else ("?", str(v))) for k, v in sorted(binding.items()))
            self.instantiations.setdefault(id(fn), {})[key] = binding


def dchain_at(finder, dframe, m):
    """Blocks of `dframe` that enclose the modification `m` (for evaluating its right-hand side)."""
    node = finder._node_at(dframe.root, m.pos)
    return [n for n in reversed(list(node.ancestors()))]


def _value_kind(ty: str):
    words = ty.split()
    if not words:
        return None
    if "*" in ty or "[]" in ty:
        return None
    if ty in _DIM3_TYPES:
        return "dim3"
    if ty in _CONFIG_TYPES:
        return "config"
    if ty == "auto":
        return "auto"
    if all(w in _INT_TYPES or w in ("unsigned", "signed", "long", "short", "int") for w in words):
        return "int"
    return None


def _overlaps(path, field):
    n = min(len(path), len(field))
    return path[:n] == field[:n]


def _get_path(value, path, name):
    for p in path:
        if isinstance(value, tuple) and p in ("x", "y", "z"):
            value = value["xyz".index(p)]
        elif isinstance(value, dict) and p in value:
            value = value[p]
        else:
            raise Unknown(f"`{name}.{'.'.join(path)}` is not known")
        if isinstance(value, Unknown):
            raise value
    if isinstance(value, Unknown):
        raise value
    return value


def _set_path(value, path, new, decl):
    if not path:
        if isinstance(new, Braces) and _value_kind(decl.type_text) == "dim3":
            return to_dim3(list(new))
        if _value_kind(decl.type_text) == "dim3" and isinstance(new, int):
            return (new, 1, 1)
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, tuple) and not isinstance(value, Braces) and head in ("x", "y", "z") and not rest:
        if isinstance(new, Unknown):
            raise new
        v = list(value)
        v["xyz".index(head)] = new
        return tuple(v)
    if isinstance(value, dict):
        out = dict(value)
        if rest:
            inner = out.get(head, (1, 1, 1) if head in ("gridDim", "blockDim") else None)
            if isinstance(inner, Unknown) or inner is None:
                out[head] = Unknown(f"`{decl.name}.{head}` is not known")
                return out
            out[head] = _set_path(inner, rest, new, Decl(head, "var", 0, type_text="dim3"))
        else:
            out[head] = new if not isinstance(new, Braces) else to_dim3(list(new))
        return out
    if isinstance(value, Unknown):
        return value
    raise Unknown(f"`{decl.name}.{'.'.join(path)}` is assigned")


def _checked_block(block, text):
    x, y, z = block
    if min(block) < 1 or x * y * z > MAX_BLOCK_THREADS or z > 64:
        raise Unknown(f"`{text}` evaluates to {x}x{y}x{z}, not a valid block shape")
    return block


def _arg_text(tokens) -> str:
    """A template argument as text: a type as `_type_text` writes it, an expression spaced."""
    if all(t.kind == IDENT or t.text in ("::", "<", ">", "*", "&", ",") for t in tokens):
        return _type_text(tokens)
    out = ""
    for t in tokens:
        if out and not out.endswith(("(", "[", "::")) and t.text not in (")", "]", "(", "[", ",", "::"):
            out += " "
        out += t.text
    return out


def _type_text(tokens) -> str:
    """A type or expression as text: words separated by one space, `*`/`&` attached, no spaces
    around `::`, `<` and `>`."""
    out = ""
    prev = ""
    for t in tokens:
        s = t.text
        if not out:
            out = s
        elif s == ",":
            out += ", "
        elif s in ("*", "&", "&&", ">", "::", "<", "(", ")", "[", "]") or prev in ("::", "<", "(", "[", ", "):
            out += s
        else:
            out += " " + s
        prev = s if s != "," else ", "
    return out


# ---------------------------------------------------------------------------------------------
# Entry points


def find_launches(path: str, text: Optional[str] = None, include_dirs=(), defines=None) -> list:
    """Kernel launches in the translation unit `path` (its text read from disk unless `text` is
    given), with their block shapes where they are compile-time values. `include_dirs` are searched
    for `#include`s (after the including file's directory); `defines` are `-D` macros
    ({name: value}). Never raises on code it does not understand: such launches are not found, or
    their block is None with the reason."""
    pp = preprocess(path, text, include_dirs, defines)
    return LaunchFinder(pp.tokens).run()


_DEMANGLED_NUMBER = re.compile(r"^(?:\((?:[a-z ]+)\))?(-?[0-9]+)(?:u|l|ul|ll|ull|lu)?$")
_TYPE_ALIASES = {
    "half": "__half", "nv_bfloat16": "__nv_bfloat16", "half2": "__half2", "nv_bfloat162": "__nv_bfloat162",
    "unsigned": "unsigned int", "signed": "int", "signed int": "int", "long int": "long",
    "unsigned long int": "unsigned long", "long long int": "long long", "short int": "short",
    "unsigned short int": "unsigned short", "unsigned long long int": "unsigned long long",
    "uint32_t": "unsigned int", "int32_t": "int", "uint64_t": "unsigned long", "int64_t": "long",
    "uint16_t": "unsigned short", "int16_t": "short", "uint8_t": "unsigned char", "int8_t": "signed char",
    "size_t": "unsigned long", "ptrdiff_t": "long", "uint": "unsigned int",
}
_BUILTIN_TYPES = {"int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "short",
                  "unsigned short", "char", "signed char", "unsigned char", "bool", "float", "double", "__half",
                  "__nv_bfloat16", "__half2", "__nv_bfloat162", "float2", "float4", "int2", "int4", "uint2",
                  "uint4", "double2", "void", "wchar_t"}


def split_template_name(name: str):
    """`ns::k<float, 256>` -> ("ns", "k", ["float", "256"]); no args -> (..., None)."""
    depth = 0
    parts, cur = [], ""
    i = 0
    while i < len(name):
        ch = name[i]
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if depth == 0 and name.startswith("::", i):
            parts.append(cur)
            cur = ""
            i += 2
            continue
        cur += ch
        i += 1
    parts.append(cur)
    last = parts[-1]
    qual = "::".join(parts[:-1])
    if "<" not in last or not last.endswith(">"):
        return qual, last, None
    lt = last.index("<")
    inner = last[lt + 1:-1]
    args, cur, depth = [], "", 0
    for ch in inner:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip() or args:
        args.append(cur.strip())
    return qual, last[:lt], args


def _number(text: str):
    if text in ("true", "false"):
        return int(text == "true")
    m = _DEMANGLED_NUMBER.match(text.strip())
    if m:
        return int(m.group(1))
    try:
        return parse_int_literal(text.strip()) if re.fullmatch(r"-?[0-9][0-9a-fA-FxXuUlL']*", text.strip()) else None
    except ValueError:
        return None


def canonical_type(text: str) -> str:
    """`const float *` and `float const*` -> `float const*`; `half` -> `__half`; `unsigned` ->
    `unsigned int`; `std::size_t` -> `unsigned long`."""
    s = re.sub(r"\s+", " ", text.strip())
    s = re.sub(r"\s*([*&])\s*", r"\1", s)
    s = s.replace("std::", "") if re.fullmatch(r"std::[a-z0-9_]+_t", s.split("*")[0].split("&")[0].strip()) else s
    # split into base words and the pointer/reference suffix
    m = re.match(r"^([^*&]*)(.*)$", s)
    base, suffix = m.group(1).strip(), m.group(2)
    words = base.split()
    cv = [w for w in words if w in ("const", "volatile")]
    core = " ".join(w for w in words if w not in ("const", "volatile"))
    core = _TYPE_ALIASES.get(core, core)
    out = core + ("".join(" " + w for w in cv))
    return out + suffix


def _compare_arg(written: str, demangled: str):
    """True (same), False (different) or None (cannot tell) for one template argument."""
    wn, dn = _number(written), _number(demangled)
    if dn is not None:
        if wn is not None:
            return wn == dn
        return None  # a value ptxlint could not evaluate
    if wn is not None:
        return False if canonical_type(demangled) in _BUILTIN_TYPES else None
    cw, cd = canonical_type(written), canonical_type(demangled)
    if cw == cd or cd.endswith("::" + cw):
        return True
    base_w = re.split(r"[ *&]", cw)[0]
    base_d = re.split(r"[ *&]", cd)[0]
    if cw.replace(base_w, "", 1) != cd.replace(base_d, "", 1) and base_w in _BUILTIN_TYPES and base_d in _BUILTIN_TYPES:
        return False
    if base_w in _BUILTIN_TYPES | {"unsigned int"} and base_d in _BUILTIN_TYPES:
        return False
    return None


def launches_for_function(mangled_name: str, launches: list) -> list:
    """The launches that launch the PTX function `mangled_name`: same unqualified name, the
    written qualification (if any) a suffix of the function's, and template arguments that agree
    one by one. A launch whose template arguments cannot be compared with confidence (a value
    ptxlint could not evaluate, an unknown type name, arguments left to deduction) is left out."""
    qual, name, args = split_template_name(without_parameters(demangle(mangled_name)))
    out = []
    for launch in launches:
        if launch.kernel != name:
            continue
        if launch.qualifier:
            q = launch.qualifier.lstrip(":")
            if not (qual == q or qual.endswith("::" + q)):
                continue
        if (launch.template_args is None) != (args is None):
            continue
        if args is not None:
            if len(args) != len(launch.template_args):
                continue
            if not all(_compare_arg(w, d) is True for w, d in zip(launch.template_args, args)):
                continue
        out.append(launch)
    return out
