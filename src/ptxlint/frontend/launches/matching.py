"""Which launches launch a given PTX function: its demangled name split into qualification, name
and template arguments, compared with each launch's as written (numbers by value, types in a
canonical spelling; what cannot be compared with confidence does not match).

Separate from finding the launches: it reads only `Launch` values and mangled names.
"""

from __future__ import annotations

import re
from typing import Optional

from ..demangle import demangle, without_parameters
from ..launch_expr import parse_int_literal

# `5u`, `(unsigned char)5`, and an enumerator as the demangler spells it: `(ns::Algorithm::Id)1662320640`
_DEMANGLED_NUMBER = re.compile(r"^(?:\((?:[A-Za-z_][A-Za-z0-9_: ]*)\))?(-?[0-9]+)(?:u|l|ul|ll|ull|lu)?$")
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


def _compare_with_placeholders(written: str, demangled: str, open_names: set, seen: dict):
    """_compare_arg where `open_names` (parameters of the launching host template that ptxlint could
    not bind) stand for any argument, the same one wherever they appear; a function written as
    `f<T>` is compared with a demangled function pointer `&(void ns::f<float>(...))` by name and
    template arguments."""
    if not open_names:
        return _compare_arg(written, demangled)
    name = written.strip()
    if name in open_names:
        have = seen.setdefault(name, canonical_type(demangled))
        return True if have == canonical_type(demangled) else _compare_arg(have, demangled)
    pointee = _function_pointer_name(demangled)
    if pointee is not None:
        demangled = pointee
    wq, wn, wargs = split_template_name(name.lstrip("&").strip())
    dq, dn, dargs = split_template_name(demangled)
    if wn.strip() != dn.strip() or (wargs is None) != (dargs is None):
        return _compare_arg(written, demangled) if pointee is None else False
    if wq and not (dq == wq or dq.endswith("::" + wq)):
        return False
    if wargs is None:
        return True
    if len(wargs) != len(dargs):
        return False
    verdicts = [_compare_with_placeholders(w, d, open_names, seen) for w, d in zip(wargs, dargs)]
    if False in verdicts:
        return False
    return None if None in verdicts else True


def _function_pointer_name(demangled: str) -> Optional[str]:
    """`&(void ns::f<float>(void const*, long))` -> `ns::f<float>`; None for anything else."""
    text = demangled.strip()
    if not text.startswith("&"):
        return None
    text = text[1:].strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    if not text.endswith(")"):
        return None
    depth = 0
    for k in range(len(text) - 1, -1, -1):  # the '(' that opens the parameter list
        depth += {")": 1, "(": -1}.get(text[k], 0)
        if depth == 0:
            break
    head, depth = text[:k].rstrip(), 0
    for j in range(len(head) - 1, -1, -1):  # the name starts after the return type's last space
        depth += {">": 1, "<": -1}.get(head[j], 0)
        if depth == 0 and head[j] == " ":
            return head[j + 1:]
    return head or None


def _same_lambda(written: str, demangled: str) -> bool:
    """Does the lambda a launch passes (`lambda in F #n of m parameters`, launch_sites.py) have the
    closure type an instance names (`ns::F<float>(int const*)::{lambda(unsigned long)#n}`): written in
    a function of that name, the n-th lambda of m parameters there?"""
    marker = demangled.rfind("::{lambda(")
    if marker < 0 or not demangled.endswith("}"):
        return False
    inner = demangled[marker + len("::{lambda("):-1]
    params, _, ordinal = inner.rpartition(")#")
    enclosing = without_parameters(demangled[:marker])
    _, name, _ = split_template_name(enclosing)
    depth, arity = 0, 1 if params.strip() else 0
    for c in params:
        depth += {"(": 1, "<": 1, ")": -1, ">": -1}.get(c, 0)
        if c == "," and depth == 0:
            arity += 1
    return written == f"lambda in {name} #{ordinal} of {arity} parameters"


def launches_for_function(mangled_name: str, launches: list) -> list:
    """The launches that launch the PTX function `mangled_name`: same unqualified name, the
    written qualification (if any) a suffix of the function's, and template arguments that agree
    one by one. A launch whose template arguments cannot be compared with confidence (a value
    ptxlint could not evaluate, an unknown type name) is left out where another launch matches for
    sure. Arguments deduced from the call
    (`init<<<g, b>>>(float_ptr)`) are compared as if written; one whose deduction could not be
    followed ("?") matches any instantiation.

    Where no launch matches for sure, the launches that may launch it (their template arguments
    could not be compared: a test's type parameter, an argument ptxlint could not evaluate) are
    its launches when they all launch with one block and grid: whichever of them launches this
    instantiation, the shape is that one (`roundtrip<TypeParam><<<1, 32>>>` in every typed test)."""
    return [launch for launch, why in launch_verdicts(mangled_name, launches) if why is None]


def launch_verdicts(mangled_name: str, launches: list) -> list:
    """[(launch, None or why it does not launch `mangled_name`)] for `launches`, with the rule of
    launches_for_function for launches that may launch it."""
    verdicts = [(launch, why_not_launched(mangled_name, launch)) for launch in launches]
    if any(why is None for _, why in verdicts):
        return verdicts
    maybe = [launch for launch, why in verdicts if why is not None and why.startswith(_UNCOMPARED)]
    if maybe and all(launch.block is not None for launch in maybe) and len(
            {(launch.block, launch.grid) for launch in maybe}) == 1:
        return [(launch, None if launch in maybe else why) for launch, why in verdicts]
    return verdicts


_UNCOMPARED = "its template argument `"  # how why_not_launched starts a reason that is not a mismatch


def why_not_launched(mangled_name: str, launch) -> Optional[str]:
    """None when `launch` launches the PTX function `mangled_name`, else why not, in words."""
    qual, name, args = split_template_name(without_parameters(demangle(mangled_name)))
    if launch.kernel != name:
        return f"it launches `{launch.kernel}`"
    if launch.qualifier:
        q = launch.qualifier.lstrip(":")
        if not (qual == q or qual.endswith("::" + q)):
            return f"it launches `{q}::{name}`, not `{qual}::{name}`"
    written = launch.template_args
    if args is None:
        return None if written is None else f"it has template arguments <{', '.join(written)}>"
    if written is None:
        return ("its template arguments are neither written nor deducible here (the kernel template is not "
                "defined in the host code read)")
    if launch.deduced and len(written) > len(args) and all(w == "?" for w in written[len(args):]):
        written = written[:len(args)]  # a trailing parameter pack the call deduces empty
    if len(args) != len(written):
        return f"its template arguments <{', '.join(written)}> are not <{', '.join(args)}>"
    placeholders: dict = {}  # an open parameter's name -> the argument it stands for here
    for w, d in zip(written, args):
        if launch.deduced and w == "?":
            continue
        if launch.deduced and w.startswith("lambda in "):
            if not _same_lambda(w, d):
                return f"its lambda ({w}) is not {d}"
            continue
        same = _compare_with_placeholders(w, d, set(launch.open_params), placeholders)
        if same is False:
            return f"its template arguments <{', '.join(written)}> are not <{', '.join(args)}>"
        if same is None:
            return f"{_UNCOMPARED}{w}` cannot be compared with `{d}`"
    return None
