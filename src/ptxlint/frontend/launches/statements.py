"""Pass 2 of launch discovery: the walk of every function body (once per template binding the
translation unit instantiates) through its statements: blocks, if/else, loops, switch/case, simple
statements and lambdas, with the assignments, increments and address-takings of each variable.

A mixin of `LaunchFinder` (finder.py): what a walked statement holds is handed to launch_sites.py
(launches) and instantiations.py (calls of host functions and templates).
"""

from __future__ import annotations

from ..cpp_preprocess import IDENT
from .instantiations import live_bindings
from .launch import LAUNCH_APIS, MAX_BINDINGS_PER_TEMPLATE
from .structure import Decl, Frame, Function, Mod, Node
from .syntax import (
    _ASSIGN_OPS,
    _DECL_SPECIFIERS,
    _DIM3_TYPES,
    _INT_TYPES,
    _STATEMENT_KEYWORDS,
)


class BodyWalker:
    """The walk of function bodies: statement trees, variable modifications, lambdas."""

    # ---- pass 2: walk function bodies
    def _walk_all(self):
        """Walk every function body. A function template is walked once per binding of its
        template parameters that the translation unit instantiates, and a host function with
        integer parameters once per set of values its calls pass (instantiations.py); the
        bindings are collected first (walks that record no launch, until no new binding
        appears), then the launches. A function no call in the unit binds is walked once, its
        parameters run-time values."""
        self._collecting = True
        for f in self.functions:
            if not f.tparams:
                self._walk(f, None)
        done: dict = {}
        self._collect_rounds(done)
        # a function template nothing here instantiates (its callers are in other files) is walked
        # unbound at the end, as its calls are: what those calls pass that does not depend on its
        # template parameters (`dim3 block(32, 8)`) binds the functions they call
        unbound = [f for f in self.functions if f.tparams and not self.instantiations.get(id(f))]
        for f in unbound:
            self._walk(f, None)
        if unbound:
            self._collect_rounds(done)
        self._collecting = False
        live = live_bindings(self.functions, self.instantiations, self.binding_origins)
        for f in self.functions:
            bindings = list(live.get(id(f), {}).values())[:MAX_BINDINGS_PER_TEMPLATE]
            for b in bindings or [None]:
                self._walk(f, b)

    def _collect_rounds(self, done: dict) -> None:
        """Walk each function once per binding its calls made, until no new binding appears (at
        most six rounds); `done`: the bindings walked so far per function."""
        for _round in range(6):
            progress = False
            for f in self.functions:
                walked = done.setdefault(id(f), set())
                for key, b in list(self.instantiations.get(id(f), {}).items())[:MAX_BINDINGS_PER_TEMPLATE]:
                    if key not in walked:
                        walked.add(key)
                        self._walk(f, b)
                        progress = True
            if not progress:
                break

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
            elif t.kind == IDENT and (t.text in self.templates_by_name or t.text in self.callables_by_name) \
                    and (i == s or toks[i - 1].text not in (".", "->")):
                self._host_call(frame, i, e, chain)
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
