"""The compile-time value of a name where it is used: lookup through the enclosing scopes, frames,
namespaces and using-directives, then the value of a template parameter (from its binding), an
enumerator, a constant or a local variable assigned in straight-line code before the use, or the
value a `switch` case / `if (v == V)` around the use gives. Everything else raises `Unknown` with
the reason.

A mixin of `LaunchFinder` (finder.py); expressions themselves are evaluated by launch_expr.py.
"""

from __future__ import annotations

from math import gcd
from typing import Optional

from ..cpp_preprocess import IDENT, Unknown
from ..launch_expr import Braces, Multiple, as_block, evaluate_tokens, to_dim3
from .launch import DEFAULT_FLAGS, DEFAULT_RUN
from .structure import Decl
from .syntax import _CONFIG_FIELDS, _CONFIG_TYPES, _DIM3_TYPES, _INT_TYPES

MAX_LOCAL_USINGS = 64  # `using namespace` directives inside function bodies read per translation unit
MAX_CALL_DEPTH = 4  # calls of one-expression host functions followed inside each other


class UnboundParameter(Unknown):
    """A value read from a host function's parameter that no call in the translation unit binds:
    `owner` is the function's name (a launch wrapper whose callers may be in other files)."""

    def __init__(self, why: str, owner: str) -> None:
        super().__init__(why)
        self.owner = owner


class ValueResolver:
    """Name lookup and the compile-time value of names and expressions."""

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
        local = self._local_usings_at(pos)
        for pre in prefixes:
            keys = [f"{pre}::{name}" if pre else name]
            for used in self.usings.get(pre, []):
                keys.append(f"{used}::{name}")
            for used in local:  # a body's `using namespace N;` names N from where the body is, or from the top
                keys += [f"{pre}::{used}::{name}", f"{used}::{name}"] if pre else [f"{used}::{name}"]
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

    def _local_usings_at(self, pos) -> list:
        """The namespaces a `using namespace N;` inside a function body names before `pos` in the
        same body (`void f() { using namespace xmrig_cuda; g<Algorithm::CN_0>(); }`); none while
        the declarations are still being read (`_find_local_usings` runs after them)."""
        return [name for start, end, name in self._local_using_spans or () if start < pos < end]

    def _find_local_usings(self) -> None:
        """(start, end of the body, namespace) of each `using namespace N;` in a function body, the
        first MAX_LOCAL_USINGS of them: every name lookup tries each that is in scope, so host code
        written with thousands of them must not make lookups slow (real code has a handful)."""
        spans = self._local_using_spans = []
        toks = self.toks
        for function in self.functions:
            start, end = function.body
            for k in range(start, min(end, len(toks) - 2)):
                if len(spans) >= MAX_LOCAL_USINGS:
                    return
                if toks[k].text == "using" and toks[k + 1].text == "namespace":
                    j, parts = k + 2, []
                    while j < end and (toks[j].kind == IDENT or toks[j].text == "::"):
                        parts.append(toks[j].text)
                        j += 1
                    if parts and j < end and toks[j].text == ";":
                        spans.append((k, end, "".join(parts).lstrip(":")))

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
        if decl.kind == "param" and _is_argc(decl):
            # the run with no command-line arguments: `argc > 2 ? atoi(argv[2]) : 16` is its default 16
            self._assumed.add(DEFAULT_RUN)
            return 1
        if decl.kind == "param":
            return self._param_value(decl, dframe)
        if decl.kind == "tparam":
            return self._tparam_value(decl, dframe)
        if decl.kind == "enum":
            return self._enum_value(decl, frame, chain)
        if decl.kind == "type":
            raise Unknown(f"`{name}` is a type")
        if decl.kind == "alias":
            target = decl.type_text
            if target.lstrip(":") == name or target in self._evaluating:
                raise Unknown(f"`{name}` names itself")
            self._evaluating.add(target)
            try:
                return self._value(frame, chain, target, pos, region, field)
            finally:
                self._evaluating.discard(target)
        return self._var_value(decl, dframe, frame, chain, pos, field)

    def _param_value(self, decl, dframe):
        """A function parameter's value: the one the call this walk follows passes (instantiations.py),
        when the body never assigns the parameter; else a run-time value."""
        owner = decl.owner.name if decl.owner else "a function"
        bound = dframe.binding.get(decl.name) if dframe is not None and dframe.binding else None
        if bound is None or dframe.function is not decl.owner:
            raise UnboundParameter(f"`{decl.name}` is a parameter of `{owner}` (a run-time value)", owner)
        if isinstance(bound, Unknown):
            raise bound
        if dframe.mods.get(decl.name):
            raise Unknown(f"`{decl.name}` is a parameter of `{owner}` that its body changes")
        self._assumed.update(bound.assumed)
        return bound.value

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
        if kind is None and " ".join(w for w in ty.split() if w not in ("const", "struct")) == "cudaDeviceProp":
            return DeviceLimits(self._assumed)
        if kind is None:
            raise Unknown(f"`{name}` has type `{ty or '?'}`")
        if dframe is None:
            # namespace or class scope
            if not decl.const:
                raise Unknown(f"`{name}` is a non-const global variable")
            if "flag" in decl.extra:
                # a gflags option: its default is the program's value when run with no flags
                self._assumed.add(DEFAULT_FLAGS)
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
            if m not in straight and self._never_runs(dframe, m.pos):
                continue  # in a branch whose condition is a compile-time value that excludes it
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
                if self._branch_taken(dframe, anc, m.pos) is True:
                    continue  # `if (argc > 2) ... else b = 16;`: the branch always taken
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

    def _branch_taken(self, dframe, node, pos):
        """Is the branch of `if` statement `node` (or of its parent `if`) that holds `pos` always
        taken (True), never taken (False), or is that not known at compile time (None)?"""
        if node.kind != "if":
            if node.parent is None or node.parent.kind != "if":
                return None
            node = node.parent
        if node.head is None or not node.children:
            return None
        branch = next((k for k, c in enumerate(node.children) if c.contains(pos)), None)
        if branch is None:
            return None
        key = ("condition", node.start, id(dframe))
        if key not in self._value_cache:
            a, b = node.head
            chain = list(reversed(list(node.ancestors())))
            try:
                value = self._evaluate(dframe, chain, a, b, node.start, self.toks[a].region, None)
                self._value_cache[key] = (bool(value) if isinstance(value, int) else None, set(self._assumed))
            except (Unknown, RecursionError):
                self._value_cache[key] = (None, set())
        value, assumed = self._value_cache[key]
        if value is None:
            return None
        self._assumed.update(assumed)
        return value == (branch == 0)

    def _never_runs(self, dframe, pos):
        """Is `pos` inside a branch of an `if` that a compile-time condition never takes?"""
        node = self._node_at(dframe.root, pos)
        return any(self._branch_taken(dframe, anc, pos) is False for anc in node.ancestors() if anc.kind == "if")

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
            from ..launch_expr import _BINARY  # the same arithmetic as expressions
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

        def exact(name):
            if frame is None:
                return self._namespace_value(prefix or "", name, pos, region)
            return self._value(frame, chain, name, pos, region)

        def lookup(name):
            try:
                return exact(name)
            except Unknown:
                if self._factor_mode:
                    # some integer: a multiple of what the host code checks of it before the use,
                    # and what its neighbours in the expression say is kept
                    return Multiple(self._checked_factor(frame, chain, name, pos) if frame is not None else 1)
                raise

        return evaluate_tokens(toks, lookup, self._factor_mode, call=lambda name, args: self._returned_value(name, args, region))

    def _namespace_value(self, prefix: str, name: str, pos, region):
        """The value of `name` seen from `pos` outside any function body (`prefix`: the enclosing
        namespaces and classes): a namespace or class constant, an enumerator, `true`/`false`."""
        d = self._lookup_registry(prefix, name, pos)
        if d is None:
            if name in ("true", "false"):
                return int(name == "true")
            raise Unknown(f"`{name}` is not a compile-time value ptxlint can see")
        return self._value_of_global(d, pos, region)

    def _returned_value(self, name: str, arguments: list, region, depth: int = 0):
        """The value of a call of the host code's own function `name` whose body is one `return
        EXPR;` (`static int blocksize(long n) { return BLOCKSIZE; }`, `constexpr int threads(int
        warps) { return 32 * warps; }`): EXPR, with the parameters bound to the call's arguments.
        Anything else, an overloaded name or a call nested deeper than MAX_CALL_DEPTH, is Unknown."""
        toks = self.toks
        plain = name.rsplit("::", 1)[-1]
        found = [f for f in self.functions if f.name == plain and not f.is_kernel and not f.tparams
                 and len(f.params) == len(arguments)]
        if len(found) != 1 or depth >= MAX_CALL_DEPTH:
            raise Unknown(f"the value of a call to `{name}`")
        fn = found[0]
        start, end = fn.body
        if end - start < 4 or toks[start + 1].text != "return" or toks[end - 1].text != ";" \
                or any(t.text in (";", "{") for t in toks[start + 2:end - 1]):
            raise Unknown(f"`{name}` does more than return one expression")
        bound = {p.name: a for p, a in zip(fn.params, arguments)}

        def lookup(word):
            if word in bound:
                value = bound[word]
                if isinstance(value, Unknown):
                    raise Unknown(f"the argument for `{word}` of `{name}`: {value}")
                return value
            return self._namespace_value(fn.prefix, word, start, region)

        return evaluate_tokens(toks[start + 2:end - 1], lookup,
                               call=lambda inner, args: self._returned_value(inner, args, region, depth + 1))

    def _checked_factor(self, frame, chain, name, pos) -> int:
        """The factor the host code makes sure `name` is a multiple of where it is used at `pos`:
        an `assert(name % K == 0)` (any call named like an assertion) or an `if (name % K != 0)`
        that leaves (returns, throws, aborts) in the straight-line code before the use, or an
        `if (name % K == 0)` whose branch holds the use; 1 when none says so. The variable must not
        change between the check and the use."""
        toks = self.toks
        use = self._node_at(frame.root, pos)
        factor = 1
        child = use
        for anc in list(use.ancestors())[1:]:
            if anc.kind == "if" and anc.head is not None and anc.children and anc.children[0] is child:
                factor = _lcm(factor, self._divisor_in(frame, chain, *anc.head, name, pos, negated=False))
            if anc.kind == "block":
                for s in anc.children:
                    if s is child:
                        break
                    k = 1
                    if s.kind == "simple" and any(t.kind == IDENT and "assert" in t.text.lower()
                                                  for t in toks[s.start:s.end]):  # also assert's expansion
                        k = self._divisor_in(frame, chain, s.start, s.end, name, pos, negated=False)
                    elif s.kind == "if" and s.head is not None and len(s.children) == 1 and self._leaves(s.children[0]):
                        k = self._divisor_in(frame, chain, *s.head, name, pos, negated=True)
                    if k > 1 and not self._modified_between(frame, name, s.start, pos):
                        factor = _lcm(factor, k)
            child = anc
        return factor

    def _leaves(self, node) -> bool:
        """Does the statement end the function or the program (return, throw, an abort or exit call)?"""
        if self._ends_with_jump(node):
            return True
        return any(t.kind == IDENT and ("abort" in t.text.lower() or t.text in ("exit", "_exit", "__assert_fail"))
                   for t in self.toks[node.start:node.end])

    def _divisor_in(self, frame, chain, a, b, name, pos, negated: bool) -> int:
        """K where tokens a..b state `name % K == 0` (`!= 0` when `negated`; a `!( ... )` around
        the whole flips it), as a conjunct: nothing else joined by `||`; 1 when they do not."""
        toks = self.toks
        a, b = self._without_parens(a, b)
        if b - a >= 3 and toks[a].text == "!" and toks[a + 1].text == "(" and self.match[a + 1] == b - 1:
            return self._divisor_in(frame, chain, a + 2, b - 1, name, pos, not negated)
        if any(toks[j].text == "||" for j in range(a, b)):
            return 1
        want = "!=" if negated else "=="
        for j in range(a, b - 4):
            if toks[j].text != name or toks[j + 1].text != "%" or (j > a and toks[j - 1].text in (".", "->", "::")):
                continue
            k, end = j + 2, j + 3
            if toks[k].text == "(":
                end = self.match[k] + 1 if self.match[k] is not None else b
            close = end < b and toks[end].text == ")" and j > a and toks[j - 1].text == "("
            at = end + 1 if close else end
            if at + 1 < b and toks[at].text == want and toks[at + 1].text == "0":
                try:
                    v = self._evaluate(frame, chain, k, end, pos, (), None)
                except (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError):
                    continue
                if isinstance(v, int) and not isinstance(v, bool) and v > 1:
                    return v
        return 1

    def _multiple(self, frame, chain, a, b, pos, region) -> Optional[Multiple]:
        """The factor the expression in tokens a..b is a multiple of, whatever the values the host
        code does not give (`nbodies * 1024` -> Multiple(1024), through variables initialised or
        assigned so); None when no factor above 1 is known."""
        outer = self._value_cache
        self._factor_mode, self._value_cache = True, self._factor_cache
        try:
            value = self._evaluate(frame, chain, a, b, pos, region, None)
        except (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError):
            return None
        finally:
            self._factor_mode, self._value_cache = False, outer
        return value if isinstance(value, Multiple) and value.factor > 1 else None

    def _value_of_global(self, d, pos, region):
        if d.region and region[:len(d.region)] != d.region:
            raise Unknown(f"`{d.name}` is declared under a preprocessor condition ptxlint cannot evaluate")
        if d.kind == "enum":
            return self._enum_value(d, None, [])
        if d.kind == "type":
            raise Unknown(f"`{d.name}` is a type")
        return self._var_value(d, None, None, [], pos, ())



class DeviceLimits(dict):
    """A `cudaDeviceProp` as launch discovery reads it: only the limits every GPU that CUDA 12 and
    later support shares (compute capability 5.0 and up), so `prop.maxThreadsPerBlock` as a block
    is 1024 on any device; reading one notes that in what the launch assumes. Other fields
    (multiprocessor counts, memory sizes) differ between GPUs and stay unknown."""

    LIMITS = {"maxThreadsPerBlock": 1024, "warpSize": 32, "regsPerBlock": 65536}

    def __init__(self, assumed: set) -> None:
        super().__init__(self.LIMITS)
        self._assumed = assumed

    def __getitem__(self, field):
        value = super().__getitem__(field)
        self._assumed.add(f"`cudaDeviceProp::{field}` is {value}, as on every GPU of compute capability 5.0 "
                          "and later")
        return value


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


def _is_argc(decl) -> bool:
    """Is `decl` the first parameter of `main` (the argument count)?"""
    owner = decl.owner
    return (getattr(owner, "name", None) == "main" and not getattr(owner, "prefix", "")
            and owner.params and owner.params[0] is decl)


def _lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)
