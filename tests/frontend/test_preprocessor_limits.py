"""Launch discovery's preprocessor is bounded in files and tokens, not only in include depth: host
code written to blow it up still finishes quickly, and the launches outside the bomb are still found
(issue 18)."""

import time

from ptxlint.frontend.cpp_preprocess import Preprocessor, preprocess
from ptxlint.frontend.launches import find_launches

LAUNCH = "__global__ void k() {}\nint main() { k<<<1, 128>>>(); }\n"


def test_a_header_that_includes_itself_twice_without_a_guard(tmp_path):
    # 2^40 inclusions at the depth limit without a cap on files
    (tmp_path / "h.cuh").write_text('#include "h.cuh"\n#include "h.cuh"\nint x;\n')
    (tmp_path / "a.cu").write_text('#include "h.cuh"\n' + LAUNCH)
    start = time.process_time()
    pp = preprocess(str(tmp_path / "a.cu"))
    assert time.process_time() - start < 10
    assert len(pp.files) <= Preprocessor.MAX_FILES + 1
    assert any("#include skipped: more than" in n for n in pp.notes)
    [launch] = find_launches(str(tmp_path / "a.cu"))
    assert launch.kernel == "k" and launch.block == (128, 1, 1)


def test_a_macro_that_doubles_at_each_level(tmp_path, monkeypatch):
    monkeypatch.setattr(Preprocessor, "MAX_TOKENS", 20_000)  # the cap's behaviour, without its full cost
    bomb = "".join(f"#define M{i} M{i + 1} M{i + 1}\n" for i in range(40))  # M0: 2^40 tokens
    (tmp_path / "b.cu").write_text(bomb + "int y = M0;\n" + LAUNCH)
    start = time.process_time()
    pp = preprocess(str(tmp_path / "b.cu"))
    assert time.process_time() - start < 10
    assert len(pp.tokens) < 1000
    assert any("macro expansion stopped" in n for n in pp.notes)
    [launch] = find_launches(str(tmp_path / "b.cu"))
    assert launch.block == (128, 1, 1)


def test_ordinary_macros_are_still_expanded():
    pp = preprocess("c.cu", "#define A(x) x x\n#define B A(1) A(2)\nB\n")
    assert [t.text for t in pp.tokens] == ["1", "1", "2", "2"] and pp.notes == []
