"""`ptxlint report -o report.html PATHS` (and `check --report`): one static HTML page per run.

The numbers come from the code paths of the other commands, with the settings `check` gives each
file (command line over its configuration): the accesses of `ptxlint accesses --format json`
(commands/accesses.py), the rows of `ptxlint kernels --format json` (commands/kernels.py) and the
findings of `ptxlint check`. What this module adds is only what a picture needs and the JSON does
not carry: the lanes and addresses of one warp, the banks and sectors they touch, the same warp after
the verified layout fix, and the occupancy at every block size. report/html.py draws the result.
"""

from __future__ import annotations

import hashlib
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Optional

import click

from .bounded import internal_error, within_budget
from .options import analysis_options, block_option, kernel_option
from ..errors import InputError

# ---------------------------------------------------------------------------------------------
# One warp's picture of an access


def kernel_anchor(ptx_path: str, kernel: str) -> str:
    """The HTML id of a kernel's section: stable, and only letters and digits whatever the names."""
    return "k-" + hashlib.sha1(f"{ptx_path}\0{kernel}".encode("utf-8", "surrogateescape")).hexdigest()[:12]


def _worst_evaluation(ctx, access) -> Optional[tuple]:
    """(warp, iteration index, lanes, addresses, WarpCost) of the evaluation with the worst conflict
    (then the most excess wavefronts; the first warp on a tie), or None when nothing was evaluated."""
    model = ctx.bank_model
    best = None
    for warp in access.warps:
        for index, (lanes, addresses) in enumerate(warp.evaluations):
            cost = model.warp_cost(list(zip(lanes, addresses)), access.bits // 8, access.kind, access.matrices)
            key = (cost.ways, cost.wavefronts - cost.ideal)
            if best is None or key > best[0]:
                best = (key, (warp.warp, index, list(lanes), list(addresses), cost))
    return best[1] if best else None


def _bank_picture(ctx, access, lanes: list, addresses: list) -> dict:
    """The lane-to-bank cells of one warp-level access and what the bank model says it costs."""
    model = ctx.bank_model
    pairs = list(zip(lanes, addresses))
    cost = model.warp_cost(pairs, access.bits // 8, access.kind, access.matrices)
    return {"cells": model.lane_banks(pairs, access.bits // 8, access.kind, access.matrices),
            "wavefronts": cost.wavefronts, "ideal": cost.ideal, "ways": cost.ways, "banks": model.banks,
            "active_lanes": len(lanes)}


def verified_layout_fix(ctx, access) -> Optional[tuple]:
    """(what to write, remap of byte offsets) of the layout change that removes `access`'s conflict,
    verified with the bank model; None when it has no conflict or no fix is found.

    The one place the report asks for a fix: rules/bank.py's suggestion today."""
    from ..analysis.layout import suggest_layout_fix

    if not access.determined or access.wavefronts <= access.ideal or access.vector_group is not None:
        return None
    fix = suggest_layout_fix(ctx, access)
    return (fix.text, fix.remap) if fix is not None else None


def shared_picture(ctx, entry: dict, access) -> Optional[dict]:
    """The grid of the warp evaluation with the worst conflict, and the same warp after the fix."""
    if not access.determined or access.space != "shared":
        return None
    worst = _worst_evaluation(ctx, access)
    if worst is None:
        return None
    warp, index, lanes, addresses, _ = worst
    picture = {"warp": warp, "iteration": index + 1, **_bank_picture(ctx, access, lanes, addresses)}
    per_warp = next((w for w in entry["per_warp"] if w["warp"] == warp), None)
    picture["warp_wavefronts"] = per_warp["wavefronts"] if per_warp else None
    picture["warp_ideal"] = per_warp["ideal"] if per_warp else None
    fix = verified_layout_fix(ctx, access)
    if fix is not None:
        text, remap = fix
        from ..analysis.layout import remapped_cost

        after = _bank_picture(ctx, access, lanes, [remap(a) for a in addresses])
        after["fix"] = text
        after["block_wavefronts"], after["block_ideal"] = remapped_cost(ctx, access, remap)
        picture["after"] = after
    return picture


def sector_picture(entry: dict, access) -> Optional[dict]:
    """The 32-byte sectors each lane of one warp touches, for the warp that wastes most sectors."""
    from ..analysis.sectormodel import SECTOR

    if not access.determined:
        return None
    best = None
    for warp in access.warps:
        for index, ((lanes, _, cost), offsets) in enumerate(zip(warp.evaluations, warp.counted_offsets)):
            if not lanes:
                continue
            key = (cost.sectors - cost.ideal, cost.sectors)
            if best is None or key > best[0]:
                best = (key, warp.warp, index, list(lanes), list(offsets), cost)
    if best is None:
        return None
    _, warp, index, lanes, offsets, cost = best
    nbytes = access.bits // 8
    touched = [(lane, list(range(offset // SECTOR, (offset + nbytes - 1) // SECTOR + 1)))
               for lane, offset in zip(lanes, offsets)]
    sectors = sorted({s for _, ss in touched for s in ss})
    # a sector's label: its byte offset from the first, or with a run-time pitch its first lane's offset as written
    described = access.warps[warp].described if index == 0 else None
    labels = {}
    for i, (lane, ss) in enumerate(touched):
        for s in ss:
            if s not in labels:
                text = described[i] if described and isinstance(described[i], str) else None
                labels[s] = text if text else f"+{(s - sectors[0]) * SECTOR}"
    return {"warp": warp, "iteration": index + 1, "lanes": touched, "sectors": sectors, "labels": labels,
            "count": cost.sectors, "ideal": cost.ideal, "active_lanes": cost.active_lanes}


# ---------------------------------------------------------------------------------------------
# One file


def _kernel_data(module, function, options) -> dict:
    """The accesses JSON object of one kernel, each access with its picture."""
    from .accesses import access_entries, context_report
    from ..analysis.context import KernelContext

    ctx = KernelContext(module, function, options)
    entries = access_entries(ctx)
    doc = context_report(ctx, entries)
    pictures = []
    for entry, access in entries:
        if entry["space"] == "shared":
            pictures.append(shared_picture(ctx, entry, access))
        elif entry["space"] == "global":
            pictures.append(sector_picture(entry, access))
        else:
            pictures.append(None)
    for entry, picture in zip(doc["accesses"], pictures):
        entry["picture"] = picture
    ctx.release()
    return doc


def file_data(plan, kernel_glob: Optional[str] = None) -> dict:
    """Everything the report shows of one file but its findings: per kernel its accesses (with
    pictures) and its `kernels` row with the occupancy curve. Runs in a worker process."""
    from .kernels import kernel_rows, occupancy_curve
    from ..api import _load_modules, with_launches
    from ..file_plan import _trust_sources_of

    _trust_sources_of(plan)
    out = {"path": plan.path, "kernels": [], "notes": [], "error": None}
    try:
        module = _load_modules(plan.path, plan.compile)[0][1]
        options = with_launches(plan.path, module, plan.analysis, plan.host)
        from ..analysis.launch import kernel_matches

        for f in module.kernels:
            if kernel_glob is not None and not kernel_matches(f, kernel_glob):
                continue
            data = within_budget(lambda f=f: _kernel_data(module, f, options), f, options.budget)
            data["ptx_path"] = module.path
            data["anchor"] = kernel_anchor(module.path, f.name)
            out["kernels"].append(data)
        try:
            rows, notes = kernel_rows(plan.path, options, "ptx", plan.analysis.arch, [], kernel_glob, module=module)
        except (InputError, ValueError) as err:
            rows, notes = [], [f"resources and occupancy unknown: {getattr(err, 'message', None) or err}"]
        out["notes"] = notes
        by_name = {r["name"]: r for r in rows}
        for k in out["kernels"]:
            row = by_name.get(k["name"])
            k["resources"] = row
            k["occupancy_curve"] = occupancy_curve(row) if row else None
    except InputError as err:
        out["error"] = str(err)
    except Exception as err:  # noqa: BLE001 - a bug of ptxlint: one message for this file, not a traceback
        out["error"] = str(internal_error(plan.path, err))
    return out


# ---------------------------------------------------------------------------------------------
# A whole run


def _finding(d) -> dict:
    from ..gate import read_lines

    source = None
    if d.line:
        lines = read_lines(d.path) or []
        if 0 < d.line <= len(lines):
            source = lines[d.line - 1].rstrip("\n")
    return {"code": d.code, "severity": d.severity, "message": d.message, "path": d.path, "line": d.line,
            "column": d.column, "notes": list(d.notes), "fix": d.fix, "source": source}


def build_report(paths, options, results=None, kernel_glob: Optional[str] = None) -> tuple:
    """(report document, check results) for `paths` checked with `options` (a CheckOptions);
    `results`: the findings of a `check` already run with the same options; `kernel_glob`: only the
    kernels it matches."""
    from ..api import _plan, check_paths, discover, in_shard
    from ..gate import trust_checked_path

    paths = list(paths)
    if results is None:
        results = check_paths(paths, options)
    options = replace(options, boundary=options.boundary or tuple(dict.fromkeys(map(trust_checked_path, paths))))
    files, errors = discover(paths)
    if options.shard is not None:
        files = [f for f in files if in_shard(f, *options.shard)]
    plans = []
    for f in files:
        plan = _plan(f, options)
        if isinstance(plan, InputError):
            errors.append(plan)
        else:
            plans.append(plan)
    jobs = min(options.jobs or os.cpu_count() or 1, len(plans))
    if jobs <= 1:
        data = [file_data(p, kernel_glob) for p in plans]
    else:
        from ..workers import exit_with_parent

        with ProcessPoolExecutor(max_workers=jobs, initializer=exit_with_parent, initargs=(os.getpid(),)) as pool:
            data = list(pool.map(file_data, plans, [kernel_glob] * len(plans), chunksize=1))
    findings: dict = {}
    for r in results:
        for d in r.diagnostics:
            findings.setdefault((d.ptx_path, d.kernel), []).append(_finding(d))
    for f in data:
        for k in f["kernels"]:
            k["findings"] = findings.pop((k["ptx_path"], k["name"]), [])
    if kernel_glob is not None:
        findings = {}
    # findings of modules the report does not show (a .cu's other architectures, a file-level finding)
    others = [dict(item, kernel=kernel, ptx_path=ptx_path) for (ptx_path, kernel), items in findings.items()
              for item in items]
    messages = [str(e) for e in errors] + [str(e) for r in results for e in r.errors]
    from .. import __version__

    doc = {"version": __version__, "paths": paths, "files": data, "other_findings": others,
           "errors": list(dict.fromkeys(messages))}
    return doc, results


def report_links(doc: dict, report_path: str) -> dict:
    """(ptx path, kernel) -> `report.html#anchor`, for the text output's links to the report."""
    return {(k["ptx_path"], k["name"]): f"{report_path}#{k['anchor']}" for f in doc["files"] for k in f["kernels"]}


def write_report(doc: dict, output: str) -> None:
    """Write the HTML page; a file that cannot be written is an input error (exit 2), never a traceback."""
    from ..report.html import render

    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(render(doc))
    except OSError as err:
        click.echo(f"ptxlint: cannot write the report to {output}: {err.strerror or err}", err=True)
        sys.exit(2)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False), help="The HTML file to write.")
@block_option
@kernel_option
@click.option("--arch", "arches", multiple=True, metavar="SM",
              help="Architecture to compile .cu files for (the first one is shown; default from the config, else "
                   "sm_90).")
@click.option("--nvcc", default=None, metavar="PATH", help="The nvcc to compile .cu files with.")
@click.option("--nvcc-arg", "nvcc_args", multiple=True, metavar="ARG", help="Extra argument for nvcc (repeatable).")
@click.option("--isolated", is_flag=True, help="Ignore pyproject.toml / .ptxlint.toml configuration.")
@click.option("--no-cache", is_flag=True, help="Re-check every file; do not read or write the cache.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Files analysed in parallel (default: CPUs).")
def report(paths, output, blocks, kernel_glob, arches, nvcc, nvcc_args, isolated, no_cache, jobs):
    """Write one self-contained HTML page about the kernels under PATHS: per kernel its block, a
    lane-to-bank grid of each shared access (before and after the verified fix), the 32-byte
    sectors of each global access, the occupancy over block sizes, and the findings."""
    from .options import parse_arches
    from ..api import CheckOptions
    from ..cache import default_cache_dir

    arch_list = parse_arches(arches)
    options = CheckOptions(
        analysis=analysis_options(blocks, arch_list[0] if arch_list else None), arches=arch_list, nvcc=nvcc,
        nvcc_args=list(nvcc_args), use_config=not isolated,
        cache_dir=None if no_cache else default_cache_dir(), jobs=jobs)
    doc, _ = build_report(paths, options, kernel_glob=kernel_glob)
    write_report(doc, output)
    kernels = sum(len(f["kernels"]) for f in doc["files"])
    click.echo(f"Report: {output} ({kernels} kernel{'s' if kernels != 1 else ''} in {len(doc['files'])} "
               f"file{'s' if len(doc['files']) != 1 else ''})")
    for message in doc["errors"]:
        click.echo(message, err=True)
    sys.exit(2 if doc["errors"] else 0)
