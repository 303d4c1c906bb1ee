"""The public measurements `speed.CALIBRATION` is fitted to (`data/speed_calibration.yaml`): each
point's prediction by the roofline, its error, and the fit itself.

`scripts/speed_calibration.py` prints the per-point table and the constants to commit;
tests/test_speed.py checks the committed constants reproduce the stated errors.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import replace
from importlib import resources
from typing import Any, NamedTuple

import yaml

from recipes_site import kv_cache, speed

REQUIRED_FIELDS = (
    "id",
    "source",
    "excerpt",
    "vllm_version",
    "model",
    "precision",
    "hardware",
    "tp",
    "input_tokens",
    "output_tokens",
    "concurrency",
    "metric",
    "value",
)
METRICS = ("itl_ms", "ttft_ms")


class Row(NamedTuple):
    """One point: what was measured, what the roofline predicts and measured / predicted in speed
    terms (tokens/s for ITL, 1 / TTFT for TTFT: above 1, the GPU was faster than predicted)."""

    id: str
    metric: str
    measured: float
    predicted: float

    @property
    def ratio(self) -> float:
        return self.predicted / self.measured

    @property
    def error(self) -> float:
        return abs(self.predicted - self.measured) / self.measured


def load() -> dict:
    """The calibration data shipped in the package."""
    text = resources.files("recipes_site.data").joinpath("speed_calibration.yaml").read_text()
    return yaml.safe_load(text)


def point_inputs(data: dict, point: dict, profiles: dict) -> tuple:
    """(ModelShape, GpuSpeed, Layout) of a point on its taxonomy profile."""
    cfg = data["shapes"][point["shape"]]["hf_config"]
    shape = speed.model_shape(cfg, point["precision"])
    gpu = speed.gpu_speed(profiles[point["hardware"]], point["precision"])
    if shape is None or gpu is None:
        raise ValueError(f"{point['id']}: no roofline inputs")
    per_token = kv_cache.kv_bytes_per_token_per_gpu(kv_cache.kv_layout(cfg), 2, point["tp"])
    layout = speed.Layout(tp=point["tp"], kv_bytes_per_token_per_gpu=per_token)
    return shape, gpu, layout


def predict(data: dict, point: dict, profiles: dict, cal: speed.Calibration) -> float:
    """The roofline's value of a point's metric, in the point's unit (ms)."""
    shape, gpu, layout = point_inputs(data, point, profiles)
    if point["metric"] == "itl_ms":
        step = speed.decode_step_s(shape, gpu, layout, point["concurrency"], point["context"], cal)
        return step * 1000
    return speed.prefill_s(shape, gpu, layout, point["input_tokens"], cal) * 1000


def rows(
    data: dict, profiles: dict, cal: speed.Calibration, *, excluded: bool = False
) -> list[Row]:
    """The fitted points' rows (or, `excluded`, those of the points set aside with a reason)."""
    return [
        Row(p["id"], p["metric"], float(p["value"]), predict(data, p, profiles, cal))
        for p in data["points"]
        if bool(p.get("excluded")) == excluded
    ]


def summary(found: list[Row]) -> tuple[float, float, float, float]:
    """(median error, worst error, smallest and largest measured / predicted speed ratio)."""
    errors = [r.error for r in found]
    ratios = [r.ratio for r in found]
    return statistics.median(errors), max(errors), min(ratios), max(ratios)


def _loss(data: dict, profiles: dict, cal: speed.Calibration) -> float:
    return sum(math.log(r.ratio) ** 2 for r in rows(data, profiles, cal))


# the fitted constants and the range each is searched in
FITTED = (
    ("bandwidth_efficiency", 0.2, 1.0),
    ("compute_efficiency", 0.05, 1.0),
    ("allreduce_latency_s", 1e-6, 100e-6),
    ("step_overhead_s", 1e-5, 5e-3),
)


def fit(data: dict, profiles: dict, rounds: int = 6, steps: int = 40) -> speed.Calibration:
    """Coordinate descent on the summed squared log error: each constant in turn is set to the
    best of `steps` values spaced evenly in log between its bounds, around the current best, for
    `rounds` rounds that narrow the search by half each time. Returns the constants with the
    spread and errors they give."""
    cal = replace(
        speed.CALIBRATION,
        bandwidth_efficiency=0.7,
        compute_efficiency=0.5,
        allreduce_latency_s=10e-6,
        step_overhead_s=1e-3,
    )
    spans = {name: (math.log(lo), math.log(hi)) for name, lo, hi in FITTED}
    for round_ in range(rounds):
        for name, lo, hi in FITTED:
            current = math.log(getattr(cal, name))
            width = (spans[name][1] - spans[name][0]) / 2**round_
            low = max(math.log(lo), current - width / 2)
            high = min(math.log(hi), current + width / 2)
            candidates = [math.exp(low + (high - low) * i / (steps - 1)) for i in range(steps)]
            cal = min(
                (_with(cal, name, value) for value in candidates),
                key=lambda c: _loss(data, profiles, c),
            )
    return with_spread(data, profiles, cal)


def _with(cal: speed.Calibration, name: str, value: float) -> speed.Calibration:
    changes: dict[str, Any] = {name: value}
    return replace(cal, **changes)


def with_spread(data: dict, profiles: dict, cal: speed.Calibration) -> speed.Calibration:
    """`cal` with the errors and the measured / predicted spread its constants give."""
    found = rows(data, profiles, cal)
    median, worst, low, high = summary(found)
    return replace(
        cal, low=low, high=high, median_error=median, worst_error=worst, points=len(found)
    )
