"""The model page's speed chart: one static SVG per model (`<org>/<repo>/speed.svg`), made at build
time from the hardware documents' `layouts` (speed_layouts.node_layouts), with one `<symbol>` per
(hardware, variant). The page shows the symbol of the picked hardware and variant through
`<svg><use href="speed.svg#s-<hw>--<variant>">`, so a model page carries none of the curves.

Each symbol plots tokens/s per request (x) against tokens/s in total (y), both on log scales, one
point per concurrency level (1, 8, 32, 128, the KV-bounded maximum) with its estimate's range as a
segment, for replicas of the smallest TP that starts and for the one instance using the whole
node. Colours come from the page: `currentColor` for axes and text, the theme's CSS variables
`--accent` and `--warn` (inherited into the `<use>` tree) for the two layouts, so light and dark
themes apply.
"""

from __future__ import annotations

import math
from html import escape

from recipes_site import speed

WIDTH, PLOT_HEIGHT, ROW = 360, 220, 13
HEIGHT = PLOT_HEIGHT + ROW * 6  # the plot, then the table of every layout (at most 5 and a head)
LEFT, RIGHT, TOP, BOTTOM = 46, 10, 10, 34
SERIES = ("var(--accent,#1f5fd6)", "var(--warn,#a15c07)")  # the page theme's, inherited
URL_TEMPLATE = "#s-{hw}--{variant}"  # the page's `<use>` target, {hw} and {variant} filled in


def symbol_id(hw: str, variant: str) -> str:
    """The symbol of one (hardware, variant): ids and variant keys follow catalog/ids.py's grammar
    (letters, digits, `_`, `-`, `.`), all valid in an XML id after the `s-` prefix."""
    return f"s-{hw}--{variant}"


def _mid(values: list, i: int) -> float:
    """The point estimate inside a published [low, high] pair (speed ranges are the estimate times
    fixed factors, so the geometric mean sits at the same place for every point)."""
    return math.sqrt(values[2 * i] * values[2 * i + 1])


def _ticks(lo: float, hi: float) -> list[float]:
    out = []
    for exp in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10**exp
            if lo <= v <= hi:
                out.append(v)
    return out


def _words(v: float) -> str:
    return f"{round(v):,}" if v >= 100 else f"{v:.3g}"


def _label(v: float) -> str:
    return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"


def series_of(found: dict) -> list[tuple[str, dict]]:
    """The layouts a chart compares: replicas of the smallest TP and the widest layout."""
    layouts = found["layouts"]
    picked = [layouts[0]] if len(layouts) == 1 else [layouts[0], layouts[-1]]
    return [(_name(lay), lay) for lay in picked]


def _name(lay: dict) -> str:
    if lay["replicas"] == 1:
        return f"one instance, TP {lay['tp']}"
    return f"{lay['replicas']} replicas of TP {lay['tp']}"


def symbol(hw: str, variant: str, label: str, found: dict) -> str:
    """One `<symbol>`: both layouts' points over concurrency, log axes, a title and a description
    that states every point in words."""
    picked = series_of(found)
    xs = [v for _, lay in picked for v in lay["user"]]
    ys = [v for _, lay in picked for v in lay["total"]]
    x0, x1 = min(xs) / 1.2, max(xs) * 1.2
    y0, y1 = min(ys) / 1.2, max(ys) * 1.2
    w, h = WIDTH - LEFT - RIGHT, PLOT_HEIGHT - TOP - BOTTOM

    def px(v: float) -> float:
        return LEFT + w * (math.log(v / x0) / math.log(x1 / x0))

    def py(v: float) -> float:
        return TOP + h * (1 - math.log(v / y0) / math.log(y1 / y0))

    parts = [f'<symbol id="{symbol_id(hw, variant)}" viewBox="0 0 {WIDTH} {HEIGHT}">']
    title = f"Estimated speed of {escape(variant)} on {escape(label)}"
    words = []
    for name, lay in picked:
        points = ", ".join(
            f"{c:,} request{'' if c == 1 else 's'}: {_words(_mid(lay['user'], i))} per request, "
            f"{_words(_mid(lay['total'], i))} in total"
            for i, c in enumerate(lay["c"])
        )
        words.append(f"{name}: {points}")
    parts.append(f"<title>{title}</title><desc>Tokens/s, {escape('; '.join(words))}.</desc>")
    axes = [
        f'<path d="M{LEFT} {TOP}V{TOP + h}H{LEFT + w}" fill="none" stroke="currentColor" opacity=".5"/>'
    ]
    for v in _ticks(x0, x1):
        axes.append(
            f'<text x="{px(v):.1f}" y="{TOP + h + 12}" text-anchor="middle">{_label(v)}</text>'
        )
    for v in _ticks(y0, y1):
        axes.append(
            f'<text x="{LEFT - 4}" y="{py(v) + 3:.1f}" text-anchor="end">{_label(v)}</text>'
        )
    axes.append(
        f'<text x="{LEFT + w / 2}" y="{PLOT_HEIGHT - 4}" text-anchor="middle">'
        "tokens/s per request</text>"
    )
    axes.append(
        f'<text transform="translate(10 {TOP + h / 2}) rotate(-90)" text-anchor="middle">'
        "tokens/s in total</text>"
    )
    parts.append(f'<g font-size="9" fill="currentColor">{"".join(axes)}</g>')
    for n, (_, lay) in enumerate(picked):
        colour = SERIES[n]
        count = len(lay["c"])
        line = " ".join(
            f"{px(_mid(lay['user'], i)):.1f},{py(_mid(lay['total'], i)):.1f}" for i in range(count)
        )
        ranges = "".join(
            f"M{px(lay['user'][2 * i]):.1f} {py(lay['total'][2 * i]):.1f}"
            f"L{px(lay['user'][2 * i + 1]):.1f} {py(lay['total'][2 * i + 1]):.1f}"
            for i in range(count)
        )
        dots = "".join(
            f'<circle cx="{px(_mid(lay["user"], i)):.1f}" cy="{py(_mid(lay["total"], i)):.1f}" r="2.5"/>'
            for i in range(count)
        )
        labels = "".join(
            f'<text x="{px(_mid(lay["user"], i)) + 4:.1f}" y="{py(_mid(lay["total"], i)) + 10:.1f}">'
            f"{c:,}</text>"
            for i, c in enumerate(lay["c"])
        )
        parts.append(
            f'<g style="stroke:{colour};fill:{colour}">'
            f'<path d="{ranges}" stroke-width="3" opacity=".2" stroke-linecap="round"/>'
            f'<polyline points="{line}" fill="none" stroke-width="1.5"/>{dots}'
            f'<g font-size="8" stroke="none">{labels}</g></g>'
        )
    parts.append(layout_table(found, [lay for _, lay in picked]))
    parts.append("</symbol>")
    return "".join(parts)


# the table's columns: (x of the right edge, heading), then the figures of each layout
COLUMNS = ((100, "layout"), (190, "each at 1"), (275, "total at 128"), (350, "TTFT 1k"))


def layout_table(found: dict, plotted: list[dict]) -> str:
    """Every layout of one node as SVG text rows: tokens/s per request alone, tokens/s in total at
    128 requests, the time to first token of a 1k prompt (ranges); the plotted layouts' rows carry
    their series' colour as a key."""
    at_1, at_128 = speed.LEVELS.index(1), speed.LEVELS.index(128)
    rows = [[head for _, head in COLUMNS]]
    for lay in found["layouts"][:5]:
        rows.append(
            [
                f"{lay['replicas']} × TP {lay['tp']}",
                _pair(lay["user"], at_1),
                _pair(lay["total"], at_128),
                _pair(lay["ttft_ms"], 0) + " ms",
            ]
        )
    out = ['<g font-size="9" fill="currentColor" text-anchor="end">']
    for n, row in enumerate(rows):
        y = PLOT_HEIGHT + ROW * (n + 1) - 2
        weight = ' font-weight="bold"' if n == 0 else ""
        for (x, _), cell in zip(COLUMNS, row, strict=True):
            out.append(f'<text x="{x}" y="{y}"{weight}>{escape(cell)}</text>')
    for n, lay in enumerate(found["layouts"][:5]):
        if lay in plotted:
            y = PLOT_HEIGHT + ROW * (n + 2) - 9
            colour = SERIES[plotted.index(lay)]
            out.append(f'<rect x="4" y="{y}" width="7" height="7" style="fill:{colour}"/>')
    out.append("</g>")
    return "".join(out)


def _pair(values: list, i: int) -> str:
    return f"{_words(values[2 * i])}–{_words(values[2 * i + 1])}"


def speed_svg(hw_docs: dict[str, dict], labels: dict[str, str]) -> bytes | None:
    """The model's chart file: a symbol per (hardware, variant) whose hardware document has
    `layouts`; None when none has."""
    symbols = [
        symbol(hw, variant, labels.get(hw, hw), found)
        for hw, doc in hw_docs.items()
        for variant, found in (doc.get("layouts") or {}).items()
    ]
    if not symbols:
        return None
    cal = speed.CALIBRATION
    head = (
        '<svg xmlns="http://www.w3.org/2000/svg">'
        f"<!-- speed estimates (recipes_site/speed.py), calibrated on {cal.points} public "
        f"measurements: median error {cal.median_error:.0%}, worst {cal.worst_error:.0%} -->"
    )
    return (head + "".join(symbols) + "</svg>\n").encode("utf-8")
