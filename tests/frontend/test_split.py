"""A large PTX file is parsed and checked in parts, in parallel: the parts must add up to exactly
the findings of the whole file."""

import re

import pytest

from support import SAMPLES, VALIDATION, committed_ptx_files
from ptxlint import api, module_check
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.frontend.parser import parse_ptx, parse_ptx_file
from ptxlint.frontend.split import outline, part_text, scheduled_parts
from ptxlint.rules.registry import resolve_selection

TRICKY = """.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 r) helper(.param .b32 a);
// .entry in a comment { starts nothing
.global .align 4 .b8 data[4] = {1, 2, 3, 4};
.visible .entry first(.param .u64 p)
.maxntid 32, 1, 1
{
	.reg .b32 %r<3>;
	// a brace in a comment: }
	/* and in a block comment: } */
	{
	.reg .b32 inner;
	mov.u32 inner, 1;
	}
	ret;
}
.func (.param .b32 r) helper(.param .b32 a)
{
	ret;
}
	.file	1 "dir{with}braces/k.cu"
	.section	.debug_str
	{
$L__info_string0:
.b8 107,0
	}
"""


def test_spans_cover_definitions_only():
    spans = outline(TRICKY).functions
    assert [re.search(r"(\w+)\(", TRICKY[s:e]).group(1) for s, e, _ in spans] == ["first", "helper"]
    assert all(TRICKY[e - 1] == "}" for _, e, _ in spans)
    assert [TRICKY[s:e].split()[1] for s, e, _ in outline(TRICKY).sections] == [".debug_str"]


def test_a_part_keeps_line_numbers_and_module_level_declarations():
    layout = outline(TRICKY)
    whole = parse_ptx(TRICKY)
    for keep, with_sections in (({0}, True), ({1}, False)):
        text = part_text(TRICKY, layout, keep, with_sections)
        assert text.count("\n") == TRICKY.count("\n")
        module = parse_ptx(text)
        kept = [f for f in module.functions if f.has_body]
        original = [f for f in whole.functions if f.has_body][next(iter(keep))]
        assert [f.name for f in kept] == [original.name]
        assert [i.ptx_line for i in kept[0].instructions] == [i.ptx_line for i in original.instructions]
        assert module.variables == whole.variables and module.files == whole.files
        assert module.sections == (whole.sections if with_sections else {})


def test_unclosed_body_is_not_split():
    assert outline(".version 8.0\n.visible .entry k()\n{\n\tret;\n") is None


def test_parts_shrink_towards_the_end():
    sizes = [100, 10, 50, 50, 5, 20, 5]
    spans, pos = [], 0
    for size in sizes:
        spans.append((pos, pos + size, 0))
        pos += size
    parts = scheduled_parts(spans, 2)
    assert sorted(k for p in parts for k in p) == list(range(len(sizes)))
    assert [sorted(p) for p in parts] == [[0], [2], [3], [5], [1], [4], [6]]


@pytest.mark.parametrize("path", [VALIDATION / "bank" / "bank_suite.sm_90.ptx", SAMPLES / "reduce_warp_tail.sm_90.G.ptx",
                                  SAMPLES / "barriers.sm_90.ptx"], ids=lambda p: p.name)
def test_checking_in_parts_finds_what_the_whole_file_gives(path, monkeypatch):
    monkeypatch.setattr(module_check, "PARALLEL_MIN_BYTES", 0)  # read where it is defined
    rules = resolve_selection([], [])
    whole = api.check_module(parse_ptx_file(str(path)), rules=rules)
    in_parts = api._check_ptx_in_parts(str(path), rules, AnalysisOptions(), jobs=2)
    assert in_parts is not None
    assert [d.to_dict() for d in in_parts[0]] == [d.to_dict() for d in whole]


def test_every_committed_ptx_splits_into_its_functions():
    for path in committed_ptx_files():
        text = path.read_text()
        layout = outline(text)
        whole = parse_ptx(text, str(path))
        names = [f.name for f in whole.functions if f.has_body]
        assert len(layout.functions) == len(names) and len(layout.sections) == len(whole.sections), path
        for k, name in enumerate(names):
            module = parse_ptx(part_text(text, layout, {k}, with_sections=k == 0), str(path))
            assert [f.name for f in module.functions if f.has_body] == [name], path


def test_a_file_that_does_not_parse_is_left_to_the_whole_file_parse(tmp_path, monkeypatch):
    monkeypatch.setattr(module_check, "PARALLEL_MIN_BYTES", 0)  # read where it is defined
    bad = tmp_path / "bad.ptx"
    bad.write_text(TRICKY.replace("ret;\n}\n.func", "ret\n}\n.func"))
    assert api._check_ptx_in_parts(str(bad), resolve_selection([], []), AnalysisOptions(), jobs=2) is None
