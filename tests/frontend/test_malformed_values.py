"""Malformed values that used to crash an analysis (MemoryError, ValueError, IndexError: issue 12)
are input errors at their line: `path:line: message`, exit status 2, no traceback."""

import json

import pytest

from support import run_cli
from ptxlint.errors import InputError
from ptxlint.frontend.parser import parse_ptx

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def kernel(body: str, directives: str = "") -> str:
    return (HEADER + f".visible .entry k(\n\t.param .u32 k_param_0\n){directives}\n{{\n"
            "\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\tmov.u32 %r1, %tid.x;\n" + body + "\n\tret;\n}\n")


BIG = "9" * 5000  # more digits than Python reads as an int

CASES = {
    # a block of 67 million threads: the analysis enumerated them one tuple each
    "maxntid_too_many_threads": (kernel("", "\n.maxntid 1024, 1024, 64"), ".maxntid", "at most 1024"),
    "reqntid_zero": (kernel("", "\n.reqntid 0, 1, 1"), ".reqntid", "positive thread counts"),
    "address_size": (HEADER.replace(".address_size 64", ".address_size 48") + kernel(""), ".address_size 48",
                     "expected 32 or 64"),
    "negative_file_number": (kernel("") + '.file -1 "k.cu"\n', ".file", "not negative"),
    "huge_file_number": (kernel("") + f'.file {BIG} "k.cu"\n', ".file", "bad integer"),
    "huge_operand": (kernel(f"\tadd.s32 %r2, %r1, {BIG};"), "add.s32 %r2", "is not an integer"),
    "huge_array": (kernel("").replace("\t.reg .b32", f"\t.shared .b8 s[{BIG}];\n\t.reg .b32"), ".shared",
                   "bad integer"),
    "huge_loc": (kernel(f"\t.loc 1 {BIG} 1\n\tadd.s32 %r2, %r1, 1;"), ".loc", "malformed .loc"),
    "setp_missing_operand": (kernel("\tsetp.lt.s32 %p1, %r1;"), "setp", "`setp` takes at least 3 operands, found 2"),
    "add_missing_operand": (kernel("\tadd.s32 %r2, %r1;"), "add.s32", "`add` takes at least 3"),
    "shl_missing_operand": (kernel("\tshl.b32 %r2;"), "shl.b32", "`shl` takes at least 3"),
    # found by the long fuzz run (bench/fuzz_runs, run 3): a byte flip turned `%r10` into `%r,0`
    "add_extra_operand": (kernel("\tadd.s32 %r2, %r,0, %r1;"), "add.s32", "`add` takes at most 3 operands, found 4"),
    "nested_too_deep": (kernel("\tmov.b32 %r2, " + "(" * 4000 + "%r1" + ")" * 4000 + ";"), "mov.b32 %r2", "nested more than"),
}


def line_of(text: str, snippet: str) -> int:
    return text[:text.index(snippet)].count("\n") + 1


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_value_is_an_input_error_at_its_line(name):
    text, snippet, words = CASES[name]
    with pytest.raises(InputError) as caught:
        parse_ptx(text, "bad.ptx")
    assert caught.value.line == line_of(text, snippet) and words in caught.value.message, caught.value
    assert len(caught.value.message) < 200


def test_the_cli_says_where_and_exits_2(tmp_path):
    bad = tmp_path / "bad.ptx"
    bad.write_text(CASES["maxntid_too_many_threads"][0])
    proc = run_cli("check", "--no-cache", "--format", "json", bad)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    [error] = json.loads(proc.stdout)["errors"]
    line = line_of(CASES["maxntid_too_many_threads"][0], ".maxntid")
    assert error["line"] == line and "67108864 threads" in error["message"]
    text = run_cli("check", "--no-cache", bad)
    assert text.stderr.startswith(f"{bad}:{line}:1: ")  # an input error: on stderr in text form


def test_valid_bounds_still_parse():
    module = parse_ptx(kernel("\tsetp.lt.and.s32 %p1, %r1, 7, %p2;", "\n.maxntid 32, 32, 1"))
    assert module.functions[0].maxntid == (32, 32, 1)
