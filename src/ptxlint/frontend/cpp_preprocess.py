"""A small C/C++ lexer and preprocessor for reading host code (launch discovery), without nvcc.

It does what finding launch shapes needs, and no more:
- tokens with their file and line (backslash-newline splices and comments removed);
- `#define`/`#undef` of object-like and function-like macros (`__VA_ARGS__`, `#`, `##`), expanded
  in the token stream with the usual "a macro is not re-expanded inside itself" rule;
- `#include "x.h"` read relative to the including file, then `include_dirs`; `#include <x>` only
  from `include_dirs` (system and toolkit headers are not read); `#pragma once` and include guards;
- `#if/#ifdef/#ifndef/#elif/#else/#endif`, evaluated with three values.

Names the preprocessor cannot know are the ones that come from the compiler, the toolkit or the
command line. A name that is reserved (`__x`, `_X`), that starts like the toolkit's (`CUDA`, `CUB_`,
`THRUST_`, ...), a usual command-line switch (`NDEBUG`, `DEBUG`), or a build system's configuration
switch (`HAVE_X`, `USE_X`, `ENABLE_X`, `WITH_X`: -D options or a generated config header) is
*unknown* unless it was
defined in the text read or passed in `defines`. Any other name not defined in the text is taken
as undefined, as the C preprocessor does. Host-pass predefined macros: `__CUDACC__`, `__NVCC__`,
`__cplusplus` are defined, `__CUDA_ARCH__` is not (launches are host code), nor are editors' code-model
macros (`__INTELLISENSE__`) and HIP's (any switch naming HIP: `__IS_HIP_COMPILE__`). A project's switch
that turns its CUDA code on (`HAVE_CUDA`, `GGML_USE_CUDA`) is 1: nvcc compiles the CUDA build.

An `#if` whose value is unknown keeps *all* its branches, and marks their tokens with a region:
a tuple of (conditional id, branch index) pairs. A value (macro, declaration) from a region is
trusted at a place only if its region is a prefix of that place's region, i.e. both are in the
same branch; otherwise the place cannot know which branch the compiler kept. Tokens produced by
such a macro carry a `doubt` that says so.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field
from typing import Optional

# ---------------------------------------------------------------------------------------------
# Tokens

IDENT, NUMBER, STRING, CHAR, PUNCT, OTHER = "ident", "number", "string", "char", "punct", "other"

_PUNCTUATORS = sorted(
    """<<< >>> <<= >>= ... ->* <=> :: -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= ## .*
    { } [ ] ( ) ; : , . ? ~ ! + - * / % ^ & | = < > #""".split(),
    key=len, reverse=True)

_TOKEN_RE = re.compile(
    r"""(?P<nl>\n)
      |(?P<ws>[ \t\f\v\r]+)
      |(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
      |(?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)")
      |(?P<string>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*"?)
      |(?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*'?)
      |(?P<number>\.?[0-9](?:[eEpP][+-]|'[0-9a-zA-Z_]|[0-9a-zA-Z_.])*)
      |(?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
      |(?P<chevron><<[ \t]+<|>>[ \t]+>(?=[ \t]*\())
      |(?P<punct>""" + "|".join(re.escape(p) for p in _PUNCTUATORS) + r""")
      |(?P<other>.)""",
    re.VERBOSE | re.DOTALL)


class Token:
    """One preprocessing token. `path`/`line` say where it was written (for a token a macro
    body produced: where the macro was invoked). `region`: see the module docstring. `doubt`: why a
    value made of this token cannot be trusted (None when it can). `hide`: macros not to re-expand."""

    __slots__ = ("kind", "text", "path", "line", "region", "doubt", "hide", "bol", "space")

    def __init__(self, kind, text, path, line, region=(), doubt=None, hide=frozenset(), bol=False, space=False):
        self.kind = kind
        self.text = text
        self.path = path
        self.line = line
        self.region = region
        self.doubt = doubt
        self.hide = hide
        self.bol = bol  # first token of a line (directives)
        self.space = space  # whitespace before it (stringizing)

    def copy(self, **changes) -> "Token":
        t = Token(self.kind, self.text, self.path, self.line, self.region, self.doubt, self.hide, self.bol, self.space)
        for k, v in changes.items():
            setattr(t, k, v)
        return t

    def __repr__(self) -> str:
        return f"Token({self.text!r}@{self.line})"


def _splice(text: str):
    """Remove backslash-newlines; return (spliced text, offsets of the splices in it)."""
    if "\\" not in text:
        return text, None
    parts, offsets = [], [0]
    pos, out_len = 0, 0
    for m in re.finditer(r"\\[ \t]*\r?\n", text):
        chunk = text[pos:m.start()]
        parts.append(chunk)
        out_len += len(chunk)
        offsets.append(out_len)
        pos = m.end()
    parts.append(text[pos:])
    return "".join(parts), offsets


# tokens of the files read, by (path, text): a header that every source of a directory includes is
# read once per source (launch discovery preprocesses each source on its own) but tokenized once.
# Tokens are never changed in place (a changed token is a copy), so one list serves every reading.
# Tokens take about 26 bytes per character of text, so what is kept is bounded (a hostile tree of
# large distinct headers must not pile them up): at most 4 MB of text, no single file over 1 MB.
_TOKENS_OF_FILES: dict = {}
_TOKENS_KEPT_CHARS = 4 << 20
_TOKENS_KEPT_FILE_CHARS = 1 << 20
_tokens_kept_chars = 0


def _file_tokens(text: str, path: str) -> list:
    global _tokens_kept_chars
    key = (path, text)
    found = _TOKENS_OF_FILES.get(key)
    if found is None:
        found = tokenize(text, path)
        if len(text) <= _TOKENS_KEPT_FILE_CHARS:
            if _tokens_kept_chars + len(text) > _TOKENS_KEPT_CHARS:
                _TOKENS_OF_FILES.clear()
                _tokens_kept_chars = 0
            _TOKENS_OF_FILES[key] = found
            _tokens_kept_chars += len(text)
    return found


def tokenize(text: str, path: str) -> list:
    """Tokens of one file, with `bol` set on the first token of each logical line."""
    if text.startswith("\ufeff"):
        text = text[1:]  # a UTF-8 byte-order mark: compilers skip it (as a token it hid a `namespace` from the reader)
    text = text.replace("\r\n", "\n")
    spliced, offsets = _splice(text)
    out = []
    line = 1
    bol = True
    space = False
    for m in _TOKEN_RE.finditer(spliced):
        kind = m.lastgroup if m.lastgroup != "delim" else "raw"
        s = m.group()
        if kind == "nl":
            bol, space = True, False
            line += 1
            continue
        if kind in ("ws", "comment"):
            space = True
            line += s.count("\n")
            continue
        real_line = line
        if offsets is not None:
            # each backslash-newline before the token was a line of its own
            real_line += bisect.bisect_right(offsets, m.start()) - 1
        if kind == "raw":
            kind = STRING
        elif kind == "chevron":
            # `k << <grid, block>> >(...)`: nvcc reads a launch's chevrons with spaces inside too (a
            # closing one only before the call's `(`: `A<B<C<int>> >` closes three templates)
            kind, s = PUNCT, s[0] * 3
        out.append(Token(kind, s, path, real_line, bol=bol, space=space))
        line += s.count("\n")
        bol, space = False, False
    return out


# ---------------------------------------------------------------------------------------------
# Macros and conditions

_UNKNOWN_NAME_RE = re.compile(r"^(__|_[A-Z]|CUDA|CUB_|THRUST_|CCCL_|LIBCUDACXX|NV_|NVCC|CUTLASS_)|"
                              r"^(HAVE|USE|ENABLE|WITH)_[A-Z0-9_]+$|"
                              r"^(NDEBUG|DEBUG|WIN32|linux|unix)$")
PREDEFINED = {"__CUDACC__": "1", "__NVCC__": "1", "__cplusplus": "201703L"}
# not defined in nvcc's host pass: the device pass's architecture, and the macros by which editors'
# code models (`#ifdef __INTELLISENSE__`: declarations of builtins for highlighting) and other
# toolchains (HIP) select code nvcc never sees
KNOWN_UNDEFINED = {"__CUDA_ARCH__", "__INTELLISENSE__", "__RESHARPER__", "__CDT_PARSER__", "__JETBRAINS_IDE__",
                   "__HIPCC__", "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIP_DEVICE_COMPILE__"}


_HIP_SWITCH_RE = re.compile(r"(?:^|_)HIP(?:_|$)")


def is_known_undefined(name: str) -> bool:
    """Not defined in nvcc's host pass: KNOWN_UNDEFINED, and any switch that names HIP as a word
    (`__IS_HIP_COMPILE__`, `USE_HIP`: a project's selector of its HIP build, which nvcc is not)."""
    return name in KNOWN_UNDEFINED or bool(_HIP_SWITCH_RE.search(name))


_CUDA_SWITCH_RE = re.compile(r"(?:^|_)(?:HAVE|USE|ENABLE|WITH|BUILD)_CUDA$")


def is_cuda_switch(name: str) -> bool:
    """A project's switch that turns its CUDA code on (`HAVE_CUDA`, `GGML_USE_CUDA`, `WITH_CUDA`): set
    (to 1) in the build that compiles the checked code with nvcc, unless the text defines it."""
    return bool(_CUDA_SWITCH_RE.search(name))


def name_is_unknown(name: str) -> bool:
    """True for a name that the compiler, the toolkit or the command line may define."""
    return bool(_UNKNOWN_NAME_RE.match(name))


@dataclass
class Macro:
    name: str
    params: Optional[list]  # None: object-like
    body: list  # tokens
    region: tuple = ()
    variadic: bool = False
    undefined: bool = False  # an #undef under an unknown condition: maybe still defined


class Unknown(Exception):
    """A value ptxlint cannot know; the message says why."""


@dataclass
class _Cond:
    active: bool  # the current branch's tokens are kept
    seen_true: bool  # a branch was known to be taken: the rest are skipped
    seen_unknown: bool  # a branch's condition was unknown
    region: tuple  # region of the current branch
    parent_region: tuple
    ident: int
    branch: int = 0
    parent_active: bool = True


@dataclass
class Preprocessed:
    tokens: list
    macros: dict
    files: list = field(default_factory=list)  # files read, in order
    notes: list = field(default_factory=list)  # headers not found, etc.


class Preprocessor:
    """Runs over one translation unit; see the module docstring for what it handles.

    Bounded for hostile code, whose launches are not worth an unbounded run: a header that includes
    itself twice without a guard doubles its work per level (2^40 files at MAX_INCLUDE_DEPTH), a
    macro whose body names another twice doubles its tokens per level. After MAX_FILES file reads
    further `#include`s are skipped with a note; after MAX_TOKENS tokens taken from the expansion
    stack, macros are no longer expanded (with a note), so the rest of the unit is still read."""

    MAX_INCLUDE_DEPTH = 40
    MAX_FILES = 2_000
    MAX_TOKENS = 1_000_000

    def __init__(self, include_dirs=(), defines=None, read=None, unknown_switches=False):
        self.include_dirs = [str(d) for d in include_dirs]
        # the build's -D options are not known (host code read for a `.ptx`): an `#ifdef X` on a name
        # the text does not define keeps both branches, as for a toolkit name
        self.unknown_switches = unknown_switches
        self.macros: dict = {}
        for name, value in PREDEFINED.items():
            self.macros[name] = Macro(name, None, tokenize(value, "<predefined>"))
        self.command_line = set()
        for name, value in (defines or {}).items():
            self.macros[name] = Macro(name, None, tokenize(str(value), "<command line>"))
            self.command_line.add(name)
        self.once: set = set()
        self.files: list = []
        self.notes: list = []
        self._cond_ids = 0
        self._files_read = 0
        self._tokens_left = self.MAX_TOKENS
        self._read = read or _read_through_gate

    # ---- entry
    def run(self, path: str, text: Optional[str] = None) -> Preprocessed:
        out: list = []
        self._file(path, text, out, (), 0)
        return Preprocessed(out, self.macros, self.files, self.notes)

    def _file(self, path, text, out, region, depth):
        self._files_read += 1
        if text is None:
            try:
                text = self._read(path)
            except OSError as e:
                self.notes.append(f"{path}: cannot read ({e.strerror})")
                return
        self.files.append(path)
        tokens = _file_tokens(text, path)
        conds: list = []
        pending: list = []
        i, n = 0, len(tokens)

        def cur_region():
            return conds[-1].region if conds else region

        def active():
            return conds[-1].active if conds else True

        while i < n:
            t = tokens[i]
            if t.bol and t.text == "#":
                j = i + 1
                while j < n and not tokens[j].bol:
                    j += 1
                line_tokens = tokens[i + 1:j]
                if pending:
                    out.extend(self.expand(pending))
                    pending = []
                self._directive(path, t.line, line_tokens, conds, region, out, depth, active())
                i = j
                continue
            if active():
                pending.append(t.copy(region=cur_region()) if cur_region() else t)
            i += 1
        if pending:
            out.extend(self.expand(pending))

    # ---- directives
    def _directive(self, path, line, toks, conds, file_region, out, depth, active):
        if not toks:
            return
        name = toks[0].text
        rest = toks[1:]
        region = conds[-1].region if conds else file_region
        if name in ("if", "ifdef", "ifndef"):
            self._cond_ids += 1
            if not active:
                conds.append(_Cond(False, True, False, region, region, self._cond_ids, parent_active=False))
                return
            value = self._condition(name, rest, region)
            self._enter_branch(conds, _Cond(False, False, False, region, region, self._cond_ids), value)
            return
        if name in ("elif", "else", "elifdef", "elifndef"):
            if not conds:
                return
            c = conds[-1]
            c.branch += 1
            if not c.parent_active or c.seen_true:
                c.active = False
                return
            if name == "else":
                value = True
            else:
                kind = {"elif": "if", "elifdef": "ifdef", "elifndef": "ifndef"}[name]
                value = self._condition(kind, rest, c.parent_region)
            self._enter_branch(conds, c, value, replace=True)
            return
        if name == "endif":
            if conds:
                conds.pop()
            return
        if not active:
            return
        if name == "define" and rest and rest[0].kind == IDENT:
            self._define(rest, region)
        elif name == "undef" and rest:
            m = self.macros.get(rest[0].text)
            if m is None or m.region == region:
                self.macros.pop(rest[0].text, None)
            else:
                m.undefined = True
                m.region = region
        elif name == "include" and depth < self.MAX_INCLUDE_DEPTH:
            self._include(path, line, rest, out, region, depth)
        elif name == "pragma" and rest and rest[0].text == "once":
            self.once.add(os.path.realpath(path))

    def _enter_branch(self, conds, c, value, replace=False):
        """Set the current branch of `c` from its condition's value (True/False/None=unknown)."""
        if value is False:
            c.active = False
        else:
            c.active = True
            if value is True and not c.seen_unknown:
                c.seen_true = True
                c.region = c.parent_region
            else:
                c.region = c.parent_region + ((c.ident, c.branch),)
            if value is None:
                c.seen_unknown = True
        if not replace:
            conds.append(c)

    def _define(self, rest, region):
        name_tok = rest[0]
        params = None
        variadic = False
        body_start = 1
        # function-like only when "(" follows the name without whitespace
        if len(rest) > 1 and rest[1].text == "(" and not rest[1].space:
            params = []
            k = 2
            while k < len(rest) and rest[k].text != ")":
                if rest[k].kind == IDENT:
                    params.append(rest[k].text)
                elif rest[k].text == "...":
                    params.append("__VA_ARGS__")
                    variadic = True
                k += 1
            body_start = k + 1
        if name_tok.text in self.command_line:
            return  # a -D value wins over the file's default (#ifndef X / #define X ...)
        body = [t.copy(bol=False) for t in rest[body_start:]]
        self.macros[name_tok.text] = Macro(name_tok.text, params, body, region, variadic)

    def _include(self, path, line, rest, out, region, depth):
        if not rest:
            return
        if self._files_read >= self.MAX_FILES:
            if self._files_read == self.MAX_FILES:  # said once; the rest of the unit is still read
                self._files_read += 1
                self.notes.append(f"{path}:{line}: #include skipped: more than {self.MAX_FILES} files read "
                                  "(a header included over and over without a guard?)")
            return
        if rest[0].kind == STRING:
            target, local = rest[0].text[1:-1], True
        elif rest[0].text == "<":
            target, local = "".join(t.text for t in rest[1:] if t.text != ">"), False
        else:
            expanded = self.expand(rest)
            if expanded and expanded[0].kind == STRING:
                target, local = expanded[0].text[1:-1], True
            else:
                return
        candidates = []
        if local:
            candidates.append(os.path.join(os.path.dirname(path), target))
        candidates += [os.path.join(d, target) for d in self.include_dirs]
        for cand in candidates:
            if os.path.isfile(cand):
                real = os.path.realpath(cand)
                if real in self.once:
                    return
                self._file(os.path.normpath(cand), None, out, region, depth + 1)
                return
        if local:
            self.notes.append(f"{path}:{line}: #include \"{target}\" not found")

    def macro_doubt(self, m: Macro, region: tuple) -> Optional[str]:
        if m.region and region[:len(m.region)] != m.region:
            return (f"`{m.name}` is defined under a preprocessor condition ptxlint cannot evaluate")
        return None

    def _condition(self, kind, toks, region):
        """True, False or None (unknown) for an #if/#ifdef/#ifndef line."""
        if kind in ("ifdef", "ifndef"):
            if not toks:
                return None
            d = self._defined(toks[0].text, region)
            # (_defined is False only for a name no macro defines: a known-undefined one, or any other)
            if d is False and kind == "ifdef" and self.unknown_switches and not is_known_undefined(toks[0].text):
                return None  # `#ifdef PARTICLES_GPU` around a `.ptx`'s kernels: the build may define it
            if d is None:
                return None
            return d if kind == "ifdef" else not d
        # replace `defined X` / `defined(X)` before expansion
        pre = []
        k = 0
        while k < len(toks):
            t = toks[k]
            if t.text == "defined":
                if k + 1 < len(toks) and toks[k + 1].text == "(" and k + 3 < len(toks):
                    nm, k = toks[k + 2].text, k + 4
                elif k + 1 < len(toks):
                    nm, k = toks[k + 1].text, k + 2
                else:
                    return None
                d = self._defined(nm, region)
                pre.append(Token(IDENT if d is None else NUMBER, "__ptxlint_unknown__" if d is None else str(int(d)),
                                 t.path, t.line))
                continue
            pre.append(t)
            k += 1
        expanded = self.expand(pre, region)
        from .launch_expr import evaluate_tokens

        def lookup(name):
            if name in ("true", "false"):
                return int(name == "true")
            if name == "__ptxlint_unknown__" or name_is_unknown(name) and not is_known_undefined(name) \
                    and not is_cuda_switch(name):
                raise Unknown(name)
            return int(is_cuda_switch(name))

        try:
            value = evaluate_tokens(expanded, lookup)
        except (Unknown, RecursionError):
            return None
        return bool(value) if isinstance(value, int) else None

    def _defined(self, name, region):
        m = self.macros.get(name)
        if m is not None:
            if m.undefined or self.macro_doubt(m, region):
                return None
            return True
        if is_known_undefined(name):
            return False
        if is_cuda_switch(name):
            return True
        if name_is_unknown(name):
            return None
        return False

    # ---- expansion
    def expand(self, tokens: list, region: Optional[tuple] = None) -> list:
        """Macro-expand a token list (function-like invocations may span lines)."""
        stack = list(reversed(tokens))
        out = []
        macros = self.macros
        while stack:
            t = stack.pop()
            self._tokens_left -= 1
            if self._tokens_left <= 0:
                if self._tokens_left == 0:
                    self.notes.append(f"{t.path}:{t.line}: macro expansion stopped: more than {self.MAX_TOKENS} "
                                      "tokens (a macro that doubles at each level?); the rest is read unexpanded")
                    return list(tokens)  # this expansion is given up: its text stays as written
                out.append(t)
                continue
            if t.kind != IDENT or t.text not in macros or t.text in t.hide:
                out.append(t)
                continue
            m = macros[t.text]
            if m.params is None:
                body = self._substitute(m, t, {})
                stack.extend(reversed(body))
                continue
            # function-like: needs "(" next
            if not stack or stack[-1].text != "(":
                out.append(t)
                continue
            stack.pop()
            args, cur, depth = [], [], 0
            closed = False
            while stack:
                a = stack.pop()
                if a.text == "(":
                    depth += 1
                elif a.text == ")":
                    if depth == 0:
                        closed = True
                        break
                    depth -= 1
                elif a.text == "," and depth == 0 and not (m.variadic and len(args) == len(m.params) - 1):
                    args.append(cur)
                    cur = []
                    continue
                cur.append(a)
            if not closed:
                out.append(t)
                out.extend(reversed(stack))
                break
            args.append(cur)
            if len(args) == 1 and not args[0] and not m.params:
                args = []
            named = {}
            for k, p in enumerate(m.params):
                named[p] = args[k] if k < len(args) else []
            body = self._substitute(m, t, named)
            stack.extend(reversed(body))
        return out

    def _substitute(self, m: Macro, site: Token, named: dict) -> list:
        hide = site.hide | {m.name}
        doubt = site.doubt or (self.macro_doubt(m, site.region) if m.region or m.undefined else None)
        if m.undefined and doubt is None:
            doubt = f"`{m.name}` is #undef'd under a preprocessor condition ptxlint cannot evaluate"
        body = m.body
        res: list = []
        k = 0
        expanded_args: dict = {}
        while k < len(body):
            b = body[k]
            if b.text == "#" and m.params is not None and k + 1 < len(body) and body[k + 1].text in named:
                arg = named[body[k + 1].text]
                s = "".join((" " if (a.space and j) else "") + a.text for j, a in enumerate(arg))
                res.append(Token(STRING, '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"',
                                 site.path, site.line, site.region, doubt, hide))
                k += 2
                continue
            if b.text == "##" and res and k + 1 < len(body):
                nxt = body[k + 1]
                right = named.get(nxt.text, [nxt]) if nxt.kind == IDENT else [nxt]
                left = res.pop()
                if right:
                    glued = tokenize(left.text + right[0].text, site.path)
                    for g in glued:
                        res.append(Token(g.kind, g.text, site.path, site.line, site.region, doubt or left.doubt, hide))
                    res.extend(right[1:])
                else:
                    res.append(left)
                k += 2
                continue
            if b.kind == IDENT and b.text in named:
                followed_by_paste = k + 1 < len(body) and body[k + 1].text == "##"
                if followed_by_paste:
                    res.extend(named[b.text])
                else:
                    if b.text not in expanded_args:
                        expanded_args[b.text] = self.expand(named[b.text])
                    res.extend(expanded_args[b.text])
                k += 1
                continue
            res.append(Token(b.kind, b.text, site.path, site.line, site.region, doubt, hide | b.hide,
                             space=b.space))
            k += 1
        return res


def _read_through_gate(path: str) -> str:
    """A file of host code, read only inside the checked repository (gate.py): an `#include
    "/etc/passwd"` or a FIFO is skipped with a note (an OSError), never read."""
    from ..gate import read_text

    return read_text(path)


def preprocess(path: str, text: Optional[str] = None, include_dirs=(), defines=None, read=None,
               unknown_switches: bool = False) -> Preprocessed:
    """Tokens of the translation unit `path` after preprocessing (see the module docstring); `read(path)`
    gives a file's text (raises OSError when it cannot), by default through the gate. The translation
    unit is a checked file: what it includes is read inside its repository (gate.py). With
    `unknown_switches` (the build's -D options are not known: a `.ptx`'s host code), `#ifdef X` of a
    name the text does not define keeps both branches."""
    from ..gate import trust_checked_path

    if not path.startswith("<"):
        trust_checked_path(path)
    return Preprocessor(include_dirs, defines, read, unknown_switches).run(path, text)
