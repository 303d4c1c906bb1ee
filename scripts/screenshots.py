#!/usr/bin/env python3
"""Regenerate docs/screenshots/: the first screen of model pages on a desktop and a phone.

usage: python scripts/screenshots.py [--out docs/screenshots] [ORG/REPO ...]

Builds the bundled recipes into a temporary folder, serves it on a free loopback port and saves,
per model, what a reader sees before scrolling at 1440x900 (`<slug>-desktop.png`) and at 390x844
(`<slug>-phone.png`), in Debian's headless Chromium (/usr/bin/chromium driven by Playwright; no
browser is downloaded). The defaults are a small dense model and a large MoE, the two ends of the
"command above the fold" check (tests/browser/test_browser_layout.py). Only the viewport is
captured, at one device pixel per CSS pixel, which keeps each file small.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright
from screenshot import CHROMIUM, CHROMIUM_ARGS, ROOT, build_and_serve

MODELS = ("Qwen/Qwen3-8B", "moonshotai/Kimi-K2.6")
VIEWPORTS = {"desktop": (1440, 900), "phone": (390, 844)}


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("models", nargs="*", default=list(MODELS))
    args.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    opts = args.parse_args(argv)
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, build_and_serve(Path(tmp)) as base:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for model in opts.models:
                slug = model.replace("/", "--")
                for name, (width, height) in VIEWPORTS.items():
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.goto(f"{base}/{model}/")
                    page.wait_for_load_state("networkidle")
                    path = out / f"{slug}-{name}.png"
                    page.screenshot(path=str(path))
                    page.close()
                    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
