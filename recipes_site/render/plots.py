"""Static SVG charts made at build time: lines and points on linear or log axes.

No chart library reaches the browser: a chart is a small SVG string with a <title> and <desc>
(screen readers read them), colours from CSS classes (the site's light and dark themes restyle
them) and a viewBox that scales to a phone's width. Every chart comes with the same numbers as
a table (`table_rows`), the fallback for readers who cannot see it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 640, 360
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 64, 16, 16, 48
SERIES_CLASSES = ("s1", "s2", "s3", "s4")  # site.css colours .plot .s1 ... in both themes


@dataclass(frozen=True)
class Series:
    """One named set of (x, y) points; `band` draws the (low, high) range around each point."""

    name: str
    points: tuple[tuple[float, float], ...]
    kind: str = "line"  # "line" (an estimate) or "points" (measurements)
    band: tuple[tuple[float, float], ...] = ()  # (low, high) per point, same order as points


@dataclass(frozen=True)
class Axis:
    label: str
    log: bool = False


def _ticks(low: float, high: float, log: bool) -> list[float]:
    """Round tick values covering [low, high]: powers of 2 on a log axis (concurrency 1, 2, 4 ...
    and tokens/s read naturally so), else 1-2-5 steps giving about five ticks."""
    if log:
        first = math.floor(math.log2(low))
        last = math.ceil(math.log2(high))
        step = max(1, math.ceil((last - first) / 8))
        return [2.0**e for e in range(first, last + 1, step)]
    if high <= low:
        high = low + 1
    raw = (high - low) / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = math.floor(low / step) * step
    count = math.ceil((high - start) / step)
    return [start + i * step for i in range(count + 1)]


def _label(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k".replace(".0k", "k")
    return f"{value:.3g}" if value >= 1 else f"{value:.2g}"


class _Scale:
    def __init__(self, values: list[float], log: bool, size: float, flip: bool):
        positive = [v for v in values if v > 0] or [1.0]
        low = min(positive) if log else min(0.0, min(values, default=0.0))
        high = max(values, default=1.0)
        self.ticks = _ticks(low, high, log)
        self.low, self.high = self.ticks[0], self.ticks[-1]
        self.log, self.size, self.flip = log, size, flip

    def __call__(self, value: float) -> float:
        if self.log:
            value = max(value, self.low)
            span = math.log(self.high / self.low) or 1.0
            share = math.log(value / self.low) / span
        else:
            share = (value - self.low) / ((self.high - self.low) or 1.0)
        return round((1 - share if self.flip else share) * self.size, 1)


def chart(title: str, desc: str, x: Axis, y: Axis, series: list[Series]) -> str:
    """The SVG of one chart; empty string when there is nothing to draw."""
    xs = [p[0] for s in series for p in s.points]
    ys = [p[1] for s in series for p in s.points] + [
        b for s in series for pair in s.band for b in pair
    ]
    if not xs:
        return ""
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    sx, sy = _Scale(xs, x.log, plot_w, False), _Scale(ys, y.log, plot_h, True)
    out = [
        f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
        f"<desc>{escape(desc)}</desc>",
        f'<g transform="translate({MARGIN_LEFT},{MARGIN_TOP})">',
    ]
    for t in sx.ticks:
        px = sx(t)
        out.append(f'<line class="grid" x1="{px}" x2="{px}" y1="0" y2="{plot_h}"/>')
        out.append(
            f'<text class="tick" x="{px}" y="{plot_h + 16}" text-anchor="middle">{_label(t)}</text>'
        )
    for t in sy.ticks:
        py = sy(t)
        out.append(f'<line class="grid" x1="0" x2="{plot_w}" y1="{py}" y2="{py}"/>')
        out.append(f'<text class="tick" x="-6" y="{py + 4}" text-anchor="end">{_label(t)}</text>')
    out.append(
        f'<text class="axis" x="{plot_w / 2}" y="{plot_h + 38}" text-anchor="middle">{escape(x.label)}</text>'
    )
    out.append(
        f'<text class="axis" transform="rotate(-90)" x="{-plot_h / 2}" y="-48" '
        f'text-anchor="middle">{escape(y.label)}</text>'
    )
    for i, s in enumerate(series):
        css = SERIES_CLASSES[i % len(SERIES_CLASSES)]
        pts = [(sx(px), sy(py)) for px, py in s.points]
        if s.band:
            upper = [(sx(px), sy(hi)) for (px, _), (_, hi) in zip(s.points, s.band, strict=True)]
            lower = [(sx(px), sy(lo)) for (px, _), (lo, _) in zip(s.points, s.band, strict=True)]
            ring = " ".join(f"{a},{b}" for a, b in upper + lower[::-1])
            out.append(f'<polygon class="band {css}" points="{ring}"/>')
        if s.kind == "line" and len(pts) > 1:
            path = " ".join(f"{a},{b}" for a, b in pts)
            out.append(
                f'<polyline class="line {css}" points="{path}"><title>{escape(s.name)}</title></polyline>'
            )
        for (a, b), (px, py) in zip(pts, s.points, strict=True):
            shape = "dot" if s.kind == "points" else "mark"
            out.append(
                f'<circle class="{shape} {css}" cx="{a}" cy="{b}" r="{4 if s.kind == "points" else 2.5}">'
                f"<title>{escape(s.name)}: {_label(px)}, {_label(py)}</title></circle>"
            )
    out.append("</g>")
    legend_y = 12
    for i, s in enumerate(series):
        css = SERIES_CLASSES[i % len(SERIES_CLASSES)]
        lx = MARGIN_LEFT + 8
        out.append(f'<circle class="dot {css}" cx="{lx}" cy="{MARGIN_TOP + legend_y - 4}" r="4"/>')
        out.append(
            f'<text class="legend" x="{lx + 10}" y="{MARGIN_TOP + legend_y}">{escape(s.name)}</text>'
        )
        legend_y += 16
    out.append("</svg>")
    return "".join(out)


def table_rows(x: Axis, y: Axis, series: list[Series]) -> list[tuple[str, str, str]]:
    """The chart's numbers as (series, x, y) rows: the table a reader gets instead of the SVG."""
    return [(s.name, _label(px), _label(py)) for s in series for px, py in s.points]
