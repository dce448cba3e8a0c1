"""`ptxlint kernels PATH`: one row per kernel: resources, occupancy and its limiter, instruction mix.

Resources (registers, spills, static shared memory, barriers) are what ptxas decides, so they
come from ptxas (run on the PTX when it is installed), the cubin, or the SASS listing. The mix is
counted on the PTX (`--level ptx`, the default) or on the SASS (`--level sass`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from typing import Optional

import click

from .bounded import internal_error
from .options import block_option, command_settings, compile_options, config_options, kernel_option, parse_arches
from .settings import echo_notes, file_plan, unmatched_globs
from ..errors import InputError
from ..frontend.nvcc import SASS_WHEELS, install_hint

PTX_INPUTS = (".ptx", ".cu")


@dataclass
class _Named:
    """Something with a `.name`, for matching kernel globs against SASS-only kernels."""

    name: str


def parse_dynamic_smem(values) -> list:
    """`--dynamic-smem 4096`, `--dynamic-smem 'reduce*=48K'` -> [(glob or None, bytes)]."""
    out = []
    for value in values:
        glob, amount = value.rsplit("=", 1) if "=" in value else (None, value)
        text = amount.strip().upper()
        scale = 1
        if text.endswith("K") or text.endswith("KB"):
            text, scale = text.rstrip("B")[:-1], 1024
        if not text.isdigit():
            raise click.BadParameter(f"{value!r}: expected [KERNEL=]BYTES, e.g. 4096, 48K or reduce*=8192",
                                     param_hint="--dynamic-smem")
        out.append((glob, int(text) * scale))
    return out


def _dynamic_smem_for(name: str, rules: list) -> int:
    from ..analysis.launch import kernel_matches

    for glob, amount in rules:
        if glob is None or kernel_matches(_Named(name), glob):
            return amount
    return 0


def _block_for(name: str, ptx_function, options, resources) -> tuple:
    """(dims, source) the way every other command resolves it; SASS-only kernels use the
    overrides, then the cubin's .maxntid, then 256 threads (assumed)."""
    from ..analysis.launch import kernel_matches, resolve_block_shape

    if ptx_function is not None:
        shape = resolve_block_shape(ptx_function, options)
        return shape.dims, shape.source
    for glob, dims, origin, *_grid in options.block_overrides:
        if glob is None or kernel_matches(_Named(name), glob):
            return tuple(dims), origin
    if resources is not None and resources.max_threads:
        return (resources.max_threads, 1, 1), "assumed from .maxntid (cubin), its upper bound"
    return (256, 1, 1), "assumed: no --block; pass --block to change it"


def _ptx_static_smem(module, function) -> int:
    """Bytes of the .shared variables a PTX kernel declares or names (extern ones count 0)."""
    total = 0
    body = None
    for v in list(function.variables) + list(module.variables):
        if v.space != "shared":
            continue
        if v not in function.variables:
            body = body if body is not None else "\n".join(str(i) for i in function.instructions)
            if v.name not in body:
                continue
        size = v.size_bytes
        total += size or 0
    return total


def kernel_rows(path: str, options, level: str, arch: Optional[str], dynamic: list,
                kernel_glob: Optional[str] = None, compile_options=None, host=((), ()), all_names=None,
                module=None) -> tuple:
    """The `kernels` rows of one file and notes about how they were obtained. `options`,
    `compile_options` and `host` (include dirs and defines of the host code): the file's plan, as
    `check` has it; `all_names` collects the names of every kernel of the file. `module`: the file's
    PTX already parsed (for a `.cu`, with its `ptx_text`), so that a caller does not compile it twice;
    `options` then already hold the launches found for it (file_check.with_launches)."""
    from ..analysis.launch import kernel_matches
    from ..analysis.mix import ptx_mix, sass_mix
    from ..analysis.occupancy import limits_for, occupancy
    from ..api import load_module
    from ..frontend.demangle import demangle, without_parameters
    from ..frontend.sass.load import load_sass
    from ..frontend.sass.tools import find_tool, tools_available

    notes = []
    program = None
    ptx_text = None
    given = module is not None
    if path.endswith(PTX_INPUTS):
        if module is not None:
            from ..frontend.parser import read_ptx_file

            ptx_text = module.ptx_text if path.endswith(".cu") else read_ptx_file(path)
        elif path.endswith(".cu"):
            from ..cache import default_cache_dir
            from ..compile_cache import compiled_ptx
            from ..frontend.nvcc import CompileOptions

            copts = compile_options or CompileOptions(arches=(arch or "sm_90",))
            if arch:
                copts = replace(copts, arches=(arch,))
            compiled = compiled_ptx(path, copts, default_cache_dir())[0]  # the compile `check` made, if it did
            ptx_text = compiled.text
            from ..frontend.parser import parse_ptx

            module = parse_ptx(ptx_text, f"{path} ({copts.arches[0]} PTX)", source_name=compiled.source_name)
        else:
            from ..frontend.parser import read_ptx_file

            module = load_module(path)
            ptx_text = read_ptx_file(path)
        if level == "sass" or tools_available():
            program = load_sass(path, arch or module.arch, ptx_text)
        elif find_tool("ptxas") is not None:
            # the resources need only ptxas; the mix is the PTX's
            from ..analysis.resources import parse_ptxas_verbose
            from ..frontend.sass.load import SassProgram
            from ..frontend.sass.tools import assemble

            target = arch or module.arch or "sm_90"
            program = SassProgram(path, [], parse_ptxas_verbose(assemble(ptx_text, target, path).verbose),
                                  how=f"ptxas -arch={target} -v (no nvdisasm: no SASS)")
        else:
            notes.append(f"registers and spills unknown: ptxas not found ({install_hint(SASS_WHEELS, 'sass')})")
    else:
        program = load_sass(path, arch)
        level = "sass"
    target = arch or (program.arch if program else None) or (module.arch if module else None) or "sm_90"
    limits = limits_for(target)
    if module is not None and not given:
        from ..api import with_launches

        options = with_launches(path, module, options, host)
    names = [f.name for f in module.kernels] if module is not None else [f.name for f in program.kernels]
    if program is not None and not program.modules and program.how.endswith("no SASS)"):
        notes.append(f"SASS not read: nvdisasm not found ({install_hint(SASS_WHEELS, 'sass')})")
    if all_names is not None:
        all_names.extend(names)
    rows = []
    for name in names:
        if kernel_glob and not kernel_matches(_Named(name), kernel_glob):
            continue
        ptx_function = next((f for f in module.kernels if f.name == name), None) if module else None
        sass_function = program.function(name) if program else None
        res = program.resources.get(name) if program else None
        dims, source = _block_for(name, ptx_function, options, res)
        threads = dims[0] * dims[1] * dims[2]
        dyn = _dynamic_smem_for(name, dynamic)
        static = res.static_smem if res else _ptx_static_smem(module, ptx_function)
        static_known = res is None or res.source != "SASS listing"
        if not static_known and "static shared memory unknown" not in " ".join(notes):
            notes.append("static shared memory unknown (an nvdisasm listing does not record it): occupancy "
                         "assumes none; give the .cubin or the .ptx instead")
        max_threads = (res.max_threads if res else None) or (
            _product(ptx_function.maxntid) if ptx_function is not None and ptx_function.maxntid else None)
        row = {
            "name": name, "demangled": without_parameters(demangle(name)),
            "registers": res.registers if res else None,
            "spill_bytes": res.spill_bytes if res else None,
            "spill_stores": res.spill_stores if res else None, "spill_loads": res.spill_loads if res else None,
            "local_bytes": res.stack_frame if res else None,
            "static_smem": static if static_known else None, "dynamic_smem": dyn, "barriers": res.barriers if res else None,
            "block": list(dims), "block_source": source, "arch": target, "level": level,
            "resources_from": res.source if res else None, "max_threads": max_threads,
        }
        if res is not None:
            row.update(occupancy_fields(occupancy(limits, res.registers, threads, static, dyn, max_threads)))
        else:
            row.update(blocks_per_sm=None, warps_per_sm=None, occupancy=None, limiter=None, limits=None,
                       launchable=None)
        if level == "sass" and sass_function is not None:
            row["mix"] = sass_mix(sass_function)
        elif ptx_function is not None:
            row["mix"] = ptx_mix(ptx_function)
        else:
            row["mix"] = {}
        rows.append(row)
    if program is not None and program.modules:
        notes.append(f"SASS from {program.how}")
    return rows, notes


def occupancy_fields(occ) -> dict:
    """A `kernels` row's occupancy fields from an Occupancy: a block the kernel cannot launch
    (larger than its launch bounds) has none, limited by "launch bounds"."""
    launchable = not occ.exceeds_max_threads
    return {"blocks_per_sm": occ.blocks_per_sm if launchable else 0,
            "warps_per_sm": occ.warps_per_sm if launchable else 0,
            "occupancy": round(occ.occupancy, 4) if launchable else 0.0,
            "limiter": occ.limiter if launchable else "launch bounds",
            "limits": occ.limits, "launchable": launchable}


def occupancy_curve(row: dict, sizes=range(32, 1025, 32)) -> Optional[list]:
    """The occupancy fields of a `kernels` row's kernel at other block sizes (threads per block),
    with the row's registers, shared memory, launch bounds and SM limits: [dict with "threads"];
    None when its registers are unknown."""
    from ..analysis.occupancy import limits_for, occupancy

    if row.get("registers") is None or row.get("blocks_per_sm") is None:
        return None
    limits = limits_for(row["arch"])
    return [dict(occupancy_fields(occupancy(limits, row["registers"], t, row["static_smem"] or 0,
                                            row["dynamic_smem"], row.get("max_threads"))), threads=t)
            for t in sizes]


def _product(dims) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


_MIX_COLUMNS = [("ld.g", "load.global"), ("st.g", "store.global"), ("ld.s", "load.shared"),
                ("st.s", "store.shared"), ("ld.l", "load.local"), ("st.l", "store.local"), ("atom", None),
                ("bar", "barrier"), ("warp", "warp"), ("fp32", "fp32"), ("fp64", "fp64"), ("int", "int"),
                ("tc", "tensor"), ("bra", "branch")]


def _mix_value(mix: dict, key) -> int:
    if key is None:
        return mix.get("atomic.global", 0) + mix.get("atomic.shared", 0)
    return mix.get(key, 0)


def render_text(files: list) -> str:
    """An aligned table per file."""
    out = []
    for path, rows, notes in files:
        header = ["kernel", "regs", "spill", "smem", "dyn", "block", "blocks/SM", "warps/SM", "occupancy",
                  "limiter"] + [c for c, _ in _MIX_COLUMNS]
        table = [header]
        for r in rows:
            def show(v):
                return "?" if v is None else str(v)

            occ = "?" if r["occupancy"] is None else f"{100 * r['occupancy']:.0f}%"
            table.append([r["demangled"], show(r["registers"]), show(r["spill_bytes"]), show(r["static_smem"]),
                          str(r["dynamic_smem"]), "x".join(map(str, r["block"])), show(r["blocks_per_sm"]),
                          show(r["warps_per_sm"]), occ, show(r["limiter"])]
                         + [str(_mix_value(r["mix"], k)) for _, k in _MIX_COLUMNS])
        level = rows[0]["level"] if rows else "ptx"
        arch = rows[0]["arch"] if rows else "?"
        out.append(f"{path}: {len(rows)} kernel{'s' if len(rows) != 1 else ''}, {arch}, mix from "
                   f"{'SASS' if level == 'sass' else 'PTX'}")
        if rows:
            widths = [max(len(row[i]) for row in table) for i in range(len(header))]
            for row in table:
                cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
                out.append("  " + "  ".join(cells).rstrip())
        blocks = sorted({(tuple(r["block"]), r["block_source"]) for r in rows})
        for dims, source in blocks:
            out.append(f"  block {'x'.join(map(str, dims))}: {source}")
        for note in notes:
            out.append(f"  {note}")
    return "\n".join(out) + "\n"


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--arch", default=None, metavar="SM",
              help="Architecture to compile and assemble for and whose occupancy limits apply (default: the "
                   "config's first for .cu, the PTX's .target for .ptx).")
@block_option
@click.option("--dynamic-smem", "dynamic", multiple=True, metavar="[KERNEL=]BYTES",
              help="Dynamic shared memory per block (e.g. 4096, 48K, 'reduce*=8192'). Repeatable.")
@click.option("--level", type=click.Choice(["ptx", "sass"]), default="ptx", show_default=True,
              help="Count the instruction mix on the PTX or on the SASS ptxas makes of it.")
@kernel_option
@config_options
@compile_options
def kernels(paths, fmt, arch, blocks, dynamic, level, kernel_glob, config_path, compile_commands, nvcc, nvcc_args,
            isolated, trust_config):
    """One row per kernel: registers, spills, shared memory, block, resident blocks and warps per
    SM, occupancy and its limiter, and the instruction mix."""
    from ..analysis.occupancy import limits_for
    from ..api import discover_run

    dyn = parse_dynamic_smem(dynamic)
    if arch:
        arch = parse_arches([arch])[0]
        try:
            limits_for(arch)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--arch") from None
    settings = command_settings(blocks, [arch] if arch else [], config_path=config_path,
                                compile_commands=compile_commands, nvcc=nvcc, nvcc_args=nvcc_args,
                                isolated=isolated, trust_config=trust_config)
    run = discover_run(paths, settings)
    errors = list(run.errors)
    results = []
    names: list = []
    for path in run.files:
        try:
            plan = file_plan(path, settings)
            file_arch = arch or (plan.compile.arches[0] if plan.compile is not None else None)
            rows, notes = kernel_rows(path, plan.analysis, level, file_arch, dyn, kernel_glob, plan.compile,
                                      plan.host, names)
        except InputError as err:
            errors.append(err)
            continue
        except ValueError as err:
            errors.append(InputError(path, str(err)))
            continue
        except Exception as err:  # noqa: BLE001 - a bug of ptxlint: one message for this file, not a traceback
            errors.append(internal_error(path, err))
            continue
        if kernel_glob and not rows:
            continue  # a file without a matching kernel is not listed
        results.append((path, rows, notes))
    errors += unmatched_globs(settings, names, kernel_glob)
    echo_notes(run.notes)
    for err in errors:
        click.echo(str(err), err=True)
    if fmt == "json":
        doc = {"kernels": [dict(r, path=p) for p, rows, _ in results for r in rows]}
        click.echo(json.dumps(doc, indent=2))
    elif results:
        click.echo(render_text(results), nl=False)
    sys.exit(2 if errors else 0)
