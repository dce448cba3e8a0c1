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


def test_the_tokens_kept_between_sources_stay_bounded(tmp_path, monkeypatch):
    """Launch discovery keeps the tokens of headers it read for the next source; a tree of many large
    distinct headers must not pile them up in memory, and a header over the per-file bound is not kept."""
    from ptxlint.frontend import cpp_preprocess as cpp

    # the bounds' behaviour, at a scale that runs quickly
    monkeypatch.setattr(cpp, "_TOKENS_KEPT_FILE_CHARS", 2000)
    monkeypatch.setattr(cpp, "_TOKENS_KEPT_CHARS", 8000)
    monkeypatch.setattr(cpp, "_TOKENS_OF_FILES", {})
    monkeypatch.setattr(cpp, "_tokens_kept_chars", 0)
    (tmp_path / "big.cuh").write_text("int a = 1;\n" * 300)
    for n in range(12):
        (tmp_path / f"h{n}.cuh").write_text(f"// {n}\n" + "int b = 2;\n" * 150)
        (tmp_path / f"s{n}.cu").write_text(f'#include "big.cuh"\n#include "h{n}.cuh"\n' + LAUNCH)
        [launch] = find_launches(str(tmp_path / f"s{n}.cu"))
        assert launch.block == (128, 1, 1)
        kept = sum(len(text) for _, text in cpp._TOKENS_OF_FILES)
        assert kept <= 8000 and kept == cpp._tokens_kept_chars
        assert all(not path.endswith("big.cuh") for path, _ in cpp._TOKENS_OF_FILES)
    assert any(path.endswith("h11.cuh") for path, _ in cpp._TOKENS_OF_FILES)


def test_thousands_of_using_directives_in_a_body_do_not_slow_every_lookup():
    # every name lookup tries the body's `using namespace` directives: only the first few are kept
    n = 20_000
    src = ("".join(f"namespace n{i} {{ }}\n" for i in range(n)) + "__global__ void k(int a) {}\nconst int T = 128;\n"
           + "int main() {\n" + "".join(f"using namespace n{i};\n" for i in range(n))
           + "".join(f"k<<<1, T>>>({i});\n" for i in range(2000)) + "}\n")
    start = time.process_time()
    found = find_launches("bomb.cu", text=src)
    assert time.process_time() - start < 10
    assert len(found) == 2000 and all(l.block == (128, 1, 1) for l in found)


def test_variables_assigned_many_times_from_each_other_end_quickly():
    # v0 += v1 twenty times, v1 += v2 twenty times, ...: reading whether v0 is a multiple of the
    # launch branches at every variable; the reading is bounded and the launch is still found
    lines = [f"unsigned v{j} = 0;" for j in range(4)] + ["unsigned v4 = g * b;"]
    for j in reversed(range(4)):
        lines += [f"v{j} += v{j + 1};"] * 20
    src = ("__global__ void k(unsigned a) {}\nvoid run(unsigned g, unsigned b) {\n" + "\n".join(lines)
           + "\nk<<<g, b>>>(v0);\n}\n")
    start = time.process_time()
    [launch] = find_launches("bomb.cu", text=src)
    assert time.process_time() - start < 10
    assert launch.kernel == "k" and launch.block_form == (None, 1, 1)


def test_a_product_of_thousands_of_factors_ends_quickly():
    src = "__global__ void k(int a) {}\nvoid run(int g, int b, int x) {\n k<<<g, b>>>(" + "*".join(["x"] * 80_000) + ");\n}\n"
    start = time.process_time()
    [launch] = find_launches("bomb.cu", text=src)
    assert time.process_time() - start < 10
