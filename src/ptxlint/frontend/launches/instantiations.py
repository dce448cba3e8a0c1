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

from ..cpp_preprocess import IDENT, Unknown
from .launch_sites import OpenText
from .syntax import _type_text
from .values import _value_kind


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
    live = {(id(f), ()) for f in functions if not instantiations.get(id(f))}
    changed = True
    while changed:
        changed = False
        for fid, bindings in instantiations.items():
            for key in bindings:
                if (fid, key) not in live and any(o is None or o in live for o in origins.get((fid, key), ())):
                    live.add((fid, key))
                    changed = True
    return {fid: {k: b for k, b in bindings.items() if (fid, k) in live} for fid, bindings in instantiations.items()}


class TemplateInstantiations:
    """The template bindings the calls of function templates instantiate."""

    # ---- template instantiations
    def _template_call(self, frame, i, e, chain):
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
        toks = self.toks
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
            binding = {}
            if arguments is not None and not self._bind_parameters(fn, arguments, frame, chain, site, binding):
                continue
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
            if not binding:
                continue  # nothing the walk could use
            key = binding_key(binding)
            self.binding_origins.setdefault((id(fn), key), set()).add(_caller(frame))
            if key in self.instantiations.get(id(fn), {}):
                continue  # keep the first binding object: the walk reads its texts' open names
            self.instantiations.setdefault(id(fn), {})[key] = binding

    def _bind_parameters(self, fn, arguments, frame, chain, site, binding) -> bool:
        """Put in `binding` the value the call passes to each integer or `dim3` parameter of `fn` that
        its body never assigns (an `Unknown` where the value is not known at the call). False when
        the call cannot be of `fn` (more arguments than parameters, a missing one with no default)."""
        toks = self.toks
        count = max((p.extra.get("position", -1) for p in fn.params), default=-1) + 1
        if len(arguments) > count and fn.params:
            return False
        for p in fn.params:
            position = p.extra.get("position")
            if position is None or _value_kind(" ".join(w for w in p.type_text.split() if w != "const")) \
                    not in ("int", "dim3"):
                continue
            if position >= len(arguments):
                if p.extra.get("default") is None:
                    return False
                continue  # the default: read as written where the parameter is used
            a, b = arguments[position]
            where = f"{posixpath.basename(str(toks[site].path))}:{toks[site].line}"
            try:
                v = self._evaluate(frame, chain, a, b, site, toks[a].region, None)
                binding[p.name] = v if isinstance(v, (int, tuple)) and not isinstance(v, bool) else \
                    Unknown(f"`{p.name}` of `{fn.name}` is not a compile-time value at the call at {where}")
            except (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError) as err:
                binding[p.name] = Unknown(f"`{p.name}` of `{fn.name}` is passed a value ptxlint cannot evaluate "
                                          f"at the call at {where} ({err})")
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
