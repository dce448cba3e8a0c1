"""A build's `compile_commands.json` (CMake, Bear, Meson): the flags each `.cu` is compiled with.

`-p DIR` / `--compile-commands FILE` reads it the way clang-tidy does: the entry whose `file`
(relative to its `directory`) is the checked file gives that file's flags; a file with no entry (a
header's includer that is not built, a new file) takes the flags of the nearest entry, the first one
of its own directory when there is one, and the run says so.

Of an entry's command only the flags that shape the compilation are kept (-I, -isystem, -D, -U,
-std, --expt-*, --extended-lambda, -rdc, -include, fast-math options, ...), relative paths resolved
against the entry's `directory`; the compiler program, output, `-c`, `-o`, architecture and
gencode options and every host-compiler pass-through are dropped. The file is part of the checked
(untrusted) tree: it is read through the gate, never names a program to run, and what is kept still
goes through the nvcc-args trust policy (config.untrusted_nvcc_arg) and nvcc's shell check.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from .errors import InputError

DATABASE_NAME = "compile_commands.json"

# Flags whose value follows as the next word, among those that are dropped: the value is skipped
# with them (so that `-Xcompiler -DX` does not keep `-DX`).
_DROPPED_WITH_VALUE = frozenset((
    "-o", "-x", "-arch", "-code", "-gencode", "-ccbin", "-Xcompiler", "-Xptxas", "-Xlinker", "-Xnvlink",
    "-Xarchive", "-Xfatbin", "-MF", "-MT", "-MQ", "-odir", "-t", "-Xclang", "-target", "-imacros",
    "--output-file", "--compiler-bindir", "--generate-code", "--gpu-architecture", "--gpu-code",
    "--threads", "--options-file", "--compiler-options", "--ptxas-options", "--linker-options",
    "--dependency-output", "--output-directory", "--x", "--cuda-gpu-arch", "--cuda-path",
))
# Kept flags that take their value as the next word (or joined / after `=`), by spelling -> kind.
_WITH_VALUE = {
    "-I": "I", "--include-path": "I", "-isystem": "I", "--system-include": "I",
    "-D": "D", "--define-macro": "D", "-U": "U", "--undefine-macro": "U",
    "-std": "std", "--std": "std", "-include": "include", "--pre-include": "include",
    "-rdc": "rdc", "--relocatable-device-code": "rdc", "-default-stream": "stream", "--default-stream": "stream",
    "-maxrregcount": "maxrreg", "--maxrregcount": "maxrreg",
}
# Kept flags that stand alone (both the nvcc spellings with one dash and two).
_STANDALONE = frozenset((
    "--expt-relaxed-constexpr", "-expt-relaxed-constexpr", "--expt-extended-lambda", "-expt-extended-lambda",
    "--extended-lambda", "-extended-lambda", "--use_fast_math", "-use_fast_math",
))
_BOOLEAN_OPTIONS = ("ftz", "prec-div", "prec-sqrt", "fmad")
_JOINED = ("-I", "-D", "-U", "-isystem")  # flags whose value may follow with nothing between


@dataclass(frozen=True)
class CompileEntry:
    """One entry: the translation unit (absolute), the directory its command ran in, its flags."""

    file: str
    directory: str
    flags: tuple  # nvcc arguments that shape the compilation, paths absolute


@dataclass(frozen=True)
class CompileDatabase:
    """The entries of one `compile_commands.json`, in file order."""

    path: str
    entries: tuple

    def flags_for(self, source: str) -> tuple:
        """(flags, how): the flags for `source` and, when they are not its own entry's, a sentence
        saying whose they are (None when the file has its own entry)."""
        wanted = _real(source)
        for entry in self.entries:
            if _real(entry.file) == wanted:
                return entry.flags, None
        shown = _shown(self.path)
        if not self.entries:
            return (), f"{shown} has no entries: compiled without build flags"
        neighbour = _nearest(self.entries, wanted)
        same_dir = os.path.dirname(_real(neighbour.file)) == os.path.dirname(wanted)
        where = "the first entry of its directory" if same_dir else "the nearest entry"
        return neighbour.flags, (f"no entry in {shown}; compiled with the flags of {_shown(neighbour.file)} "
                                 f"({where})")

    def has_entry(self, source: str) -> bool:
        """Is `source` a translation unit of the build (it has its own entry)?"""
        wanted = _real(source)
        return any(_real(e.file) == wanted for e in self.entries)


def database_path(value: str) -> str:
    """`-p DIR` (the build directory) or `--compile-commands FILE` -> the JSON file's path."""
    return os.path.join(value, DATABASE_NAME) if os.path.isdir(value) else value


def load_database(path: str) -> CompileDatabase:
    """Read and validate a `compile_commands.json` through the gate. Raises InputError naming it."""
    try:
        st = os.stat(path)
    except OSError as err:
        raise InputError(_shown(path), f"cannot read the compilation database: {err.strerror}") from None
    return _load(os.path.abspath(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _load(path: str, *version) -> CompileDatabase:
    from .gate import MAX_COMPILE_DB_BYTES, read_bytes

    shown = _shown(path)
    try:
        # The user named it (-p): read wherever it is, but only a regular file of bounded size.
        raw = read_bytes(path, MAX_COMPILE_DB_BYTES, bounded=False)
    except OSError as err:
        raise InputError(shown, f"cannot read the compilation database: {err.strerror}") from None
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError) as err:
        raise InputError(shown, f"not a compilation database: invalid JSON ({err})") from None
    if not isinstance(data, list):
        raise InputError(shown, "not a compilation database: expected a JSON array of "
                                "{directory, file, command or arguments}")
    entries = []
    for k, item in enumerate(data):
        entries.append(_entry(item, k, shown, os.path.dirname(path)))
    return CompileDatabase(path, tuple(entries))


def _entry(item, index: int, shown: str, base: str) -> CompileEntry:
    def bad(why: str) -> InputError:
        return InputError(shown, f"entry {index + 1}: {why}")

    if not isinstance(item, dict):
        raise bad("expected an object with directory, file and command or arguments")
    directory, file = item.get("directory"), item.get("file")
    if not isinstance(directory, str) or not isinstance(file, str) or not file:
        raise bad("`directory` and `file` must be strings")
    directory = os.path.normpath(os.path.join(base, directory))
    if "arguments" in item:
        words = item["arguments"]
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise bad("`arguments` must be a list of strings")
    elif isinstance(item.get("command"), str):
        try:
            words = shlex.split(item["command"])
        except ValueError as err:
            raise bad(f"cannot split `command` into words ({err})") from None
    else:
        raise bad("needs `command` (a string) or `arguments` (a list)")
    # words[0] is the compiler: never run, never kept.
    return CompileEntry(os.path.normpath(os.path.join(directory, file)), directory,
                        shaping_flags(words[1:], directory))


def shaping_flags(words: list, directory: str) -> tuple:
    """The nvcc arguments among a compile command's `words` (the compiler left out) that shape the
    compilation, in nvcc's spelling (`-IDIR`, `-DNAME=V`, `-std=c++17`, `-include FILE`), paths
    made absolute against `directory`. Everything else is dropped."""
    kept: list = []
    system: list = []  # -isystem dirs: searched after the -I ones, as the compiler does
    k = 0
    while k < len(words):
        word = words[k]
        k += 1
        name, value = _split(word)
        if name is None:
            if word in _DROPPED_WITH_VALUE:
                k += 1
            continue
        if value is None:  # the value is the next word
            if k >= len(words):
                break
            value = words[k]
            k += 1
        kind = _WITH_VALUE.get(name, name)
        if kind == "I":
            target = system if name in ("-isystem", "--system-include") else kept
            target.append("-I" + os.path.normpath(os.path.join(directory, value)))
        elif kind in ("D", "U"):
            kept.append(f"-{kind}{value}")
        elif kind == "std":
            kept.append("-std=" + (value.replace("gnu++", "c++", 1) if value.startswith("gnu++") else value))
        elif kind == "include":
            kept += ["-include", os.path.normpath(os.path.join(directory, value))]
        elif kind == "rdc":
            kept.append(f"-rdc={value}")
        elif kind == "stream":
            kept.append(f"--default-stream={value}")
        elif kind == "maxrreg":
            kept.append(f"--maxrregcount={value}")
        elif kind == "standalone":
            kept.append(value)
        elif kind == "bool":
            kept.append(value)
    return _without_repeats(kept + system)


def _without_repeats(flags: list) -> tuple:
    """nvcc refuses some options given twice (`-std`): keep the last `-std`, each other flag once
    (an `-include FILE` pair counts as one)."""
    units: list = []
    k = 0
    while k < len(flags):
        units.append(tuple(flags[k:k + 2]) if flags[k] == "-include" else (flags[k],))
        k += len(units[-1])
    last_std = max((i for i, u in enumerate(units) if u[0].startswith("-std=")), default=None)
    units = [u for i, u in enumerate(units) if not u[0].startswith("-std=") or i == last_std]
    return tuple(word for unit in dict.fromkeys(units) for word in unit)


def _split(word: str) -> tuple:
    """(kept flag name, its value or None when it is the next word), or (None, None) for a word that
    is dropped. Stand-alone flags come back as ("standalone", word) / ("bool", word)."""
    if word in _STANDALONE:
        return "standalone", word
    if word in ("-dc", "--device-c"):
        return "-rdc", "true"
    for option in _BOOLEAN_OPTIONS:
        for dashes in ("-", "--"):
            if word.startswith(f"{dashes}{option}="):
                return "bool", f"--{option}={word.split('=', 1)[1]}"
    if word in _WITH_VALUE:
        return word, None
    for name in _WITH_VALUE:
        if word.startswith(name + "="):  # --include-path=DIR, -std=c++17, -isystem=DIR (CMake's nvcc form)
            return name, word[len(name) + 1:]
    for name in _JOINED:
        if word.startswith(name) and len(word) > len(name):  # -IDIR, -DNAME, -UNAME, -isystemDIR
            return name, word[len(name):]
    return None, None


def _nearest(entries: tuple, wanted: str) -> CompileEntry:
    """The entry clang-tidy-like tools would borrow for a file without its own: the first of the
    file's own directory, else the one sharing the longest leading path with it."""
    folder = os.path.dirname(wanted)
    for entry in entries:
        if os.path.dirname(_real(entry.file)) == folder:
            return entry
    return max(entries, key=lambda e: len(os.path.commonpath([_real(e.file), wanted])))


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _shown(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel
