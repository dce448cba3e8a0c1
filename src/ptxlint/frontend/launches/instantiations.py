"""Calls of function templates (`run<128>(...)`, `template void run<128>(...);`): the binding of
template parameters each one instantiates, so that a template's body is walked once per binding.

A mixin of `LaunchFinder` (finder.py): it fills `self.instantiations`, which the walk
(statements.py) reads.
"""

from __future__ import annotations

from ..cpp_preprocess import IDENT, Unknown
from .launch_sites import OpenText
from .syntax import _type_text


class TemplateInstantiations:
    """The template bindings the calls of function templates instantiate."""

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
            key = tuple((k, v if not isinstance(v, Unknown) else ("?", str(v))) for k, v in sorted(binding.items()))
            if key in self.instantiations.get(id(fn), {}):
                continue  # keep the first binding object: the walk reads its texts' open names
            self.instantiations.setdefault(id(fn), {})[key] = binding

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
