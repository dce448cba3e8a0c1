"""Launch statements in a walked body: `kernel<<<grid, block>>>`, `cudaLaunchKernel`,
`cudaLaunchCooperativeKernel`, `cudaLaunchKernelEx` with its configuration, HIP's `hipLaunchKernelGGL`
(portable code compiles it for CUDA too), each recorded as a `Launch` with its block shape (or why it is unknown) and its template arguments.

A mixin of `LaunchFinder` (finder.py); the values come from values.py.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

from ..cpp_preprocess import IDENT, Unknown
from ..launch_expr import Multiple, as_block
from .launch import HOW_CHEVRONS, LAUNCH_APIS, MAX_BLOCK_THREADS, CoversGrid, Launch, PointerOffset
from .matching import canonical_type
from .syntax import _INT_TYPES, _arg_text, _type_text, element_size
from .values import UnboundParameter, _value_kind


# binary and ternary operators: a grid `n / 256` has `/` as its only one outside brackets
_OPERATORS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "?", ":", "<", ">", "<=", ">=",
              "==", "!=", "="}


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
        call = close + 1 if close + 1 < e and toks[close + 1].text == "(" else None
        self._record(frame, chain, first, name, qual, targs, block, HOW_CHEVRONS, "block",
                     grid=args[0] if args else None, call=call)

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
            self._record(frame, chain, i, name, qual, targs, cfg, how, "config", grid=cfg)
            return
        if len(args) < 3:
            return
        kern = self._kernel_expression(*args[0])
        if kern is None:
            return
        name, qual, targs = kern
        call = (i + 1, 5) if how == "hipLaunchKernelGGL" else None  # its own arguments follow
        self._record(frame, chain, i, name, qual, targs, args[2], how, "block", grid=args[1], call=call)

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

    def _record(self, frame, chain, first, name, qual, targs, arg, how, what, grid=None, call=None):
        if self._collecting:
            return
        toks = self.toks
        tok = toks[first]
        region = tok.region
        self._assumed = set()  # what the values read below assume (the program's default run)
        self._wrappers = set()  # functions whose unbound parameters the block or grid is
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
            self._note_unbound(e)
        except RecursionError:
            block, why = None, "the expression is too deeply nested"
        if why is not None and arg is not None:
            why = f"{'configuration' if what == 'config' else 'block'} argument " \
                  f"`{_type_text(toks[arg[0]:arg[1]])}`: {why}"
        block_form = None
        if block is None and arg is not None and what != "config":
            try:
                block_form = self._grid_form(frame, chain, arg[0], arg[1], first, region, 0)
            except RecursionError:
                pass
            if block_form is not None and all(d is None for d in block_form):
                block_form = None
        grid_dims, grid_why = (None, "the launch has no grid argument") if grid is None else \
            self._grid_value(frame, chain, grid[0], grid[1], first, region, what == "config")
        args = None
        if targs is not None:
            args = tuple(self._template_arg(frame, chain, a, b, first, region) for a, b in targs)
        deduced = self._deduced_template_args(frame, chain, name, args, call, first, region)
        if deduced is not None:
            args = deduced
        open_params = tuple(sorted({n for x in args or () for n in getattr(x, "open", ())}))
        if args is not None:
            args = tuple(str(x) for x in args)
        call_arguments = self._call_argument_values(frame, chain, call, first, region)
        if grid is not None and block is not None and block[1:] == (1, 1) and None in call_arguments:
            covered = self._grid_covered_argument(frame, chain, grid, call, block[0], first, region)
            if covered is not None and call_arguments[covered[0]] is None:
                position, scale = covered
                call_arguments = call_arguments[:position] + (CoversGrid(scale),) + call_arguments[position + 1:]
        if what != "config":
            call_arguments = self._launch_shares(frame, chain, grid, arg, call, first, region, call_arguments)
        assumes = "; ".join(sorted(self._assumed)) or None
        launch = Launch(name, args, block, tok.path, tok.line, how, why, qual, grid_dims, grid_why, assumes,
                        deduced is not None, open_params, call_arguments, block_form, tuple(sorted(self._wrappers)))
        if launch not in self._seen:
            self._seen.add(launch)
            self.launches.append((first, len(self.launches), launch))

    def _note_unbound(self, err: Unknown) -> None:
        """Remember the wrapper whose unbound parameter made a launch's shape unknown."""
        if isinstance(err, UnboundParameter):
            self._wrappers.add(err.owner)

    def _call_argument_values(self, frame, chain, call, pos, region) -> tuple:
        """The integer value of each argument of the kernel call `(...)` at token `call`: an int,
        a PointerOffset, a Multiple where only a factor is known (`nbodies * 1024`), None for one
        that is not a value the host code gives (a pointer, a run-time input)."""
        if call is None:
            return ()
        values = []
        for a, b in self._kernel_call_args(call):
            try:
                v = self._evaluate(frame, chain, a, b, pos, region, None)
            except (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError):
                v = self._pointer_offset(frame, chain, a, b, pos, region)
                if v is None:
                    v = self._multiple(frame, chain, a, b, pos, region)
            values.append(v if isinstance(v, (int, PointerOffset, Multiple)) and not isinstance(v, bool) else None)
        return tuple(values)

    def _grid_covered_argument(self, frame, chain, grid, call, block_x, pos, region) -> Optional[tuple]:
        """(position, scale) of the call argument that the grid floor-divides (`k<<<n / 256,
        256>>>(p, n)`; also through a variable the grid names, `int blocks = n / 256` or `dim3
        grid(n / 256)`, that nothing changes after): every launched thread's global x index is then
        below scale times that argument, scale being `block_x` over the divisor (1 where the
        divisor is at least `block_x`). None when the grid has no such form."""
        a, b = self._without_parens(*grid)
        toks = self.toks
        if b - a == 1 and toks[a].kind == IDENT:
            decl, dframe = self._lookup_decl(frame, chain, toks[a].text, pos)
            if decl is None or decl.kind != "var" or decl.init is None or dframe is not frame \
                    or any(m.pos > decl.pos for m in frame.mods.get(decl.name, [])):
                return None
            how, a, b = decl.init
            if how != "=":
                pieces = self._split_commas(a, b)
                if not pieces:
                    return None
                a, b = pieces[0]
            a, b = self._without_parens(a, b)
        ops = [j for j in self._top_level(a, b) if toks[j].text in _OPERATORS]
        if len(ops) != 1 or toks[ops[0]].text != "/":
            return None
        j = ops[0]
        try:
            divisor = self._evaluate(frame, chain, j + 1, b, pos, region, None)
        except (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError):
            return None
        if not isinstance(divisor, int) or isinstance(divisor, bool) or divisor <= 0:
            return None
        scale = max(Fraction(block_x, divisor), Fraction(1))
        dividend = _type_text(toks[slice(*self._without_parens(a, j))])
        for position, (x, y) in enumerate(self._kernel_call_args(call)):
            if _type_text(toks[slice(*self._without_parens(x, y))]) == dividend:
                return position, scale
        return None

    def _pointer_offset(self, frame, chain, a, b, pos, region) -> Optional[PointerOffset]:
        """`p + k`, `k + p` or `&p[k]` with `p` a pointer to a type of known size and `k` a
        compile-time integer: the argument is k elements past wherever `p` points (an allocation,
        whose alignment is the callee's assumption); `p` itself is 0 bytes past it. None for
        anything else."""
        toks = self.toks
        try:
            if b - a == 1 and toks[a].kind == IDENT:
                name, ka, kb = toks[a].text, None, None
            elif b - a >= 5 and toks[a].text == "&" and toks[a + 1].kind == IDENT and toks[a + 2].text == "[" \
                    and self.match[a + 2] == b - 1:
                name, ka, kb = toks[a + 1].text, a + 3, b - 1
            else:
                plus = [j for j in range(a, b) if toks[j].text == "+"]
                if len(plus) != 1 or any(toks[j].text in ("(", "?", "-", "[") for j in range(a, b)):
                    return None
                j = plus[0]
                if j - a == 1 and toks[a].kind == IDENT:
                    name, ka, kb = toks[a].text, j + 1, b
                elif b - j == 2 and toks[b - 1].kind == IDENT:
                    name, ka, kb = toks[b - 1].text, a, j
                else:
                    return None
            decl, _ = self._lookup_decl(frame, chain, name, pos)
            size = element_size(decl.type_text) if decl is not None and decl.kind in ("var", "param") else None
            if size is None:
                return None
            k = self._evaluate(frame, chain, ka, kb, pos, region, None) if ka is not None else 0
        except (Unknown, RecursionError, ValueError, TypeError, ZeroDivisionError):
            return None
        if not isinstance(k, int) or isinstance(k, bool):
            return None
        return PointerOffset(k * size)

    # ---- the grid argument
    def _grid_value(self, frame, chain, a, b, pos, region, config=False):
        """(grid, why): the grid per dimension (an int where it is a compile-time value, None where
        not) and why it is not wholly known. An integer is a 1-D grid (n x 1 x 1) whatever its value;
        `dim3 g(n, 4)` is ? x 4 x 1; a `cudaLaunchConfig_t`'s `gridDim` where it is set."""
        toks = self.toks
        try:
            if config:
                if not (b - a == 2 and toks[a].text == "&" and toks[a + 1].kind == IDENT):
                    raise Unknown("the launch configuration is passed through a pointer")
                cfg = self._value(frame, chain, toks[a + 1].text, pos, region, field=("gridDim",))
                if not isinstance(cfg, dict) or "gridDim" not in cfg:
                    raise Unknown(f"`{toks[a + 1].text}.gridDim` is not set before the launch")
                value = cfg["gridDim"]
                if isinstance(value, Unknown):
                    raise value
            else:
                value = self._evaluate(frame, chain, a, b, pos, region, None)
            grid = as_block(value)
            if min(grid) < 1:
                raise Unknown(f"it evaluates to {'x'.join(map(str, grid))}, not a valid grid")
            return grid, None
        except Unknown as e:
            why = f"grid argument `{_type_text(toks[a:b])}`: {str(e) or 'not a compile-time value'}"
            self._note_unbound(e)
        except RecursionError:
            return None, "the grid expression is too deeply nested"
        if config:
            return None, why
        try:
            return self._grid_form(frame, chain, a, b, pos, region, 0), why
        except RecursionError:
            return None, why

    def _grid_form(self, frame, chain, a, b, pos, region, depth):
        """The grid's dimensions where its value is not known: which are 1 (an integer grid is
        n x 1 x 1), which are known values, which are unknown (None); None when nothing is known."""
        toks = self.toks
        a, b = self._without_parens(a, b)
        if a >= b or depth > 8:
            return None
        if toks[a].text in ("dim3", "uint3") and a + 1 < b and toks[a + 1].text in ("(", "{") \
                and self.match[a + 1] == b - 1:
            return self._components(frame, chain, a + 2, b - 1, pos, region)
        if toks[a].text == "{" and self.match[a] == b - 1:
            return self._components(frame, chain, a + 1, b - 1, pos, region)
        if all(t.kind == IDENT or t.text == "::" for t in toks[a:b]):
            name = "".join(t.text for t in toks[a:b])
            return self._grid_form_of_name(frame, chain, name, pos, region, depth)
        if _is_integer_expression(toks[a:b], self.match, a):
            return (None, 1, 1)
        return None

    def _components(self, frame, chain, a, b, pos, region):
        pieces = self._split_commas(a, b) if a < b else []
        if len(pieces) > 3:
            return None
        out = []
        for x, y in pieces:
            try:
                v = self._evaluate(frame, chain, x, y, pos, region, None)
                out.append(v if isinstance(v, int) and v >= 1 else None)
            except (Unknown, RecursionError):
                out.append(None)
        return tuple(out + [1] * (3 - len(out)))

    def _grid_form_of_name(self, frame, chain, name, pos, region, depth):
        decl, dframe = self._lookup_decl(frame, chain, name, pos)
        if decl is not None and decl.kind == "alias" and decl.type_text != name and depth < 8:
            return self._grid_form_of_name(frame, chain, decl.type_text, pos, region, depth + 1)
        if decl is None or decl.kind not in ("var", "param"):
            return None
        kind = _value_kind(" ".join(w for w in decl.type_text.split() if w not in ("const", "volatile")))
        if kind == "int":
            return (None, 1, 1)
        if decl.kind == "param" and dframe is not None and dframe.binding and dframe.function is decl.owner \
                and not dframe.mods.get(decl.name):
            # a wrapper's `dim3` parameter: what the call this walk follows passes of it
            bound = dframe.binding.get(decl.name)
            return getattr(bound, "form", None)
        if decl.kind == "param" or kind not in ("dim3", "auto") or decl.init is None:
            return None
        if dframe is None and not decl.const:
            return None  # a non-const global: any function may change it
        mods = dframe.mods.get(decl.name, []) if dframe is not None else []
        if any(not m.path or m.kind != "assign" for m in mods):
            return None  # reassigned whole, incremented or its address taken
        how, ia, ib = decl.init
        dchain = self._chain_to(dframe, decl, frame, chain) if dframe is not None else []
        prefix = decl.extra.get("prefix") if dframe is None else None
        if how == "=":
            form = self._grid_form(dframe, dchain, ia, ib, decl.pos, decl.region, depth + 1) \
                if dframe is not None else None
        elif prefix is None and dframe is not None:
            form = self._components(dframe, dchain, ia, ib, decl.pos, decl.region)
        else:
            form = None
        if form is None:
            return None
        form = list(form)
        for m in mods:  # `g.y = rows;` anywhere in the function: that dimension is not known
            if m.path[0] in ("x", "y", "z"):
                form["xyz".index(m.path[0])] = None
        return tuple(form)

    # ---- template arguments deduced from the call
    def _deduced_template_args(self, frame, chain, name, written, call, pos, region):
        """The template arguments of a launched kernel template that the call's arguments deduce
        (`init<<<g, b>>>(float_ptr)` -> ("float",)), with "?" where they cannot be told; None when
        the kernel is not a template defined in this translation unit or every argument is written."""
        templates = [f for f in self.templates_by_name.get(name, []) if f.is_kernel]
        if len(templates) != 1 or call is None:
            return None
        fn = templates[0]
        written = list(written or ())
        if len(written) >= len(fn.tparams):
            return None
        args = self._kernel_call_args(call)
        found: dict = {}
        for (a, b), param in zip(args, fn.params):
            pattern = param.extra.get("pattern")
            if pattern is None:
                continue
            lam = self._lambda_argument(frame, a, b)
            if lam is not None and not pattern[1]:
                found.setdefault(pattern[0], lam)  # a closure type: named by where the lambda is
                continue
            tname, pointer = pattern
            arg_type = self._argument_type(frame, chain, a, b, pos)
            if arg_type is None:
                continue
            base, arg_pointer = arg_type
            if pointer and not arg_pointer:
                continue
            found.setdefault(tname, base if pointer or not arg_pointer else base + "*")
        out = []
        for k, d in enumerate(fn.tparams):
            if k < len(written):
                out.append(written[k])
            elif d.name in found:
                out.append(found[d.name])
            else:
                out.append("?")
        return tuple(out)

    def _lambda_argument(self, frame, a, b) -> Optional[str]:
        """`lambda in F #n of m parameters` when the call argument a..b is a lambda expression written
        in host function F, the n-th lambda of m parameters there (how nvcc's instance names its type:
        `F(...)::{lambda(unsigned long)#n}`); None for any other argument."""
        toks = self.toks
        if a >= b or toks[a].text != "[":
            return None
        outer = frame
        while outer.parent is not None:
            outer = outer.parent  # a launch inside a lambda: the lambda's type is named by the function
        start, end = outer.function.body
        arity = self._lambda_arity(a, b)
        if arity is None:
            return None
        ordinal = 0
        k = start
        while k <= a:
            if toks[k].text == "[" and k > start and toks[k - 1].text in ("(", ",", "=", "return", "{", ";") \
                    and self._lambda_arity(k, end) == arity:
                ordinal += 1
            k += 1
        return f"lambda in {outer.function.name} #{ordinal} of {arity} parameters"

    def _lambda_arity(self, a, end) -> Optional[int]:
        """The number of parameters of the lambda expression whose capture list opens at `a`."""
        toks = self.toks
        k = self._close(a, end) + 1
        while k < end and toks[k].text in ("__device__", "__host__", "mutable", "constexpr"):
            k += 1
        if k >= end or toks[k].text != "(":
            return None
        close = self._close(k, end)
        return len(self._split_commas(k + 1, close, angles=True)) if close > k + 1 else 0

    def _argument_type(self, frame, chain, a, b, pos):
        """(base type, is a pointer) of a call argument that is a variable or a literal, or None."""
        toks = self.toks
        if b - a != 1:
            return None
        t = toks[a]
        if t.kind == "number":
            text = t.text.lower()
            if text.startswith("0x") or not any(c in text for c in ".e"):
                suffix = text[len(text.rstrip("ul")):]
                return ("unsigned " if "u" in suffix else "") + ("long" if "l" in suffix else "int"), False
            return ("float" if text.endswith("f") else "double"), False
        if t.kind != IDENT:
            return None
        decl, dframe = self._lookup_decl(frame, chain, t.text, pos)
        if decl is None or decl.kind not in ("var", "param") or not decl.type_text:
            return None
        text = decl.type_text
        pointer = "*" in text or "[]" in text
        words = [w for w in text.replace("*", " ").replace("[]", " ").replace("&", " ").split()
                 if w not in ("const", "volatile", "__restrict__", "static", "register")]
        if not words:
            return None
        base = " ".join(words)
        if dframe is not None and dframe.binding and base in dframe.binding:
            bound = dframe.binding[base]
            if not isinstance(bound, str):
                return None
            base = bound  # the enclosing host template's type parameter, as instantiated
        elif any(d.name == base for d in (decl.owner.tparams if decl.owner is not None and
                                          hasattr(decl.owner, "tparams") else [])):
            return None
        return canonical_type(base), pointer

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
        """A template argument as text: its value where it is an integer, else the written text
        with the enclosing templates' parameters replaced by what they are bound to. Parameters whose
        binding is not known (deduced from a call's arguments), and constants whose value cannot be
        computed, stay as written, and the text is an `OpenText` that names them: matching treats
        them as placeholders."""
        toks = self.toks
        try:
            v = self._evaluate(frame, chain, a, b, pos, region, None)
            if isinstance(v, int):
                return str(v)
        except (Unknown, RecursionError):
            pass
        if b - a == 1 and toks[a].kind == IDENT:
            decl, dframe = self._lookup_decl(frame, chain, toks[a].text, pos)
            if decl is not None and decl.kind == "tparam":
                v = dframe.binding.get(decl.name) if dframe is not None and dframe.binding else None
                if isinstance(v, str):
                    return v
                return OpenText(decl.name, {decl.name})
            if decl is not None and decl.kind == "type":
                return decl.type_text
            if decl is not None and decl.kind == "var" and decl.const:
                # a constant whose value ptxlint cannot compute (`constexpr size_t MEM =
                # props.memory() / 4;`): some compile-time value, a placeholder as an open parameter
                return OpenText(decl.name, {decl.name})
        pieces, open_names = [], set()
        for t in toks[a:b]:
            if t.kind == IDENT:
                decl, dframe = self._lookup_decl(frame, chain, t.text, pos)
                if decl is not None and decl.kind == "tparam":
                    v = dframe.binding.get(decl.name) if dframe is not None and dframe.binding else None
                    if isinstance(v, str):
                        pieces.append(_Spelled(v))
                        open_names |= getattr(v, "open", set())
                        continue
                    open_names.add(decl.name)
            pieces.append(t)
        text = _arg_text(pieces)
        return OpenText(text, open_names) if open_names else text



class OpenText(str):
    """A template argument's text that names template parameters whose value is not known here
    (`dst_t` of a host template that is instantiated by deduction): `open` holds those names."""

    open: frozenset

    def __new__(cls, text, open_names):
        obj = super().__new__(cls, text)
        obj.open = frozenset(open_names)
        return obj


class _Spelled:
    """A token stand-in that spells a template parameter's bound text (for `_arg_text`)."""

    def __init__(self, text):
        self.text = str(text)
        self.kind = "punct" if not self.text.replace("_", "a").replace("::", "").isalnum() else IDENT


def _checked_block(block, text):
    x, y, z = block
    if min(block) < 1 or x * y * z > MAX_BLOCK_THREADS or z > 64:
        raise Unknown(f"`{text}` evaluates to {x}x{y}x{z}, not a valid block shape")
    return block


# binary operators no `dim3` has: an expression made with one at its top level is an integer
_INTEGER_OPERATORS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}
_INTEGER_FUNCTIONS = {"min", "max", "std::min", "std::max", "::min", "::max", "ceil", "floor", "std::ceil",
                      "std::floor", "ceilf", "floorf", "round", "std::round", "llround", "lround"}


def _is_integer_expression(tokens, match, offset) -> bool:
    """Is the expression an integer (so a grid of it is 1-D)? Arithmetic at its top level, a cast to
    an integer type, or a call of min/max/ceil/floor; None of these can make a `dim3`."""
    n = len(tokens)
    if any(t.text == "?" for t in tokens):
        return False  # `c ? dim3(a) : dim3(1, b)`: the branches decide
    k = 0
    while k < n:
        t = tokens[k].text
        if t in ("(", "[", "{"):
            j = match[offset + k]
            if j is None:
                return False
            k = j - offset + 1
            continue
        if t in _INTEGER_OPERATORS and k > 0 and tokens[k - 1].text not in _INTEGER_OPERATORS:
            return True
        k += 1
    first = tokens[0].text
    if first in _INT_TYPES:
        return True  # a functional cast `int(x)`, `size_t(x)`
    if first == "static_cast" and n > 2 and tokens[1].text == "<":
        close = next((i for i, x in enumerate(tokens) if x.text == ">"), None)
        return close is not None and " ".join(x.text for x in tokens[2:close]) in _INT_TYPES
    if first == "(" and match[offset] is not None:
        inner = " ".join(x.text for x in tokens[1:match[offset] - offset])
        if inner in _INT_TYPES or inner in ("unsigned int", "unsigned long", "long long"):
            return True
    name = "".join(x.text for x in tokens[:next((i for i, x in enumerate(tokens) if x.text == "("), n)])
    return name in _INTEGER_FUNCTIONS

