"""The `__shared__` declaration parser that fix hints use (frontend/declarations.py)."""

from ptxlint.frontend.declarations import parse_shared_declarations, resolve_unknowns


def test_literal_macro_and_constexpr_dimensions_are_evaluated():
    lines = ["#define TILE 32", "constexpr int PAD = 1;", "__global__ void k() {",
             "    __shared__ __align__(16) float tile[TILE][TILE + PAD];", "    tile[threadIdx.y][threadIdx.x] = 0;", "}"]
    (d,) = parse_shared_declarations(lines, "k.cu")
    assert (d.name, d.element_type, d.element_bytes, d.shape, d.line) == ("tile", "float", 4, (32, 33), 4)
    inner = d.dims[-1]
    assert lines[3][inner.start:inner.end] == "TILE + PAD" and d.only_indexed


def test_a_template_dimension_is_solved_from_the_ptx_size():
    (d,) = parse_shared_declarations(["__shared__ float sdata[blockSize];"])
    assert d.shape == (None,)
    assert resolve_unknowns(d, 1024).shape == (256,)
    assert resolve_unknowns(d, 1022) is None  # the source and the PTX disagree


def test_pointer_arithmetic_on_the_array_makes_a_layout_edit_uncertain():
    lines = ["__shared__ int s[32][32];", "int *p = &s[0][0] + 32 * threadIdx.x;", "s[1][2] = 0;"]
    assert not parse_shared_declarations(lines)[0].only_indexed
    assert parse_shared_declarations(lines[:1] + lines[2:])[0].only_indexed


def test_dynamic_shared_memory_has_no_declared_shape():
    assert parse_shared_declarations(["extern __shared__ float smem[];"]) == []
