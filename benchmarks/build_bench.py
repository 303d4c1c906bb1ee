#!/usr/bin/env python3
"""Speed and size figures for the acceptance targets (printed, never asserted).

usage: python benchmarks/build_bench.py [ROOT] [--runs N]

- validate: wall time to load and validate ROOT (target < 1 s on the compat corpus)
- build:    wall time of a full `build` in-process, and of the `recipes-site build` command
            including interpreter start-up (target < 3 s on the compat corpus)
- JSON tree under api/: bytes and file count (target <= 46.8 MB and <= 9,219 / 4 files)
- many variants (issue 10): one recipe with N and 2N variants, each its own checkpoint, built in
  one process; the cost per variant should stay flat (it grew with N while the throughput plan
  deep-copied the recipe per replica). `--variants N` (default 100, 0 skips).
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recipes_site.build import build  # noqa: E402
from recipes_site.catalog import PROJECT_ROOT, load_catalog  # noqa: E402

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


def many_variants_root(folder: Path, count: int) -> Path:
    """A recipes root holding one recipe (Qwen3-8B's) with `count` variants, each its own checkpoint."""
    import yaml

    recipe = yaml.safe_load((PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml").read_text())
    recipe["model"]["model_id"] = "acme/Many-8B"
    recipe["meta"]["related_recipes"] = []
    base = recipe["variants"]["default"]
    recipe["variants"] = {
        "default": base,
        **{
            f"v{i:03d}": {**copy.deepcopy(base), "model_id": f"acme/Many-8B-{i:03d}"}
            for i in range(1, count)
        },
    }
    (folder / "models" / "acme").mkdir(parents=True, exist_ok=True)
    (folder / "models" / "acme" / "Many-8B.yaml").write_text(
        yaml.safe_dump(recipe, sort_keys=False)
    )
    return folder


def bench_many_variants(count: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for n in (count // 2, count):
            root = many_variants_root(Path(tmp) / f"root{n}", n)
            t = timed(lambda root=root, n=n: build(root, Path(tmp) / f"out{n}"), runs)
            print(
                f"one recipe with {n} checkpoint variants: build median {statistics.median(t):.2f}s "
                f"({1000 * statistics.median(t) / n:.1f} ms per variant)"
            )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=str(DEFAULT_ROOT))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--variants", type=int, default=100)
    args = ap.parse_args()
    root = Path(args.root)
    v = timed(lambda: load_catalog(root), args.runs)
    print(
        f"validate {root}: median {statistics.median(v):.3f}s, min {min(v):.3f}s over {args.runs} runs"
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        b = timed(lambda: build(root, out), args.runs)
        print(f"build: median {statistics.median(b):.3f}s, min {min(b):.3f}s over {args.runs} runs")
        cli = timed(
            lambda: subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "recipes_site",
                    "build",
                    str(root),
                    "--out",
                    str(Path(tmp) / "cli"),
                ],
                check=True,
                capture_output=True,
            ),
            args.runs,
        )
        print(
            f"`recipes-site build` as a command (interpreter start to exit): median {statistics.median(cli):.3f}s, "
            f"min {min(cli):.3f}s"
        )
        size, files = tree_size(out / "api")
        print(
            f"JSON tree api/: {size:,} bytes ({size / 1e6:.1f} MB) in {files:,} files; "
            f"reference {REFERENCE_BYTES / 1e6:.1f} MB in {REFERENCE_FILES:,} files "
            f"-> {100 * size / REFERENCE_BYTES:.0f}% of the bytes, {100 * files / REFERENCE_FILES:.1f}% of the files"
        )
    if args.variants:
        bench_many_variants(args.variants, max(1, args.runs // 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
