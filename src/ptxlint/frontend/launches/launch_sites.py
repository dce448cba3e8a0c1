"""Launch statements in a walked body: `kernel<<<grid, block>>>`, `cudaLaunchKernel`,
`cudaLaunchCooperativeKernel`, `cudaLaunchKernelEx` with its configuration, each recorded as a
`Launch` with its block shape (or why it is unknown) and its template arguments.

A mixin of `LaunchFinder` (finder.py); the values come from values.py.
"""

from __future__ import annotations

from ..cpp_preprocess import IDENT, Unknown
from ..launch_expr import as_block
from .launch import HOW_CHEVRONS, LAUNCH_APIS, MAX_BLOCK_THREADS, Launch
from .syntax import _arg_text, _type_text


class LaunchSites:
    """Launch statements recognized and recorded with their block shapes."""

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



def _checked_block(block, text):
    x, y, z = block
    if min(block) < 1 or x * y * z > MAX_BLOCK_THREADS or z > 64:
        raise Unknown(f"`{text}` evaluates to {x}x{y}x{z}, not a valid block shape")
    return block
