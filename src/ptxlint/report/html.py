"""The HTML report: one static, self-contained page (inline CSS and SVG; no script, no network).

It only formats the document commands/report.py builds. Every string that comes from the checked
code (file and kernel names, source lines, messages that quote them) is escaped; a Content-Security-
Policy forbids scripts and every fetch, so even a page edited by hand loads nothing. The numbers a
test or a script may want are on `data-*` attributes of the elements that show them.
"""

from __future__ import annotations

import re
from html import escape

from . import svg
from ..analysis.layout import source_name

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d232b;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:16px 24px 40px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:0 0 2px}h3{font-size:15px;margin:18px 0 6px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.muted{color:#5d6875}.kernel{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:14px 18px;margin:18px 0}
table{border-collapse:collapse}td,th{padding:2px 10px 2px 0;text-align:left;vertical-align:top}
th{font-weight:600;color:#3c4652}.num{text-align:right;font-variant-numeric:tabular-nums}
.access{border-top:1px solid #eceef1;padding:5px 0}.figures{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
figure{margin:4px 0}figcaption{font-size:12.5px;color:#3c4652;max-width:380px}
.bad{color:#b3261e;font-weight:600}.good{color:#2e7d4f;font-weight:600}
.finding{margin:6px 0;padding:6px 10px;border-left:4px solid #e0a100;background:#fffbea}
.finding.error{border-color:#c62828;background:#fdeeee}.finding.info{border-color:#5c8fd6;background:#eef4fc}
.finding ul{margin:2px 0 0 0;padding-left:18px}.witness{font-weight:600}
pre.source{margin:4px 0;padding:4px 8px;background:#f0f2f5;border-radius:4px;white-space:pre-wrap}
svg text{font:10px system-ui,sans-serif;fill:#3c4652}svg .axis{font-weight:600}
svg .grid-bg{fill:#f3f4f6;stroke:#c9ced6}svg .grid-line{stroke:#d7dbe1;stroke-width:1;fill:none}
svg .curve{fill:none;stroke:#58606b;stroke-width:1.5}svg .current{stroke:#1d232b;stroke-dasharray:4 3}
svg .cell{stroke:#fff;stroke-width:.5}.bank-grid .cell:not(.conflict){fill:#4c9a6a}.sector-grid .cell{fill:#4a7fb5}
.index td{padding-right:14px}a{color:#1f5fbf}summary{cursor:pointer;color:#3c4652;font-size:12.5px}
"""

# a race's witness threads, as rules/race.py describes them: "thread 5 (threadIdx.x=5, warp 0 lane 5)"
_WITNESS = re.compile(r"\bthread \d+ \(threadIdx")
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def _data(**values) -> str:
    """` data-a-b="v"` for each value that is not None (names: underscores become dashes)."""
    return "".join(f' data-{k.replace("_", "-")}="{_e(v)}"' for k, v in values.items() if v is not None)


def _dims(block) -> str:
    return "x".join(map(str, block))


def _variables(access: dict, kernel: str) -> str:
    if access["space"] == "global":
        return ", ".join(v.replace(f"{kernel}_param_", "param ") for v in access["variables"])
    return ", ".join(source_name(v) for v in access["variables"])


def render(doc: dict) -> str:
    """The whole page of a report document (commands/report.py: build_report)."""
    kernels = [(f, k) for f in doc["files"] for k in f["kernels"]]
    findings = sum(len(k.get("findings", ())) for _, k in kernels) + len(doc.get("other_findings", ()))
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>ptxlint report: {_e(', '.join(doc['paths']))}</title><style>{_STYLE}</style></head>",
           f'<body><main{_data(kernels=len(kernels), findings=findings)}>',
           f"<h1>ptxlint report</h1><p class=\"muted\">{_e(', '.join(doc['paths']))} &middot; "
           f"{len(kernels)} kernel{'s' if len(kernels) != 1 else ''} in {len(doc['files'])} "
           f"file{'s' if len(doc['files']) != 1 else ''} &middot; {findings} finding{'s' if findings != 1 else ''}"
           f" &middot; ptxlint {_e(doc['version'])}</p>"]
    if doc["errors"]:
        out.append('<h3>Input errors</h3><ul class="errors">' +
                   "".join(f'<li class="mono">{_e(m)}</li>' for m in doc["errors"]) + "</ul>")
    out.append(_index(kernels))
    for f in doc["files"]:
        if f["error"]:
            out.append(f'<section class="file"{_data(path=f["path"])}><p class="bad mono">{_e(f["error"])}</p></section>')
            continue
        for k in f["kernels"]:
            out.append(_kernel(f, k))
    if doc.get("other_findings"):
        out.append("<h3>Other findings (of no kernel drawn above: another architecture, or the whole file)</h3>")
        out.extend(_finding(d) for d in doc["other_findings"])
    out.append("</main></body></html>\n")
    return "".join(out)


def _index(kernels: list) -> str:
    rows = ["<h3>Kernels</h3><table class=\"index\"><tr><th>kernel</th><th>file</th><th>block</th>"
            "<th class=\"num\">findings</th><th class=\"num\">worst bank conflict</th>"
            "<th class=\"num\">occupancy</th></tr>"]
    for f, k in kernels:
        ways = max((a.get("ways") or 1 for a in k.get("accesses", ()) if a["space"] == "shared"), default=None)
        res = k.get("resources") or {}
        occ = res.get("occupancy")
        rows.append(f'<tr><td><a href="#{_e(k["anchor"])}">{_e(k["demangled"])}</a></td>'
                    f'<td class="mono">{_e(k["ptx_path"])}</td><td>{_e(_dims(k["block"])) if "block" in k else "?"}</td>'
                    f'<td class="num">{len(k.get("findings", ()))}</td>'
                    f'<td class="num">{"" if ways is None else (f"{ways}-way" if ways > 1 else "none")}</td>'
                    f'<td class="num">{"?" if occ is None else f"{100 * occ:.0f}%"}</td></tr>')
    rows.append("</table>")
    return "".join(rows)


def _kernel(f: dict, k: dict) -> str:
    out = [f'<article class="kernel" id="{_e(k["anchor"])}"'
           f'{_data(name=k["name"], demangled=k["demangled"], path=f["path"], ptx_path=k["ptx_path"])}'
           f'{_data(arch=k.get("arch"), block=_dims(k["block"]) if "block" in k else None)}>',
           f'<h2>{_e(k["demangled"])}</h2><div class="muted mono">{_e(k["name"])} &middot; {_e(k["ptx_path"])}</div>']
    if "incomplete" in k:
        out.append(f'<p class="bad">Not fully analysed: {_e(k["incomplete"])}</p>')
    else:
        out.append(f'<p>Block <b class="block"{_data(block=_dims(k["block"]))}>{_e(_dims(k["block"]))}</b>'
                   f' <span class="muted">({_e(k["block_source"])})</span> &middot; {_e(k["arch"])}</p>')
    findings = k.get("findings", [])
    out.append(f'<h3>Findings ({len(findings)})</h3>')
    out.extend(_finding(d) for d in findings)
    if not findings:
        out.append('<p class="muted">None.</p>')
    out.append(_occupancy(k))
    if "incomplete" not in k:
        shared = [a for a in k["accesses"] if a["space"] == "shared"]
        const = [a for a in k["accesses"] if a["space"] == "const"]
        glob = [a for a in k["accesses"] if a["space"] == "global"]
        if shared:
            out.append(f"<h3>Shared memory: lanes and banks ({len(shared)} accesses)</h3>")
            out.extend(_shared(a, k["name"], first) for a, first in _first_of_line(shared))
        if glob:
            out.append(f"<h3>Global memory: 32-byte sectors ({len(glob)} accesses)</h3>")
            out.extend(_global(a, k["name"], first) for a, first in _first_of_line(glob))
        if const:
            out.append(f"<h3>Constant memory ({len(const)} accesses)</h3>")
            out.append(_const(const))
    out.append("</article>")
    return "".join(out)


def _first_of_line(accesses: list) -> list:
    """[(access, whether it is the first of its source line and kind)]: an unrolled loop's copies
    of one access draw the same picture, so only the first is shown open."""
    seen = set()
    out = []
    for a in accesses:
        key = (a["path"], a["line"], a["op"], a["bits"], tuple(a["variables"]))
        out.append((a, key not in seen or not a["line"]))
        seen.add(key)
    return out


def _where(a: dict) -> str:
    line = f"line {a['line']}" if a["line"] else "no source line"
    return f"{_e(line)} <span class=\"muted\">(PTX line {_e(a['ptx_line'])}, {_e(a['instruction'])})</span>"


def _shared(a: dict, kernel: str, first: bool = True) -> str:
    attrs = _data(ptx_line=a["ptx_line"], line=a["line"], op=a["op"], bits=a["bits"], iterations=a["iterations"],
                  wavefronts=a["wavefronts"], ideal=a["ideal"], ways=a["ways"])
    what = f"{a['bits']}-bit {a['op']} of <code>{_e(_variables(a, kernel)) or 'shared memory'}</code>"
    out = [f'<div class="access shared"{attrs}><div>{_where(a)}: {what}']
    if a["wavefronts"] is None:
        out.append(f'</div><p class="muted">Addresses not known: {_e(a.get("unknown"))}</p></div>')
        return "".join(out)
    cls = "bad" if a["wavefronts"] > a["ideal"] else "good"
    out.append(f' &middot; <span class="{cls}">{a["ways"]}-way</span>: <b>{a["wavefronts"]}</b> wavefronts per '
               f'block, ideal {a["ideal"]}{_iterations(a)}</div>')
    if a.get("sass_merge"):
        m = a["sass_merge"]
        out.append(f'<div class="muted">ptxas merges PTX lines {_e(m["ptx_lines"])} into one {m["bits"]}-bit load: '
                   f'{m["wavefronts"]} wavefronts (ideal {m["ideal"]})</div>')
    p = a.get("picture")
    if p:
        # conflicts are shown open; a conflict-free access's grid is one click away
        shown = first and a["wavefronts"] > a["ideal"]
        out.append(f'<details{" open" if shown else ""}><summary>lanes and banks of warp '
                   f'{p["warp"]}{" before and after the fix" if p.get("after") else ""}</summary><div class="figures">')
        out.append(_bank_figure(p, "before" if p.get("after") else "warp"))
        if p.get("after"):
            out.append(_bank_figure(p["after"], "after", p))
        out.append("</div></details>")
    out.append("</div>")
    return "".join(out)


def _iterations(a: dict) -> str:
    n = a.get("iterations")
    return f" ({n} loop iterations summed)" if n and n > 1 else ""


def _bank_figure(p: dict, role: str, before: dict = None) -> str:
    warp = before or p
    if role == "after":
        caption = (f"After the fix, warp {warp['warp']}: {p['wavefronts']} wavefront{'s' if p['wavefronts'] != 1 else ''} "
                   f"(ideal {p['ideal']}); {p['block_wavefronts']} per block (ideal {p['block_ideal']}). "
                   f"Fix: {p['fix']}")
        extra = _data(role="after", warp=warp["warp"], grid_wavefronts=p["wavefronts"], grid_ideal=p["ideal"],
                      grid_ways=p["ways"], block_wavefronts=p["block_wavefronts"], block_ideal=p["block_ideal"])
    else:
        step = f", iteration {p['iteration']}" if p.get("iteration", 1) > 1 else ""
        caption = (f"{'Before the fix, warp' if role == 'before' else 'Warp'} {p['warp']}{step}: {p['active_lanes']} lanes, {p['wavefronts']} "
                   f"wavefront{'s' if p['wavefronts'] != 1 else ''} (ideal {p['ideal']}), {p['ways']}-way"
                   + (f"; this warp in all: {p['warp_wavefronts']} (ideal {p['warp_ideal']})"
                      if p.get("warp_wavefronts") is not None and p["warp_wavefronts"] != p["wavefronts"] else "")
                   + ". Red: banks that serve several distinct words.")
        extra = _data(role=role, warp=p["warp"], iteration=p.get("iteration"), grid_wavefronts=p["wavefronts"],
                      grid_ideal=p["ideal"], grid_ways=p["ways"], warp_wavefronts=p.get("warp_wavefronts"),
                      warp_ideal=p.get("warp_ideal"))
    picture = svg.bank_grid(p["cells"], p["banks"], caption, extra)
    return f"<figure>{picture}<figcaption>{_e(caption)}</figcaption></figure>"


def _global(a: dict, kernel: str, first: bool = True) -> str:
    attrs = _data(ptx_line=a["ptx_line"], line=a["line"], op=a["op"], bits=a["bits"], requests=a["requests"],
                  sectors=a["sectors"], ideal_sectors=a["ideal_sectors"])
    what = f"{a['bits']}-bit {a['op']} through <code>{_e(_variables(a, kernel)) or 'a global address'}</code>"
    out = [f'<div class="access global"{attrs}><div>{_where(a)}: {what}']
    if a["sectors"] is None:
        extra = ""
        if a.get("sectors_range"):
            extra = f" ({a['sectors_range'][0]} to {a['sectors_range'][1]} sectors per block)"
        out.append(f'</div><p class="muted">Addresses not known: {_e(a.get("unknown"))}{_e(extra)}</p></div>')
        return "".join(out)
    cls = "bad" if a["sectors"] > a["ideal_sectors"] else "good"
    out.append(f' &middot; <span class="{cls}"><b>{a["sectors"]}</b> sectors</span> per block, ideal '
               f'{a["ideal_sectors"]}, in {a["requests"]} requests{_iterations(a)}</div>')
    p = a.get("picture")
    if p:
        step = f", iteration {p['iteration']}" if p.get("iteration", 1) > 1 else ""
        caption = (f"Warp {p['warp']}{step}: {p['active_lanes']} lanes touch {p['count']} sector"
                   f"{'s' if p['count'] != 1 else ''} of 32 bytes (ideal {p['ideal']}); offsets from the first sector.")
        labels = {s: str(t).replace(f"kernel parameter {kernel}_param_", "param ") for s, t in p["labels"].items()}
        picture = svg.sector_grid(p["lanes"], p["sectors"], labels, caption,
                                  _data(warp=p["warp"], warp_sectors=p["count"], warp_ideal_sectors=p["ideal"]))
        shown = first and a["sectors"] > a["ideal_sectors"]
        assumptions = "".join(f'<div class="muted">assumes: {_e(note)}</div>' for note in a.get("assumptions", []))
        out.append(f'<details{" open" if shown else ""}><summary>sectors of warp '
                   f'{p["warp"]}</summary><div class="figures"><figure>{picture}<figcaption>{_e(caption)}'
                   f"</figcaption></figure></div>{assumptions}</details>")
    out.append("</div>")
    return "".join(out)


def _const(accesses: list) -> str:
    rows = ['<table><tr><th>line</th><th>PTX line</th><th>op</th><th class="num">distinct addresses per warp</th></tr>']
    for a in accesses:
        rows.append(f'<tr class="access const"{_data(ptx_line=a["ptx_line"], distinct_addresses=a.get("distinct_addresses"))}>'
                    f'<td>{_e(a["line"] or "-")}</td><td>{a["ptx_line"]}</td><td>{_e(a["op"])}</td>'
                    f'<td class="num">{_e("?" if a.get("distinct_addresses") is None else a["distinct_addresses"])}</td></tr>')
    rows.append("</table>")
    return "".join(rows)


def _occupancy(k: dict) -> str:
    row = k.get("resources")
    out = ["<h3>Occupancy</h3>"]
    if row is None or row.get("blocks_per_sm") is None:
        out.append('<p class="muted">Registers unknown (ptxas not found, or the kernel has no resources): no '
                   "occupancy.</p>")
        return "".join(out)
    attrs = _data(registers=row["registers"], static_smem=row["static_smem"], dynamic_smem=row["dynamic_smem"],
                  blocks_per_sm=row["blocks_per_sm"], warps_per_sm=row["warps_per_sm"], occupancy=row["occupancy"],
                  limiter=row["limiter"], block=_dims(row["block"]))
    limiter = svg.LIMITER_NAMES.get(row["limiter"], row["limiter"])
    out.append(f'<div class="occupancy"{attrs}><p>{row["registers"]} registers per thread, '
               f'{row["static_smem"] if row["static_smem"] is not None else "?"} bytes of static shared memory '
               f'({_e(row["resources_from"])}); at block {_e(_dims(row["block"]))}: <b>{row["blocks_per_sm"]}</b> blocks, '
               f'{row["warps_per_sm"]} warps per SM, <b>{100 * row["occupancy"]:.0f}%</b> occupancy, limited by '
               f'<b>{_e(limiter)}</b> ({_e(row["arch"])}).</p>')
    curve = k.get("occupancy_curve")
    if curve:
        threads = row["block"][0] * row["block"][1] * row["block"][2]
        caption = f"Occupancy of {k['demangled']} over block sizes 32 to 1024 threads"
        out.append(f"<figure>{svg.occupancy_curve(curve, threads, caption)}</figure>")
    out.append("</div>")
    return "".join(out)


def _finding(d: dict) -> str:
    where = f"{d['path']}:{d['line'] or 0}:{d['column'] or 0}"
    out = [f'<div class="finding {_e(d["severity"])}"{_data(code=d["code"], line=d["line"], path=d["path"])}>'
           f'<div><b>{_e(d["code"])}</b> <span class="mono">{_e(where)}</span>: {_e(d["message"])}</div>']
    if d.get("source"):
        out.append(f'<pre class="source">{_e(d["line"])} | {_e(d["source"])}</pre>')
    items = []
    for note in d["notes"]:
        cls = ' class="witness"' if _WITNESS.search(note) else ""
        items.append(f"<li{cls}>{_e(note)}</li>")
    if d.get("fix"):
        items.append(f'<li><span class="good">fix</span>: {_e(d["fix"])}</li>')
    if items:
        out.append("<ul>" + "".join(items) + "</ul>")
    out.append("</div>")
    return "".join(out)
