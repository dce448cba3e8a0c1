"""SASS listings (nvdisasm -g -c) parse completely into the SASS IR: every instruction, with its
kernel and source line, and nothing skipped."""

import re
import subprocess

import pytest

from sass_support import committed_listings, needs_tools
from support import REPO, committed_ptx_files
from ptxlint.errors import InputError
from ptxlint.frontend.sass.parser import decode_instruction, parse_instruction, parse_sass
from ptxlint.frontend.sass.tools import assemble, disassemble

_INSTRUCTION_LINE = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+\S", re.MULTILINE)

LISTINGS = committed_listings()


def test_committed_listings_cover_the_architectures():
    names = {n for n, _ in LISTINGS}
    assert len(LISTINGS) >= 8
    text = "".join(t for _, t in LISTINGS)
    for arch in ("sm_75", "sm_90", "sm_90a", "sm_100a"):
        assert f".target\t{arch}\n" in text, arch
    assert "occupancy_suite.sm_90.sass.gz" in names and "smem_patterns_h100.sm_90.sass.gz" in names


@pytest.mark.parametrize("name,text", LISTINGS, ids=[n for n, _ in LISTINGS])
def test_every_instruction_of_a_committed_listing_is_read(name, text):
    module = parse_sass(text, name)
    instructions = [i for f in module.functions for i in f.instructions]
    assert len(instructions) == len(_INSTRUCTION_LINE.findall(text))
    assert module.arch and module.kernels
    for f in module.functions:
        assert all(i.function == f.name for i in f.instructions)
        offsets = [i.offset for i in f.instructions]
        assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    with_lines = [i for i in instructions if i.line]
    assert len(with_lines) >= 0.9 * len(instructions)  # -lineinfo: nearly every instruction has its line


@pytest.mark.parametrize("name,text", LISTINGS, ids=[n for n, _ in LISTINGS])
def test_the_fast_decoder_reads_instructions_as_the_grammar_does(name, text):
    bodies = sorted({m.group(1) for m in re.finditer(r"^\s*/\*[0-9a-f]+\*/\s+([^\n]*;)", text, re.MULTILINE)})
    for body in bodies:
        g_guard, g_neg, g_op, g_operands = parse_instruction(body)
        d_guard, d_neg, d_op, d_operands = decode_instruction(body)
        assert (g_guard, g_neg, g_op) == (d_guard, d_neg, d_op), body
        assert [(o.kind, o.text) for o in g_operands] == [(o.kind, o.text) for o in d_operands], body


def test_operands_keep_their_structure():
    module = parse_sass(
        '\t.target\tsm_90\n\t.section\t.text._Z1kv,"ax",@progbits\n\t.other\t_Z1kv,@"STO_CUDA_ENTRY STV_DEFAULT"\n'
        '_Z1kv:\n\t//## File "/src/k.cu", line 7\n'
        '        /*0000*/              @!P0 LDS.128 R8, [R4.X4+UR4+-0x10] ;\n'
        '        /*0010*/                   LDG.E.64.CONSTANT R2, desc[UR4][R2.64+0x400] ;\n'
        '        /*0020*/                   IMAD R9, R0.reuse, c[0x0][0x0], -R11 ;\n'
        '.L_x_0:\n        /*0030*/                   BRA `(.L_x_0) ;\n', "k.sass")
    f = module.kernels[0]
    lds, ldg, imad, bra = f.instructions
    assert (lds.guard, lds.guard_negated, lds.base, lds.modifiers) == ("P0", True, "LDS", ["128"])
    addr = lds.memory_operand().address
    assert (addr.registers, addr.uniform, addr.offset) == (["R4.X4"], ["UR4"], -16)
    desc = ldg.memory_operand()
    assert desc.kind == "desc" and desc.bank == "UR4" and desc.address.registers == ["R2.64"] and desc.address.offset == 0x400
    assert [o.kind for o in imad.operands] == ["reg", "reg", "const", "reg"]
    assert imad.operands[1].modifiers == (".reuse",) and imad.operands[3].modifiers == ("-",)
    assert imad.operands[2].bank == "0x0" and imad.operands[2].address.offset == 0
    assert bra.operands[0].kind == "target" and f.labels[".L_x_0"] == 3
    assert (lds.path, lds.line, lds.function) == ("/src/k.cu", 7, "_Z1kv")


def test_an_unknown_construct_is_an_error_with_its_line_not_skipped():
    text = '\t.section\t.text.k,"ax",@progbits\nk:\n        /*0000*/                   LDS R0, [R1 * 4] ;\n'
    with pytest.raises(InputError) as err:
        parse_sass(text, "bad.sass")
    assert err.value.line == 3 and "R1 * 4" in err.value.message
    with pytest.raises(InputError) as err:
        parse_sass('\t.section\t.text.k,"ax",@progbits\nk:\n        what is this\n', "bad.sass")
    assert err.value.line == 3


@needs_tools
@pytest.mark.parametrize("ptx", committed_ptx_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_the_sass_of_every_committed_ptx_parses(ptx):
    text = ptx.read_text()
    arch = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.MULTILINE).group(1)
    if arch in ("sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72"):
        pytest.skip(f"{arch}: older than ptxas 13 assembles")
    listing = disassemble(assemble(text, arch, str(ptx)).cubin)
    module = parse_sass(listing, str(ptx))
    assert sum(len(f.instructions) for f in module.functions) == len(_INSTRUCTION_LINE.findall(listing))
    assert {f.name for f in module.kernels} >= {f.name for f in __import__("ptxlint.api", fromlist=["x"]).load_module(str(ptx)).kernels}


@needs_tools
def test_the_sass_of_the_cub_module_parses(cub_ptx):
    listing = disassemble(assemble(cub_ptx.read_text(), "sm_90", str(cub_ptx)).cubin)
    module = parse_sass(listing, str(cub_ptx))
    assert sum(len(f.instructions) for f in module.functions) == len(_INSTRUCTION_LINE.findall(listing))
    assert len(module.kernels) >= 40
