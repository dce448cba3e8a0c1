"""The parser reads every PTX nvcc emits and keeps every instruction."""

import re

import pytest

from support import SAMPLES, committed_ptx_files
from ptxlint.frontend import ir
from ptxlint.errors import InputError
from ptxlint.frontend.parser import parse_ptx, parse_ptx_file

PTX_FILES = committed_ptx_files()


def line_level_instruction_counts(text: str) -> dict:
    """Count instructions per function with plain text processing, independent of the grammar."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = (line.split("//", 1)[0] for line in text.split("\n"))
    # `.loc` and `.file` end at the line, not at a ';'
    text = "\n".join(line for line in lines if not line.strip().startswith((".loc", ".file")))
    counts = {}
    header = re.compile(r"\.(entry|func)\s*(?:\([^)]*\))?\s*([\w$]+)")
    pos = 0
    while True:
        m = header.search(text, pos)
        if not m:
            break
        name = m.group(2)
        # the body starts at the first '{' before any ';' that ends a declaration
        i = m.end()
        depth_paren = 0
        while i < len(text):
            ch = text[i]
            if ch == "(":
                depth_paren += 1
            elif ch == ")":
                depth_paren -= 1
            elif depth_paren == 0 and ch in "{;":
                break
            i += 1
        if i >= len(text) or text[i] == ";":
            pos = i + 1
            continue
        depth, j = 0, i
        while True:
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        body = text[i + 1 : j]
        n = 0
        for piece in body.split(";"):
            piece = re.sub(r"^(\s*([\w$]+:(?!:)|[{}]))*", "", piece).strip()
            piece = re.sub(r"^([\s{}]|[\w$]+:(?!:))*", "", piece).strip()
            if not piece or piece.startswith(".") or ".callprototype" in piece:
                continue
            n += 1
        counts[name] = n
        pos = j
    return counts


@pytest.mark.skipif(not PTX_FILES, reason="no committed PTX yet")
@pytest.mark.parametrize("path", PTX_FILES, ids=lambda p: p.name)
def test_committed_ptx_parses_and_keeps_every_instruction(path):
    module = parse_ptx_file(str(path))
    expected = line_level_instruction_counts(path.read_text())
    got = {f.name: len(f.instructions) for f in module.functions if f.has_body}
    assert got == expected
    assert module.version and module.target
    for f in module.functions:
        for ins in f.instructions:
            assert ins.op and ins.ptx_line > 0


def test_there_are_committed_ptx_files_for_many_targets():
    targets = set()
    for path in PTX_FILES:
        head = path.read_text()[:2000]
        m = re.search(r"^\.target\s+(\w+)", head, re.M)
        if m:
            targets.add(m.group(1))
    assert {"sm_80", "sm_90"} <= targets


SMALL = """
.version 8.8
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.const .align 4 .f32 coef[2] = {0f3F800000, 0f40000000};
.visible .entry k(
    .param .u64 .ptr .global .align 4 k_param_0,
    .param .u32 k_param_1
)
.reqntid 128, 1, 1
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 tile[4096];
    .loc 1 10 5
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @!%p1 bra $L__BB0_2;
    .loc 2 3 7, function_name $L__info_string0, inlined_at 1 11 9
    ld.volatile.shared.v4.u32 {%r2, %r3, %r4, %r5}, [tile+16];
    shfl.sync.bfly.b32 %r6|%p2, %r2, 16, 31, -1;
$L__BB0_2:
    { .reg .b32 t; mov.b32 t, %r1; st.shared.u32 [%r1+-4], t; }
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r1];
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%rd1], %r2;
    bar.sync 0;
    ret;
}
.file 1 "/src/k.cu"
.file 2 "/src/helpers.cuh"
"""


def test_instruction_parts_and_source_locations():
    module = parse_ptx(SMALL, "small.ptx")
    (kernel,) = module.kernels
    assert kernel.reqntid == (128, 1, 1)
    assert kernel.params[0].pointer_space == "global" and kernel.params[0].align == 4
    assert [v.name for v in kernel.variables] == ["tile"]
    assert kernel.variables[0].size_bytes == 4096
    dyn = module.variable("dyn")
    assert dyn.space == "shared" and dyn.array_dims == (None,) and dyn.linkage == "extern"
    ops = {i.opcode: i for i in kernel.instructions}
    ld = ops["ld.volatile.shared.v4.u32"]
    assert (ld.op, ld.space, ld.vector, ld.type, ld.qualifiers) == ("ld", "shared", 4, "u32", ("volatile",))
    assert ld.operands[1] == ir.Address(ir.Symbol("tile"), 16)
    assert ld.loc.file == "/src/helpers.cuh" and ld.loc.line == 3
    assert ld.loc.inlined_at == ir.SourceLocation("/src/k.cu", 11, 9)
    bra = ops["bra"]
    assert bra.guard == ir.Register("%p1") and bra.guard_negated
    shfl = ops["shfl.sync.bfly.b32"]
    assert shfl.operands[0] == ir.PairOperand(ir.Register("%r6"), ir.Register("%p2"))
    assert shfl.operands[-1] == ir.Immediate(-1, "-1")
    st = ops["st.shared.u32"]
    assert st.operands == (ir.Address(ir.Register("%r1"), -4), ir.Register("t"))  # inline-asm register
    assert ops["mbarrier.try_wait.parity.shared::cta.b64"].space == "shared"
    assert kernel.labels["$L__BB0_2"] == 5
    assert [len(b.instructions) for b in kernel.blocks] == [3, 2, 6]
    assert module.variable("coef").initializer[0].value == 1.0


def test_debug_sections_and_declarations_without_body():
    text = """
.version 9.0
.target sm_90, debug
.address_size 64
.func (.param .b32 func_retval0) __iAtomicAdd
(
    .param .b64 __iAtomicAdd_param_0,
    .param .b32 __iAtomicAdd_param_1
)
;
.global .align 8 .u64 table[2] = {generic(x), x+8};
.global .texref tex0;
.section .debug_abbrev
{
.b8 1
.b8 17,1
.b32 .debug_abbrev
$L__info_string0:
.b64 $L__func_begin0
}
"""
    module = parse_ptx(text, "d.ptx")
    (func,) = module.functions
    assert not func.has_body and func.return_params[0].name == "func_retval0"
    assert module.sections == {".debug_abbrev": 5}
    assert module.variable("tex0").type == "texref"


def test_inlining_chains_follow_every_level():
    text = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
    .loc 1 342 5
    .loc 3 341 9, function_name $L__info_string1, inlined_at 1 342 5
    .loc 4 499 13, function_name $L__info_string2, inlined_at 3 341 9
    .loc 5 177 3, function_name $L__info_string3, inlined_at 4 499 13
    barrier.cluster.arrive;
    ret;
}
.file 1 "/src/k.cu"
.file 3 "/cuda/include/cooperative_groups.h"
.file 4 "/cuda/include/cooperative_groups/details/helpers.h"
.file 5 "/cuda/include/sm_90_rt.hpp"
"""
    (kernel,) = parse_ptx(text, "chain.ptx").kernels
    loc = kernel.instructions[0].loc
    chain = []
    while loc is not None:
        chain.append((loc.file.rsplit("/", 1)[-1], loc.line))
        loc = loc.inlined_at
    assert chain == [("sm_90_rt.hpp", 177), ("helpers.h", 499), ("cooperative_groups.h", 341), ("k.cu", 342)]


def test_performance_directives_and_rdc_declarations_from_nvcc():
    module = parse_ptx_file(str(SAMPLES / "ptx_directives.sm_90.ptx"))
    kernels = {k.name: k for k in module.kernels}
    bounded = kernels["_Z13boundedKernelPfyy"]
    assert bounded.maxntid == (256, 1, 1) and bounded.directives["minnctapersm"] == 2
    assert [p.name for p in bounded.params] == ["_Z13boundedKernelPfyy_param_0", "_Z13boundedKernelPfyy_param_1",
                                               "_Z13boundedKernelPfyy_param_2"]
    assert kernels["_Z14registerCappedPf"].directives["maxnreg"] == 64
    fixed = kernels["_Z12clusterFixedPf"]
    assert fixed.directives["reqnctapercluster"] == (2, 1, 1) and "explicitcluster" in fixed.directives
    assert kernels["_Z14clusterBoundedPf"].directives["maxclusterrank"] == 4
    assert {"tex", "sust", "trap"} <= {i.op for f in module.functions for i in f.instructions}
    assert module.variable("coefficients").space == "const"

    rdc = parse_ptx_file(str(SAMPLES / "ptx_directives.sm_90.rdc.ptx"))
    assert rdc.variable("counter").linkage == "visible"
    declared_only = [f.name for f in rdc.functions if not f.has_body]
    assert "scale_alias" in declared_only


def test_declarations_nvcc_13_no_longer_emits():
    """`.target sm_50`, texture/surface/sampler references, `.common`/`.weak` variables, `.alias`,
    `.noreturn` and an inline-asm scope with its own `.reg` (written from the PTX ISA's syntax:
    nvcc 13 cannot target sm_50 and emits none of these for the samples)."""
    from pathlib import Path

    module = parse_ptx_file(str(Path(__file__).with_name("data") / "declarations_sm_50.ptx"))
    assert module.target == ("sm_50",)
    linkage = {v.name: v.linkage for v in module.variables}
    assert linkage == {"tex_a": None, "surf_a": None, "samp_a": None, "shared_counter": "common",
                       "weak_word": "weak"}
    assert module.aliases == [("alias_fn", "impl_fn")]
    functions = {f.name: f for f in module.functions}
    assert functions["fail"].directives == {"noreturn": True} and not functions["alias_fn"].has_body
    kernel = functions["k"]
    assert kernel.directives == {"maxntid": (128, 1, 1), "minnctapersm": 4}
    assert [i.opcode for i in kernel.instructions] == ["ld.param.u64", "mov.u32", "mov.b32", "mov.b32",
                                                       "st.global.u32", "ret"]


RUN = """
.version 8.8
.target sm_90
.address_size 64
.visible .func (.param .b32 r) callee(.param .b32 a);
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<9>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x; add.s32 %r2, %r1, 1;
    .loc 1 7 3
    mul.lo.s32 %r3, %r2, 4;
    .loc 1 8 5
    add.s32 %r4, %r3,
        %r1;
    mov.u64 %rd1, callee;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    mov.u32 %r5, %r4;
    ret;
}
.file 1 "/src/k.cu"
"""


def test_a_run_of_instructions_keeps_each_ones_line_and_location():
    # the parser lexes consecutive instructions (and the .loc lines between them) as one token:
    # each instruction must still get its own PTX line, source location and operands
    (kernel,) = parse_ptx(RUN, "run.ptx").kernels
    got = [(i.opcode, i.ptx_line, i.loc.line if i.loc else None) for i in kernel.instructions]
    assert got == [("mov.u32", 10, None), ("add.s32", 10, None), ("mul.lo.s32", 12, 7), ("add.s32", 14, 8),
                   ("mov.u64", 16, 8), ("mov.u32", 18, 8), ("ret", 19, 8)]
    assert kernel.instructions[3].operands[2] == ir.Register("%r1")  # operands across a line break
    assert "proto" in kernel.callprototypes  # right after an instruction: not taken for one


def test_an_error_inside_a_run_of_instructions_points_at_its_own_line_and_column():
    bad = RUN.replace("mov.u32 %r5, %r4;", "mov.u32 %r5, %r4; add.s32 %r6, %r5, #;")
    with pytest.raises(InputError) as err:
        parse_ptx(bad, "run.ptx")
    assert (err.value.line, err.value.column) == (18, 41)


def test_the_first_error_in_the_file_is_reported_even_when_a_run_of_instructions_precedes_a_later_one():
    # a run of instructions is built once the token after it is lexed: a bad operand inside it must
    # still win over a syntax error after it
    bad = RUN.replace("mul.lo.s32 %r3, %r2, 4;", "mul.lo.s32 %r3, %r2 = 4;").replace("proto :", "proto ::")
    with pytest.raises(InputError) as err:
        parse_ptx(bad, "run.ptx")
    assert err.value.line == 12 and "'='" in str(err.value)


def test_a_file_cut_short_is_reported_where_it_ends():
    cut = RUN[: RUN.index("mov.u64")].rstrip()
    with pytest.raises(InputError) as err:
        parse_ptx(cut, "run.ptx")
    assert "end of file" in str(err.value)
    assert (err.value.line, err.value.column) == (15, 13)  # just after `        %r1;`
