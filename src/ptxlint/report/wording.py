"""Findings in source terms, for the forms a person reads (text, github, sarif, concise).

Rules speak PTX: registers (`%r5`, `%p3`), special registers (`%tid.x`), parameters by their PTX
names (`_Z9transposePfPKfii_param_3`, `kernel parameter 3`), mangled kernel names, PTX line numbers
and long lists. A person reads CUDA C++: `threadIdx.x`, `height` (parameter 4), `transpose(float*,
...)`, "lines 26-31", "warps 0-7: 32 each". This module rewrites a finding's text for them, and
picks what is shown by default: the headline, the assumption (block shape, where it came from,
architectures), one line of evidence and the fix; `--verbose` shows every note.

Only wording changes here: the numbers, lines and codes are the rule's own, and the JSON report
keeps the rule's text as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ..frontend.demangle import demangle, parameter_list_start, without_parameters

SPECIAL_REGISTERS = {
    "tid": "threadIdx", "ntid": "blockDim", "ctaid": "blockIdx", "nctaid": "gridDim",
    "cluster_ctaid": "clusterIdx", "cluster_nctaid": "clusterDim",
}
OTHER_SPECIAL = {
    "%laneid": "the lane id", "%warpid": "the warp id", "%cluster_ctarank": "the block's rank in its cluster",
    "%smid": "the SM id", "%clock": "the clock", "%clock64": "the clock",
}
# the pseudo path of PTX that nvcc made from a .cu for one architecture (file_check.py)
_COMPILED_PTX = re.compile(r"^(?P<source>.+) \((?P<arch>[\w.]+) PTX\)$")
_REGISTER = r"%[a-z]+[0-9]+"  # %r5, %rd12, %p3, %f7 (not %tid.x: that has a dot)
_PARAM = re.compile(r"\b(?P<kernel>[A-Za-z_$][\w$]*?)_param_(?P<index>\d+)\b")


@dataclass
class Readable:
    """A finding as a person reads it: every field already in source terms."""

    headline: str
    path: str  # the source (or .ptx) file to point at
    line: Optional[int]  # None when no source line is known (then `where_in_ptx` says where)
    column: Optional[int]
    assumption: Optional[str]  # block shape, where it came from, architectures
    evidence: list = field(default_factory=list)  # the rule's other notes, collapsed; the first is the key one
    differs: list = field(default_factory=list)  # "for INPUT: other message" from the merge of inputs
    fix: Optional[str] = None
    inputs: list = field(default_factory=list)  # the input files it was found in, when several
    ptx_places: list = field(default_factory=list)  # "samples/k.sm_80.ptx:207 in k(int*)", one per input
    where_in_ptx: Optional[str] = None  # for a finding with no source line: the PTX file and line, plainly
    arch_detail: Optional[str] = None  # "sm_90: 32 banks x 4 bytes (sm_50 and later)" (verbose)

    def notes(self, verbose: bool = False) -> list:
        """The notes to show, in order: by default the assumption, the no-source-line place, one
        line of evidence (without its PTX line numbers), any other input's different message and
        the inputs; verbose: every note. The fix and `ptx_places` are not among them (each format
        shows them its own way)."""
        out = [self.assumption] if self.assumption else []
        if verbose and self.arch_detail and ":" in self.arch_detail:
            out.append(self.arch_detail)
        if self.where_in_ptx:
            out.append(self.where_in_ptx)
        if verbose:
            out += self.evidence
        else:
            out += [re.sub(r"(?<=line \d)(\d*) \(PTX lines? \d+(?:, \d+)*\)", r"\1", e) for e in self.evidence[:1]]
        out += self.differs
        if len(self.inputs) > 1:
            out.append("found in " + ", ".join(self.inputs))
        return out

    def hidden_notes(self) -> int:
        """How many notes `--verbose` adds (where in the PTX not counted)."""
        return len(self.notes(True)) - len(self.notes(False))


def readable(d) -> Readable:
    """`d` (a Diagnostic) in source terms."""
    params = kernel_parameter_names(d)
    words = lambda text: source_terms(text, d.kernel, params)  # noqa: E731
    assumption, arch_detail, evidence, differs = None, None, [], []
    for note in d.notes:
        if note.startswith(("assumed block", "assumed: ", "holds under ")) and assumption is None:
            assumption = words(note)
        elif note.startswith("architecture "):
            arch_detail = note[len("architecture "):]
        elif note.startswith("found in "):
            continue  # the merge's own note: said by `inputs`
        elif note.startswith("for ") and ": " in note and d.data.get("inputs"):
            differs.append(words(note))
        else:
            evidence.append(words(note))
    arches = _arches(d, arch_detail)
    if assumption and arches:
        assumption += "; " + ", ".join(arches)
    elif arches:
        assumption = "architecture " + ", ".join(arches)
    path, line, column, where_in_ptx = d.path, d.line, d.column, None
    compiled = _COMPILED_PTX.match(d.path or "")
    if compiled:
        # a PTX line of nvcc's output is no line of the .cu: say so rather than point at one
        path, line, column = compiled["source"], None, None
        where_in_ptx = (f"no source line is known: line {d.line} of the {compiled['arch']} PTX that nvcc made "
                        f"from {compiled['source']}" + (f", in {kernel_name(d.kernel)}" if d.kernel else ""))
    inputs = [i["input"] for i in d.data.get("inputs", ())]
    places = d.data.get("inputs") or [{"ptx_path": d.ptx_path, "ptx_line": d.ptx_line}]
    ptx_places = [_ptx_place(p["ptx_path"], p["ptx_line"], d.kernel) for p in places if p.get("ptx_path")]
    return Readable(
        headline=words(d.message), path=path, line=line, column=column, assumption=assumption,
        evidence=_collapse(evidence), differs=_collapse(differs),
        fix=words(d.fix) if d.fix else None, inputs=inputs, ptx_places=list(dict.fromkeys(ptx_places)),
        where_in_ptx=where_in_ptx, arch_detail=("architecture " + arch_detail) if arch_detail else None,
    )


def _arches(d, arch_detail: Optional[str]) -> list:
    from ..places import arches_of

    arches = arches_of(d)
    if not arches and arch_detail:
        arches = [arch_detail.split(":")[0].split()[0]]
    return [a for a in arches if a and a != "unknown"]


def _ptx_place(ptx_path: str, ptx_line, kernel: Optional[str]) -> str:
    compiled = _COMPILED_PTX.match(ptx_path)
    where = (f"line {ptx_line} of the {compiled['arch']} PTX that nvcc made from {compiled['source']}" if compiled
             else f"{ptx_path}:{ptx_line}")
    return where + (f" in {kernel_name(kernel)}" if kernel else "")


def kernel_name(mangled: Optional[str]) -> str:
    """`_Z9transposePfPKf` -> `transpose(float*, float const*)`."""
    return demangle(mangled) if mangled else ""


def _collapse(notes: list) -> list:
    """Notes that read the same once rewritten (four branches of one line on different predicate
    registers) are said once."""
    return list(dict.fromkeys(notes))


# ---------------------------------------------------------------------------------------------
# Rewriting text


def source_terms(text: str, kernel: Optional[str] = None, params: Optional[list] = None) -> str:
    """Rewrite PTX terms in `text` as CUDA C++ terms. `params`: the kernel's parameter names in the
    source, in order (None when unknown: then parameters are named by 1-based position)."""
    if not text:
        return text

    def param(index: int, subject: bool = True) -> str:
        name = params[index] if params and 0 <= index < len(params) else None
        if name is None:
            return f"parameter {index + 1}"
        return f"`{name}` (parameter {index + 1})" if subject else name

    def ptx_param(match, subject: bool = True) -> str:
        if kernel is not None and match["kernel"] not in (kernel,):
            return match.group(0)  # a device function's parameter: no name to give
        return param(int(match["index"]), subject)

    # "`k_param_2` (kernel parameter 3)" (sync.py: 1-based) -> "`n` (parameter 3)"
    text = re.sub(r"`" + _PARAM.pattern + r"` \(kernel parameter \d+\)", lambda m: ptx_param(m), text)
    # "kernel parameter k_param_3" (lanes.py, bank.py) -> the parameter
    text = re.sub(r"kernel parameter " + _PARAM.pattern, lambda m: ptx_param(m), text)
    # "4*kernel parameter 3" (coal.py: 0-based) -> "4*height"; as a subject "`height` (parameter 4)"
    text = re.sub(r"(?<=[*+\-(/ ])kernel parameter (\d+)(?= ?[*+\-)/])",
                  lambda m: param(int(m[1]), subject=False), text)
    text = re.sub(r"(?<=[*+\-(/])kernel parameter (\d+)", lambda m: param(int(m[1]), subject=False), text)
    text = re.sub(r"(?<=[*+\-/] )kernel parameter (\d+)", lambda m: param(int(m[1]), subject=False), text)
    text = re.sub(r"kernel parameter (\d+)", lambda m: param(int(m[1])), text)
    # "`k_param_1`" and a bare "k_param_2 % 256" -> the name
    text = re.sub(r"`" + _PARAM.pattern + r"`", lambda m: f"`{ptx_param(m, False)}`" if params else ptx_param(m), text)
    text = _PARAM.sub(lambda m: ptx_param(m, subject=False), text)
    # registers: what a value depends on is said by its source line, not its register
    text = re.sub(r" \(on (?:" + _REGISTER + r")(?:/(?:" + _REGISTER + r"|\.\.\.))*\)", "", text)
    text = re.sub(r" on " + _REGISTER + r",", ",", text)
    text = re.sub(r" via " + _REGISTER + r"(?= at )", "", text)
    text = re.sub(r" via " + _REGISTER, "", text)
    text = re.sub(r"%(n?tid|n?ctaid|cluster_n?ctaid)\.([xyz])",
                  lambda m: f"{SPECIAL_REGISTERS[m[1]]}.{m[2]}", text)
    for ptx, words in OTHER_SPECIAL.items():
        text = re.sub(re.escape(ptx) + r"\b", words, text)
    # any other register left (a subject of a note): "a value"; a PTX instruction quoted whole is left alone
    if not re.search(r"\b[a-z]+(\.[a-z0-9]+)+ " + _REGISTER, text):
        text = re.sub(r"(?:(?<=^)|(?<=[\s(]))" + _REGISTER + r"\b", "a value", text)
        text = re.sub(r"^a value", "A value", text) if text.startswith("a value") else text
    text = re.sub(r"\b_Z\w+", lambda m: demangle(m.group(0)), text)
    return compress_lists(text)


def compress_lists(text: str) -> str:
    """Ranges, not lists: "warp 0: 32, warp 1: 32, ..., warp 7: 32" -> "warps 0-7: 32 each";
    "lines 26, 27, 28, 29" -> "lines 26-29"."""
    text = re.sub(r"warp \d+: \d+(?:, warp \d+: \d+)+(?:, \.\.\.)?", _warp_counts, text)
    return re.sub(r"\b(lines|lanes|warps) (\d+(?:, \d+){2,})\b", _number_runs, text)


def _warp_counts(match) -> str:
    items = [tuple(map(int, m)) for m in re.findall(r"warp (\d+): (\d+)", match.group(0))]
    groups: list = []  # [first warp, last warp, value]
    for warp, value in items:
        if groups and groups[-1][2] == value and groups[-1][1] == warp - 1:
            groups[-1][1] = warp
        else:
            groups.append([warp, warp, value])
    parts = [f"warps {a}-{b}: {v} each" if a != b else f"warp {a}: {v}" for a, b, v in groups]
    return ", ".join(parts) + (", ..." if match.group(0).endswith("...") else "")


def _number_runs(match) -> str:
    numbers = [int(n) for n in match[2].split(", ")]
    runs: list = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return f"{match[1]} " + ", ".join(f"{a}-{b}" if b > a + 1 else (f"{a}, {b}" if b > a else f"{a}") for a, b in runs)


# ---------------------------------------------------------------------------------------------
# Parameter names from the source


def kernel_parameter_names(d) -> Optional[list]:
    """The names of the kernel's parameters as its definition in the finding's source file writes
    them, or None (a `.ptx` with no source at hand, a kernel defined elsewhere, a count that does not
    match the mangled signature)."""
    if not d.kernel or not d.path or d.path.endswith(".ptx") or _COMPILED_PTX.match(d.path):
        return None
    from ..gate import read_lines

    lines = read_lines(d.path)
    return parameter_names_in(lines, d.kernel) if lines else None


def parameter_names_in(lines: list, mangled: str) -> Optional[list]:
    """The parameter names of the `__global__` definition of `mangled` in the source `lines`."""
    demangled = demangle(mangled)
    base = re.sub(r"<.*$", "", without_parameters(demangled)).split("::")[-1].strip()
    if not base or not re.fullmatch(r"[A-Za-z_]\w*", base):
        return None
    expected = _parameter_count(demangled) if "(" in demangled else None
    text = "\n".join(lines)
    for match in re.finditer(r"__global__[^;{}]*?\b" + re.escape(base) + r"\s*\(", text):
        close = _matching_paren(text, match.end() - 1)
        if close is None:
            continue
        names = [_declared_name(p) for p in _split_top_level(text[match.end():close])]
        if names == [None] or names == ["void"]:
            names = []
        if expected is None or len(names) == expected:
            return names if all(names) else None
    return None


def _parameter_count(demangled: str) -> int:
    """The number of parameters of a demangled signature: its outermost list, the `(` that matches
    the final `)`."""
    start = parameter_list_start(demangled)
    inside = demangled[start + 1:-1] if start is not None else ""
    parts = [p for p in _split_top_level(inside) if p.strip() and p.strip() != "void"]
    return len(parts)


def _matching_paren(text: str, open_at: int) -> Optional[int]:
    depth = 0
    for i in range(open_at, min(len(text), open_at + 4000)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _split_top_level(text: str) -> list:
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _declared_name(parameter: str) -> Optional[str]:
    """`const float *__restrict__ in` -> `in`; an unnamed parameter -> None."""
    decl = re.sub(r"//[^\n]*|/\*.*?\*/", " ", parameter, flags=re.S).split("=")[0]
    decl = re.sub(r"\[[^\]]*\]", "", decl).strip()
    if not decl:
        return None
    names = re.findall(r"[A-Za-z_]\w*", decl)
    if len(names) < 2 or names[-1] in ("__restrict__", "__restrict", "const", "volatile", "int", "float",
                                       "double", "char", "unsigned", "long", "short", "bool", "void"):
        return decl.strip() if decl.strip() == "void" else None
    return names[-1]
