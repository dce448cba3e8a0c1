"""BANK: shared-memory bank conflicts, with numbers from the H100-validated bank model."""

from __future__ import annotations

from typing import Optional

from ..analysis.layout import remapped_cost, source_name, suggest_layout_fix
from ..diagnostics import Diagnostic
from .registry import RuleDoc, register
from .sync import assumptions


def _lanes_text(lanes: list) -> str:
    if not lanes:
        return "no lanes"
    if lanes == list(range(lanes[0], lanes[-1] + 1)) and len(lanes) > 2:
        return f"lanes {lanes[0]}..{lanes[-1]}"
    shown = ", ".join(str(x) for x in lanes[:8])
    return f"lanes {shown}{', ...' if len(lanes) > 8 else ''}"


def _words_text(words: list) -> str:
    shown = ", ".join(str(w) for w in words[:6])
    return f"word{'s' if len(words) > 1 else ''} {shown}{', ...' if len(words) > 6 else ''}"


def _assumptions(ctx) -> list:
    return assumptions(ctx, f"architecture {ctx.module.arch or 'unknown'}: {ctx.bank_model.name}")


def _what(access) -> str:
    kind = {"load": "load", "store": "store", "atomic": "atomic", "ldmatrix": "ldmatrix", "stmatrix": "stmatrix"}[access.kind]
    var = f" of `{source_name(access.variables[0])}`" if len(access.variables) == 1 else ""
    width = f"{access.bits}-bit" if access.kind not in ("ldmatrix", "stmatrix") else f"x{access.matrices}"
    return f"{width} shared {kind}{var}"


@register(
    "BANK001", "shared-bank-conflict", "warning",
    "A shared-memory access needs more wavefronts than its data requires because lanes collide on a bank.",
    RuleDoc(
        what_it_does="""
Computes, for every warp of the block, the address each lane gives to a shared-memory load, store,
atomic, `ldmatrix` or `stmatrix`, and from it the number of wavefronts (passes through the 32 banks)
the access needs, with the bank rules measured on an H100. Reports accesses that need more
wavefronts than the same data would need without conflicts, with the lanes and bank that collide,
and a padding or XOR swizzle that removes the conflict, checked with the same model.

The fix is said in the shape of the `__shared__` declaration in the source (`As[16][16]` ->
`As[16][17]`): the declared row is padded by 1, 2, ... elements until every access to the array
is conflict-free and none is slower; a 1-D array is padded in its index (`s[i + i / 32]`); lanes
that all add to one word get warp aggregation (`__ballot_sync` + `__popc`, one lane adds). Scalar
loads that ptxas merges into one wide load are costed as that load (as measured) and reported here
when it conflicts. `ptxlint check --fix` applies a declaration padding after compiling and checking
the edited file.
""",
        why_is_this_bad="""
Each extra wavefront serialises the access: a 32-way conflict makes one load 32 times slower and
stalls the warp's dependent instructions. Column accesses to a `[32][32]` tile are the classic case.
""",
        example="""
__shared__ float tile[32][32];
tile[threadIdx.y][threadIdx.x] = in[i];
__syncthreads();
out[j] = tile[threadIdx.x][threadIdx.y];   // 32 lanes, 32 rows, one bank: 32-way
""",
        use_instead="""
__shared__ float tile[32][33];            // one element of padding per row
tile[threadIdx.y][threadIdx.x] = in[i];
__syncthreads();
out[j] = tile[threadIdx.x][threadIdx.y];   // conflict-free
""",
    ),
)
def check_bank_conflicts(ctx):
    # one finding per source position: an unrolled loop's copies of one access are summed
    by_position: dict = {}
    for access in ctx.shared_accesses:
        if access.space != "shared" or not access.determined or access.vector_group is not None:
            continue
        if access.wavefronts <= access.ideal:
            continue
        by_position.setdefault((ctx.position(access.instruction), access.kind), []).append(access)
    for ((path, line, column), _), group in by_position.items():
        yield _conflict_diagnostic(ctx, group, path, line, column)
    # loads that ptxas merges into one wide load cost what the wide load costs (measured): a
    # conflict there is a conflict like any other, reported with the same fix
    for merged, members, wavefronts, ideal in conflicting_merged_loads(ctx):
        path, line, column = ctx.position(members[0].instruction)
        yield _conflict_diagnostic(ctx, [merged], path, line, column, members, (wavefronts, ideal))


def conflicting_merged_loads(ctx):
    """(the wide load as one access, its PTX loads, wavefronts, ideal) for every run of scalar
    loads that ptxas merges (predicted from the PTX; with `--level sass`, read from the SASS) into
    one load with a bank conflict."""
    groups = {}
    for access in ctx.shared_accesses:
        group = access.vector_group
        if group is not None and group.merged is not None:
            groups[tuple(id(m) for m in group.members)] = group
    if ctx.sass_function is not None:
        for s in ctx.sass_accesses:
            group = groups.get(tuple(id(m) for m in s.ptx))
            if s.how == "merged" and s.wavefronts is not None and s.wavefronts > s.ideal and group is not None:
                yield group.merged, s.ptx, s.wavefronts, s.ideal
        return
    for group in groups.values():
        if group.wavefronts > group.ideal:
            yield group.merged, group.members, group.wavefronts, group.ideal


def _aggregation_fix(ctx, access, name: str) -> Optional[tuple]:
    """(text, wavefronts after) for an atomic whose lanes collide on one *word* (not just one
    bank): aggregating the lanes of a warp that target one word into one atomic, verified with
    the model (one lane per distinct word); None when that does not lower the cost."""
    if access.kind != "atomic" or "cas" in access.instruction.modifiers:
        return None
    after = 0
    one_word = True
    for warp in access.warps:
        for lanes, addresses in warp.evaluations:
            leaders = {}
            for lane, address in zip(lanes, addresses):
                leaders.setdefault(address, lane)
            one_word = one_word and len(leaders) <= 1
            cost = ctx.bank_model.warp_cost([(lane, a) for a, lane in leaders.items()], access.bits // 8, "atomic")
            after += cost.wavefronts
    if after >= access.wavefronts:
        return None
    if one_word:
        how = ("every active lane adds to one word: one lane adds for the warp, e.g. `unsigned lanes = "
               f"__ballot_sync(__activemask(), 1); if (threadIdx.x % 32 == __ffs(lanes) - 1) atomicAdd(&{name}[i], "
               "__popc(lanes));` for `atomicAdd(..., 1)` (a condition in place of `1` counts the lanes that hold it)")
    else:
        how = ("lanes that add to the same word combine first and one of them adds for all, e.g. `unsigned peers = "
               f"__match_any_sync(__activemask(), i); if (threadIdx.x % 32 == __ffs(peers) - 1) atomicAdd(&{name}[i], "
               "__popc(peers));` for `atomicAdd(..., 1)`")
    text = (f"aggregate the warp's atomics (warp aggregation): {how}; other values are summed over the same lanes "
            "first (`__reduce_add_sync`, sm_80+, or shuffles)")
    return text, after


def _conflict_diagnostic(ctx, group: list, path, line, column, merged_from: Optional[list] = None,
                         measured: Optional[tuple] = None) -> Diagnostic:
    access = max(group, key=lambda a: a.wavefronts - a.ideal)
    wavefronts = sum(a.wavefronts for a in group)
    ideal = sum(a.ideal for a in group)
    if measured is not None:  # the SASS load's cost (--level sass)
        wavefronts, ideal = measured
    worst_warp = max((w for w in access.warps if w.cost), key=lambda w: w.cost.wavefronts - w.cost.ideal)
    worst = worst_warp.cost.worst
    ins = access.instruction
    copies = f" ({len(group)} PTX instructions from this line)" if len(group) > 1 else ""
    if merged_from:
        copies = f" (the {len(merged_from)} 32-bit loads that ptxas merges into one)"
    message = (f"{access.ways}-way bank conflict on a {_what(access)}: {wavefronts} wavefronts "
               f"where {ideal} would do, per block{copies}")
    notes = _assumptions(ctx)
    if worst is not None:
        notes.append(f"warp {worst_warp.warp}: {_lanes_text(worst.lanes)} hit bank {worst.bank} "
                     f"({_words_text(worst.words)}): {worst_warp.cost.wavefronts} wavefronts instead of "
                     f"{worst_warp.cost.ideal}")
    conflicted = sum(1 for w in access.warps if w.cost and w.cost.wavefronts > w.cost.ideal)
    notes.append(f"{conflicted} of {len(access.warps)} warps conflict")
    notes.extend(access.notes)
    if merged_from:
        notes.append(f"PTX lines {', '.join(str(m.instruction.ptx_line) for m in merged_from)} read consecutive "
                     f"words from one base, aligned in every lane: ptxas makes one {access.bits}-bit load of them, "
                     "which follows the bank rules of its width (shared variables start 16-byte aligned)")
    fix = suggest_layout_fix(ctx, access)
    fix_text = None
    aggregation = _aggregation_fix(ctx, access, source_name(access.variables[0]) if len(access.variables) == 1
                                   else "counts") if fix is None else None
    if aggregation is not None:
        fix_text = (f"{aggregation[0]} (verified with the bank model: {wavefronts} -> {aggregation[1]} wavefronts "
                    "per block)")
    elif fix is None:
        declaration = (ctx.shared_declaration(access.variables[0], access.instruction)
                       if len(access.variables) == 1 and access.determined else None)
        if declaration is not None and len(declaration.dims) >= 2:
            from ..analysis.layout import PAD_LIMIT

            cols = declaration.dims[-1].value
            outer = "".join(f"[{d.value}]" for d in declaration.dims[:-1])
            tried = f"no padding of `{declaration.written()}` ({outer}[{cols + 1}] to {outer}[{cols + PAD_LIMIT}])"
            name = f"`{declaration.name}`"
        else:
            name = f"`{source_name(access.variables[0])}`" if len(access.variables) == 1 else "the variable"
            tried = f"no padding"
        notes.append(f"{tried} or XOR swizzle of {name} removes this conflict without slowing another access "
                     "to it (tried with the bank model): it comes from which elements the lanes index, so change "
                     "the index expression")
    else:
        after = [remapped_cost(ctx, a, fix.remap) for a in group]
        fixed_wavefronts, fixed_ideal = sum(c[0] for c in after), sum(c[1] for c in after)
        fix_text = (f"{fix.text} (verified with the bank model: {wavefronts} -> {fixed_wavefronts} "
                    f"wavefronts per block, ideal {fixed_ideal})")
        if fix.unchecked:
            lines = sorted({ctx.position(a.instruction)[1] for a in fix.unchecked})
            many = len(lines) > 1
            fix_text += (f"; not verified for the {'accesses' if many else 'access'} to the same variable at "
                         f"line{'s' if many else ''} {', '.join(map(str, lines))}, whose addresses could not be "
                         "evaluated")
    return Diagnostic(
        code="BANK001", severity="warning", message=message, path=path, line=line, column=column,
        kernel=ctx.function.name, ptx_path=ctx.module.path, ptx_line=ins.ptx_line, notes=notes, fix=fix_text,
        data={"wavefronts": wavefronts, "ideal": ideal, "ways": access.ways, "kind": access.kind,
              "bits": access.bits, "block": list(ctx.launch.dims), "block_source": ctx.launch.source,
              "bank": worst.bank if worst else None,
              "fix_kind": fix.kind if fix else ("warp-aggregation" if aggregation else None),
              "fixed_wavefronts": fixed_wavefronts if fix else (aggregation[1] if aggregation else None),
              "ptx_lines": [a.instruction.ptx_line for a in (merged_from or group)],
              **({"fix_shape": [fix.shape_before, fix.shape_after]} if fix and fix.shape_before else {}),
              **({"merged_loads": len(merged_from)} if merged_from else {})},
        fix_edits={"safe": fix.safe, "edits": fix.edits} if fix is not None and fix.edits else None,
    )


@register(
    "BANK002", "ptxas-merges-shared-loads", "info",
    "Scalar shared loads that ptxas merges into one wide load: the SASS cost differs from the PTX.",
    RuleDoc(
        what_it_does="""
Finds runs of scalar `ld.shared` from one base register at +0, +4 (+8, +12) whose addresses are
aligned for every lane. ptxas merges such runs into one LDS.64/LDS.128 (measured on an H100), and a
128-bit load follows different bank rules (quarter-warp phases) than four 32-bit loads. Reported
when the scalar loads have a bank conflict and the merged one does not. A merged load that has a
conflict is a BANK001 finding (with the merged load's cost and a fix).
With `--level sass` the merges are read from the SASS ptxas produced instead of predicted.
""",
        why_is_this_bad="""
The PTX says four conflict-free loads, the GPU runs one conflicting 128-bit load (or the
reverse): the cost you see in Nsight Compute is not the one the PTX suggests.
""",
        example="""
#pragma unroll
for (int k = 0; k < 4; ++k) acc += s[lane * 32 + k];   // one LDS.128: every lane on banks 0-3
""",
        use_instead="""
#pragma unroll
for (int k = 0; k < 4; ++k) acc += s[lane * 4 + k];    // one LDS.128, conflict-free
""",
    ),
)
def check_merged_loads(ctx):
    if ctx.sass_function is not None:  # --level sass: say what ptxas did, not what it may do
        from .bank_sass import merged_loads_in_sass

        yield from merged_loads_in_sass(ctx, _assumptions(ctx))
        return
    seen = set()
    for access in ctx.shared_accesses:
        group = access.vector_group
        if group is None or id(group) in seen:
            continue
        seen.add(id(group))
        ptx_wf = sum(m.wavefronts for m in group.members)
        ptx_ideal = sum(m.ideal for m in group.members)
        if group.wavefronts > group.ideal:
            continue  # the merged load conflicts: BANK001 reports it, with the fix
        if ptx_wf <= ptx_ideal:
            continue
        first = group.members[0].instruction
        path, line, column = ctx.position(first)
        lines = sorted({ctx.position(m.instruction)[1] for m in group.members})
        message = (f"ptxas merges {len(group.members)} shared loads into one {group.bits}-bit load: "
                   f"{group.wavefronts} wavefronts in SASS (ideal {group.ideal}) vs {ptx_wf} for the PTX loads")
        notes = _assumptions(ctx) + [
            f"PTX lines {', '.join(str(m.instruction.ptx_line) for m in group.members)} (source lines "
            f"{', '.join(map(str, lines))}) read consecutive words from one base, aligned in every lane",
            "assumes shared variables start 16-byte aligned, as ptxas places them",
        ]
        yield Diagnostic(
            code="BANK002", severity="info", message=message, path=path, line=line, column=column,
            kernel=ctx.function.name, ptx_path=ctx.module.path, ptx_line=first.ptx_line, notes=notes,
            data={"sass_wavefronts": group.wavefronts, "sass_ideal": group.ideal, "ptx_wavefronts": ptx_wf,
                  "bits": group.bits},
        )
