"""C++ name demangling through the C++ runtime's `__cxa_demangle`, when it is available."""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache
from typing import Optional


@lru_cache(maxsize=1)
def _cxa_demangle():
    for name in (ctypes.util.find_library("stdc++"), "libstdc++.so.6", "libc++.so.1"):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            fn = lib.__cxa_demangle
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_int)]
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.free.argtypes = [ctypes.c_void_p]
        return fn, libc.free
    return None


@lru_cache(maxsize=4096)
def demangle(name: str) -> str:
    """`_Z9transposePfPKf` -> `transpose(float*, float const*)`; other names unchanged."""
    if not name.startswith("_Z"):
        return name
    found = _cxa_demangle()
    if found is None:
        return name
    fn, free = found
    status = ctypes.c_int()
    ptr = fn(name.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not ptr:
        return name
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        free(ptr)


def without_parameters(demangled: str) -> str:
    """`void ns::kernel<int>(float*, int)` -> `ns::kernel<int>`: drop the parameters (and the
    return type that templates carry)."""
    if demangled.startswith("void "):
        demangled = demangled[5:]
    if not demangled.endswith(")"):
        return demangled
    start = parameter_list_start(demangled)
    return demangled if start is None else demangled[:start]


def parameter_list_start(demangled: str) -> Optional[int]:
    """The index of the `(` that opens a demangled signature's outermost parameter list (the one
    that matches its final `)`), or None."""
    depth = 0
    for i in range(len(demangled) - 1, -1, -1):
        ch = demangled[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return i
    return None
