"""The words of host C++ the passes recognize (declaration specifiers, integer and `dim3` types,
statement keywords, assignment operators) and how a run of tokens is written back as text.

Shared by every pass (declarations.py, statements.py, values.py, launch_sites.py); kept apart so
that the vocabulary is read in one place.
"""

from __future__ import annotations

from typing import Optional

from ..cpp_preprocess import IDENT, Token
from ..declarations import TYPE_BYTES

_DECL_SPECIFIERS = {
    "static", "const", "constexpr", "constinit", "inline", "register", "volatile", "thread_local",
    "extern", "mutable", "__shared__", "__device__", "__constant__", "__host__", "__managed__",
    "__restrict__", "typename", "struct", "class", "enum", "union", "signed", "unsigned", "long",
    "short", "int", "char", "bool", "float", "double", "void", "auto", "__forceinline__",
}
_INT_TYPES = {
    "int", "unsigned", "signed", "long", "short", "char", "bool", "size_t", "ssize_t", "ptrdiff_t",
    "uint", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "std::size_t", "std::int32_t", "std::uint32_t", "std::int64_t", "std::uint64_t", "std::ptrdiff_t",
    "unsigned int", "long long", "unsigned long", "unsigned long long",
}
_DIM3_TYPES = {"dim3", "uint3"}
_CONFIG_TYPES = {"cudaLaunchConfig_t", "cudaLaunchConfig"}
_CONFIG_FIELDS = ("gridDim", "blockDim", "dynamicSmemBytes", "stream", "attrs", "numAttrs")
_STATEMENT_KEYWORDS = {"if", "for", "while", "do", "switch", "case", "default", "return", "break",
                       "continue", "goto", "try", "catch", "throw", "else", "delete", "new", "co_return",
                       "co_await", "co_yield", "sizeof", "operator", "using", "typedef", "template",
                       "namespace", "public", "private", "protected", "friend", "static_assert"}
_NOT_A_FUNCTION_NAME = {"__launch_bounds__", "__attribute__", "alignas", "decltype", "noexcept",
                        "throw", "__declspec", "requires", "sizeof", "alignof", "__cluster_dims__",
                        "__maxnreg__", "if", "for", "while", "switch", "return"}
_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
_QUALIFIERS_AFTER_PARAMS = {"const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&",
                            "constexpr", "consteval", "__device__", "__host__", "throw"}


def _is_name(tok: Token) -> bool:
    return tok.kind == IDENT and tok.text not in _STATEMENT_KEYWORDS


def _arg_text(tokens) -> str:
    """A template argument as text: a type as `_type_text` writes it, an expression spaced."""
    if all(t.kind == IDENT or t.text in ("::", "<", ">", "*", "&", ",") for t in tokens):
        return _type_text(tokens)
    out = ""
    for t in tokens:
        if out and not out.endswith(("(", "[", "::")) and t.text not in (")", "]", "(", "[", ",", "::"):
            out += " "
        out += t.text
    return out


def _type_text(tokens) -> str:
    """A type or expression as text: words separated by one space, `*`/`&` attached, no spaces
    around `::`, `<` and `>`."""
    out = ""
    prev = ""
    for t in tokens:
        s = t.text
        if not out:
            out = s
        elif s == ",":
            out += ", "
        elif s in ("*", "&", "&&", ">", "::", "<", "(", ")", "[", "]") or prev in ("::", "<", "(", "[", ", "):
            out += s
        else:
            out += " " + s
        prev = s if s != "," else ", "
    return out


def element_size(type_text: str) -> Optional[int]:
    """Bytes of what a pointer of type `type_text` (`const float *`) points to, for the types whose
    size does not depend on the platform's choices beyond LP64; None for others and non-pointers."""
    if type_text.count("*") != 1 or not type_text.rstrip().endswith("*"):
        return None
    words = [w for w in type_text.replace("*", " ").split()
             if w not in ("const", "volatile", "__restrict__", "__restrict", "restrict", "std::")]
    return TYPE_BYTES.get(" ".join(words))
