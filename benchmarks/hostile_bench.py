#!/usr/bin/env python3
"""What hostile recipes cost (issue 10): printed, never asserted.

usage: python benchmarks/hostile_bench.py [--tree DIR] [--timeout S] [ATTACK ...]

Each attack is a recipes root written into a scratch folder and built by `recipes-site build`
in a child process (the package imported from --tree, default this checkout, so an older
checkout -- e.g. `git archive <commit> | tar -x -C /tmp/before` -- can be measured the same
way). Printed per attack: exit status, wall time, the child's CPU time (user + system: steadier
than wall time on a shared machine), its peak memory, bytes written into the output folder, files
written *outside* it, and the longest line the build printed.

"N variants with checkpoints" (issue 25) is one recipe of N variants, each serving its own
checkpoint, up to the most that fit under the loader's 1 MiB recipe cap: generated at run time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
FIXTURE = HERE / "tests" / "fixtures" / "catalog" / "root"
RECIPE = (FIXTURE / "models" / "acme" / "Widget-7B.yaml").read_text(encoding="utf-8")


def _variant(key: str, model_id: str) -> str:
    return f"  {key}:\n    precision: fp8\n    vram_minimum_gb: 9\n    model_id: {json.dumps(model_id)}\n"


def _with(old: str, new: str, text: str = RECIPE) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def _guide(body: str) -> str:
    head = RECIPE.split("guide: |\n")[0]
    return (
        head
        + "guide: |\n"
        + "".join("  " + line + "\n" if line else "\n" for line in body.split("\n"))
    )


def _with_variants(n: int) -> str:
    """The fixture recipe with `n` more variants, each with its own checkpoint (issue 25)."""
    many = "".join(_variant(f"v{i}", f"acme/Widget-7B-V{i}") for i in range(n))
    return _with(VARIANT_AT, VARIANT_AT + many)


def _most_variants_under_cap() -> int:
    """The largest n whose `_with_variants(n)` stays under the loader's 1 MiB recipe cap."""
    n = 1
    while len(_with_variants(2 * n).encode()) < MAX_RECIPE_BYTES:
        n *= 2
    step = n // 2
    while step:
        if len(_with_variants(n + step).encode()) < MAX_RECIPE_BYTES:
            n += step
        step //= 2
    return n


MAX_RECIPE_BYTES = 1 << 20  # catalog/yaml.py MAX_FILE_BYTES
CACHE_FOLDER = ".recipes-site-cache"  # cache.py CACHE_FOLDER, next to the output folder
ABS = Path("/hostile-abs-bench")  # one "/": the old writer joined it as an absolute path
VARIANT_AT = '    description: "BF16 weights."\n'


def attacks() -> dict:
    """name -> function(root) that writes the attack into a fresh recipes root."""

    def recipe(text):
        def write(root):
            (root / "models" / "acme").mkdir(parents=True, exist_ok=True)
            (root / "models" / "acme" / "Widget-7B.yaml").write_text(text, encoding="utf-8")

        return write

    def passwd_link(root):
        recipe(RECIPE)(root)
        (root / "models" / "acme" / "Leak.yaml").symlink_to("/etc/passwd")

    def loop_link(root):
        recipe(RECIPE)(root)
        (root / "models" / "acme" / "Loop.yaml").symlink_to("Loop.yaml")

    blob = "x" * 10_000
    bomb = _with(
        '  base_args:\n    - "--trust-remote-code"\n',
        f'  base_args:\n    - &blob "{blob}"\n' + "    - *blob\n" * 1000,
    )
    return {
        "variant model_id ../x": recipe(_with(VARIANT_AT, VARIANT_AT + _variant("evil", "../x"))),
        "variant model_id ../templates": recipe(
            _with(VARIANT_AT, VARIANT_AT + _variant("evil", "../templates"))
        ),
        "variant model_id /abs": recipe(_with(VARIANT_AT, VARIANT_AT + _variant("evil", str(ABS)))),
        "model_id of 100k chars": recipe(
            _with('model_id: "acme/Widget-7B"', 'model_id: "acme/' + "x" * 100_000 + '"')
        ),
        "symlink to /etc/passwd": passwd_link,
        "symlink loop": loop_link,
        "alias bomb 10 KB x 1000": recipe(bomb),
        "guide 450k [ then ]": recipe(_guide("## Overview\n\n" + "[" * 450_000 + "]" * 450_000)),
        "guide 60k headings": recipe(_guide("## Overview\n\n" + "### Step\n\n" * 60_000)),
        "400-digit vram_minimum_gb": recipe(
            _with("vram_minimum_gb: 16", "vram_minimum_gb: " + "9" * 400)
        ),
        "date 2026-02-30": recipe(_with("date_added: 2025-01-02", "date_added: 2026-02-30")),
        "200 variants with checkpoints": recipe(_with_variants(200)),
        **{
            f"{n:,} variants with checkpoints": recipe(_with_variants(n))
            for n in (1000, 2000, 4000, 8000, _most_variants_under_cap())
        },
    }


def folder_bytes(folder: Path) -> int:
    return (
        sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
        if folder.exists()
        else 0
    )


def run(name: str, write, tree: Path, timeout: float) -> dict:
    scratch = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        root = scratch / "root"
        shutil.copytree(FIXTURE, root)
        shutil.rmtree(root / "models")
        (root / "models").mkdir()
        write(root)
        out = scratch / "deep" / "out" / "site"
        before = {p for p in scratch.rglob("*")}
        env = dict(os.environ, PYTHONPATH=str(tree), RECIPES_SITE_JOBS="1")
        code = (
            "import atexit, resource, sys; atexit.register(lambda: sys.stderr.write("
            "f'\\nPEAK_KB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')); "
            "from recipes_site.cli import main; sys.exit(main())"
        )
        start = time.perf_counter()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            done = subprocess.run(
                [sys.executable, "-c", code, "build", str(root), "--out", str(out)],
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=scratch,
            )
            status, printed = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as exc:
            status, printed = (
                f"timeout>{timeout:.0f}s",
                (exc.stdout or b"").decode(errors="replace"),
            )
        wall = time.perf_counter() - start
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = used.ru_utime + used.ru_stime - children.ru_utime - children.ru_stime
        peaks = [line.split()[1] for line in printed.splitlines() if line.startswith("PEAK_KB ")]
        printed = "\n".join(
            line for line in printed.splitlines() if line and not line.startswith("PEAK_KB ")
        )
        peak_mb = int(peaks[-1]) / 1024 if peaks else float("nan")
        stray = [
            p
            for p in scratch.rglob("*")
            if p not in before
            and p.is_file()
            and out not in p.parents
            and not p.name.startswith(".")
            and out.parent / CACHE_FOLDER not in p.parents  # the build's own cache (cache.py)
        ]
        stray += [ABS] if ABS.exists() else []  # the "/abs" attack's target
        return {
            "attack": name,
            "status": status,
            "seconds": round(wall, 2),
            "cpu_seconds": round(cpu, 2),
            "peak_mb": round(peak_mb) if peak_mb == peak_mb else None,
            "out_mb": round(folder_bytes(out) / 1e6, 1),
            "outside": len(stray),
            "longest_line": max((len(line) for line in printed.splitlines()), default=0),
            "first_line": (printed.splitlines() or [""])[0][:110],
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(ABS, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="attacks to run (default: all)")
    parser.add_argument(
        "--tree", type=Path, default=HERE, help="checkout whose recipes_site is measured"
    )
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    table = attacks()
    for name in args.names or list(table):
        row = run(name, table[name], args.tree.resolve(), args.timeout)
        print(json.dumps(row, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
