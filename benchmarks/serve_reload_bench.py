#!/usr/bin/env python3
"""Save-to-reload time of `recipes-site serve` in Chromium (printed, never asserted).

usage: python benchmarks/serve_reload_bench.py ROOT [--out DIR] [--port 8765] [--edits 3]

Starts `recipes-site serve ROOT` as a child process, opens a recipe's page in Chromium
(/usr/bin/chromium, through Playwright), edits that recipe's description (a change of data) and
times until the open page shows the edit: the watcher's poll, the incremental rebuild, the
page's own reload poll and the page load, which is what a person editing a recipe waits for.
ROOT is changed in place: use a generated one, e.g. from `scale_bench.py --keep DIR`. The
server's first build (from the cache when DIR was built before) is not timed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", help="recipes root (edited in place)")
    ap.add_argument("--out", default=None, help="output folder (default: serve-site beside ROOT)")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--edits", type=int, default=3, help="recipes edited one after the other")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(args.root).resolve()
    out = Path(args.out).resolve() if args.out else root.parent / "serve-site"
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(HERE))}
    server = subprocess.Popen(
        [
            sys.executable,
            "-u",
            "-m",
            "recipes_site",
            "serve",
            str(root),
            "--out",
            str(out),
            "--port",
            str(args.port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    serving = threading.Event()
    rebuilds: list[str] = []

    def read_output() -> None:
        # read everything the server prints (its warnings after every build too), so that it
        # never blocks on a full pipe
        assert server.stdout is not None
        for line in server.stdout:
            if line.startswith("built"):
                (rebuilds.append if serving.is_set() else print)(line.strip())
            if line.startswith("serving"):
                serving.set()

    reader = threading.Thread(target=read_output, daemon=True)
    reader.start()
    try:
        serving.wait(timeout=600)
        files = sorted((root / "models").rglob("*.yaml"))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium")
            page = browser.new_page()
            for k in range(args.edits):
                recipe = files[len(files) * (k + 1) // (args.edits + 2)]
                page.goto(f"http://127.0.0.1:{args.port}/{recipe.parent.name}/{recipe.stem}/")
                time.sleep(
                    2
                )  # the page's reload poll is running, the watcher has seen the current files
                mark = f"Saved{k}x{time.time_ns()}"
                text = recipe.read_text(encoding="utf-8")
                started = time.perf_counter()
                recipe.write_text(
                    text.replace('description: "', f'description: "{mark}: ', 1), encoding="utf-8"
                )
                page.wait_for_function(
                    f"document.body && document.body.innerText.includes({mark!r})",
                    timeout=120_000,
                    polling=50,
                )
                print(
                    f"{recipe.parent.name}/{recipe.stem}: save -> page shows the edit after "
                    f"{time.perf_counter() - started:.2f} s",
                    flush=True,
                )
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=60)
        reader.join(timeout=10)
        for line in rebuilds:
            print("rebuild:", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
