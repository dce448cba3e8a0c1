"""Launch discovery in host code: the block shape of each launch, its line, and which PTX
function (real nvcc-mangled names) it launches."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from ptxlint.frontend.grammar_file import grammar_path
from ptxlint.frontend.launch_expr import Multiple
from ptxlint.frontend.launches.launch import CoversGrid, LaunchShare
from ptxlint.frontend.launches import Launch, canonical_type, find_launches, launches_for_function
from ptxlint.frontend.parser import parse_ptx_file
from support import REPO, SAMPLES, VALIDATION, run_cli

DATA = Path(__file__).parent / "data" / "launches"


def launches(text, name="k.cu", **kw):
    return find_launches(name, text=text, **kw)


def shapes(text, **kw):
    """{line: block} of the launches in `text`."""
    return {l.line: l.block for l in launches(text, **kw)}


def only(text, **kw):
    found = launches(text, **kw)
    assert len(found) == 1, found
    return found[0]


# ---------------------------------------------------------------------------------------------
# <<<grid, block>>> and the values the block argument can take

def test_literals_arithmetic_and_casts():
    src = """__global__ void k(float *x);
void run(float *x, int n) {
    k<<<n / 256, 256>>>(x);
    k<<<1, 4 * 32 + (1 << 5)>>>(x);
    k<<<1, (int)(512u >> 1) % 1000>>>(x);
    k<<<1, n > 0 ? 64 : 64>>>(x);
    k<<<1, static_cast<unsigned>(2 * 16)>>>(x);
}"""
    assert shapes(src) == {3: (256, 1, 1), 4: (160, 1, 1), 5: (256, 1, 1), 6: None, 7: (32, 1, 1)}


def test_ternary_with_run_time_condition_is_unknown_and_says_why():
    src = "__global__ void k();\nvoid run(int n) {\n  k<<<1, n > 100 ? 256 : 128>>>();\n}"
    launch = only(src)
    assert launch.block is None and launch.line == 3
    assert "`n` is a parameter of `run`" in launch.unknown_because


def test_defines_constants_enums_and_class_statics():
    src = """#define BLOCK 256
#define HALF (BLOCK / 2)
const int kThreads = 64;
static const unsigned kWarp = 32;
namespace cfg {
constexpr int kTile = 16;
struct Traits { static constexpr int kRows = 8; static const int kCols = 4; };
enum { kSmall = 2, kNext };
enum class Dim : int { Wide = 512 };
}
__global__ void k();
void run() {
    k<<<1, BLOCK>>>();
    k<<<1, HALF>>>();
    k<<<1, kThreads>>>();
    k<<<1, kWarp * 2>>>();
    k<<<1, dim3(cfg::kTile, cfg::kTile)>>>();
    k<<<1, dim3(cfg::Traits::kRows, cfg::Traits::kCols)>>>();
    k<<<1, cfg::kNext * 32>>>();
    k<<<1, (int)cfg::Dim::Wide>>>();
    constexpr int local = 3 * 32;
    k<<<1, local>>>();
}"""
    assert shapes(src) == {13: (256, 1, 1), 14: (128, 1, 1), 15: (64, 1, 1), 16: (64, 1, 1), 17: (16, 16, 1),
                           18: (8, 4, 1), 19: (96, 1, 1), 20: (512, 1, 1), 22: (96, 1, 1)}


def test_dim3_forms():
    src = """__global__ void k();
void run() {
    dim3 a(32, 8);
    dim3 b = dim3(16, 4, 2);
    dim3 c{8, 8};
    const dim3 one(1), b128(128);
    dim3 d;
    d.x = 64;
    d.y = 2;
    k<<<1, a>>>();
    k<<<1, b>>>();
    k<<<1, c>>>();
    k<<<1, b128>>>();
    k<<<1, d>>>();
    k<<<1, {4, 4, 4}>>>();
    k<<<1, dim3(64)>>>();
    k<<<one, a.x * 2>>>();
}"""
    assert shapes(src) == {10: (32, 8, 1), 11: (16, 4, 2), 12: (8, 8, 1), 13: (128, 1, 1), 14: (64, 2, 1),
                           15: (4, 4, 4), 16: (64, 1, 1), 17: (64, 1, 1)}


def test_plain_int_variable_with_straight_line_assignments():
    src = """__global__ void k();
void run(int n) {
    int threads = 128;
    threads *= 2;
    int blocks = (n + threads - 1) / threads;
    k<<<blocks, threads>>>();
    threads = 64;
    if (n) {
        threads += 32;
        k<<<blocks, threads>>>();
    }
}"""
    assert shapes(src) == {6: (256, 1, 1), 10: (96, 1, 1)}


def test_four_argument_form_and_a_launch_over_several_lines():
    src = """__global__ void k(float *x);
void run(float *x, cudaStream_t s) {
    const int threads = 512;
    k<<<
        1,
        threads,
        threads * sizeof(float),
        s>>>(x);
}"""
    launch = only(src)
    assert (launch.block, launch.line, launch.how) == ((512, 1, 1), 4, "<<<>>>")


def test_namespaced_kernel_keeps_its_qualifier_apart():
    src = """namespace a { namespace b { __global__ void k(); } }
void run() {
    a::b::k<<<1, 64>>>();
    ::a::b::k<<<1, 32>>>();
}"""
    first, second = launches(src)
    assert (first.kernel, first.qualifier, first.block) == ("k", "a::b", (64, 1, 1))
    assert (second.kernel, second.qualifier, second.block) == ("k", "a::b", (32, 1, 1))


def test_invalid_block_shape_is_not_used():
    launch = only("__global__ void k();\nvoid run() { k<<<1, 2048>>>(); }")
    assert launch.block is None and "not a valid block shape" in launch.unknown_because


# ---------------------------------------------------------------------------------------------
# The launch API

def test_cuda_launch_kernel_and_cooperative():
    src = """template <typename T, int B> __global__ void k(T *x);
__global__ void plain(float *x);
void run(float *x, cudaStream_t s) {
    void *args[] = {&x};
    dim3 block(128);
    cudaLaunchKernel((void *)k<float, 256>, dim3(4), dim3(256), args, 0, s);
    cudaLaunchKernel(plain, dim3(4), block, args);
    cudaLaunchCooperativeKernel((const void *)&plain, 4, 32 * 2, args, 0, s);
    cudaLaunchKernel(reinterpret_cast<const void *>(plain), 1, block.x / 2, args);
}"""
    found = launches(src)
    assert [(l.kernel, l.template_args, l.block, l.line, l.how) for l in found] == [
        ("k", ("float", "256"), (256, 1, 1), 6, "cudaLaunchKernel"),
        ("plain", None, (128, 1, 1), 7, "cudaLaunchKernel"),
        ("plain", None, (64, 1, 1), 8, "cudaLaunchCooperativeKernel"),
        ("plain", None, (64, 1, 1), 9, "cudaLaunchKernel"),
    ]


def test_cuda_launch_kernel_ex_reads_the_config_block_dim():
    src = """__global__ void k(float *x);
void run(float *x, int n) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(n);
    cfg.blockDim = dim3(32, 4);
    cfg.dynamicSmemBytes = 0;
    cudaLaunchKernelEx(&cfg, k, x);
    cudaLaunchConfig_t agg = {dim3(n), dim3(64), 0, 0};
    cudaLaunchKernelEx(&agg, k, x);
    cudaLaunchConfig_t des = {.gridDim = dim3(1), .blockDim = 96};
    cudaLaunchKernelEx(&des, k, x);
    cudaLaunchConfig_t later = {};
    cudaLaunchKernelEx(&later, k, x);
}"""
    found = launches(src)
    assert [(l.line, l.block, l.how) for l in found][:3] == [
        (7, (32, 4, 1), "cudaLaunchKernelEx"), (9, (64, 1, 1), "cudaLaunchKernelEx"),
        (11, (96, 1, 1), "cudaLaunchKernelEx")]
    assert found[3].block is None and "blockDim" in found[3].unknown_because


# ---------------------------------------------------------------------------------------------
# Branches: switch/case, if (v == N)

def test_switch_case_gives_the_switch_variable_the_case_value():
    src = """template <typename T, int B> __global__ void reduce(T *x);
void run(float *x, int threads) {
    switch (threads) {
    case 512:
        reduce<float, 512><<<1, threads>>>(x);
        break;
    case 256: reduce<float, 256><<<1, threads>>>(x); break;
    case 128:
    case 64:
        reduce<float, 64><<<1, threads>>>(x);
        break;
    default:
        reduce<float, 32><<<1, threads>>>(x);
    }
}"""
    found = {l.line: l for l in launches(src)}
    assert found[5].block == (512, 1, 1) and found[5].template_args == ("float", "512")
    assert found[7].block == (256, 1, 1)
    assert found[10].block is None  # two case labels: 128 or 64
    assert found[13].block is None  # default: any other value


def test_switch_fallthrough_from_a_previous_case_is_unknown():
    src = """__global__ void k();
void run(int t) {
    switch (t) {
    case 64: k<<<1, 32>>>();
    case 128: k<<<1, t>>>(); break;
    }
}"""
    assert shapes(src) == {4: (32, 1, 1), 5: None}


def test_if_equality_gives_the_value_in_its_then_branch():
    src = """__global__ void k();
void run(int t) {
    if (t == 128) k<<<1, t>>>();
    else k<<<1, t>>>();
}"""
    assert shapes(src) == {3: (128, 1, 1), 4: None}


# ---------------------------------------------------------------------------------------------
# Template parameters of the enclosing function template

def test_function_template_parameter_from_explicit_instantiations():
    src = """template <int B> __global__ void k(float *x);
template <int B, typename T = float>
void launch(T *x) { k<B><<<1, B>>>(x); }
template <int W = 4>
void byWarps(float *x) { k<W * 32><<<1, W * 32>>>(x); }
void run(float *x) {
    launch<128>(x);
    launch<256, float>(x);
    byWarps(x);
}
template void launch<64>(float *);"""
    found = sorted((l.line, l.template_args, l.block) for l in launches(src))
    assert found == [(3, ("128",), (128, 1, 1)), (3, ("256",), (256, 1, 1)), (3, ("64",), (64, 1, 1)),
                     (5, ("128",), (128, 1, 1))]  # byWarps(x): W is its default, 4


def test_function_template_never_instantiated_explicitly_is_unknown():
    src = "template <int B> __global__ void k();\ntemplate <int B> void launch() { k<B><<<1, B>>>(); }\n"
    launch = only(src)
    assert launch.block is None and "template parameter" in launch.unknown_because
    assert launch.template_args == ("B",)


def test_nested_function_templates():
    src = """template <int B> __global__ void k();
template <int B> void inner() { k<B><<<1, B>>>(); }
template <int W> void outer() { inner<W * 32>(); }
void run() { outer<2>(); }"""
    launch = only(src)
    assert launch.block == (64, 1, 1) and launch.template_args == ("64",)


# ---------------------------------------------------------------------------------------------
# Run-time values: block None with the reason

@pytest.mark.parametrize("body, reason", [
    ("k<<<1, threads>>>();", "`threads` is a parameter of `run`"),
    ("int t = 64; if (threads > 1) t = 128; k<<<1, t>>>();", "`t` is assigned at line"),
    ("int t = 32; for (int i = 0; i < 3; i++) { k<<<1, t>>>(); t *= 2; }", "inside the loop"),
    ("for (int t = 32; t <= 1024; t *= 2) k<<<1, t>>>();", "inside the loop"),
    ("int g, t = 256; cudaOccupancyMaxPotentialBlockSize(&g, &t, k); k<<<g, t>>>();",
     "the address of `t` is taken"),
    ("int t = atoi(\"32\"); k<<<1, t>>>();", "a call to `atoi`"),
    ("int sizes[] = {32, 64}; k<<<1, sizes[1]>>>();", "an array element"),
    ("k<<<1, gThreads>>>();", "`gThreads` is a non-const global variable"),
    ("k<<<1, blockDim.x>>>();", "`blockDim` is not a compile-time value"),
])
def test_run_time_values_are_unknown_with_a_reason(body, reason):
    src = f"__global__ void k();\nint gThreads = 64;\nvoid run(int threads) {{\n    {body}\n}}\n"
    launch = only(src)
    assert launch.block is None, launch
    assert reason in launch.unknown_because, launch.unknown_because
    assert launch.line == 4


def test_assignment_after_the_launch_does_not_matter_outside_loops():
    src = "__global__ void k();\nvoid run() {\n  int t = 64;\n  k<<<1, t>>>();\n  t = 128;\n}"
    assert shapes(src) == {4: (64, 1, 1)}


def test_assignment_in_the_loop_before_the_launch_is_taken():
    src = """__global__ void k();
void run(int n) {
    int t = 32;
    for (int i = 0; i < n; i++) {
        t = 64;
        k<<<1, t>>>();
        t = 1;
    }
}"""
    assert shapes(src) == {6: (64, 1, 1)}


# ---------------------------------------------------------------------------------------------
# Scopes

def test_nearest_declaration_before_the_launch_wins():
    src = """__global__ void k();
const int T = 32;
namespace n { const int T = 64; void f() { k<<<1, T>>>(); } }
void run(int c) {
    k<<<1, T>>>();
    const int T = 128;
    k<<<1, T>>>();
    {
        const int T = 256;
        k<<<1, T>>>();
    }
    k<<<1, T>>>();
    if (c) { int T = c; k<<<1, T>>>(); }
}"""
    s = shapes(src)
    assert s[3] == (64, 1, 1)
    assert s[5] == (32, 1, 1)
    assert s[7] == (128, 1, 1)
    assert s[10] == (256, 1, 1)
    assert s[12] == (128, 1, 1)
    assert s[13] is None  # the inner run-time T hides the constant


def test_member_function_sees_its_class_constants():
    src = """__global__ void k();
struct Runner {
    static constexpr int kBlock = 192;
    void go() { k<<<1, kBlock>>>(); }
    void later();
};
void Runner::later() { k<<<1, kBlock / 2>>>(); }
template <int B> struct Tmpl { void go() { k<<<1, B>>>(); } };"""
    found = launches(src)
    assert [l.block for l in found] == [(192, 1, 1), (96, 1, 1), None]
    assert "template parameter" in found[2].unknown_because


def test_lambda_sees_constants_and_its_parameters_are_unknown():
    src = """__global__ void k();
void run() {
    const int threads = 128;
    auto go = [&](int n) {
        k<<<1, threads>>>();
        k<<<1, n>>>();
    };
    go(1);
    int changed = 32;
    auto later = [&]() { k<<<1, changed>>>(); };
    changed = 64;
    later();
}"""
    found = launches(src)
    assert [(l.line, l.block) for l in found] == [(5, (128, 1, 1)), (6, None), (10, None)]
    assert "parameter of `a lambda`" in found[1].unknown_because
    assert "captured by a lambda" in found[2].unknown_because


# ---------------------------------------------------------------------------------------------
# Preprocessor: macros, conditions, headers

def test_launch_written_through_a_macro_is_at_the_invocation_line():
    src = """#define LAUNCH(kern, g, b, ...) do { kern<<<(g), (b)>>>(__VA_ARGS__); } while (0)
#define TILE 16
#define CAT(a, b) a##b
__global__ void transpose(float *x);
void run(float *x) {
    const dim3 block(TILE, TILE);
    LAUNCH(transpose, 1,
           block, x);
    transpose<<<1, CAT(TI, LE) * 2>>>(x);
}"""
    found = launches(src)
    assert [(l.kernel, l.line, l.block) for l in found] == [("transpose", 7, (16, 16, 1)), ("transpose", 9, (32, 1, 1))]


def test_if_branches_known_and_unknown():
    src = """#define USE_WIDE 1
#if USE_WIDE
#define BLOCK 512
#else
#define BLOCK 128
#endif
#ifdef _WIN32
#define OTHER 64
#else
#define OTHER 32
#endif
#ifndef NOT_DEFINED_ANYWHERE
#define DEFAULTED 96
#endif
__global__ void k();
void run() {
    k<<<1, BLOCK>>>();
    k<<<1, OTHER>>>();
    k<<<1, DEFAULTED>>>();
}"""
    found = {l.line: l for l in launches(src)}
    assert found[17].block == (512, 1, 1)
    assert found[18].block is None and "preprocessor condition" in found[18].unknown_because
    assert found[19].block == (96, 1, 1)


def test_command_line_defines_win_over_defaults():
    src = "#ifndef BLOCK\n#define BLOCK 256\n#endif\n__global__ void k();\nvoid run() { k<<<1, BLOCK>>>(); }\n"
    assert only(src).block == (256, 1, 1)
    assert only(src, defines={"BLOCK": "64"}).block == (64, 1, 1)


def test_launches_in_a_header_and_constants_from_headers(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "sizes.h").write_text("#pragma once\nconstexpr int kRows = 8;\n#define COLS 32\n")
    (tmp_path / "launch.cuh").write_text(
        '#pragma once\n#include "sizes.h"\n__global__ void k(float *x);\n'
        "inline void launchK(float *x)\n{\n    k<<<1, dim3(COLS, kRows)>>>(x);\n}\n")
    cu = tmp_path / "main.cu"
    cu.write_text('#include "launch.cuh"\n#include <sizes.h>\n#include "launch.cuh"\n'
                  "void run(float *x) { k<<<2, COLS * 2>>>(x); }\n")
    found = find_launches(str(cu), include_dirs=[tmp_path / "inc"])
    assert [(Path(l.path).name, l.line, l.block) for l in found] == [
        ("launch.cuh", 6, (32, 8, 1)), ("main.cu", 4, (64, 1, 1))]


def test_missing_header_is_not_an_error(tmp_path):
    cu = tmp_path / "main.cu"
    cu.write_text('#include "nowhere.h"\n__global__ void k();\nvoid run() { k<<<1, 64>>>(); }\n')
    assert [l.block for l in find_launches(str(cu))] == [(64, 1, 1)]


@pytest.mark.parametrize("text", [
    "void f() { k<<<1, 64>>>(); ",  # unclosed function
    "}} void f() { k<<<1, >>>(); }",
    "#if\n#endif\n#else\nvoid f() { ((( }",
    "template <int> void f() { k<<<1, 64",
    "#define F(x x\nF(1)\nvoid g() { F(2); }",
    'const char *s = "<<<1, 2>>>"; /* k<<<1,2>>>() */ // k<<<3,4>>>()',
    "void f() { auto l = [&] { k<<<1, 32>>>(); } }",
])
def test_broken_code_does_not_raise(text):
    result = launches(text)
    assert all(isinstance(l, Launch) for l in result)
    assert not any(l.block == (2, 1, 1) or l.block == (4, 1, 1) for l in result)  # comments, strings


# ---------------------------------------------------------------------------------------------
# Matching launches with PTX functions (names from nvcc)

@pytest.fixture(scope="module")
def template_pair():
    found = find_launches(str(DATA / "templates.cu"))
    module = parse_ptx_file(str(DATA / "templates.sm_90.ptx"))
    return found, {k.name: k for k in module.kernels}


@pytest.mark.parametrize("mangled, expected", [
    ("_ZN4blas5scaleIfLi256EEEvPT_S1_i", [(29, (256, 1, 1)), (34, (256, 1, 1))]),  # and scale<float, blockFor(8)>
    ("_ZN4blas5scaleIfLi128EEEvPT_S1_i", [(30, (128, 1, 1))]),
    ("_ZN4blas5scaleIiLi256EEEvPT_S1_i", [(31, (256, 1, 1))]),  # written 256u
    ("_ZN4blas5scaleI6__halfLi64EEEvPT_S2_i", [(32, (64, 1, 1))]),  # written half
    ("_ZN4blas5scaleIjLi32EEEvPT_S1_i", [(33, (32, 1, 1))]),  # written uint32_t
    ("_Z4fillILj512ELb1EEvPi", [(35, (512, 1, 1))]),  # fill<512u, true>
    ("_Z4fillILj64ELb0EEvPi", [(25, (64, 1, 1))]),  # through runFill<64>
    ("_Z4fillILj96ELb0EEvPi", [(25, (96, 1, 1))]),
    ("_Z6copy2dIPKfEvPKT_PS2_", [(38, (16, 16, 1))]),  # copy2d<float const*>
    ("_Z6copy2dIfEvPKT_PS0_", [(41, (32, 1, 1))]),  # switch case
])
def test_launches_match_their_template_instance(template_pair, mangled, expected):
    found, kernels = template_pair
    assert mangled in kernels  # the name is nvcc's
    assert [(l.line, l.block) for l in launches_for_function(mangled, found)] == expected


def test_every_instance_in_the_ptx_has_its_launch_and_every_launch_its_instance(template_pair):
    found, kernels = template_pair
    matched = {id(l) for name in kernels for l in launches_for_function(name, found)}
    unmatched = [l for l in found if id(l) not in matched]
    # blockFor(8), a constexpr function that returns one expression, is evaluated: 256
    assert [(l.line, l.template_args) for l in unmatched] == []


def test_matching_is_strict_when_unsure():
    def launch(kernel, args, qual=""):
        return Launch(kernel, args, (64, 1, 1), "k.cu", 1, "<<<>>>", None, qual)

    scale_256 = "_ZN4blas5scaleIfLi256EEEvPT_S1_i"
    # an unevaluated value or an unknown type name: used only where no launch matches for sure (then
    # every launch that may launch it must agree on the shape: see the test after the last)
    unsure = [launch("scale", ("float", "B")), launch("scale", ("T", "256"))]
    assert launches_for_function(scale_256, unsure) == unsure
    assert launches_for_function(scale_256, unsure + [launch("scale", ("float", "256"))]) == [
        launch("scale", ("float", "256"))]
    assert launches_for_function(scale_256, [launch("scale", None)]) == []  # deduced arguments
    assert launches_for_function(scale_256, [launch("scale", ("float",))]) == []  # fewer arguments
    assert launches_for_function(scale_256, [launch("scale", ("float", "256"), "other")]) == []
    assert launches_for_function(scale_256, [launch("scale", ("float", "256"), "blas")]) != []
    assert launches_for_function("_Z5plainPf", [launch("plain", ("int",))]) == []
    assert launches_for_function("_Z5plainPf", [launch("plain", None)]) != []


@pytest.mark.parametrize("written, printed", [
    ("const float *", "float const*"), ("half", "__half"), ("unsigned", "unsigned int"),
    ("std::size_t", "unsigned long"), ("uint8_t", "unsigned char"), ("float const*", "float const*"),
])
def test_type_names_as_written_and_as_demangled(written, printed):
    assert canonical_type(written) == canonical_type(printed)


# ---------------------------------------------------------------------------------------------
# The committed samples

def test_committed_sources_do_not_raise():
    for cu in sorted(SAMPLES.glob("*.cu")) + sorted((VALIDATION / "samples").glob("*.cu")):
        assert isinstance(find_launches(str(cu)), list)
    # the sample kernels are launched only from the validation launcher
    assert find_launches(str(SAMPLES / "transpose.cu")) == []


def test_validation_launcher_shapes():
    found = find_launches(str(VALIDATION / "samples" / "launch_samples.cu"))
    by_kernel = {}
    for l in found:
        by_kernel.setdefault(l.kernel, []).append(l)
    assert len(found) == 31
    assert [(l.line, l.block) for l in by_kernel["halfBarrier"]] == [(103, (256, 1, 1))]
    assert [(l.line, l.block) for l in by_kernel["transposeSmem"]] == [(165, (32, 8, 1))]
    assert [(l.line, l.block) for l in by_kernel["setRowReadColRect"]] == [(155, (32, 16, 1))]
    assert [(l.line, l.block) for l in by_kernel["setRowReadColDyn"]] == [(144, (32, 32, 1))]
    ring = by_kernel["clusterRing"]
    assert [(l.line, l.block, l.how) for l in ring] == [(120, (128, 1, 1), "cudaLaunchKernelEx")]


def test_template_launcher_through_a_function_parameter_is_unknown():
    found = find_launches(str(VALIDATION / "samples" / "template_launchers.cu"))
    assert [(l.kernel, l.template_args, l.line, l.block) for l in found] == [
        ("mmaTile", ("64",), 10, None), ("mmaTile", ("72",), 14, None)]
    assert "`b` is a parameter of `launch_mmaTile64`" in found[0].unknown_because


def test_launch_grammar_is_found_beside_the_ptx_grammar():
    # the installed wheel's copy or the checkout's: either way, this checkout's grammar, by name
    launch, ptx = grammar_path("launch.lark"), grammar_path()
    assert launch.parent == ptx.parent and launch.name == "launch.lark"
    assert launch.read_bytes() == (REPO / "grammars" / "launch.lark").read_bytes()


# ---------------------------------------------------------------------------------------------
# The grid argument, C linkage, deduced template arguments, argv defaults, headers read in context

def grids(text, **kw):
    """{line: grid} of the launches in `text`."""
    return {l.line: l.grid for l in launches(text, **kw)}


def test_the_grid_is_read_per_dimension():
    src = """__global__ void k(float *x);
int rows();
void run(float *x, int n, int m, dim3 given) {
    k<<<1, 512>>>(x);
    k<<<(n + 255) / 256, 256>>>(x);
    k<<<n, 256>>>(x);
    dim3 g(n, 4);
    k<<<g, 256>>>(x);
    k<<<dim3(8, 8), 64>>>(x);
    dim3 h(n);
    h.y = m;
    k<<<h, 256>>>(x);
    k<<<given, 256>>>(x);
    dim3 r = dim3(n);
    r = dim3(n, rows());
    k<<<r, 256>>>(x);
    void *args[] = {&x};
    cudaLaunchKernel((void *)k, g, dim3(128), args, 0, 0);
    k<<<n + 1 > 0 ? dim3(n) : dim3(1, m), 32>>>(x);
    k<<<static_cast<unsigned>(n), 32>>>(x);
}"""
    assert grids(src) == {4: (1, 1, 1), 5: (None, 1, 1), 6: (None, 1, 1), 8: (None, 4, 1), 9: (8, 8, 1),
                          12: (None, None, 1), 13: None, 16: None, 18: (None, 4, 1), 19: None, 20: (None, 1, 1)}
    one = launches(src)[0]
    assert one.one_block and one.grid_unknown_because is None
    assert "`n` is a parameter of `run`" in launches(src)[1].grid_unknown_because


def test_launches_inside_extern_c_functions_and_blocks():
    src = """__global__ void k(float *x);
extern "C" void launch_one(float *x) {
    k<<<4, 128>>>(x);
}
extern "C" {
void launch_two(float *x) { k<<<4, 64>>>(x); }
}
extern "C" int cuda_main(float *x) { k<<<2, 32>>>(x); return 0; }"""
    assert shapes(src) == {3: (128, 1, 1), 6: (64, 1, 1), 8: (32, 1, 1)}


def test_deduced_template_arguments_pick_the_instantiation():
    found = find_launches(str(DATA / "deduced.cu"))
    module = parse_ptx_file(str(DATA / "deduced.sm_90.ptx"))
    blocks = {f.name: [l.block for l in launches_for_function(f.name, found)] for f in module.kernels}
    assert blocks == {"_Z4fillIfEvPT_S0_i": [(256, 1, 1)],  # fill(float *, float, int)
                      "_Z4fillIdEvPT_S0_i": [(128, 1, 1)],  # from fill_all<double>: T is the host's binding
                      "_Z7stridedILi64EiEvPKT0_PS0_": [(64, 1, 1)]}  # <64> written, int deduced
    assert all(l.deduced for l in found)


def test_a_kernel_template_launched_with_a_lambda_takes_each_lambdas_own_launch():
    """nvcc names the instance by the lambda's closure type (`setup(int*, int*)::{lambda(unsigned
    long)#2}`): the n-th lambda of that parameter count in the host function where it is written. Each
    instance gets the block of the launch that passes its lambda, not every launch of the template."""
    found = find_launches(str(DATA / "lambda_kernels.cu"))
    module = parse_ptx_file(str(DATA / "lambda_kernels.sm_90.ptx"))
    blocks = {f.name: [l.block for l in launches_for_function(f.name, found)] for f in module.kernels}
    assert blocks == {"_Z7forEachIZ5setupPiS0_EUlmE_JEEvmT_DpT0_": [(1, 1, 1)],  # setup's lambda #1
                      "_Z7forEachIZ5setupPiS0_EUlmE0_JEEvmT_DpT0_": [(128, 1, 1)],  # setup's lambda #2
                      "_Z7forEachIZ5scalePffmEUlmfE_JfEEvmT_DpT0_": [(256, 1, 1)]}  # scale's, with a pack
    # the launch in setup that passes its first lambda is the instance's only launch: its argument 1 too
    (first,) = launches_for_function("_Z7forEachIZ5setupPiS0_EUlmE_JEEvmT_DpT0_", found)
    assert first.call_arguments[0] == 1


def test_an_argument_whose_type_is_not_known_matches_any_instantiation_only_when_deduced():
    src = """template <typename T> __global__ void fill(T *out);
template <typename T> __global__ void show(T *out) {}
float *buffer();
void run(float *f) {
    show<<<1, 32>>>(buffer());
}"""
    (launch,) = launches(src)
    assert launch.deduced and launch.template_args == ("?",)
    assert launches_for_function("_Z4showIfEvPT_", [launch]) == [launch]
    written = Launch("show", ("double",), (32, 1, 1), "k.cu", 5, "<<<>>>", None)
    assert launches_for_function("_Z4showIfEvPT_", [written]) == []


def test_argv_values_take_their_defaults_and_say_so():
    src = """#include <cstdlib>
__global__ void k(float *x);
int main(int argc, char **argv) {
    int b = argc > 2 ? atoi(argv[2]) : 16;
    k<<<1, b>>>(0);
    int c = 64;
    if (argc > 3) c = atoi(argv[3]);
    k<<<1, c>>>(0);
    int d;
    if (argc > 4) d = atoi(argv[4]); else d = 128;
    k<<<1, d>>>(0);
    int e = atoi(argv[1]);
    k<<<1, e>>>(0);
    return 0;
}
void helper(int argc) { k<<<1, argc > 1 ? 32 : 256>>>(0); }"""
    found = {l.line: l for l in launches(src)}
    assert {line: l.block for line, l in found.items()} == {5: (16, 1, 1), 8: (64, 1, 1), 11: (128, 1, 1),
                                                           13: None, 16: None}
    assert "no command-line arguments" in found[5].assumes
    assert found[16].assumes is None  # `argc` of a function other than main is a plain parameter


def test_gflags_options_take_their_defaults():
    """A gflags option is the program's value in its run with no flags, said as an assumption."""
    src = """#include <gflags/gflags.h>
DEFINE_uint32(threads, 128, "threads per block");
DEFINE_int32(n, 256 * 4, "items");
DEFINE_int32(blocks, compute_blocks(), "a default computed at run time");
__global__ void k(float *x, int n);
int main(int argc, char **argv) {
    gflags::ParseCommandLineFlags(&argc, &argv, true);
    k<<<FLAGS_n / FLAGS_threads, FLAGS_threads>>>(0, FLAGS_n);
    k<<<1, FLAGS_blocks>>>(0, 0);
    return 0;
}"""
    found = {l.line: l for l in launches(src)}
    first = found[8]
    assert (first.block, first.grid, first.call_arguments[1]) == ((128, 1, 1), (8, 1, 1), 1024)
    assert "gflags options at their defaults" in first.assumes
    assert found[9].block is None and "compute_blocks" in found[9].unknown_because


def test_a_ptx_whose_launches_sit_in_the_including_cu(tmp_path):
    """nvcc names only stencil.cuh in the PTX; main.cu includes it and config.h (BX, BY)."""
    from ptxlint.analysis.context import AnalysisOptions
    from ptxlint.api import load_module, with_launches
    from ptxlint.analysis.launch import plan_block_shapes

    ptx = DATA / "included" / "main.sm_90.ptx"
    module = load_module(str(ptx))
    analysis = with_launches(str(ptx), module, AnalysisOptions())
    plans = {f.name: plan_block_shapes(f, analysis) for f in module.kernels}
    stencil = plans["_Z7stencilPfPKfi"]
    assert stencil.known and [s.dims for s in stencil.shapes] == [(16, 8, 1)]
    assert stencil.shapes[0].source.endswith("stencil.cuh:16") and not stencil.unknown_launches
    scale = plans["_Z5scalePff"]
    assert [(s.dims, s.grid) for s in scale.shapes] == [((128, 1, 1), (8192, 1, 1))]
    # read on its own, the header does not see config.h's constants
    (alone,) = find_launches(str(DATA / "included" / "stencil.cuh"))
    assert alone.block is None and "`BX`" in alone.unknown_because


def test_launches_read_again_when_a_header_changes_between_checks(tmp_path):
    """A process that checks files twice (the API, a watch loop) keeps each unit's launches while the
    files read for them are unchanged, and reads them again once a header it included changes."""
    import shutil

    from ptxlint.analysis.context import AnalysisOptions
    from ptxlint.analysis.launch import plan_block_shapes
    from ptxlint.api import load_module, with_launches

    folder = tmp_path / "included"
    shutil.copytree(DATA / "included", folder)
    ptx = folder / "main.sm_90.ptx"
    module = load_module(str(ptx))

    def stencil_shape():
        analysis = with_launches(str(ptx), module, AnalysisOptions())
        plan = {f.name: plan_block_shapes(f, analysis) for f in module.kernels}["_Z7stencilPfPKfi"]
        return [s.dims for s in plan.shapes]

    assert stencil_shape() == [(16, 8, 1)]
    assert stencil_shape() == [(16, 8, 1)]
    config = folder / "config.h"
    config.write_text(config.read_text().replace("BX = 16", "BX = 32"))
    assert stencil_shape() == [(32, 8, 1)]


def test_a_launch_in_another_unit_that_includes_the_kernels_header():
    """scan_tiles is defined in scan_kernels.cu and launched with one warp from entry.cu, which
    includes the header of that name from include/scan/: as a .ptx and as a .cu, ptxlint reads the
    launch there and does not report the race between warps a 64-thread block would have."""
    unit = DATA / "other_unit"
    r = run_cli("launches", str(unit / "scan_kernels.sm_90.ptx"), cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert "scan_tiles: 32x1x1 (from the launch at tests/frontend/data/launches/other_unit/entry.cu:7)" in r.stdout
    r = run_cli("check", "--no-cache", str(unit / "scan_kernels.sm_90.ptx"), cwd=REPO)
    assert r.returncode == 0 and "RACE001" not in r.stdout, r.stdout


def test_a_launch_in_a_nearby_folder_through_a_header_with_hips_launch_macro():
    """relax is defined in kernels/ and launched from drivers/step.cu, which includes the kernel's
    header only through its own step.cuh, with `hipLaunchKernelGGL(relax, grid, block, 0, 0, ...)`
    as portable code writes it: ptxlint finds that launch (one warp, TPB from common/config.h) and
    does not report the race between warps that a block of 64 threads would have."""
    ptx = DATA / "nearby_unit" / "kernels" / "relax_kernels.sm_90.ptx"
    r = run_cli("launches", str(ptx), cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert "relax: 32x1x1 (from the launch at tests/frontend/data/launches/nearby_unit/drivers/step.cu:4)" in r.stdout
    r = run_cli("check", "--no-cache", str(ptx), cwd=REPO)
    assert r.returncode == 0 and "RACE001" not in r.stdout, r.stdout


def test_a_block_from_a_host_function_that_returns_one_expression():
    """`blocksize(N)` whose body is `return BLOCKSIZE;`, a constexpr of its parameter, and one calling
    another are read; a function that does more than return, or whose parameter the call passes at
    run time, is not, and the launch says why."""
    src = """#define BLOCKSIZE 1024
static int blocksize(long N) { return BLOCKSIZE; }
constexpr int warps_to_threads(int warps) { return 32 * warps; }
static int nested(int w) { return warps_to_threads(w) / 2; }
static int computed(long n) { int w = (n + 31) / 32; return w < 4 ? 32 * w : 128; }
__global__ void k(float *x);
void run(float *x, long N, int w) {
    k<<<1, blocksize(N)>>>(x);
    k<<<1, warps_to_threads(4)>>>(x);
    k<<<1, dim3(nested(8), 2)>>>(x);
    k<<<1, computed(N)>>>(x);
    k<<<1, warps_to_threads(w)>>>(x);
}"""
    assert shapes(src) == {8: (1024, 1, 1), 9: (128, 1, 1), 10: (128, 2, 1), 11: None, 12: None}
    found = {l.line: l for l in launches(src)}
    assert "`computed` does more than return one expression" in found[11].unknown_because
    assert "the argument for `warps` of `warps_to_threads`" in found[12].unknown_because


def test_chevrons_written_with_spaces_inside():
    """nvcc reads `k << <grid, block>> >(...)` as a launch; `>> >` that closes templates stays that."""
    src = ("__global__ void k(float *x);\ntemplate <class T> struct A {};\n"
           "void r(float *x) { A<A<A<int>> > a; k << <8, 256>> >(x); }\n")
    assert shapes(src) == {3: (256, 1, 1)}


def test_a_ptx_whose_kernels_sit_under_a_build_switch():
    """feature.cu is all under `#ifdef FEATURE_GPU`, which the build passed with -D (the .ptx holds its
    kernel): reading a .ptx's host code, ptxlint keeps that branch, finds the one-warp launch, and does
    not report the race between warps a larger block would have. A .cu read with its own -D options
    still takes an unknown switch as undefined."""
    ptx = DATA / "build_switch" / "feature.sm_90.ptx"
    r = run_cli("launches", str(ptx), cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert "shift: 32x1x1 (from the launch at tests/frontend/data/launches/build_switch/feature.cu:13)" in r.stdout
    r = run_cli("check", "--no-cache", str(ptx), cwd=REPO)
    assert r.returncode == 0 and "RACE001" not in r.stdout, r.stdout
    assert launches((DATA / "build_switch" / "feature.cu").read_text()) == []


def test_hips_launch_macro_gives_the_block_and_the_arguments():
    src = ("#define N 4096\n__global__ void k(float *x, int n);\n"
           "void r(float *x) { hipLaunchKernelGGL(k, dim3(N / 128), dim3(128), 0, 0, x, N); }\n")
    launch = only(src)
    assert launch.block == (128, 1, 1) and launch.grid == (32, 1, 1)
    assert launch.call_arguments[1] == 4096 and launch.how == "hipLaunchKernelGGL"


def test_a_ptx_whose_translation_unit_includes_the_launching_host_code():
    """nvcc names only src/detail/kernels.cuh in test/app.sm_90.ptx: the translation unit beside
    the .ptx (test/app.cu) is read, its `#include "lib.h"` is found in src/ (a folder above a named
    source), and host.cu's launch is read although the file starts with a byte-order mark."""
    r = run_cli("launches", str(DATA / "tu_includes" / "test" / "app.sm_90.ptx"), cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert "tree::init_root: 32x1x1 (from the launch at tests/frontend/data/launches/tu_includes/src/detail/host.cu:5)" \
        in r.stdout


def test_a_byte_order_mark_hides_nothing():
    bom = "\ufeffnamespace tree {\nvoid f(unsigned *r) { init_root<<<1, 32>>>(r); }\n}\n"
    assert shapes(bom) == {2: (32, 1, 1)}


def test_files_are_read_through_the_given_reader(monkeypatch):
    files = {"/p/main.cu": '#include "cfg.h"\n__global__ void k();\nvoid r() { k<<<1, dim3(BX, BY)>>>(); }\n',
             "/p/cfg.h": "constexpr int BX = 8;\nconstexpr int BY = 4;\n"}
    read_paths = []

    def read(path):
        read_paths.append(path)
        return files[path]

    import os.path

    real_isfile = os.path.isfile
    monkeypatch.setattr(os.path, "isfile", lambda p: p in files or real_isfile(p))
    (launch,) = find_launches("/p/main.cu", read=read)
    assert launch.block == (8, 4, 1) and read_paths == ["/p/main.cu", "/p/cfg.h"]


def test_the_launches_command_lists_every_launch_and_why_one_is_not_used():
    r = run_cli("launches", str(DATA / "deduced.sm_90.ptx"), cwd=REPO)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "  fill<float>: 256x1x1 (from the launch at tests/frontend/data/launches/deduced.cu:21)" in out
    assert ("deduced.cu:17: fill<double><<<?x1x1, 128x1x1>>> (template arguments deduced from the call) "
            "(not used: its template arguments <double> are not <float>)") in out
    doc = json.loads(run_cli("launches", "--format", "json", "--kernel", "strided*",
                             str(DATA / "deduced.sm_90.ptx"), cwd=REPO).stdout)
    (plan,) = doc["files"][0]["kernels"]
    (launch,) = plan["launches"]
    assert launch["used"] and launch["grid"] == [None, 1, 1] and launch["template_args"] == ["64", "int"]


def test_launches_through_a_host_template_helper_match_by_function_argument():
    # launch_rows<32, T, fill_lanes<T>> and launch_rows<64, T, fill_wide<T>> from a template whose T
    # is deduced: T stands for any type (the same in every argument), the device function names the kernel
    cu = DATA / "helpers.cu"
    found = find_launches(str(cu))
    assert sorted((l.template_args, l.block) for l in found) == [
        (("T", "fill_lanes<T>"), (32, 1, 1)), (("T", "fill_wide<T>"), (64, 1, 1))]
    assert all(l.open_params == ("T",) for l in found)
    m = parse_ptx_file(str(DATA / "helpers.sm_90.ptx"))
    blocks = {f.name: [l.block for l in launches_for_function(f.name, found)] for f in m.functions if f.is_kernel}
    assert blocks == {"_Z4rowsIfXadL_Z10fill_lanesIfEvPT_iEEEvS2_": [(32, 1, 1)],
                      "_Z4rowsIfXadL_Z9fill_wideIfEvPT_iEEEvS2_": [(64, 1, 1)]}


def test_an_open_template_parameter_stands_for_the_same_argument_everywhere():
    from ptxlint.frontend.launches.matching import why_not_launched

    pair = Launch("k", ("T", "T"), (32, 1, 1), "k.cu", 1, "<<<>>>", None, open_params=("T",))
    assert why_not_launched("_Z1kIffEvv", pair) is None  # k<float, float>
    assert why_not_launched("_Z1kIfiEvv", pair) is not None  # k<float, int>: T cannot be both


def test_a_helper_launch_is_checked_under_its_own_block():
    # rows<float, fill_wide> runs with 64 threads: threads 0 and 32 write y[0]; fill_lanes runs with 32
    r = run_cli("check", "--no-cache", "--isolated", "--select", "RACE,WARP", "--format", "json",
                str(DATA / "helpers.sm_90.ptx"))
    doc = json.loads(r.stdout)
    assert [(d["code"], d["line"]) for d in doc["diagnostics"]] == [("RACE003", 9)]
    assert "assumed block 64x1x1 (from the launch at" in doc["diagnostics"][0]["notes"][0]


# ---------------------------------------------------------------------------------------------
# wrappers: a launch inside a host function whose block, grid or kernel arguments are its parameters

WRAPPED = """__global__ void scale(float *x, int n);
static void run(float *x, int n, int threads) {
    scale<<<(n + threads - 1) / threads, threads>>>(x, n);
}
static void twice(float *x, int n) {
    run(x, n, 64);
}
int main() {
    float *x = 0;
    const int N = 256 * 4096;
    run(x, N, 128);
    run(x, 1000, 256);
    twice(x, 32);
}"""


def test_a_wrapper_launch_takes_the_values_each_call_passes():
    found = {(l.block, l.grid, l.call_arguments[1]) for l in launches(WRAPPED)}
    assert found == {((128, 1, 1), (8192, 1, 1), 256 * 4096),
                     ((256, 1, 1), (4, 1, 1), 1000),
                     ((64, 1, 1), (1, 1, 1), 32)}  # through `twice`, one call deeper


def test_a_parameter_the_wrapper_changes_or_a_run_time_argument_stays_unknown():
    src = """__global__ void k(int n);
void run(int n, int threads) {
    threads *= 2;
    k<<<1, threads>>>(n);
}
void go(int threads) {
    k<<<1, threads>>>(0);
}
int main(int argc, char **argv) {
    run(10, 128);
    go(atoi(argv[1]));
}"""
    found = launches(src)
    assert [l.block for l in found] == [None, None]
    assert "changes" in found[0].unknown_because
    assert "`threads` of `go`" in found[1].unknown_because


def test_a_run_time_argument_keeps_the_factor_its_expression_shows():
    src = """__global__ void k(int a, int b, int c, int d, int e, long f);
int main(int argc, char **argv) {
    int nbodies = atoi(argv[1]);
    int n = nbodies * 1024;
    int m = n;
    m += 5;
    k<<<1, 256>>>(n, nbodies << 5, n + 96 * nbodies, m, nbodies + 1, (long)(4 * nbodies) * 8);
}"""
    (launch,) = launches(src)
    assert launch.block == (256, 1, 1)
    # a product, a shift, a sum of multiples (their common factor), a cast of a multiple
    a, b, c, d, e, f = launch.call_arguments
    assert (a, b, c, f) == (Multiple(1024), Multiple(32), Multiple(32), Multiple(32))
    assert d is None and e is None  # changed by `+=`, or a plain run-time value: nothing known


def test_a_bound_the_grid_floor_divides_is_marked_as_covering_the_grid():
    src = """__global__ void k(float *x, int n, int m);
int main(int argc, char **argv) {
    int n = atoi(argv[1]), m = atoi(argv[2]);
    k<<<n / 256, 256>>>(0, n, m);
    int blocks = (m) / 512;
    k<<<blocks, 256>>>(0, n, m);
    k<<<(n + 255) / 256, 256>>>(0, n, m);
    k<<<n / 64, 256>>>(0, n, m);
}"""
    found = [l.call_arguments[1:] for l in launches(src)]
    # a divisor below the block launches up to block / divisor times the bound: covered at that scale
    assert found == [(CoversGrid(), None), (None, CoversGrid()), (None, None), (CoversGrid(Fraction(4)), None)]


def test_arguments_made_of_the_launch_extents_are_read_as_shares_of_the_launch():
    src = """__global__ void k(unsigned start, int total, int per_block, int other);
struct Ctx { int blocks; int threads; };
void run(Ctx *ctx, unsigned g, unsigned b, unsigned work, int n) {
    const unsigned run = g * b;
    unsigned base;
    for (base = 0; base < work; base += run)
        k<<<g, b>>>(base, (int)(g * b), 2 * b, n);
    dim3 grid(ctx->blocks);
    dim3 block(ctx->threads << 3);
    k<<<grid, block>>>(0, ctx->blocks * ctx->threads, ctx->threads, n * ctx->threads);
    unsigned off = n;
    k<<<g, b>>>(off, g * b + 1, b, n);
}"""
    first, second, third = (l.call_arguments for l in launches(src))
    assert first == (LaunchShare(1, 1, True, True), LaunchShare(1, 1, True, False), LaunchShare(2, 1, False, False),
                     None)
    assert str(first[0]) == "a multiple of gridDim.x * blockDim.x"
    # the block is threads << 3: blocks * threads is an eighth of the launch's threads; threads
    # alone is an eighth of the block; n * threads is no multiple of the block
    assert second == (0, LaunchShare(1, 8, True, False), LaunchShare(1, 8, False, False), None)
    assert str(second[1]) == "gridDim.x * blockDim.x / 8"
    # an offset from a run-time value and a sum with a constant keep no relation
    assert third == (None, None, LaunchShare(1, 1, False, False), None)


def test_host_checks_before_the_launch_make_an_argument_a_multiple():
    src = """__global__ void k(int a, int b, int c, int d, int e);
void run(int n, int m, int p, int q, int r) {
    assert(n % 32 == 0);
    if (m % 64 != 0) { fprintf(stderr, "m"); abort(); }
    if (q % 128 != 0) return;
    q = q + 1;
    if (!(p % 16 == 0)) { fprintf(stderr, "only a warning"); }
    if (r % 256 == 0 || r == 1) return;
    if (r % 512 == 0) {
        k<<<1, 256>>>(n, m, p, q, r);
    }
}
int main(int argc, char **argv) { run(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5])); }"""
    (launch,) = launches(src)
    # an assertion, a test that aborts, a branch around the launch; not a warning, not a value
    # changed after its check, not one side of an `||`
    assert launch.call_arguments == (Multiple(32), Multiple(64), None, None, Multiple(512))


def test_a_multiple_is_never_taken_for_a_block_shape():
    src = """__global__ void k(int n);
int main(int argc, char **argv) {
    int threads = atoi(argv[1]) * 64;
    k<<<1, threads>>>(threads);
}"""
    (launch,) = launches(src)
    assert launch.block is None and launch.call_arguments == (Multiple(64),)


def test_a_wrapper_with_no_call_in_the_unit_keeps_its_parameters_run_time_values():
    src = "__global__ void k();\nvoid run(int threads) {\n  k<<<1, threads>>>();\n}"
    launch = only(src)
    assert launch.block is None and "`threads` is a parameter of `run`" in launch.unknown_because


def test_a_block_size_sweep_over_a_constant_array_gives_one_launch_per_element():
    src = """__global__ void k(float *x, int n);
void run(int kernel_num, float *x, int n, const int block_size) {
    switch (kernel_num) {
    case 1: k<<<(n + block_size - 1) / block_size, block_size>>>(x, n); break;
    }
}
int main(int argc, char **argv) {
    int kernel_num = 1;
    if (argc > 1) kernel_num = atoi(argv[1]);
    int block_sizes[] = {32, 64, 128, 64};
    for (int j = 0; j < sizeof(block_sizes) / sizeof(int); j++) {
        int block_size = block_sizes[j];
        run(kernel_num, 0, 4096, block_size);
    }
}"""
    assert sorted(l.block[0] for l in launches(src)) == [32, 64, 128]


def test_an_array_changed_before_the_call_gives_no_value():
    src = """__global__ void k();
void run(int threads) { k<<<1, threads>>>(); }
int main() {
    int sizes[] = {32, 64};
    sizes[1] = 48;
    for (int j = 0; j < 2; j++) run(sizes[j]);
}"""
    launch = only(src)
    assert launch.block is None and "`threads` of `run`" in launch.unknown_because


def test_a_block_of_the_device_s_maximum_threads_is_1024_and_says_so():
    src = """__global__ void k(float *x);
int main() {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    k<<<prop.multiProcessorCount, prop.maxThreadsPerBlock>>>(0);
    k<<<1, prop.multiProcessorCount>>>(0);
}"""
    first, second = launches(src)
    assert first.block == (1024, 1, 1) and "maxThreadsPerBlock` is 1024" in first.assumes
    assert second.block is None and "multiProcessorCount" in second.unknown_because


def test_a_wrapper_argument_from_argv_carries_the_default_run_assumption():
    src = """__global__ void k();
void run(int threads) { k<<<1, threads>>>(); }
int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 128;
    run(threads);
}"""
    launch = only(src)
    assert launch.block == (128, 1, 1) and "no command-line arguments" in launch.assumes


def test_explicit_specialisations_are_read_as_functions():
    """`template <> void launch<float>(...) { k<float><<<...>>>(); }`: the host function and the
    kernel it launches are explicit specialisations; their launches are found."""
    text = ("template <typename T> __global__ void k(T *p);\n"
            "template <> __global__ void k<float>(float *p) { p[threadIdx.x] = 0; }\n"
            "template <typename T> void launch(T *p);\n"
            "template <> void launch<float>(float *p) { k<float><<<4, 128>>>(p); }\n")
    found = only(text)
    assert (found.kernel, found.template_args, found.block, found.line) == ("k", ("float",), (128, 1, 1), 4)


@pytest.mark.parametrize("block, form", [
    ("dim3 b(1, n); k<<<g, b>>>(p);", (1, None, 1)),      # x fixed, y a run-time value
    ("k<<<g, dim3(n, 4)>>>(p);", (None, 4, 1)),
    ("int b = n; k<<<g, b>>>(p);", (None, 1, 1)),        # an integer block is 1-D
])
def test_what_a_run_time_block_fixes_of_its_dimensions(block, form):
    found = only(f"__global__ void k(float *p);\nvoid r(float *p, int n, int g) {{ {block} }}\n")
    assert found.block is None and found.block_form == form


def test_a_launch_that_fixes_some_dimensions_narrows_the_candidates():
    """rows.cu launches scale_tokens<float> with `dim3(1, threads)` (one token per block in x,
    threads a run-time value): its early return on blockIdx.y*blockDim.x + threadIdx.x is taken by
    the whole block or none, so no SYNC002; scale_tokens_wide has the same return with the tokens
    along x (`dim3(threads, 1)`): its barriers are reported, with the condition on seq_len."""
    ptx = DATA / "runtime_rows" / "rows.sm_90.ptx"
    r = run_cli("launches", str(ptx), cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert "scale_tokens<float>: unknown: checked under 1x256x1, 1x128x1" in r.stdout
    assert "scale_tokens<float><<<?x?x1, 1x?x1>>>" in r.stdout
    assert "scale_tokens_wide: unknown: checked under 256x1x1" in r.stdout
    r = run_cli("check", "--no-cache", "--select", "SYNC", "--format", "json", str(ptx), cwd=REPO)
    found = json.loads(r.stdout)["diagnostics"]
    assert sorted(d["line"] for d in found if d["code"] == "SYNC002") == [27, 29]


def test_a_using_declaration_names_the_constant_it_brings_in():
    text = ("namespace lib { constexpr int warp_size = 32; }\n"
            "__global__ void k(float *p);\n"
            "void r(float *p) { using lib::warp_size; const dim3 threads(warp_size, 4, 1); k<<<1, threads>>>(p); }\n")
    assert shapes(text) == {3: (32, 4, 1)}


def test_a_using_declaration_of_a_run_time_value_stays_unknown():
    text = ("namespace lib { int width; }\n"
            "__global__ void k(float *p);\n"
            "using lib::width;\n"
            "void r(float *p) { k<<<1, width>>>(p); }\n")
    found = only(text)
    assert found.block is None and found.block_form == (None, 1, 1)


def test_a_constant_template_argument_ptxlint_cannot_compute_matches_every_instance():
    src = """template <int A> struct Props { static constexpr int memory() { return A * 4; } };
template <int M> __global__ void k(int n) {}
template <int A> void run(int n) {
    constexpr int MEM = Props<A>::memory();
    k<MEM><<<1, 128>>>(n);
}
void go() { run<3>(5); }"""
    (launch,) = launches(src)
    assert launch.block == (128, 1, 1)
    # MEM is some compile-time value: the launch stands for k<12> (and any other instance)
    assert launches_for_function("_Z1kILi12EEvi", [launch]) == [launch]


def test_editor_code_model_branches_are_not_read_as_host_code():
    # `#ifdef __INTELLISENSE__` declares builtins for an editor and redefines `asm` there; nvcc never
    # defines it, so the launch after the header's other branch is still found
    src = """#ifdef __INTELLISENSE__
#define asm(x) x
#define __CUDA_ARCH__ 520
#endif
#if __CUDA_ARCH__ < 320
#define ROTL(x, n) ((x) << (n))
#else
__device__ unsigned ROTL(unsigned x, unsigned n) { unsigned r; asm("shf.l.wrap.b32 %0, %1, %1, %2;" : "=r"(r) : "r"(x), "r"(n)); return r; }
#endif
__global__ void k(int n) {}
void run(int n) { k<<<n / 64, 64>>>(n); }"""
    (launch,) = launches(src)
    assert launch.block == (64, 1, 1)


def test_a_using_directive_in_a_function_body_names_its_namespace_there_only():
    src = """namespace ns {
class Algorithm {
public:
    enum Id : unsigned { INVALID = 0, CN_0 = 0x63150000, CN_1 = 0x63150100 };
};
}
template <ns::Algorithm::Id A> __global__ void k(int n) {}
template <ns::Algorithm::Id ALGO> void run(int n) { k<ALGO><<<1, 128>>>(n); }
void go() { using namespace ns; run<Algorithm::CN_1>(5); k<Algorithm::CN_0><<<1, 64>>>(3); }
void other() { k<Algorithm::CN_1><<<1, 32>>>(3); }"""
    found = {l.block[0]: l.template_args for l in launches(src)}
    # the enumerators' values, as the instances' mangled names spell them
    assert found[128] == (str(0x63150100),) and found[64] == (str(0x63150000),)
    assert found[32] == ("Algorithm::CN_1",)  # no using-directive in `other`: not a name ptxlint knows
    # the instance's name spells the enumerator as a cast value: `k<(ns::Algorithm::Id)1662320896>`
    matched = launches_for_function("_Z1kILN2ns9Algorithm2IdE1662320896EEvi", launches(src))
    assert [l.block[0] for l in matched] == [128]


def test_launches_whose_template_argument_is_unknown_give_their_shape_when_they_all_agree():
    # a typed test's parameter (a type name defined by a test framework's macros, not in the code
    # read): no launch can be matched to an instance for sure, but every launch that may launch
    # roundtrip<Codec> uses one block and grid, so that is roundtrip<Codec>'s launch
    src = """template <class C> __global__ void roundtrip(int *p) {}
void t1(int *p) { roundtrip<TypeParam><<<1, 32>>>(p); }
void t2(int *p) { roundtrip<TypeParam><<<1, 32>>>(p); }"""
    found = launches(src)
    assert [l.block for l in launches_for_function("_Z9roundtripI5CodecEvPi", found)] == [(32, 1, 1)] * 2
    # launches that disagree leave the shape unknown
    other = launches(src.replace("void t2(int *p) { roundtrip<TypeParam><<<1, 32>>>(p); }",
                                 "void t2(int *p) { roundtrip<TypeParam><<<1, 64>>>(p); }"))
    assert launches_for_function("_Z9roundtripI5CodecEvPi", other) == []
    # a launch that matches for sure is the only one used
    exact = launches(src + "\nstruct Codec {};\nvoid t3(int *p) { roundtrip<Codec><<<2, 128>>>(p); }")
    assert [l.block for l in launches_for_function("_Z9roundtripI5CodecEvPi", exact)] == [(128, 1, 1)]
