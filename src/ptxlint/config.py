"""Project configuration: `[tool.ptxlint]` in `pyproject.toml`, or a `.ptxlint.toml`; and the
user's own configuration, `$XDG_CONFIG_HOME/ptxlint/config.toml` (`~/.config/ptxlint/config.toml`).

The nearest configuration above each checked file, inside its repository, applies to it (a
`.ptxlint.toml` wins over a `pyproject.toml` in the same directory; a `pyproject.toml` without
`[tool.ptxlint]` is skipped). Command-line options win over it. Unknown keys and bad values are
InputErrors naming the file, the line and the key.

Trust: a repository's configuration is part of the checked (untrusted) tree, so it may not name a
program to run (`nvcc`) nor nvcc options beyond those that only shape the compilation (`-std=`,
`-D`, `-I`, `--expt-extended-lambda`, ...: SAFE_NVCC_ARGS). Such a key is an InputError unless the
user trusts the repository (`--trust-config`, or `trust-repository-config = true` in the user
configuration). The user configuration may set everything.

    [tool.ptxlint]
    select = ["BANK", "SYNC"]
    ignore = ["BANK002"]
    arch = ["sm_80", "sm_90"]          # or "sm_90"
    include-dirs = ["include"]        # relative to this file
    defines = ["TILE=32"]
    nvcc = "/usr/local/cuda/bin/nvcc"
    nvcc-args = ["-std=c++17"]

    [tool.ptxlint.per-file-ignores]
    "legacy/*.cu" = ["SYNC001"]

    [tool.ptxlint.block]               # launch shape per kernel (glob on the kernel name)
    "transpose*" = [32, 8]
    "*" = "256"
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .errors import InputError

CONFIG_FILES = (".ptxlint.toml", "pyproject.toml")

KNOWN_KEYS = ("select", "ignore", "per-file-ignores", "arch", "block", "nvcc", "nvcc-args", "include-dirs", "defines",
              "analysis-budget")
USER_ONLY_KEYS = ("trust-repository-config",)  # keys of the user configuration alone

# nvcc options a repository's configuration may give: they change how the code compiles, never
# which program runs, what is read beyond headers, or what is written.
SAFE_NVCC_ARGS = re.compile(
    r"-(-?std=c\+\+\d\d|D[A-Za-z_]\w*(=[^\s]*)?|U[A-Za-z_]\w*|I[^\s]+|O[0-3]|w|G|lineinfo|restrict"
    r"|-?expt-extended-lambda|-?extended-lambda|-?expt-relaxed-constexpr|-?use_fast_math"
    r"|-?(ftz|prec-div|prec-sqrt|fmad)=(true|false)|-?maxrregcount=\d+|-?(rdc|relocatable-device-code)=(true|false)"
    r"|-?diag-suppress=[\w,]+|-?default-stream=(legacy|per-thread|null)|Wno-deprecated-gpu-targets"
    r"|Wno-deprecated-declarations|-disable-warnings)"
)
_SAFE_WITH_VALUE = {"-std": re.compile(r"c\+\+\d\d"), "-I": re.compile(r".+"), "-isystem": re.compile(r".+"),
                    "-D": re.compile(r"[A-Za-z_]\w*(=[^\s]*)?"), "-Xcudafe": re.compile(r"--diag_suppress=[\w,]+"),
                    "-include": re.compile(r".+"), "--pre-include": re.compile(r".+")}


def untrusted_nvcc_arg(args) -> Optional[str]:
    """The first of `args` that a repository (its configuration, its compile_commands.json) may not
    give nvcc unless trusted, or None when every one only shapes the compilation."""
    args = list(args)
    k = 0
    while k < len(args):
        arg = args[k]
        follows = _SAFE_WITH_VALUE.get(arg)
        if follows is not None and k + 1 < len(args) and follows.fullmatch(args[k + 1]):
            k += 2
            continue
        if follows is None and SAFE_NVCC_ARGS.fullmatch(arg):
            k += 1
            continue
        return arg
    return None


@dataclass(frozen=True)
class Config:
    """Settings from one configuration file; `path` is None for the built-in defaults."""

    path: Optional[str] = None
    select: Optional[tuple] = None
    ignore: tuple = ()
    per_file_ignores: tuple = ()  # ((glob, (codes...)), ...)
    arches: Optional[tuple] = None
    blocks: tuple = ()  # ((kernel glob or None, (x, y, z), origin), ...)
    nvcc: Optional[str] = None
    nvcc_args: tuple = ()
    include_dirs: tuple = ()  # absolute
    defines: tuple = ()
    analysis_budget: Optional[float] = None  # CPU seconds per kernel; 0: no limit
    trust_repository_config: bool = False  # user configuration only: repositories may name programs

    @property
    def root(self) -> str:
        return os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()

    def ignores_for(self, file_path: str) -> tuple:
        """Codes that `per-file-ignores` turns off for `file_path`."""
        if not self.per_file_ignores:
            return ()
        rel = os.path.relpath(os.path.abspath(file_path), self.root).replace(os.sep, "/")
        base = os.path.basename(file_path)
        codes: list = []
        for pattern, pattern_codes in self.per_file_ignores:
            if fnmatch.fnmatchcase(rel, pattern) or ("/" not in pattern and fnmatch.fnmatchcase(base, pattern)):
                codes.extend(pattern_codes)
        return tuple(codes)


DEFAULT = Config()


def parse_block_shape(value) -> tuple:
    """`"32x8"`, `"256"`, `[32, 8]` -> (x, y, z). Raises ValueError with a short reason."""
    if isinstance(value, str):
        try:
            dims = [int(p) for p in value.lower().replace(",", "x").split("x")]
        except ValueError:
            raise ValueError(f"{value!r} is not a block shape (expected XxYxZ, e.g. 32x8)") from None
    elif isinstance(value, int) and not isinstance(value, bool):
        dims = [value]
    elif isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        dims = list(value)
    else:
        raise ValueError(f"{value!r} is not a block shape (expected \"32x8\" or [32, 8])")
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise ValueError(f"{value!r}: expected 1 to 3 positive sizes, e.g. 32x8")
    dims += [1] * (3 - len(dims))
    if dims[0] * dims[1] * dims[2] > 1024:
        raise ValueError(f"{value!r}: a block has at most 1024 threads")
    return tuple(dims)


@lru_cache(maxsize=None)
def find_config_file(directory: str, stop: Optional[str] = None) -> Optional[str]:
    """The nearest configuration file at or above `directory`, not above `stop` (the repository
    root: a configuration outside the checked repository is not read), or None."""
    directory = os.path.abspath(directory)
    while True:
        for name in CONFIG_FILES:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate) and (name != "pyproject.toml" or _has_ptxlint_table(candidate)):
                return candidate
        parent = os.path.dirname(directory)
        if parent == directory or (stop is not None and directory == os.path.abspath(stop)):
            return None
        directory = parent


def _has_ptxlint_table(pyproject: str) -> bool:
    from .gate import MAX_CONFIG_BYTES, read_bytes

    try:
        data = read_bytes(pyproject, MAX_CONFIG_BYTES)
    except OSError:
        return False
    return re.search(rb"^\s*\[\s*tool\s*\.\s*ptxlint\b", data, re.MULTILINE) is not None


def config_for(file_path: str, trusted: bool = False) -> Config:
    """The repository configuration that applies to `file_path` (DEFAULT when there is none);
    `trusted`: the user lets it name programs and any nvcc option (--trust-config)."""
    from .gate import root_of_checked_path

    folder = os.path.dirname(os.path.abspath(file_path))
    found = find_config_file(folder, root_of_checked_path(file_path))
    return load_config(found, trusted) if found else DEFAULT


def user_config_path() -> Optional[str]:
    """`$XDG_CONFIG_HOME/ptxlint/config.toml` (default `~/.config/...`) when it exists."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = os.path.join(base, "ptxlint", "config.toml")
    return path if os.path.isfile(path) else None


def user_config() -> Config:
    """The user's own configuration (trusted: it may name nvcc and any option), or DEFAULT."""
    path = user_config_path()
    return load_config(path, True, user=True) if path else DEFAULT


def named_config(path: str, trusted: bool = False) -> Config:
    """The configuration the user named with `--config PATH`: it replaces the one each file would
    find above it. It may be the repository's own, so it is trusted no more than one (`trusted`:
    --trust-config); it is read wherever it is, paths in it relative to its directory."""
    return load_config(os.path.abspath(path), trusted, named=True)


@lru_cache(maxsize=None)
def load_config(path: str, trusted: bool = False, user: bool = False, named: bool = False) -> Config:
    """Read and validate one configuration file. Raises InputError naming file, line and key.
    `trusted`: it may name programs (`nvcc`) and any nvcc option; `user`: the user's own file, read
    wherever it is; `named`: given with --config, read wherever it is."""
    from .gate import MAX_CONFIG_BYTES, read_bytes

    shown = _display(path)
    try:
        raw = read_bytes(path, MAX_CONFIG_BYTES, bounded=not (user or named))
    except OSError as err:
        raise InputError(shown, f"cannot read configuration: {err.strerror}") from None
    text = raw.decode("utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = getattr(err, "lineno", None)
        raise InputError(shown, f"invalid TOML: {err.args[0] if err.args else err}", line) from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise InputError(shown, "invalid configuration: arrays or tables nested too deeply to read") from None
    is_pyproject = os.path.basename(path) == "pyproject.toml"
    table = data
    if is_pyproject:
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise InputError(shown, "[tool] must be a table")
        table = tool.get("ptxlint", {})
    section = "[tool.ptxlint]" if is_pyproject else "the top-level table"
    try:
        return _Validator(shown, path, text, table, section, is_pyproject, trusted, user).build()
    except RecursionError:
        raise InputError(shown, "invalid configuration: values nested too deeply to read") from None


def _display(path: str) -> str:
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


class _Validator:
    def __init__(self, shown, path, text, table, section, is_pyproject, trusted=False, user=False):
        self.shown, self.path, self.text, self.table = shown, path, text, table
        self.section, self.prefix = section, ("tool.ptxlint." if is_pyproject else "")
        self.lines = text.split("\n")
        self.trusted, self.user = trusted or user, user

    def untrusted(self, key: str, what: str) -> InputError:
        return self.error(key, f"{what}: a repository's configuration may not name programs to run or nvcc "
                               "options beyond those that shape the compilation (-std, -D, -I, ...). Pass it on "
                               "the command line (--nvcc, --nvcc-arg), set it in your user configuration "
                               "(~/.config/ptxlint/config.toml), or pass --trust-config if you trust this "
                               "repository")

    def nvcc_args(self, key: str, value) -> tuple:
        args = self.strings(key, value)
        if self.trusted:
            return args
        refused = untrusted_nvcc_arg(args)
        if refused is not None:
            raise self.untrusted(key, f"`{key}` gives nvcc {refused!r}")
        return args

    def error(self, key: str, message: str) -> InputError:
        return InputError(self.shown, message, self.line_of(key))

    def line_of(self, key: str) -> Optional[int]:
        """Best effort: the first line that assigns `key` or opens its table."""
        last = key.split(".")[-1]
        pat = re.compile(
            r"^\s*(\[\s*(tool\s*\.\s*ptxlint\s*\.\s*)?[\"']?%s[\"']?\s*\]|[\"']?%s[\"']?\s*=)" % (re.escape(last), re.escape(last))
        )
        for i, line in enumerate(self.lines, 1):
            if pat.match(line):
                return i
        return None

    def strings(self, key: str, value) -> tuple:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"`{key}` must be a list of strings, got {value!r}")
        return tuple(value)

    def codes(self, key: str, value) -> tuple:
        from .rules.registry import all_rules

        codes = self.strings(key, value)
        known = all_rules()
        for code in codes:
            c = code.strip().upper()
            if c != "ALL" and not any(r.code.startswith(c) or r.name == code.strip() for r in known):
                raise self.error(key, f"unknown rule code or prefix {code!r} in `{key}`; `ptxlint rule` lists the rules")
        return codes

    def build(self) -> Config:
        t = self.table
        if not isinstance(t, dict):
            raise InputError(self.shown, f"{self.section} must be a table")
        for key in t:
            if key in USER_ONLY_KEYS and self.user:
                continue
            if key not in KNOWN_KEYS:
                hint = ""
                close = [k for k in KNOWN_KEYS if k.replace("-", "_") == key or k.replace("-", "") == key.replace("_", "")]
                if close:
                    hint = f" (did you mean `{close[0]}`?)"
                raise self.error(key, f"unknown key `{key}` in {self.section}{hint}; known keys: {', '.join(KNOWN_KEYS)}")
        root = os.path.dirname(os.path.abspath(self.path))
        kw: dict = {"path": self.path}
        if "select" in t:
            kw["select"] = self.codes("select", t["select"])
        if "ignore" in t:
            kw["ignore"] = self.codes("ignore", t["ignore"])
        if "per-file-ignores" in t:
            pfi = t["per-file-ignores"]
            if not isinstance(pfi, dict):
                raise self.error("per-file-ignores", "`per-file-ignores` must be a table of \"glob\" = [codes]")
            kw["per_file_ignores"] = tuple((g, self.codes(f"per-file-ignores.{g}", c)) for g, c in pfi.items())
        if "arch" in t:
            arches = self.strings("arch", t["arch"])
            from .frontend.nvcc import check_arch

            try:
                kw["arches"] = tuple(check_arch(a) for a in arches)
            except ValueError as err:
                raise self.error("arch", f"bad `arch`: {err}") from None
            if not arches:
                raise self.error("arch", "`arch` must name at least one architecture")
        if "block" in t:
            kw["blocks"] = self.blocks(t["block"])
        if "trust-repository-config" in t:
            if not isinstance(t["trust-repository-config"], bool):
                raise self.error("trust-repository-config", "`trust-repository-config` must be true or false")
            kw["trust_repository_config"] = t["trust-repository-config"]
        if "nvcc" in t:
            if not self.trusted:
                raise self.untrusted("nvcc", f"`nvcc = {t['nvcc']!r}` names a program to run")
            if not isinstance(t["nvcc"], str) or not t["nvcc"]:
                raise self.error("nvcc", f"`nvcc` must be a path to nvcc, got {t['nvcc']!r}")
            nvcc = os.path.expanduser(t["nvcc"])
            kw["nvcc"] = os.path.join(root, nvcc) if os.sep in nvcc and not os.path.isabs(nvcc) else nvcc
        if "nvcc-args" in t:
            kw["nvcc_args"] = self.nvcc_args("nvcc-args", t["nvcc-args"])
        if "include-dirs" in t:
            dirs = self.strings("include-dirs", t["include-dirs"])
            kw["include_dirs"] = tuple(os.path.normpath(os.path.join(root, os.path.expanduser(d))) for d in dirs)
        if "analysis-budget" in t:
            value = t["analysis-budget"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise self.error("analysis-budget", "`analysis-budget` must be a number of seconds (0: no limit), "
                                 f"got {value!r}")
            kw["analysis_budget"] = float(value)
        if "defines" in t:
            d = t["defines"]
            if isinstance(d, dict):
                d = [f"{k}={v}" if not isinstance(v, bool) else (k if v else None) for k, v in d.items()]
                d = [x for x in d if x]
            kw["defines"] = self.strings("defines", d)
        return Config(**kw)

    def blocks(self, value) -> tuple:
        origin = f"{self.shown} [{self.prefix}block]"
        if not isinstance(value, dict):
            value = {"*": value}
        out = []
        for glob, shape in value.items():
            try:
                dims = parse_block_shape(shape)
            except ValueError as err:
                raise InputError(self.shown, f"bad `block` for {glob!r}: {err}", self.line_of(glob)) from None
            out.append((None if glob == "*" else glob, dims, origin))
        # Specific kernels first: an exact glob should win over the catch-all.
        out.sort(key=lambda b: b[0] is None)
        return tuple(out)
