"""Pass 1 of launch discovery: declarations and functions at namespace and class scope
(namespaces, classes, enums, function (template) definitions, explicit instantiations, constants,
aliases, using-directives), and the declarations a statement makes.

A mixin of `LaunchFinder` (finder.py): it fills `self.registry`, `self.usings`, `self.functions`
and `self.templates_by_name`, which the walk of function bodies (statements.py) and name lookup
(values.py) read.
"""

from __future__ import annotations

from ..cpp_preprocess import IDENT
from .structure import Decl, Function
from .syntax import (
    _DECL_SPECIFIERS,
    _NOT_A_FUNCTION_NAME,
    _QUALIFIERS_AFTER_PARAMS,
    _STATEMENT_KEYWORDS,
    _is_name,
    _type_text,
)


# gflags' flag definitions and the C type of the FLAGS_ variable each defines
GFLAGS_TYPES = {"DEFINE_int32": "int32_t", "DEFINE_int64": "int64_t", "DEFINE_uint32": "uint32_t",
                "DEFINE_uint64": "uint64_t", "DEFINE_bool": "bool"}


class DeclarationReader:
    """Namespace- and class-scope declarations, functions and statements' declarations."""

    # ---- pass 1: declarations and functions at namespace/class scope
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
                    if h + 2 >= k or toks[h + 2].text == "{":
                        return h  # `extern "C" { ... }`: a linkage block
                    h += 2  # `extern "C" void launch(...) {`: a function with C linkage
                    continue
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
        specialised = {}  # index after `name<...>` -> the name's index (`template <> void f<float>(`)
        while i < k:
            t = toks[i]
            if t.text == "(":
                close = self._close(i, k)
                name = specialised.get(i, i - 1)
                if name >= s and toks[name].kind == IDENT and toks[name].text not in _NOT_A_FUNCTION_NAME \
                        and toks[name].text not in _DECL_SPECIFIERS and found is None:
                    found = (name, i, close)
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
                    if i > s and toks[i - 1].kind == IDENT:
                        specialised[c + 1] = i - 1
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
                for q in range(a, eq - 3):  # `void (*f)(T *, int)`: the name is inside `(*...)`
                    if toks[q].text == "(" and toks[q + 1].text == "*" and toks[q + 2].kind == IDENT \
                            and toks[q + 3].text == ")":
                        j = q + 2
                        break
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
        for position, (a, b) in enumerate(self._split_commas(paren + 1, pclose, angles=True)):
            eq = next((j for j in range(a, b) if toks[j].text == "="), b)
            e = eq
            while e > a and toks[e - 1].text == "]":
                e = self.match[e - 1] if self.match[e - 1] is not None else a
            idents = [j for j in range(a, e) if toks[j].kind == IDENT and toks[j].text not in _DECL_SPECIFIERS]
            if idents and e - a >= 2 and idents[-1] == e - 1:
                param = Decl(toks[e - 1].text, "param", e - 1, type_text=_type_text(toks[a:e - 1]))
                param.extra["pattern"] = _deduction_pattern(toks[a:e - 1], tparams)
                param.extra["position"] = position
                param.extra["default"] = (eq + 1, b) if eq < b else None
                params.append(param)
        fn = Function(q[-1], qualified, lookup_prefix, tparams, list(outer_tparams), params, (open_, close))
        fn.is_kernel = any(t.text == "__global__" for t in toks[h:name_i])
        fn.param_words = {t.text for t in toks[paren + 1:pclose] if t.kind == IDENT}
        for d in tparams + params:
            d.owner = fn
        self.functions.append(fn)
        if tparams:
            self.templates_by_name.setdefault(fn.name, []).append(fn)
        elif params and not fn.is_kernel:
            self.callables_by_name.setdefault(fn.name, []).append(fn)

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
        flag = self._command_line_flag(h, k)
        if flag is not None:
            self.registry.setdefault(f"{prefix}::{flag.name}" if prefix else flag.name, []).append(flag)
            flag.extra["prefix"] = prefix
            return
        for d in self._declarations(h, k, None):
            key = f"{prefix}::{d.name}" if prefix else d.name
            self.registry.setdefault(key, []).append(d)
            d.extra["prefix"] = prefix

    def _command_line_flag(self, h, k):
        """`DEFINE_int32(n, 256, "...")` (gflags): the variable `FLAGS_n`, a command-line option whose
        value in the program's default run is its default (kind "var", marked `extra["flag"]`)."""
        toks = self.toks
        macro = toks[h].text
        if macro not in GFLAGS_TYPES or h + 3 >= k or toks[h + 1].text != "(" or toks[h + 2].kind != IDENT \
                or toks[h + 3].text != ",":
            return None
        arguments = self._split_commas(h + 2, self._close(h + 1, k))
        if len(arguments) < 2 or arguments[1][0] == arguments[1][1]:
            return None
        d = Decl(f"FLAGS_{toks[h + 2].text}", "var", h + 2, type_text=GFLAGS_TYPES[macro], const=True,
                 init=("=", *arguments[1]), region=toks[h].region)
        d.extra["flag"] = toks[h + 2].text
        return d

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
        if toks[h].text == "using" and k - h >= 4 and toks[k - 2].text == "::" and toks[k - 1].kind == IDENT \
                and toks[h + 1].text not in ("namespace", "typename") \
                and all(t.kind == IDENT or t.text == "::" for t in toks[h + 1:k]):
            # a using-declaration (`using lib::warp_size;`): the name stands for the qualified one
            return [Decl(toks[k - 1].text, "alias", k - 1, type_text="".join(t.text for t in toks[h + 1:k]),
                         node=node, region=toks[h].region)]
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


def _deduction_pattern(type_tokens, tparams):
    """(template type parameter, passed as a pointer) of a parameter declared `T`, `T *`, `const T *`,
    `T &` or `const T &`: the call's argument's type deduces T. None for any other form."""
    words = [t.text for t in type_tokens if t.text not in ("const", "volatile", "__restrict__", "&", "&&")]
    names = {d.name for d in tparams if d.type_text == "type"}
    if len(words) == 1 and words[0] in names:
        return words[0], False
    if len(words) == 2 and words[0] in names and words[1] == "*":
        return words[0], True
    return None
