"""Synthetic, valid PTX kernels for the fuzz tests and the scaling benchmark (imported as
`ptx_generators`; bench/ adds tests/ to sys.path).

Every kernel is shaped like nvcc's output (`.reg` ranges, `%tid.x`, a demoted shared array) so the
analyses see what they would see on real code, only more of it. ptxas accepts each of them.
"""

from __future__ import annotations

HEADER = """.version 8.0
.target sm_90
.address_size 64

"""


def _kernel(name: str, body: list, regs: int, preds: int, shared_bytes: int = 4096) -> str:
    lines = [
        f".visible .entry {name}(",
        f"\t.param .u64 {name}_param_0,",
        f"\t.param .u32 {name}_param_1",
        ")",
        "{",
        f"\t.reg .pred \t%p<{preds + 1}>;",
        f"\t.reg .b32 \t%r<{regs + 1}>;",
        "\t.reg .b64 \t%rd<8>;",
        f"\t.shared .align 4 .b8 {name}_smem[{shared_bytes}];",
        "",
        f"\tld.param.u64 \t%rd1, [{name}_param_0];",
        f"\tld.param.u32 \t%r1, [{name}_param_1];",
        "\tmov.u32 \t%r2, %tid.x;",
        "\tshl.b32 \t%r3, %r2, 2;",
        f"\tmov.u32 \t%r4, {name}_smem;",
        "\tadd.s32 \t%r5, %r4, %r3;",
    ]
    lines.extend(body)
    lines.extend(["\tret;", "", "}", ""])
    return "\n".join(lines)


def early_exits(n: int, name: str = "early_exits") -> str:
    """`n` thread-dependent early returns, each followed by a shared store: the shape that made
    block activity recurse once per exit (issue 12)."""
    body = []
    reg = 6
    for k in range(n):
        p = k + 1
        body += [
            f"\tsetp.eq.s32 \t%p{p}, %r2, {k % 256};",
            f"\t@%p{p} bra \t$L__EXIT_{k};",
            f"\tst.shared.u32 \t[%r5], %r{reg - 1 if k else 1};",
            f"\tadd.s32 \t%r{reg}, %r{reg - 1 if k else 1}, 1;",
            f"\tbra.uni \t$L__NEXT_{k};",
            f"$L__EXIT_{k}:",
            "\tret;",
            f"$L__NEXT_{k}:",
        ]
        reg += 1
    return HEADER + _kernel(name, body, reg, n)


def chain(n: int, name: str = "chain") -> str:
    """`n` blocks in a row, each ending in a uniform conditional branch around a shared store."""
    body = []
    for k in range(n):
        body += [
            f"\tsetp.lt.u32 \t%p{k + 1}, %r1, {k};",
            f"\t@%p{k + 1} bra \t$L__SKIP_{k};",
            "\tst.shared.u32 \t[%r5], %r1;",
            f"$L__SKIP_{k}:",
        ]
    return HEADER + _kernel(name, body, 6, n)


def nested_loops(depth: int, repeat: int = 1, trip: int = 4, name: str = "nested_loops") -> str:
    """`repeat` nests of `depth` counted loops, a shared store and a barrier in the innermost."""
    body = []
    pred = 0
    reg = 6
    for r in range(repeat):
        counters = []
        for d in range(depth):
            counters.append(reg)
            body += [f"\tmov.u32 \t%r{reg}, 0;", f"$L__LOOP_{r}_{d}:"]
            reg += 1
        body += ["\tst.shared.u32 \t[%r5], %r1;", "\tbar.sync \t0;", f"\tld.shared.u32 \t%r{reg}, [%r5+4];"]
        reg += 1
        for d in reversed(range(depth)):
            pred += 1
            c = counters[d]
            body += [
                f"\tadd.s32 \t%r{c}, %r{c}, 1;",
                f"\tsetp.lt.u32 \t%p{pred}, %r{c}, {trip};",
                f"\t@%p{pred} bra \t$L__LOOP_{r}_{d};",
            ]
    return HEADER + _kernel(name, body, reg, pred)


def pitched_rows(n: int, name: str = "pitched_rows") -> str:
    """`n` global stores one plane apart (`pos += plane` unrolled, PCL's initializeVolume): thread
    (x, y) of a 2-D block stores at `x + y * pitch` of each plane, the pitch a run-time parameter."""
    body = [
        "\tmov.u32 \t%r6, %tid.y;",
        "\tmad.lo.s32 \t%r7, %r6, %r1, %r2;",
        "\tcvta.to.global.u64 \t%rd2, %rd1;",
        "\tmul.wide.s32 \t%rd3, %r7, 4;",
        "\tadd.s64 \t%rd4, %rd2, %rd3;",
        "\tshl.b32 \t%r8, %r1, 9;",
        "\tmul.wide.s32 \t%rd5, %r8, 4;",
    ]
    for _ in range(n):
        body += ["\tst.global.u32 \t[%rd4], %r2;", "\tadd.s64 \t%rd4, %rd4, %rd5;"]
    return HEADER + _kernel(name, body, 8, 0)


def blocks_of(text: str) -> int:
    """Basic blocks in a generated kernel: labels plus the blocks branches end (an estimate the
    benchmark prints; the analysis' own CFG is what it measures)."""
    lines = [ln.strip() for ln in text.split("\n")]
    return 1 + sum(1 for ln in lines if ln.endswith(":") or " bra" in ln or ln.startswith(("bra", "@")))


def deep_chain(n: int, name: str = "deep_chain") -> str:
    """`n` dependent additions on the thread index, then a shared store at the result: a
    definition chain as deep as the kernel is long."""
    body = [f"\tadd.s32 \t%r{6 + k}, %r{5 + k if k else 3}, 4;" for k in range(n)]  # from threadIdx.x * 4
    body += [f"\tand.b32 \t%r{6 + n}, %r{5 + n}, 4092;", f"\tadd.s32 \t%r{7 + n}, %r4, %r{6 + n};",
             f"\tst.shared.u32 \t[%r{7 + n}], %r1;", "\tbar.sync \t0;", f"\tld.shared.u32 \t%r{8 + n}, [%r5];"]
    return HEADER + _kernel(name, body, 8 + n, 0)


def predicated_writes(n: int, name: str = "predicated_writes") -> str:
    """One block with `n` predicated writes of one register, then a shared store at it."""
    body = ["\tsetp.lt.u32 \t%p1, %r2, 7;", "\tmov.u32 \t%r6, %r5;"]
    body += [f"\t@%p1 add.s32 \t%r6, %r6, 4;" for _ in range(n)]
    body += ["\tst.shared.u32 \t[%r6], %r1;"]
    return HEADER + _kernel(name, body, 6, 1, shared_bytes=4 * n + 4096)


def inlined_chain(n: int, name: str = "inlined_chain") -> str:
    """`n` `.loc` lines, each inlined at the one before: one instruction with an n-deep inlining
    chain (nvcc writes such chains for nested inlined calls)."""
    body = ["\t.loc\t1 1 1"]
    body += [f"\t.loc\t1 {k + 2} 1, function_name $L__info_string0, inlined_at 1 {k + 1} 1" for k in range(n)]
    body += ["\tst.shared.u32 \t[%r5], %r1;"]
    return HEADER + _kernel(name, body, 6, 0) + '\n.file\t1 "deep.cu"\n'


def call_chain(n: int, name: str = "call_chain") -> str:
    """A kernel calling f0, which calls f1, ... f(n-1), which has the barrier."""
    funcs = []
    for k in reversed(range(n)):
        inner = "\tbar.sync \t0;" if k == n - 1 else f"\tcall.uni \tf{k + 1}, ();"
        funcs.append(f".func f{k}()\n{{\n{inner}\n\tret;\n}}\n")
    body = ["\tsetp.lt.u32 \t%p1, %r2, 7;", "\t@%p1 bra \t$L__END;", "\tcall.uni \tf0, ();", "$L__END:"]
    return HEADER + "".join(funcs) + _kernel(name, body, 6, 1)


def nested_barriers(n: int, name: str = "nested_barriers") -> str:
    """`n` nested thread-dependent `if`s, a barrier after each one's end: every barrier but the
    outermost is under all the branches around it (the shape that made SYNC's reachability walks
    cubic, issue 18)."""
    body = []
    for k in range(n):
        body += [f"\tsetp.ne.s32 \t%p{k + 1}, %r2, {k % 1024};", f"\t@%p{k + 1} bra \t$L__END_{k};"]
    for k in reversed(range(n)):
        body += [f"$L__END_{k}:", "\tbar.sync \t0;"]
    return HEADER + _kernel(name, body, 6, n)


def divergent_stores(n: int, name: str = "divergent_stores") -> str:
    """`n` thread-dependent branches in a row, each around a shared store at its own offset: the sides of
    every branch are walked for same-interval pairs (RACE), quadratic in `n` (issue 18)."""
    body = []
    for k in range(n):
        body += [f"\tsetp.lt.u32 \t%p{k + 1}, %r2, {k % 1024};", f"\t@%p{k + 1} bra \t$L__SKIP_{k};",
                 f"\tst.shared.u32 \t[%r5+{4 * (k % 1000)}], %r1;", f"$L__SKIP_{k}:"]
    return HEADER + _kernel(name, body, 6, n)
