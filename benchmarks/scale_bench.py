#!/usr/bin/env python3
"""How the build scales with the number of recipes (printed, never asserted).

usage: python benchmarks/scale_bench.py [--sizes 100,1000] [--source ROOT] [--keep DIR] [--clean-only]

For each N, generates a recipes root of N recipes by copying the recipes of SOURCE (default: the
compat corpus next to this repository when present, else our own models/) under new ids
(`<org>/<repo>-s<k>`), then runs `recipes-site build` as a child process and prints:
- CPU per recipe (user + sys of the child) and wall time of a clean build;
- peak memory (max RSS of the build process and its workers);
- a no-change rebuild and a rebuild after editing one recipe (the incremental path: cache.py),
  each as a fresh `recipes-site build` process, and the same one-recipe rebuild the way `serve`
  runs it (a long-lived process that keeps its YAML parses), timed until the new site is in place;
- the gzip size of the home page and of the largest hardware page and hardware API document.

`--clean-only` skips the rebuilds (a 10,000-recipe clean build alone takes minutes). The rebuild
figures assume nobody edits recipes_site/ meanwhile: every cache key includes each module's bytes,
so a code change between two builds turns a no-change rebuild into a full one.

Why child processes: CPU and peak memory are read from getrusage(RUSAGE_CHILDREN), which covers
the build's worker processes too; an in-process build would mix in this script's own work.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
COMPAT = HERE.parent / "shared" / "compat" / "corpus"
SHARED_FILES = ("taxonomy.yaml", "platforms.yaml", "strategies", "kv_store")


def recipe_files(source: Path) -> list[Path]:
    return sorted(p for p in (source / "models").rglob("*.yaml") if p.is_file())


def make_root(source: Path, n: int, dest: Path) -> None:
    """N recipes: the source's recipes, round-robin, each under a new id that its model_id matches."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in SHARED_FILES:
        src = source / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        elif src.is_file():
            shutil.copy2(src, dest / name)
    files = recipe_files(source)
    for k in range(n):
        src = files[k % len(files)]
        org, repo = src.parent.name, src.stem
        new_repo = f"{repo}-s{k}"
        text = src.read_text(encoding="utf-8")
        # the recipe's own id and the checkpoints named after it (`org/repo`, `org/repo-FP8`) move to
        # the new id, so every copy is a distinct model; other ids (related recipes) stay as they are
        text = re.sub(
            rf"(?<![\w.-]){re.escape(org)}/{re.escape(repo)}(?=[-_.\"'\s]|$)",
            f"{org}/{new_repo}",
            text,
            flags=re.IGNORECASE,
        )  # `Google/` files serve `google/` ids
        target = dest / "models" / org / f"{new_repo}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def run_build(root: Path, out: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of one `recipes-site build` child process (workers included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "recipes_site", "build", str(root), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"build failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss  # ru_maxrss of children is the largest single child


SERVE_REBUILD = """
import sys, time
from pathlib import Path
from recipes_site.build import build
from recipes_site.cache import keep_in_memory
keep_in_memory()                        # as `recipes-site serve` does
root, out, edited = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
assert build(root, out).ok              # the server's first build (from the cache)
text = edited.read_text(encoding="utf-8")   # a change of data (a comment alone changes no output)
edited.write_text(text.replace('description: "', 'description: "Edited: ', 1), encoding="utf-8")
t, c, mark = time.perf_counter(), time.process_time(), {}
def swapped():
    mark["wall"], mark["cpu"] = time.perf_counter() - t, time.process_time() - c
result = build(root, out, on_swapped=swapped)
print(f"{mark['wall']:.2f} {mark['cpu']:.2f} {result.files_reused} {result.files_written}")
"""


def serve_rebuild(root: Path, out: Path, edited: Path) -> tuple[float, float, int, int]:
    """(wall s, CPU s) until the new site is swapped in (when `serve` reloads the pages) for a
    rebuild after one edit, in a process that keeps its parses like `serve`; files reused, files."""
    proc = subprocess.run(
        [sys.executable, "-c", SERVE_REBUILD, str(root), str(out), str(edited)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"serve-style rebuild failed:\n{proc.stderr[-2000:]}")
    wall, cpu, reused, files = proc.stdout.split()
    return float(wall), float(cpu), int(reused), int(files)


def gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 6)) if path.is_file() else 0


def largest(folder: Path, pattern: str) -> tuple[int, str]:
    best = (0, "-")
    for p in folder.glob(pattern):
        size = gz(p)
        if size > best[0]:
            best = (size, str(p.relative_to(folder)))
    return best


def rebuilds(root: Path, out: Path, n: int) -> None:
    """The no-change, one-recipe and serve-style rebuilds of a built root, and the page sizes."""
    wall2, cpu2, _ = run_build(root, out)
    print(f"          no-change rebuild {wall2:6.2f} s wall, {cpu2:6.2f} s CPU")
    edited = recipe_files(root)[n // 2]
    text = edited.read_text(
        encoding="utf-8"
    )  # a change of data (a comment alone changes no output)
    edited.write_text(text.replace('description: "', 'description: "Edited: ', 1), encoding="utf-8")
    wall3, cpu3, _ = run_build(root, out)
    print(f"          one-recipe rebuild {wall3:6.2f} s wall, {cpu3:6.2f} s CPU")
    wall4, cpu4, reused, files = serve_rebuild(root, out, recipe_files(root)[n // 3])
    print(
        f"          serve-style one-recipe rebuild: new site in place after {wall4:.2f} s wall, {cpu4:.2f} s CPU "
        f"({reused} of {files} files reused)"
    )
    home = gz(out / "index.html")
    hw_page = largest(out, "hardware/*/index.html")
    hw_doc = largest(out, "api/v1/hardware/*.json")
    print(
        f"          gzip: index.html {home / 1024:.1f} KiB, 404.html {gz(out / '404.html') / 1024:.1f} KiB, "
        f"largest hardware page {hw_page[0] / 1024:.1f} KiB ({hw_page[1]}), "
        f"largest hardware doc {hw_doc[0] / 1024:.1f} KiB ({hw_doc[1]})"
    )


def bench(source: Path, n: int, keep: Path | None, clean_only: bool = False) -> None:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"scale-{n}-", dir=keep))
    root, out = tmp / "root", tmp / "site"
    make_root(source, n, root)
    wall, cpu, rss = run_build(root, out)
    print(
        f"N={n:>6}: clean build {wall:7.1f} s wall, {cpu:7.1f} s CPU = {1000 * cpu / n:6.1f} ms CPU/recipe, "
        f"peak RSS {rss / 1024:6.0f} MiB"
    )
    if not clean_only:
        rebuilds(root, out, n)
    if keep is None:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--sizes", default="100,1000", help="comma-separated recipe counts (e.g. 100,1000,10000)"
    )
    ap.add_argument(
        "--source",
        default=str(COMPAT if COMPAT.is_dir() else HERE),
        help="recipes root whose recipes are copied (default: the compat corpus, else this repository)",
    )
    ap.add_argument("--keep", default=None, help="folder to keep the generated roots and sites in")
    ap.add_argument(
        "--clean-only",
        action="store_true",
        help="only the clean build of each size (a 10,000-recipe run takes long enough without the rebuilds)",
    )
    args = ap.parse_args()
    sys.stdout.reconfigure(
        line_buffering=True
    )  # each figure as soon as it is known, also into a log file
    os.environ.setdefault("PYTHONPATH", str(HERE))
    source = Path(args.source)
    print(f"source: {source} ({len(recipe_files(source))} recipes), {os.cpu_count()} cores")
    for n in (int(s) for s in args.sizes.split(",")):
        bench(source, n, Path(args.keep) if args.keep else None, args.clean_only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
