"""The instruction mix of a kernel: what kinds of instructions it has, from PTX or from SASS.

Static counts (each instruction once, whatever the loop trip counts): loads and stores per
memory space, atomics, barriers, warp-level shuffles and votes, FP32 / FP64 / FP16 / integer /
tensor-core arithmetic, and branches.
"""

from __future__ import annotations

from collections import Counter

CATEGORIES = ["load.global", "load.shared", "load.local", "load.const", "load.generic", "store.global",
              "store.shared", "store.local", "store.generic", "atomic.global", "atomic.shared", "barrier",
              "warp", "fp32", "fp64", "fp16", "int", "tensor", "branch"]

_PTX_FP_OPS = {"add", "sub", "mul", "fma", "mad", "div", "rcp", "sqrt", "rsqrt", "min", "max", "neg", "abs",
               "ex2", "lg2", "sin", "cos", "tanh", "testp", "setp", "set", "selp", "copysign", "cvt"}
_PTX_INT_OPS = {"add", "sub", "mul", "mad", "mul24", "mad24", "div", "rem", "min", "max", "neg", "abs", "and",
                "or", "xor", "not", "shl", "shr", "shf", "setp", "set", "selp", "popc", "clz", "brev", "bfe",
                "bfi", "prmt", "lop3", "sad", "dp4a", "dp2a", "cnot", "fns", "bmsk", "szext"}


def ptx_mix(function) -> dict:
    """The mix of a PTX function (ir.Function)."""
    counts: Counter = Counter()
    for ins in function.instructions:
        op, space = ins.op, ins.space
        t = ins.type or ""
        if op in ("ld", "ldu"):
            counts[f"load.{_ptx_space(space)}"] += 1
        elif op == "st":
            counts[f"store.{_ptx_space(space)}"] += 1
        elif op in ("atom", "red"):
            counts["atomic.shared" if space == "shared" else "atomic.global"] += 1
        elif op in ("bar", "barrier"):
            counts["barrier"] += 1
        elif op in ("shfl", "vote", "match", "redux"):
            counts["warp"] += 1
        elif op in ("mma", "wmma", "wgmma", "tcgen05"):
            counts["tensor"] += 1
        elif op in ("bra", "brx"):
            counts["branch"] += 1
        elif t.startswith("f64") and op in _PTX_FP_OPS:
            counts["fp64"] += 1
        elif (t.startswith("f16") or t.startswith("bf16")) and op in _PTX_FP_OPS:
            counts["fp16"] += 1
        elif t.startswith("f32") and op in _PTX_FP_OPS:
            counts["fp32"] += 1
        elif t[:1] in ("s", "u", "b") and op in _PTX_INT_OPS:
            counts["int"] += 1
    return {c: counts[c] for c in CATEGORIES}


def _ptx_space(space) -> str:
    if space in ("global", "shared", "local", "const"):
        return space
    if space == "param":
        return "const"  # kernel parameters live in the constant bank
    return "generic" if space is None else "global"


_SASS_LOAD = {"LDG": "global", "LDS": "shared", "LDSM": "shared", "LDL": "local", "LDC": "const",
              "ULDC": "const", "LDCU": "const", "LD": "generic", "LDGSTS": "global", "UTMALDG": "global",
              "UBLKCP": "global"}
_SASS_STORE = {"STG": "global", "STS": "shared", "STSM": "shared", "STL": "local", "ST": "generic",
               "UTMASTG": "global"}
_SASS_ATOMIC = {"ATOMG": "global", "ATOM": "global", "RED": "global", "REDG": "global", "ATOMS": "shared"}
_SASS_FP32 = {"FADD", "FMUL", "FFMA", "FMNMX", "FSETP", "FSEL", "FSET", "MUFU", "FCHK", "FSWZADD", "FADD32I",
              "FMUL32I", "FFMA32I", "FRND", "F2F", "F2I", "I2F", "I2FP", "F2IP", "FMNMX3", "FADD2", "FFMA2", "FMUL2"}
_SASS_FP64 = {"DADD", "DMUL", "DFMA", "DSETP", "DMNMX"}
_SASS_FP16 = {"HADD2", "HMUL2", "HFMA2", "HSETP2", "HMNMX2", "HSET2", "HADD2_F32", "HFMA2_MMA"}
_SASS_INT = {"IMAD", "IADD3", "IADD", "LEA", "LOP3", "LOP", "SHF", "SHL", "SHR", "ISETP", "IMNMX", "VIADD",
             "VIMNMX", "VIADDMNMX", "POPC", "FLO", "BREV", "PRMT", "SEL", "IABS", "IMUL", "IDP", "IDP4A",
             "BMSK", "SGXT", "UIADD3", "UIMAD", "ULEA", "ULOP3", "USHF", "UISETP", "USEL", "UPRMT", "UFLO",
             "UPOPC", "UBREV", "UBMSK", "USGXT", "UIMNMX", "IMNMX3", "IADD32I", "IMUL32I", "LOP32I", "ISCADD"}
_SASS_TENSOR = {"HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA", "UTCHMMA", "UTCIMMA",
                "UTCQMMA", "UTCOMMA", "UTCMMA", "OMMA", "QMMA"}
_SASS_WARP = {"SHFL", "VOTE", "VOTEU", "MATCH", "REDUX", "CREDUX"}
_SASS_BRANCH = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "BRXU", "JMXU"}


def sass_mix(function) -> dict:
    """The mix of a SASS function (sass.ir.SassFunction)."""
    counts: Counter = Counter()
    for ins in function.instructions:
        base = ins.base
        if base in _SASS_LOAD:
            counts[f"load.{_SASS_LOAD[base]}"] += 1
        elif base in _SASS_STORE:
            counts[f"store.{_SASS_STORE[base]}"] += 1
        elif base in _SASS_ATOMIC:
            counts[f"atomic.{_SASS_ATOMIC[base]}"] += 1
        elif base == "BAR" or base == "UCGABAR_WAIT":
            counts["barrier"] += 1
        elif base in _SASS_WARP:
            counts["warp"] += 1
        elif base in _SASS_TENSOR:
            counts["tensor"] += 1
        elif base in _SASS_BRANCH:
            # the self-loop `BRA` after EXIT is padding, never executed
            if not (base == "BRA" and ins.index and function.instructions[ins.index - 1].base == "EXIT"
                    and ins.operands and ins.operands[0].name in function.labels
                    and function.labels[ins.operands[0].name] == ins.index):
                counts["branch"] += 1
        elif base in _SASS_FP64:
            counts["fp64"] += 1
        elif base in _SASS_FP16:
            counts["fp16"] += 1
        elif base in _SASS_FP32:
            counts["fp32"] += 1
        elif base in _SASS_INT:
            counts["int"] += 1
    return {c: counts[c] for c in CATEGORIES}
