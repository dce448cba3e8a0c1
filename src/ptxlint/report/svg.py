"""Inline SVG pictures for the HTML report: a lane-to-bank grid, a lane-to-sector grid, an
occupancy curve. Each function takes plain numbers and returns SVG text; every string it is given
is escaped here, so a caller may pass names from the checked code."""

from __future__ import annotations

from html import escape

CELL = 10  # px per lane/bank cell
OK_COLOUR = "#4c9a6a"
LIMITER_COLOURS = {"registers": "#d95f02", "shared memory": "#7570b3", "threads": "#1b9e77", "blocks": "#e7298a",
                   "launch bounds": "#777777"}
LIMITER_NAMES = {"threads": "warps per SM", "blocks": "blocks per SM"}


def attr(value) -> str:
    """An attribute value, quoted and escaped."""
    return '"' + escape(str(value), quote=True) + '"'


def conflict_colour(depth: int, worst: int) -> str:
    """Green for a bank that serves its lanes in one wavefront; orange to dark red as the bank's
    depth (wavefronts it needs) grows towards the worst of the access."""
    if depth <= 1:
        return OK_COLOUR
    share = (depth - 1) / max(worst - 1, 1)
    red, green = 230 - int(60 * share), 150 - int(130 * share)
    return f"rgb({red},{max(green, 20)},{40 - int(20 * share)})"


def bank_grid(cells: list, banks: int, caption: str, extra_attrs: str = "") -> str:
    """32 lanes (rows) x `banks` banks (columns); a cell per (lane, bank) the lane's access uses,
    coloured by the depth of that bank in the lane's phase. `cells`: [(lane, bank, word, depth)]."""
    left, top = 34, 30
    width, height = left + banks * CELL + 8, top + 32 * CELL + 8
    worst = max((c[3] for c in cells), default=1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="bank-grid" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label={attr(caption)}{extra_attrs}>',
           f"<title>{escape(caption)}</title>",
           f'<rect x="{left}" y="{top}" width="{banks * CELL}" height="{32 * CELL}" class="grid-bg"/>']
    out.append(_grid_lines(left, top, banks, 32))
    out.append(f'<text x="{left + banks * CELL / 2}" y="10" class="axis" text-anchor="middle">bank</text>')
    for b in range(0, banks, 8):
        out.append(f'<text x="{left + b * CELL + 1}" y="{top - 4}" class="tick">{b}</text>')
    out.append(f'<text x="4" y="{top - 4}" class="axis">lane</text>')
    for lane in range(0, 32, 4):
        out.append(f'<text x="{left - 4}" y="{top + lane * CELL + 8}" class="tick" text-anchor="end">{lane}</text>')
    seen = set()
    for lane, bank, word, depth in cells:
        if (lane, bank) in seen:
            continue
        seen.add((lane, bank))
        # the fill of a conflict-free cell comes from the page's style: a report holds thousands
        if depth > 1:
            tip = f"lane {lane}: word {word} on bank {bank}, one of {depth} distinct words the bank serves in turn"
            out.append(f'<rect class="cell conflict" x="{left + bank * CELL}" y="{top + lane * CELL}" width="{CELL}" '
                       f'height="{CELL}" fill="{conflict_colour(depth, worst)}" data-lane="{lane}" data-bank="{bank}" '
                       f'data-depth="{depth}"><title>{escape(tip)}</title></rect>')
        else:
            out.append(f'<rect class="cell" x="{left + bank * CELL}" y="{top + lane * CELL}" width="{CELL}" '
                       f'height="{CELL}" data-lane="{lane}" data-bank="{bank}" data-depth="{depth}"/>')
    out.append("</svg>")
    return "".join(out)


def _grid_lines(left: int, top: int, columns: int, rows: int) -> str:
    lines = [f'<path class="grid-line" d="']
    for c in range(0, columns + 1, 8 if columns > 8 else 1):
        lines.append(f"M{left + c * CELL} {top}v{rows * CELL}")
    for r in range(0, rows + 1, 8):
        lines.append(f"M{left} {top + r * CELL}h{columns * CELL}")
    lines.append('"/>')
    return "".join(lines)


def sector_grid(lanes: list, sectors: list, labels: dict, caption: str, extra_attrs: str = "") -> str:
    """The 32-byte sectors one warp touches (rows, in address order; a gap row marks sectors not
    touched in between; `labels`: sector -> its offset as text) x the 32 lanes (columns), with each
    sector's lane count at the right."""
    left, top = 12 + 6 * max((len(str(t)) for t in labels.values()), default=4), 30
    row_of = {}
    y = 0
    previous = None
    gaps = []
    for s in sectors:
        if previous is not None and s != previous + 1:
            gaps.append(y)
            y += 1  # a gap row between sectors that are not adjacent
        row_of[s] = y
        y += 1
        previous = s
    rows = max(y, 1)
    width, height = left + 32 * CELL + 60, top + rows * CELL + 8
    users: dict = {}
    for _, ss in lanes:
        for s in ss:
            users[s] = users.get(s, 0) + 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="sector-grid" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label={attr(caption)}{extra_attrs}>',
           f"<title>{escape(caption)}</title>",
           f'<rect x="{left}" y="{top}" width="{32 * CELL}" height="{rows * CELL}" class="grid-bg"/>',
           f'<text x="{left + 16 * CELL}" y="10" class="axis" text-anchor="middle">lane</text>',
           f'<text x="2" y="{top - 4}" class="axis">sector at</text>',
           f'<text x="{left + 32 * CELL + 6}" y="{top - 4}" class="axis">lanes</text>']
    for lane in range(0, 32, 4):
        out.append(f'<text x="{left + lane * CELL + 1}" y="{top - 4}" class="tick">{lane}</text>')
    for g in gaps:
        out.append(f'<text x="{left - 6}" y="{top + g * CELL + 8}" class="tick" text-anchor="end">&#8942;</text>')
    for s in sectors:
        y = top + row_of[s] * CELL
        out.append(f'<text x="{left - 6}" y="{y + 8}" class="tick" text-anchor="end">{escape(str(labels[s]))}</text>'
                   f'<text class="tick sector" x="{left + 32 * CELL + 6}" y="{y + 8}" data-sector="{s}" '
                   f'data-lanes="{users[s]}">{users[s]}</text>')
    for lane, ss in lanes:
        for s in ss:
            out.append(f'<rect class="cell" x="{left + lane * CELL}" y="{top + row_of[s] * CELL}" width="{CELL}" '
                       f'height="{CELL}" data-lane="{lane}" data-sector="{s}"/>')
    out.append("</svg>")
    return "".join(out)


def occupancy_curve(points: list, current_threads: int, caption: str, max_warps_label: str = "") -> str:
    """Occupancy (0..100 %) over block sizes: `points` are dicts with threads, occupancy, limiter,
    blocks_per_sm, warps_per_sm; each dot is coloured by its limiting resource, the kernel's own block
    size is marked."""
    left, top, plot_w, plot_h = 44, 12, 600, 170
    width, height = left + plot_w + 20, top + plot_h + 70
    lo, hi = points[0]["threads"], points[-1]["threads"]

    def px(threads):
        return left + (threads - lo) / max(hi - lo, 1) * plot_w

    def py(occ):
        return top + (1 - occ) * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="occupancy-curve" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label={attr(caption)}>',
           f"<title>{escape(caption)}</title>",
           f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="grid-bg"/>']
    for pct in (0, 25, 50, 75, 100):
        y = py(pct / 100)
        out.append(f'<path class="grid-line" d="M{left} {y:.1f}h{plot_w}"/>'
                   f'<text x="{left - 4}" y="{y + 4:.1f}" class="tick" text-anchor="end">{pct}%</text>')
    step = 128 if hi - lo > 512 else 64
    for t in [lo] + [t for t in range(step, hi + 1, step) if t - lo >= step // 2]:
        out.append(f'<text x="{px(t):.1f}" y="{top + plot_h + 14}" class="tick" text-anchor="middle">{t}</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{top + plot_h + 30}" class="axis" text-anchor="middle">'
               f'threads per block</text>')
    if lo <= current_threads <= hi:
        x = px(current_threads)
        out.append(f'<path class="current" d="M{x:.1f} {top}v{plot_h}"/>'
                   f'<text x="{x + 4:.1f}" y="{top + plot_h - 6}" class="tick">this block ({current_threads})</text>')
    path = " ".join(f"{'M' if i == 0 else 'L'}{px(p['threads']):.1f} {py(p['occupancy']):.1f}"
                    for i, p in enumerate(points))
    out.append(f'<path class="curve" d="{path}"/>')
    for p in points:
        colour = LIMITER_COLOURS.get(p["limiter"], "#333")
        tip = (f"{p['threads']} threads: {p['blocks_per_sm']} blocks, {p['warps_per_sm']} warps per SM, "
               f"{100 * p['occupancy']:.0f}%, limited by {LIMITER_NAMES.get(p['limiter'], p['limiter'])}")
        out.append(f'<circle class="point" cx="{px(p["threads"]):.1f}" cy="{py(p["occupancy"]):.1f}" r="3.2" '
                   f'fill="{colour}" data-threads="{p["threads"]}" data-occupancy="{p["occupancy"]}" '
                   f'data-blocks-per-sm="{p["blocks_per_sm"]}" data-warps-per-sm="{p["warps_per_sm"]}" '
                   f'data-limiter={attr(p["limiter"])}><title>{escape(tip)}</title></circle>')
    used = list(dict.fromkeys(p["limiter"] for p in points))
    x = left
    for limiter in used:
        label = f"limited by {LIMITER_NAMES.get(limiter, limiter)}"
        out.append(f'<circle cx="{x + 5}" cy="{top + plot_h + 50}" r="4" fill="{LIMITER_COLOURS.get(limiter, "#333")}"/>'
                   f'<text x="{x + 13}" y="{top + plot_h + 54}" class="tick">{escape(label)}</text>')
        x += 30 + 7 * len(label)
    out.append("</svg>")
    return "".join(out)
