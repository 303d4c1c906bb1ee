#!/usr/bin/env python3
"""Speed and size figures for the acceptance targets (printed, never asserted).

usage: python benchmarks/build_bench.py [ROOT] [--runs N]

- validate: wall time to load and validate ROOT (target < 1 s on the compat corpus)
- build:    wall time of a full `build` in-process, and of the `recipes-site build` command
            including interpreter start-up (target < 3 s on the compat corpus)
- JSON tree under api/: bytes and file count (target <= 46.8 MB and <= 9,219 / 4 files)
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recipes_site.build import build  # noqa: E402
from recipes_site.catalog import load_catalog  # noqa: E402

DEFAULT_ROOT = Path(__file__).resolve().parents[2] / "shared" / "compat" / "corpus"
REFERENCE_BYTES, REFERENCE_FILES = 46_800_000, 9_219


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def tree_size(folder: Path) -> tuple[int, int]:
    total = files = 0
    for dirpath, _, names in os.walk(folder):
        for n in names:
            total += os.path.getsize(os.path.join(dirpath, n))
            files += 1
    return total, files


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=str(DEFAULT_ROOT))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = Path(args.root)
    v = timed(lambda: load_catalog(root), args.runs)
    print(f"validate {root}: median {statistics.median(v):.3f}s, min {min(v):.3f}s over {args.runs} runs")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        b = timed(lambda: build(root, out), args.runs)
        print(f"build: median {statistics.median(b):.3f}s, min {min(b):.3f}s over {args.runs} runs")
        cli = timed(lambda: subprocess.run([sys.executable, "-m", "recipes_site", "build", str(root), "--out",
                                            str(Path(tmp) / "cli")], check=True, capture_output=True), args.runs)
        print(f"`recipes-site build` as a command (interpreter start to exit): median {statistics.median(cli):.3f}s, "
              f"min {min(cli):.3f}s")
        size, files = tree_size(out / "api")
        print(f"JSON tree api/: {size:,} bytes ({size / 1e6:.1f} MB) in {files:,} files; "
              f"reference {REFERENCE_BYTES / 1e6:.1f} MB in {REFERENCE_FILES:,} files "
              f"-> {100 * size / REFERENCE_BYTES:.0f}% of the bytes, {100 * files / REFERENCE_FILES:.1f}% of the files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
