"""Calls of host functions (`run<128>(...)`, `template void run<128>(...);`, `runOne(d, n)`): the
binding of template parameters each one instantiates and the values of the integer and `dim3`
parameters it passes, so that a function's body is walked once per binding: a launch inside a
wrapper (`void run(int n, int threads) { k<<<g, threads>>>(x, n); }`) gets the block and the
arguments of the calls the translation unit makes (`run(1 << 20, 256)`).

A mixin of `LaunchFinder` (finder.py): it fills `self.instantiations`, which the walk
(statements.py) reads.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Optional

from ..cpp_preprocess import IDENT, Unknown
from .launch_sites import OpenText
from .syntax import _ASSIGN_OPS, _type_text
from .launch import MAX_BINDINGS_PER_TEMPLATE
from .values import _value_kind


@dataclass(frozen=True)
class Passed:
    """The value a call passes to a host function's parameter, with what reading it assumed (the
    program's default run, for a value from `argv`); bindings compare the values only."""

    value: object
    assumed: frozenset = field(default=frozenset(), compare=False)


class PartlyKnownDim3(Unknown):
    """A `dim3` a call passes whose value is not known but some of whose dimensions are
    (`dim3 grid(n_blocks(n, 32))` is ? x 1 x 1): the parameter's value stays unknown, and a launch
    that uses it as its grid knows those dimensions (a 1-D grid launches no second row of blocks)."""

    def __init__(self, why: str, form: tuple) -> None:
        super().__init__(f"{why} (known: {'x'.join('?' if d is None else str(d) for d in form)})")
        self.form = form


def binding_key(binding) -> tuple:
    """What tells two bindings apart (the walk is done once per key); () for no binding."""
    return tuple((k, v if not isinstance(v, Unknown) else ("?", str(v))) for k, v in sorted((binding or {}).items()))


def _caller(frame):
    """(function, binding key) of the walk a call is made in (a lambda's: its enclosing function's);
    None for an explicit instantiation, which every run of the program has."""
    if frame is None:
        return None
    while frame.parent is not None:
        frame = frame.parent
    return id(frame.function), binding_key(frame.binding)


def live_bindings(functions, instantiations: dict, origins: dict) -> dict:
    """The bindings made by calls that the final walk makes too: from a function walked unbound
    (one no call binds), an explicit instantiation, or a live binding of the caller. A call that
    a wrapper makes with its parameters unknown is dropped once calls of the wrapper bind them."""
    made_by: dict = {}  # a walk (function, binding key) -> the bindings its calls make
    live, ready = set(), [(id(f), ()) for f in functions if not instantiations.get(id(f))]
    for fid, bindings in instantiations.items():
        for key in bindings:
            for origin in origins.get((fid, key), ()):
                if origin is None:
                    ready.append((fid, key))
                else:
                    made_by.setdefault(origin, []).append((fid, key))
    while ready:  # each walk is visited once: linear in the calls, however they chain
        walk = ready.pop()
        if walk not in live:
            live.add(walk)
            ready.extend(made_by.get(walk, ()))
    return {fid: {k: b for k, b in bindings.items() if (fid, k) in live} for fid, bindings in instantiations.items()}


class HostCallBindings:
    """The bindings (template arguments, integer and `dim3` parameter values) that calls of host
    functions make."""

    # ---- template instantiations
    def _host_call(self, frame, i, e, chain):
        toks = self.toks
        name = toks[i].text
        if i + 1 < e and toks[i + 1].text == "<":
            c = self._angle_close(i + 1, e)
            if c is not None and c + 1 < e and toks[c + 1].text == "(":
                self._record_call(name, i + 1, c, frame, chain, None, c + 1)
                return
        if i + 1 < e and toks[i + 1].text == "(":
            self._record_call(name, None, None, frame, chain, None, i + 1)

    def _record_call(self, name, lt, gt, frame, chain, prefix, paren=None):
        """A call `name<args>(...)` (lt, gt: the angle brackets; None for `name(...)`; paren: the
        call's `(`, None for an explicit instantiation) of a host function: the binding of its
        template parameters and of the values it passes to its integer and `dim3` parameters."""
        pieces = self._split_commas(lt + 1, gt, angles=True) if lt is not None else []
        arguments = None
        if paren is not None and frame is not None:
            close = self._close(paren)
            arguments = self._split_commas(paren + 1, close, angles=True) if close > paren + 1 else []
        site = lt if lt is not None else (paren if paren is not None else 0)
        candidates = self.templates_by_name.get(name, [])
        if lt is None and arguments is not None:
            candidates = candidates + self.callables_by_name.get(name, [])
        for fn in candidates:
            if len(pieces) > len(fn.tparams):
                continue
            choices = [{}] if arguments is None else self._parameter_bindings(fn, arguments, frame, chain, site)
            if choices is None:
                continue  # not a call of this overload
            template_binding = self._template_binding(fn, pieces, frame, chain, site, prefix)
            for values in choices:
                binding = {**template_binding, **values}
                if not binding:
                    continue  # nothing the walk could use
                key = binding_key(binding)
                self.binding_origins.setdefault((id(fn), key), set()).add(_caller(frame))
                if key in self.instantiations.get(id(fn), {}):
                    continue  # keep the first binding object: the walk reads its texts' open names
                self.instantiations.setdefault(id(fn), {})[key] = binding

    def _template_binding(self, fn, pieces, frame, chain, site, prefix) -> dict:
        """The value or type each template parameter of `fn` takes at a call or instantiation."""
        toks = self.toks
        binding: dict = {}
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
                unclosed = self._names_an_entity(rng[0], rng[1]) if fr is not None else None
                if unclosed is not None:
                    # a function or object (`dequantize<T>`, `&f`): bound by its name, so that
                    # launches under different ones stay apart and match their kernels
                    text = self._template_arg(fr, ch, rng[0], rng[1], site, toks[rng[0]].region)
                    if unclosed:  # `run<4, f<T>>(...)`: the `>>` that closes both lists
                        text = OpenText(text + ">", text.open) if isinstance(text, OpenText) else text + ">"
                    binding[d.name] = text
                    continue
                binding[d.name] = Unknown(f"`{d.name}` of `{fn.name}` is instantiated with a value "
                                          f"ptxlint cannot evaluate ({err})")
        return binding

    def _parameter_bindings(self, fn, arguments, frame, chain, site) -> Optional[list]:
        """The values a call passes to the integer and `dim3` parameters of `fn`: one dict per
        combination (an argument that is an element of a constant array indexed by a loop, as a
        block-size sweep `for (j...) run(..., block_sizes[j])` is, takes each element), an
        `Unknown` where a value is not known at the call. None when the call cannot be of `fn`
        (more arguments than parameters, a missing one with no default)."""
        toks = self.toks
        count = max((p.extra.get("position", -1) for p in fn.params), default=-1) + 1
        if len(arguments) > count and fn.params:
            return None
        where = f"{posixpath.basename(str(toks[site].path))}:{toks[site].line}"
        combinations = [{}]
        for p in fn.params:
            position = p.extra.get("position")
            if position is None or _value_kind(" ".join(w for w in p.type_text.split() if w != "const")) \
                    not in ("int", "dim3"):
                continue
            if position >= len(arguments):
                if p.extra.get("default") is None:
                    return None
                continue  # the default: read as written where the parameter is used
            a, b = arguments[position]
            outer, self._assumed = self._assumed, set()
            try:
                values = self._argument_values(frame, chain, a, b, site)
                assumed = frozenset(self._assumed)  # what the call's values assume (an argv default)
            finally:
                self._assumed = outer
            values = [Passed(v, assumed) for v in values]
            if not values:
                why = f"`{p.name}` of `{fn.name}` is passed a value ptxlint cannot evaluate at the call at {where}"
                form = self._dim3_form(frame, chain, a, b, site, p) if frame is not None else None
                values = [PartlyKnownDim3(why, form) if form is not None else Unknown(why)]
            combinations = [{**c, p.name: v} for c in combinations for v in values][:MAX_BINDINGS_PER_TEMPLATE]
        return combinations

    def _dim3_form(self, frame, chain, a, b, site, param) -> Optional[tuple]:
        """What is known of a `dim3` argument whose value is not (`dim3(n_blocks(n, 32))` is ? x 1 x 1),
        per dimension an int or None; None when nothing is or the parameter is no `dim3`."""
        if _value_kind(" ".join(w for w in param.type_text.split() if w != "const")) != "dim3":
            return None
        try:
            form = self._grid_form(frame, chain, a, b, site, self.toks[a].region, 0)
        except RecursionError:
            return None
        return form if form is not None and any(d is not None for d in form) else None

    def _argument_values(self, frame, chain, a, b, site, depth: int = 0) -> list:
        """The integer (or `dim3`) values the expression toks[a:b] may have at `site`: its one
        compile-time value, or each element of a constant array it reads at a run-time index
        (directly or through a local variable initialised with it); [] when not known."""
        toks = self.toks
        try:
            v = self._evaluate(frame, chain, a, b, site, toks[a].region, None)
            return [v] if isinstance(v, (int, tuple)) and not isinstance(v, bool) else []
        except (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError):
            pass
        if depth > 4 or frame is None:
            return []
        a, b = self._without_parens(a, b)
        if b - a == 1 and toks[a].kind == IDENT:  # `block_size`, declared `int block_size = sizes[j];`
            decl, dframe = self._lookup_decl(frame, chain, toks[a].text, site)
            if decl is None or decl.kind != "var" or dframe is None or not decl.init or decl.init[0] != "=" \
                    or dframe.mods.get(decl.name):
                return []
            dchain = self._chain_to(dframe, decl, frame, chain)
            return self._argument_values(dframe, dchain, decl.init[1], decl.init[2], decl.pos, depth + 1)
        if b - a >= 4 and toks[a].kind == IDENT and toks[a + 1].text == "[" and self.match[a + 1] == b - 1:
            return self._array_elements(frame, chain, toks[a].text, site)
        return []

    def _array_elements(self, frame, chain, name, site) -> list:
        """The distinct integer elements of the array `name` (`int sizes[] = {32, 64, 128};`) when it
        is never assigned after its initialiser; [] otherwise."""
        toks = self.toks
        decl, dframe = self._lookup_decl(frame, chain, name, site)
        if decl is None or decl.kind != "var" or not decl.init or (dframe is not None and dframe.mods.get(name)):
            return []
        if dframe is None and not decl.const:
            return []  # a non-const global: any function may change it
        if dframe is not None and not decl.const:
            key = ("only read", name, decl.pos, dframe.function.body)
            if key not in self._value_cache:  # one scan of the body per array, however many calls read it
                self._value_cache[key] = self._only_read(name, decl.pos, *dframe.function.body)
            if not self._value_cache[key]:
                return []
        how, ia, ib = decl.init
        if how == "=" and toks[ia].text == "{" and self.match[ia] == ib - 1:
            ia, ib = ia + 1, ib - 1
        elif how != "{":
            return []
        out = []
        dchain = self._chain_to(dframe, decl, frame, chain) if dframe is not None else []
        for x, y in self._split_commas(ia, ib):
            try:
                v = self._evaluate(dframe, dchain, x, y, decl.pos, toks[x].region, None)
            except (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError):
                return []
            if not isinstance(v, int) or isinstance(v, bool):
                return []
            if v not in out:
                out.append(v)
        return out[:MAX_BINDINGS_PER_TEMPLATE]

    def _only_read(self, name, declared, start, end) -> bool:
        """Is every use of the array `name` (declared at token `declared`) in toks[start:end] an
        element read (`name[i]` not assigned, incremented or taken the address of) or `sizeof(name)`?"""
        toks = self.toks
        for i in range(start, end):
            if i == declared or toks[i].text != name or toks[i].kind != IDENT or toks[i - 1].text in (".", "->", "::"):
                continue
            if toks[i - 1].text == "(" and toks[i - 2].text == "sizeof":
                continue
            if toks[i + 1].text != "[":
                return False  # passed whole (to memcpy, a function): it may be written through
            close = self._close(i + 1)
            after = toks[close + 1].text if close + 1 < len(toks) else ""
            if after in _ASSIGN_OPS or after in ("++", "--") or toks[i - 1].text in ("++", "--", "&"):
                return False
        return True

    def _names_an_entity(self, a, b):
        """Is the template argument toks[a:b] a (qualified, possibly templated) name, `&` before it
        allowed: `f`, `&ns::f`, `f<T, 4>`? 0 when it is, 1 when its last `>` is the `>>` after it
        (`run<f<T>>`), None when it is not such a name."""
        toks = self.toks
        if a < b and toks[a].text == "&":
            a += 1
        if a >= b or toks[a].kind != IDENT:
            return None
        depth = 0
        for t in toks[a:b]:
            if t.text == "<":
                depth += 1
            elif t.text == ">":
                depth -= 1
            elif t.text == ">>":
                depth -= 2
            elif depth == 0 and t.kind != IDENT and t.text != "::":
                return None
        if depth == 1 and b < len(toks) and toks[b].text == ">>":
            return 1
        return 0 if depth == 0 else None
