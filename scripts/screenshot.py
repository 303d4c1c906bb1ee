#!/usr/bin/env python3
"""Regenerate docs/screenshot.png, the README's picture of a model page.

usage: python scripts/screenshot.py [--model ORG/REPO] [--out docs/screenshot.png]

Builds the bundled recipes into a temporary folder, serves it on a free loopback port and takes
a screenshot of one model page in Debian's headless Chromium (/usr/bin/chromium, driven by
Playwright; no browser is downloaded). The picture is made, never drawn by hand, so it shows
what the site really renders.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
# the flags a sandboxed machine without network needs (no first-run, sync or update traffic)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def build_and_serve(tmp: Path) -> Iterator[str]:
    """Build the bundled recipes into `tmp`/site and serve it on a free loopback port; yields the
    site's base URL (http://127.0.0.1:PORT) while the server runs."""
    site = tmp / "site"
    subprocess.run(
        [sys.executable, "-m", "recipes_site", "build", str(ROOT), "--out", str(site)],
        check=True,
        capture_output=True,
    )
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--model", default="Qwen/Qwen3-8B")
    args.add_argument("--out", default=str(ROOT / "docs" / "screenshot.png"))
    opts = args.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, build_and_serve(Path(tmp)) as base:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 1700})
            page.goto(f"{base}/{opts.model}/")
            page.wait_for_load_state("networkidle")
            page.screenshot(path=opts.out)
            browser.close()
    print(f"wrote {opts.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
