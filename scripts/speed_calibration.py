"""Refit the speed roofline's constants (recipes_site/speed.py CALIBRATION) to the public points of
recipes_site/data/speed_calibration.yaml and print the per-point table, the median and worst
relative error, and the `Calibration(...)` to paste into speed.py.

    python scripts/speed_calibration.py            # refit and print
    python scripts/speed_calibration.py --check    # the committed constants' table only
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from recipes_site import speed, speed_calibration

ROOT = Path(__file__).resolve().parent.parent


def table(rows: list[speed_calibration.Row]) -> str:
    lines = [f"{'point':<24} {'metric':<8} {'measured':>10} {'predicted':>10} {'error':>7}"]
    for r in rows:
        lines.append(
            f"{r.id:<24} {r.metric:<8} {r.measured:>10.2f} {r.predicted:>10.2f} {r.error:>6.1%}"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    profiles = yaml.safe_load((ROOT / "taxonomy.yaml").read_text())["hardware_profiles"]
    data = speed_calibration.load()
    cal = speed.CALIBRATION if "--check" in argv else speed_calibration.fit(data, profiles)
    rows = speed_calibration.rows(data, profiles, cal)
    median, worst, low, high = speed_calibration.summary(rows)
    print(table(rows))
    aside = speed_calibration.rows(data, profiles, cal, excluded=True)
    if aside:
        print("set aside (not fitted):\n" + table(aside))
    print(
        f"\n{len(rows)} points: median error {median:.1%}, worst {worst:.1%}; "
        f"measured / predicted speed {low:.2f}-{high:.2f}"
    )
    if "--check" not in argv:
        print(
            "\nCALIBRATION = Calibration(\n"
            f"    bandwidth_efficiency={cal.bandwidth_efficiency:.4g},\n"
            f"    compute_efficiency={cal.compute_efficiency:.4g},\n"
            f"    allreduce_latency_s={cal.allreduce_latency_s:.4g},\n"
            f"    step_overhead_s={cal.step_overhead_s:.4g},\n"
            f"    low={cal.low:.4g},\n    high={cal.high:.4g},\n"
            f"    median_error={cal.median_error:.4g},\n    worst_error={cal.worst_error:.4g},\n"
            f"    points={cal.points},\n)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
