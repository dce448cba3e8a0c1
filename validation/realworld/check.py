#!/usr/bin/env python3
"""ptxlint's correctness rules on the real-world corpus, compared with the hand triage.

Runs RACE, SYNC, WARP, SHFL and FENCE over every PTX file that corpus.json lists, groups the
findings into places (code, .cu path, line), and compares the places with triage.json:

    python validation/realworld/check.py                 # each kernel under the shapes its host code launches
    python validation/realworld/check.py --no-launches   # no launch information (ptxlint's own fallback)
    python validation/realworld/check.py --block 'layernorm*=128x1x1'   # extra shapes, first match wins
    python validation/realworld/check.py --half dev      # only the development half (see README.md)
    python validation/realworld/check.py --half test21 --list  # the half's PTX files; runs nothing (also test11, ..., test20, test22, test23, test24, test25, test26)

The corpus is split by repository into a development half, looked at while ptxlint is built, and
held-out test halves (`test`; `test2`, built after `test` had been triaged; `test3`, built after
`test2`; `test4`, built after `test3`; `test5`, built after `test4`; `test6`, built after `test5`; `test7`, built after `test6`;
`test8`, built after `test7`; `test9`, built after `test8`; `test10`, built in the closing session; `test11`
and `test12`, built after `test10` by two helpers; `test13` and `test14`, built after `test12` by two helpers; `test15`
and `test16`, built after them by two helpers side by side; `test17` and `test18`, built after those by two
helpers side by side; `test19` and `test20`, built after those by two helpers side by side; `test21` and `test22`,
built after those by two helpers side by side; `test23` and `test24`, built side by side, test24 extended after;
`test25` and `test26`, built side by side by two helpers), each triaged only
at the end with the final code (corpus.json "halves"); `--half` selects one.

With launches (the default) a kernel launched with several block shapes (launches.json) is checked
once per shape; a kernel whose launch shape is unknown gets no `--block`. A place that fires without
launch information but not under the real launches of all its kernels is counted false ("shape
guess") without a triage entry of its own; every other place needs one.

Prints a table by rule (places, true, false, untriaged) and the places that need attention; exit
status 1 when a place is untriaged or false or a triage entry no longer fires (stale).
`--write-baseline FILE` saves the places and the table as JSON.

The corpus itself (fetched code and its PTX) is kept out of commits: see README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import re
import sys
import time
from collections import Counter, defaultdict
from multiprocessing import get_context
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from ptxlint.analysis.context import AnalysisOptions  # noqa: E402
from ptxlint.analysis.launch import merge_grids  # noqa: E402
from ptxlint.api import CheckOptions, check_file, check_module  # noqa: E402
from ptxlint.frontend.demangle import demangle, without_parameters  # noqa: E402
from ptxlint.frontend.parser import parse_ptx_file  # noqa: E402
from ptxlint.frontend.sourcemap import is_toolkit_header  # noqa: E402

RULES = ["RACE", "SYNC", "WARP", "SHFL", "FENCE"]
MARKER = "/validation/realworld/"


def load(name: str) -> dict:
    return json.loads((HERE / name).read_text())


def half_of_repo(corpus: dict) -> dict:
    """{repository: half} from corpus.json's split ("dev", "test", "test2", ..., "test10", "test11", ..., "test16", "test17", "test18", "test19", "test20", "test21", "test22", "test23", "test24", "test25", "test26")."""
    return {repo: half for half, repos in corpus["halves"]["repositories"].items() for repo in repos}


def sources_of(corpus: dict, half: str | None = None) -> list:
    """The corpus sources of one half ("dev", "test", "test2", ..., "test10", "test11", ..., "test16", "test17", "test18", "test19", "test20", "test21", "test22", "test23", "test24", "test25", "test26") or of all (None)."""
    halves = half_of_repo(corpus)
    return [s for s in corpus["sources"] if half is None or halves[s["repo"]] == half]


def in_half(path: str, corpus: dict, half: str | None) -> bool:
    """Whether a corpus path (`owner__repo/...`) belongs to the half (always true for None)."""
    if half is None:
        return True
    folder = path.split("/", 1)[0]
    return any(half_of_repo(corpus)[s["repo"]] == half for s in corpus["sources"] if s["corpus_path"].split("/", 1)[0] == folder)


def corpus_present(corpus: dict | None = None, half: str | None = None) -> list:
    """The corpus PTX files that are missing here (empty: the corpus, or that half of it, is complete)."""
    corpus = corpus or load("corpus.json")
    return [s["ptx"] for s in sources_of(corpus, half) if not (HERE / s["ptx"]).is_file()]


def corpus_path(path: str) -> str:
    """A finding's file relative to validation/realworld/ (the PTX records absolute paths of the
    machine that compiled it); toolkit and other paths stay as they are."""
    path = posixpath.normpath(path.replace("\\", "/"))
    if MARKER in path:
        return path.split(MARKER, 1)[1]
    if path.startswith("validation/realworld/"):
        return path[len("validation/realworld/"):]
    return path


def short_name(mangled: str) -> str:
    return without_parameters(demangle(mangled))


def parse_block(text: str) -> tuple:
    """'GLOB=XxYxZ' or 'XxYxZ' -> (glob or None, (x, y, z))."""
    glob, _, dims = text.rpartition("=")
    parts = [int(p) for p in dims.lower().split("x")]
    if not 1 <= len(parts) <= 3 or any(p < 1 for p in parts):
        raise argparse.ArgumentTypeError(f"bad block shape {text!r}: want [GLOB=]XxYxZ")
    return (glob or None, tuple(parts + [1] * (3 - len(parts))))


# ---------------------------------------------------------------------------------------------
# Running ptxlint


def launch_table(launches: dict) -> dict:
    """{ptx: {kernel: [(dims, origin, grid), ...]}} from launches.json; kernels with no known shape map to []."""
    table: dict = defaultdict(dict)
    for entry in launches["kernels"]:
        shapes: dict = {}  # dims -> (origin, grid)
        for launch in entry.get("launches", []):
            dims = tuple(launch["block"])
            origin = f"launches.json: launched at {launch['host']}"
            grid = recorded_grid(launch)
            if dims in shapes:
                first, seen = shapes[dims]
                shapes[dims] = (first, merge_grids(seen, grid))
            else:
                shapes[dims] = (origin, grid)
        table[entry["ptx"]][entry["kernel"]] = [(d, o, g) for d, (o, g) in shapes.items()]
    return table


def recorded_grid(launch: dict):
    """The grid a launches.json record gives, per dimension an int or None (a run-time value);
    None when the record has no grid."""
    grid = launch.get("grid")
    if not grid:
        return None
    return tuple(d if isinstance(d, int) else None for d in grid)


def _check_one(task: tuple) -> tuple:
    """Check one PTX file: every kernel once per shape in `shapes` (or once with no launch info).
    Returns (ptx, [(diagnostic dict, shape label)], seconds, [kernels whose analysis budget ran out])."""
    ptx, shapes, extra, use_launches = task
    start = time.perf_counter()
    found = []
    incomplete: list = []
    if use_launches == "discovered":
        # as a user runs it: the shapes come from ptxlint's own launch discovery in the host code
        options = CheckOptions(select=RULES, analysis=AnalysisOptions(block_overrides=list(extra)), use_config=False)
        result = check_file(str(HERE / ptx), options)
        if result.errors:
            raise RuntimeError(f"{ptx}: {result.errors[0]}")
        for d in result.diagnostics:
            if not is_toolkit_header(d.path):
                found.append((d.to_dict(), "+".join(d.data.get("blocks", [])) or "?"))
        incomplete = sorted({short_name(s["kernel"]) for s in result.incomplete})
        return ptx, found, time.perf_counter() - start, incomplete
    module = parse_ptx_file(str(HERE / ptx))
    discovered, runtime_blocks = discovered_arguments(ptx, module) if use_launches else ({}, ())

    def run(overrides, only, label, launches=None):
        analysis = AnalysisOptions(block_overrides=overrides, launches=launches or ())
        options = CheckOptions(select=RULES, analysis=analysis)
        stopped: list = []
        for d in check_module(module, options, only=only, incomplete=stopped):
            if not is_toolkit_header(d.path):
                found.append((d.to_dict(), label))
        incomplete.extend(short_name(s["kernel"]) for s in stopped)

    if not use_launches:
        run(list(extra), None, "no launch info" if not extra else "--block")
    else:
        plain = set()
        for f in module.functions:
            if not f.has_body:
                continue
            known = shapes.get(f.name, [])
            if not known:
                plain.add(f.name)
                continue
            for dims, origin, grid in known:
                label = "x".join(map(str, dims))
                arguments = discovered.get((f.name, tuple(dims)))
                run(list(extra) + [(f.name, dims, origin, grid, arguments)], {f.name}, label)
        if plain:
            run(list(extra), plain, "unknown launch", runtime_blocks)
    return ptx, found, time.perf_counter() - start, sorted(set(incomplete))


def discovered_arguments(ptx: str, module) -> tuple:
    """({(kernel, block): per kernel parameter, the values its launches pass}, launches with a
    run-time block): what ptxlint's own launch discovery reads from the host code's calls (the
    argument values the recorded launches do not list), for the launches whose block it finds equal
    to a recorded one."""
    from ptxlint.analysis.launch import merge_arguments
    from ptxlint.file_check import with_launches
    from ptxlint.frontend.launches import launches_for_function

    launches = with_launches(str(HERE / ptx), module, AnalysisOptions()).launches
    out: dict = {}
    for f in module.functions:
        for launch in launches_for_function(f.name, list(launches or ())) if f.has_body else ():
            if launch.block is not None:
                key = (f.name, tuple(launch.block))
                out[key] = merge_arguments(out.get(key, ...), launch.call_arguments)
    arguments = {k: v for k, v in out.items() if v}
    # the launches whose block is a run-time value: what they fix of it (`dim3 b(1, n)`: x is 1)
    # narrows the candidates of a kernel the records leave unknown
    return arguments, tuple(launch for launch in launches or () if launch.block is None)


def run_corpus(use_launches: bool = True, extra_blocks: list | None = None, jobs: int | None = None,
               only_ptx: list | None = None, half: str | None = None) -> dict:
    """Run ptxlint over the corpus (or one half of it). Returns {"places": {...}, "seconds": {ptx: s},
    "incomplete": {ptx: [kernels whose analysis budget ran out]}}."""
    corpus = load("corpus.json")
    table = launch_table(load("launches.json")) if use_launches else {}
    extra = [(glob, dims, "check.py --block") for glob, dims in (extra_blocks or [])]
    ptxs = [s["ptx"] for s in sources_of(corpus, half) if only_ptx is None or s["ptx"] in only_ptx]
    tasks = [(p, table.get(p, {}), extra, use_launches) for p in ptxs]
    # largest files first so that the workers finish together
    tasks.sort(key=lambda t: -(HERE / t[0]).stat().st_size)
    jobs = jobs or os.cpu_count() or 1
    results = []
    if jobs > 1 and len(tasks) > 1:
        with get_context("fork").Pool(jobs) as pool:
            results = list(pool.imap_unordered(_check_one, tasks, chunksize=1))
    else:
        results = [_check_one(t) for t in tasks]
    places: dict = {}
    seconds = {}
    incomplete = {}  # ptx -> kernels whose analysis budget ran out (their later rules did not run)
    for ptx, found, secs, stopped in results:
        seconds[ptx] = round(secs, 2)
        if stopped:
            incomplete[ptx] = stopped
        for d, label in found:
            key = (d["code"], corpus_path(d["path"]), d["line"])
            place = places.setdefault(key, {"code": key[0], "path": key[1], "line": key[2], "kernels": set(),
                                            "shapes": set(), "findings": 0, "message": d["message"],
                                            "ptx": set()})
            place["kernels"].update(d["data"].get("instances") or [short_name(d["kernel"]) if d.get("kernel") else "?"])
            place["shapes"].add(label)
            place["ptx"].add(ptx)
            place["findings"] += 1
    return {"places": places, "seconds": seconds, "incomplete": incomplete}


# ---------------------------------------------------------------------------------------------
# Comparing with the triage


def triage_index(triage: dict) -> dict:
    return {(e["code"], e["path"], e["line"]): e for e in triage["entries"]}


def kernels_with_known_launch(launches: dict) -> set:
    return {short_name(e["kernel"]) for e in launches["kernels"] if e.get("launches")}


def classify(places: dict, triage: dict, launches: dict, launched_places: set | None = None) -> dict:
    """Verdict of each place: "true"/"false" from triage.json; for a run without launch info, a place
    that does not fire under the real launches of all its kernels is "false" (shape guess)."""
    index = triage_index(triage)
    known = kernels_with_known_launch(launches)
    verdicts = {}
    for key, place in places.items():
        entry = index.get(key)
        if entry is not None:
            verdicts[key] = (entry["verdict"], entry.get("cause", ""), entry)
        elif launched_places is not None and key not in launched_places and place["kernels"] <= known:
            verdicts[key] = ("false", "shape guess: does not fire under the launched block shapes", None)
        else:
            verdicts[key] = ("untriaged", "", None)
    return verdicts


def table_by_rule(places: dict, verdicts: dict) -> dict:
    rows: dict = defaultdict(Counter)
    for key in places:
        code = key[0]
        rows[code]["places"] += 1
        rows[code][verdicts[key][0]] += 1
    total = Counter()
    for row in rows.values():
        total.update(row)
    out = {code: {k: rows[code][k] for k in ("places", "true", "false", "untriaged")} for code in sorted(rows)}
    out["total"] = {k: total[k] for k in ("places", "true", "false", "untriaged")}
    return out


def stale_entries(places: dict, triage: dict, half: str | None = None) -> list:
    """Triage entries (of the half, if given) that no longer fire."""
    corpus = load("corpus.json") if half else None
    return [e for key, e in triage_index(triage).items()
            if key not in places and (half is None or in_half(e["path"], corpus, half))]


def format_table(table: dict) -> str:
    lines = [f"{'rule':<10}{'places':>8}{'true':>8}{'false':>8}{'untriaged':>11}"]
    for code, row in table.items():
        if code == "total":
            lines.append("-" * 45)
        lines.append(f"{code:<10}{row['places']:>8}{row['true']:>8}{row['false']:>8}{row['untriaged']:>11}")
    return "\n".join(lines)


def describe(key, place, verdict) -> str:
    code, path, line = key
    kernels = ", ".join(sorted(place["kernels"]))
    shapes = ", ".join(sorted(place["shapes"]))
    why = f" [{verdict[1]}]" if verdict[1] else ""
    return f"  {code} {path}:{line}  kernels: {kernels}  (block {shapes}){why}\n      {place['message']}"


def serializable(places: dict, verdicts: dict) -> list:
    out = []
    for key in sorted(places, key=lambda k: (k[1], k[2] or 0, k[0])):
        p = places[key]
        out.append({"code": p["code"], "path": p["path"], "line": p["line"], "kernels": sorted(p["kernels"]),
                    "shapes": sorted(p["shapes"]), "findings": p["findings"], "message": p["message"],
                    "ptx": sorted(p["ptx"]), "verdict": verdicts[key][0], "cause": verdicts[key][1]})
    return out


def report(use_launches: bool, extra_blocks: list, jobs: int | None, half: str | None = None) -> dict:
    """Run and classify; the no-launch run also needs the launched places to call shape guesses."""
    triage, launches = load("triage.json"), load("launches.json")
    result = run_corpus(use_launches, extra_blocks, jobs, half=half)
    launched = None
    if use_launches is not True:
        launched = set(run_corpus(True, extra_blocks, jobs, half=half)["places"])
    verdicts = classify(result["places"], triage, launches, launched)
    mode = {True: "launches.json shapes", False: "no launch information",
            "discovered": "as a user runs it (ptxlint's launch discovery)"}[use_launches]
    if half:
        mode += f", {half} half"
    return {"mode": mode,
            "places": result["places"], "verdicts": verdicts, "table": table_by_rule(result["places"], verdicts),
            "stale": stale_entries(result["places"], triage, half) if use_launches is True else [],
            "seconds": result["seconds"], "incomplete": result["incomplete"]}


def list_sources(half: str | None) -> int:
    """Print the PTX files of the half (or of the whole corpus), their kernel counts and whether each is
    here; runs no check. Exit status 2 when a file is missing."""
    sources = sources_of(load("corpus.json"), half)
    missing = 0
    for s in sources:
        here = (HERE / s["ptx"]).is_file()
        missing += not here
        print(f"{s['kernel_count']:5d}  {s['ptx']}{'' if here else '  (missing)'}")
    repos = len({s["repo"] for s in sources})
    print(f"{len(sources)} PTX files, {sum(s['kernel_count'] for s in sources)} kernels, {repos} repositories"
          f" ({half or 'every'} half){f'; {missing} missing' if missing else ''}")
    return 2 if missing else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="ptxlint on the real-world corpus vs. triage.json")
    parser.add_argument("--no-launches", action="store_true", help="no launch information (ptxlint's fallback)")
    parser.add_argument("--as-user", action="store_true",
                        help="shapes from ptxlint's own launch discovery, as `ptxlint check FILE.ptx` runs")
    parser.add_argument("--block", action="append", type=parse_block, default=[], metavar="[GLOB=]XxYxZ",
                        help="extra block shape for kernels matching GLOB (first match wins); repeatable")
    parser.add_argument("--write-baseline", metavar="FILE", help="save the places and the table as JSON")
    parser.add_argument("--half", choices=sorted(load("corpus.json")["halves"]["repositories"]), default=None,
                        help="only one half of the corpus (split by repository; the test halves are triaged last)")
    parser.add_argument("--list", action="store_true",
                        help="list the PTX files (and their kernel counts) that would be checked, without running ptxlint")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="processes (default: CPUs)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every place, not only the failing ones")
    args = parser.parse_args(argv)
    if args.list:
        return list_sources(args.half)
    missing = corpus_present(half=args.half)
    if missing:
        print(f"the corpus is not here ({len(missing)} PTX files missing, e.g. {missing[0]}): see README.md",
              file=sys.stderr)
        return 2
    out = report("discovered" if args.as_user else not args.no_launches, args.block, args.jobs, args.half)
    places, verdicts = out["places"], out["verdicts"]
    print(f"ptxlint {','.join(RULES)} on the real-world corpus, {out['mode']}")
    print(format_table(out["table"]))
    failing = [k for k in places if verdicts[k][0] != "true"]
    shown = sorted(places if args.verbose else failing, key=lambda k: (k[1], k[2] or 0, k[0]))
    for kind in ("untriaged", "false", "true"):
        keys = [k for k in shown if verdicts[k][0] == kind]
        if keys:
            print(f"\n{kind.upper()} places ({len(keys)}):")
            for k in keys:
                print(describe(k, places[k], verdicts[k]))
    if out["stale"]:
        print(f"\nSTALE triage entries (no longer fire) ({len(out['stale'])}):")
        for e in out["stale"]:
            print(f"  {e['code']} {e['path']}:{e['line']}  ({e['verdict']}) {e['why'][:100]}")
    if out["incomplete"]:
        stopped = sum(len(k) for k in out["incomplete"].values())
        print(f"\nINCOMPLETE: {stopped} kernel(s) ran out of the analysis budget (rules after it did not run):")
        for ptx, kernels in sorted(out["incomplete"].items()):
            print(f"  {ptx}: {', '.join(kernels)}")
    if args.write_baseline:
        doc = {"mode": out["mode"], "half": args.half or "both", "rules": RULES, "table": out["table"],
               "places": serializable(places, verdicts), "incomplete": out["incomplete"],
               "seconds": out["seconds"]}
        Path(args.write_baseline).write_text(json.dumps(doc, indent=1) + "\n")
    return 1 if failing or out["stale"] else 0


if __name__ == "__main__":
    sys.exit(main())
