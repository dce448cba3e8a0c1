"""How many operands the instructions that ptxlint interprets take: one with fewer is malformed PTX
(ptxas rejects it) and is reported at its line, instead of reaching an analysis that reads an
operand that is not there.

Lower bounds for the opcodes whose operands the analyses read by position, and upper bounds for
those of them whose every form has a fixed count (`add d, a, b, c` is as malformed as `add d, a`);
any other opcode is accepted as written.
"""

from __future__ import annotations

from typing import Optional

# opcode -> fewest operands (destination included)
_MINIMUM = {
    "mov": 2, "cvt": 2, "cvta": 2, "neg": 2, "not": 2, "abs": 2, "popc": 2, "clz": 2, "brev": 2, "cnot": 2,
    "add": 3, "sub": 3, "mul": 3, "div": 3, "rem": 3, "and": 3, "or": 3, "xor": 3, "shl": 3, "shr": 3,
    "min": 3, "max": 3, "setp": 3, "set": 3,
    "mad": 4, "selp": 4, "bfe": 4, "prmt": 4, "slct": 4,
    "bfi": 5,
    "ld": 2, "ldu": 2, "st": 2, "atom": 3, "red": 2, "shfl": 4,
    "bra": 1, "brx": 2, "call": 1,
}


# opcode -> most operands, for the ones with a fixed count in every form (min/max are not: sm_90
# has three-input forms)
_MAXIMUM = {
    "add": 3, "sub": 3, "mul": 3, "div": 3, "rem": 3, "and": 3, "or": 3, "xor": 3, "shl": 3, "shr": 3,
    "not": 2, "neg": 2, "cnot": 2, "mad": 4, "selp": 4,
}


def missing_operands(op: str, modifiers: tuple, count: int) -> Optional[str]:
    """Why an instruction with `count` operands is malformed, or None when it is not."""
    most = _MAXIMUM.get(op)
    if most is not None and count > most:
        return f"`{op}` takes at most {most} operands, found {count}"
    need = _MINIMUM.get(op)
    if need is None:
        return None
    if op == "setp" and any(m in ("and", "or", "xor") for m in modifiers):
        need = 4  # setp.lt.and.s32 p, a, b, c
    if op == "shfl" and "sync" in modifiers:
        need = 5  # shfl.sync.bfly.b32 d, a, b, c, membermask
    if op == "mov" and count == 1:
        need = 2
    if count >= need:
        return None
    return f"`{op}` takes at least {need} operand{'s' if need != 1 else ''}, found {count}"
