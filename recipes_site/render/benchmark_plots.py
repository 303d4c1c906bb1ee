"""The model page's measured-results charts: one set per hardware, variant and workload.

Each set draws the results of `benchmarks.json` (benchmark_docs.py) against concurrency, with the
speed estimate (speed.py) of the same command and request lengths overlaid as a line and its
calibrated range:

    throughput   output tokens/s of the whole server, by concurrency
    latency      time to first token and time per output token, by concurrency
    per GPU      output tokens/s per GPU against tokens/s one user sees (the Pareto view: up and to
                 the right is better; each point is one concurrency)

The estimate of a point is the decode step of `concurrency` requests holding the prompt and half
the output (speed.decode_step_s) and the prefill of one prompt alone (speed.prefill_s), on the
layout the result's own command runs (its --tensor-parallel-size and KV cache).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from recipes_site import fit, speed, speed_layouts
from recipes_site.render.plots import Axis, Series, chart, table_rows

MEASURED = "measured"
ESTIMATE = "estimate"


@dataclass(frozen=True)
class ChartSet:
    """The charts of one (hardware, variant, workload) group of results."""

    title: str  # e.g. "H100 · default · 1,024 in / 1,024 out (random)"
    source: str  # who published or ran them, for the caption
    charts: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...]  # (svg, table rows)


def _per_user(metrics: dict) -> float | None:
    """Tokens/s one request sees while decoding: 1000 / its inter-token latency (median ITL, else
    median or mean TPOT)."""
    for key in ("median_itl_ms", "median_tpot_ms", "mean_tpot_ms", "mean_itl_ms"):
        value = metrics.get(key)
        if isinstance(value, int | float) and value > 0:
            return 1000.0 / value
    return None


def _ttft(metrics: dict) -> tuple[str, float] | None:
    for key, label in (
        ("median_ttft_ms", "median"),
        ("mean_ttft_ms", "mean"),
        ("p95_ttft_ms", "p95"),
    ):
        value = metrics.get(key)
        if isinstance(value, int | float) and value > 0:
            return label, float(value)
    return None


def _layout(plans, variant: str, profile: dict, command: str | None) -> speed.Layout | None:
    """The layout the result's command runs: its TP, with the KV cache its own plan gives."""
    if not command:
        return None
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    tp = fit.shape_from_argv(argv).tp  # every spelling vLLM reads (-tp 2, --tensor-parallel-size=2)
    p = speed_layouts.tp_plan(plans, variant, profile, argv, tp)
    return speed_layouts.plan_layout(p, profile)


def _estimates(plans, variant, profile, entry, levels):
    """Per concurrency level: (total tokens/s, per-user tokens/s, TPOT ms) point estimates, and
    the single-prompt TTFT in ms; None without the facts."""
    inputs = speed_layouts.model_inputs(plans, variant, profile)
    layout = _layout(plans, variant, profile, entry.get("command"))
    workload = entry.get("workload") or {}
    prompt, output = workload.get("input_len"), workload.get("output_len")
    if inputs is None or layout is None or not prompt or not output:
        return None
    shape, gpu = inputs
    context = prompt + output // 2
    rows = []
    for c in levels:
        step = speed.decode_step_s(shape, gpu, layout, c, context)
        rows.append((c / step, 1.0 / step, step * 1000))
    return rows, speed.prefill_s(shape, gpu, layout, prompt) * 1000


def _band(values: list[float]) -> tuple[tuple[float, float], ...]:
    return tuple(speed.speed_range(v) for v in values)


def chart_set(recipe: dict, profile: dict, label: str, group: list[dict]) -> ChartSet | None:
    """The three charts of one group of results (same hardware, variant and workload)."""
    group = sorted(group, key=lambda e: e["metrics"].get("max_concurrency") or 0)
    points = [e for e in group if e["metrics"].get("max_concurrency")]
    if not points:
        return None
    first = points[0]
    levels = [int(e["metrics"]["max_concurrency"]) for e in points]
    gpus = max(1, int(first.get("gpus") or 1))
    plans = speed_layouts.SpeedPlans(recipe)
    est = _estimates(plans, first["variant"], profile, first, levels)
    throughput = [
        (c, e["metrics"].get("output_throughput")) for c, e in zip(levels, points, strict=True)
    ]
    throughput = [(c, v) for c, v in throughput if v]
    series = [Series(f"{MEASURED} output tokens/s", tuple(throughput), kind="points")]
    latency = []
    ttft = [(c, _ttft(e["metrics"])) for c, e in zip(levels, points, strict=True)]
    ttft_points = tuple((c, t[1]) for c, t in ttft if t)
    if ttft_points:
        which = next(t[0] for _, t in ttft if t)
        latency.append(Series(f"{MEASURED} TTFT ({which})", ttft_points, kind="points"))
    tpot = tuple(
        (c, 1000.0 / u)
        for c, e in zip(levels, points, strict=True)
        if (u := _per_user(e["metrics"]))
    )
    if tpot:
        latency.append(Series(f"{MEASURED} time per output token", tpot, kind="points"))
    pareto = tuple(
        (u, e["metrics"]["output_throughput"] / gpus)
        for e in points
        if (u := _per_user(e["metrics"])) and e["metrics"].get("output_throughput")
    )
    pareto_series = [Series(f"{MEASURED}", pareto, kind="points")]
    if est is not None:
        rows, ttft_est = est
        total = [r[0] for r in rows]
        series.append(
            Series(
                f"{ESTIMATE} (decode)", tuple(zip(levels, total, strict=True)), band=_band(total)
            )
        )
        tpot_est = [r[2] for r in rows]
        latency.append(
            Series(
                f"{ESTIMATE} time per output token",
                tuple(zip(levels, tpot_est, strict=True)),
                band=tuple(speed.time_range(t) for t in tpot_est),
            )
        )
        latency.append(
            Series(f"{ESTIMATE} TTFT, one request", ((levels[0], ttft_est),), kind="points")
        )
        users = [r[1] for r in rows]
        pareto_series.append(
            Series(
                f"{ESTIMATE}",
                tuple((u, t / gpus) for u, t in zip(users, total, strict=True)),
            )
        )
    concurrency = Axis("concurrent requests", log=True)
    charts = []
    for title, desc, x, y, chosen in (
        (
            f"Throughput on {label}",
            "Output tokens per second of the server at each concurrency: measured points, "
            "and the speed estimate with its calibrated range",
            concurrency,
            Axis("output tokens/s"),
            series,
        ),
        (
            f"Latency on {label}",
            "Time to first token and time per output token at each concurrency, in ms",
            concurrency,
            Axis("ms", log=True),
            latency,
        ),
        (
            f"Tokens/s per GPU against tokens/s per user on {label}",
            "Each point is one concurrency: higher is more throughput per GPU, further right "
            "is faster for each user",
            Axis("tokens/s per user", log=True),
            Axis("output tokens/s per GPU"),
            pareto_series,
        ),
    ):
        svg = chart(title, desc, x, y, [s for s in chosen if s.points])
        if svg:
            charts.append((svg, tuple(table_rows(x, y, [s for s in chosen if s.points]))))
    source = first.get("published_by") or first.get("run_by") or ""
    return ChartSet(label, f"{first['label']}: {source}", tuple(charts))


def chart_sets(recipe: dict, profiles: dict, labels: dict, doc: dict | None) -> list[ChartSet]:
    """Every chart set of a model's benchmarks.json, by hardware then workload."""
    groups: dict[tuple, list[dict]] = {}
    for entry in (doc or {}).get("results", []):
        workload = entry.get("workload") or {}
        key = (
            entry["hardware"],
            entry["variant"],
            workload.get("dataset"),
            workload.get("input_len"),
            workload.get("output_len"),
        )
        groups.setdefault(key, []).append(entry)
    out = []
    for (hw, variant, dataset, prompt, output), group in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][3] or 0, kv[0][4] or 0)
    ):
        lengths = f"{prompt:,} in / {output:,} out" if prompt and output else "lengths not stated"
        label = f"{labels.get(hw, hw)} · {variant} · {lengths} ({dataset})"
        found = chart_set(recipe, profiles.get(hw) or {}, label, group)
        if found is not None:
            out.append(found)
    return out
