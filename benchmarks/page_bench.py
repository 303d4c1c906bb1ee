#!/usr/bin/env python3
"""Page weight and picker speed of the model page (issue 4 targets; printed, never asserted).

usage: python benchmarks/page_bench.py [--compat ROOT] [--project-site DIR] [--compat-site DIR]
                                       [--clicks N]

(c) below (b): the same timing for a click on a prefill node count of the prefill/decode pools
    (static/pd.js) on a PD view of deepseek-ai/DeepSeek-V3, and for hardware clicks on that view.

(a) weight: gzip size (level 6, what static hosts typically serve) of a model page's HTML plus
    the CSS and JS it references, for the compat corpus recipe with the largest HTML and for
    meta-llama/Llama-3.3-70B-Instruct (ours). Target: at most 60 KB gzip (the reference site
    ships about 450 KB gzip for Llama-3.3-70B-Instruct). Also shown: the largest hardware
    document a hardware switch may fetch for that recipe.
(b) speed: in headless Chromium (/usr/bin/chromium), the time from clicking another hardware
    radio to `pre[data-command]` changing, measured inside the page with performance.now()
    and a MutationObserver on the pre; median over N clicks alternating between two hardware
    profiles (the first click, which may fetch a hardware document, is shown apart).
    Target: under 50 ms.

Sites are built with `python -m recipes_site build` into a temporary folder unless given.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import re
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_COMPAT = PROJECT_ROOT.parent / "shared" / "compat" / "corpus"
LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
TARGET_KB, TARGET_MS, REFERENCE_KB = 60, 50, 450
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def build(root: Path | None, out: Path) -> None:
    cmd = (
        [sys.executable, "-m", "recipes_site", "build"]
        + ([str(root)] if root else [])
        + ["--out", str(out)]
    )
    done = subprocess.run(cmd, cwd=PROJECT_ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(
            f"build failed: {' '.join(cmd)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6))


def assets(site: Path, html: str) -> list[Path]:
    refs = re.findall(r'<link[^>]+rel="?stylesheet"?[^>]*href="([^"]+)"', html)
    refs += re.findall(r'<link[^>]+href="([^"]+)"[^>]*rel="?stylesheet"?', html)
    refs += re.findall(r'<script[^>]+src="([^"]+)"', html)
    out = []
    for ref in dict.fromkeys(refs):
        path = site / ref.split("?", 1)[0].split("#", 1)[0].lstrip("/")
        if ref.startswith("/") and path.is_file():
            out.append(path)
    return out


def weight(site: Path, hf_id: str, label: str) -> None:
    page = site / hf_id / "index.html"
    if not page.is_file():
        print(f"  {label}: {hf_id} has no page in {site}")
        return
    html = page.read_bytes()
    parts = [("HTML", html)] + [
        (p.name, p.read_bytes()) for p in assets(site, html.decode("utf-8", "replace"))
    ]
    total = sum(gz(b) for _, b in parts)
    detail = ", ".join(
        f"{name} {len(b) / 1024:.1f} KB raw / {gz(b) / 1024:.1f} KB gz" for name, b in parts
    )
    verdict = "within" if total <= TARGET_KB * 1024 else "OVER"
    print(f"  {label}: {hf_id}")
    print(
        f"    HTML + CSS + JS = {total / 1024:.1f} KB gzip ({verdict} the {TARGET_KB} KB target; "
        f"reference ~{REFERENCE_KB} KB)  [{detail}]"
    )
    hw_docs = sorted(
        (site / "api" / "v1" / "models" / hf_id / "hw").glob("*.json"),
        key=lambda p: p.stat().st_size,
    )
    if hw_docs:
        big = hw_docs[-1]
        print(
            f"    largest hardware document fetched on a switch: {big.name} "
            f"{big.stat().st_size / 1024:.1f} KB raw / {gz(big.read_bytes()) / 1024:.1f} KB gzip"
        )


def largest_page(site: Path) -> str | None:
    pages = [
        p
        for p in site.glob("*/*/index.html")
        if p.parent.parent.name not in ("api", "static", "hardware")
    ]
    if not pages:
        return None
    # checkpoint redirect pages are tiny, so the largest page is a recipe's
    biggest = max(pages, key=lambda p: p.stat().st_size)
    return f"{biggest.parent.parent.name}/{biggest.parent.name}"


# -- timing -----------------------------------------------------------------------------------


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


# a click on the radio `value` of the picker axis SELECTOR, timed to the command's change
CLICK_ON = """async (value) => {
  const pre = document.querySelector('[data-picker] pre[data-command]');
  const btn = document.querySelector(`SELECTOR [role=radio][data-value="${value}"]`);
  return await new Promise(resolve => {
    let t0 = 0;
    const obs = new MutationObserver(() => { const t1 = performance.now(); obs.disconnect(); resolve(t1 - t0); });
    obs.observe(pre, {childList: true, characterData: true, subtree: true});
    setTimeout(() => { obs.disconnect(); resolve(null); }, 3000);
    t0 = performance.now();
    btn.click();
  });
}"""
CLICK = CLICK_ON.replace("SELECTOR", "[data-picker] [data-axis=hardware]")
OPTIONS = """() => [...document.querySelectorAll('[data-picker] [data-axis=hardware] [role=radio]')]
  .map(b => [b.dataset.value, b.getAttribute('aria-checked') === 'true', b.getAttribute('aria-disabled') === 'true'])"""


def click_times(browser, url: str, hf_id: str, clicks: int, label: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{url}/{hf_id}" if "?" in hf_id else f"{url}/{hf_id}/")
    page.wait_for_selector("[data-picker] pre[data-command]")
    page.wait_for_load_state("networkidle")
    opts = page.evaluate(OPTIONS)
    home = next((v for v, on, _ in opts if on), None)
    if home is None:
        print(f"  {label}: no checked hardware radio on /{hf_id}/")
        context.close()
        return
    cold = other = None
    for value, on, disabled in opts:  # the first profile whose command differs from home
        if on or disabled:
            continue
        cold = page.evaluate(CLICK, value)
        if cold is not None:
            other = value
            break
    if other is None:
        print(f"  {label}: no other hardware changes the command on /{hf_id}/")
        context.close()
        return
    times = [page.evaluate(CLICK, home if i % 2 == 0 else other) for i in range(clicks)]
    context.close()
    print(f"  {label}: /{hf_id}{'' if '?' in hf_id else '/'}  {home} <-> {other}")
    print_times(times, f"; first click (may fetch the hardware document) {cold:.2f} ms")


def print_times(series: list[float | None], extra: str = "") -> None:
    """The median line of one series of timed clicks (None: the command did not change)."""
    times = [t for t in series if t is not None]
    if not times:
        print("    the command never changed")
        return
    med = statistics.median(times)
    verdict = "under" if med < TARGET_MS else "NOT under"
    print(
        f"    click -> pre[data-command] changed: median {med:.2f} ms over {len(times)} clicks "
        f"({verdict} the {TARGET_MS} ms target); min {min(times):.2f}, max {max(times):.2f}" + extra
    )


PD_MODEL, PD_QUERY = "deepseek-ai/DeepSeek-V3", "?hardware=h100&strategy=pd_cluster"
PD_CLICK = CLICK_ON.replace("SELECTOR", "[data-pd-row] [data-axis=pd-prefill-nodes]")


def pd_click_times(browser, url: str, clicks: int) -> None:
    """(c) the prefill/decode pools (static/pd.js): the time from clicking another prefill node
    count to the prefill pool's command changing, on a PD view of PD_MODEL."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{url}/{PD_MODEL}/{PD_QUERY}")
    try:
        page.wait_for_selector("[data-pd-row]:not([hidden]) [data-axis=pd-prefill-nodes]")
    except Exception:  # noqa: BLE001 - a site without the PD row: nothing to measure
        print(f"  no prefill/decode pools on /{PD_MODEL}/{PD_QUERY}")
        context.close()
        return
    page.wait_for_load_state("networkidle")
    values = page.evaluate(
        "() => [...document.querySelectorAll('[data-pd-row] [data-axis=pd-prefill-nodes] "
        "[role=radio]:not([aria-disabled=true])')].map(b => b.dataset.value)"
    )
    home = page.evaluate(
        "() => document.querySelector('[data-pd-row] [data-axis=pd-prefill-nodes] "
        "[aria-checked=true]').dataset.value"
    )
    other = next((v for v in values if v != home), None)
    if other is None:
        print(f"  only one prefill layout starts on /{PD_MODEL}/{PD_QUERY}")
        context.close()
        return
    times = [page.evaluate(PD_CLICK, other if i % 2 == 0 else home) for i in range(clicks)]
    context.close()
    print(f"  /{PD_MODEL}/{PD_QUERY}  prefill nodes {home} <-> {other}")
    print_times(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compat", default=str(DEFAULT_COMPAT), help="compat corpus recipes root")
    ap.add_argument("--project-site", help="an already built site of this repository's recipes")
    ap.add_argument("--compat-site", help="an already built site of the compat corpus")
    ap.add_argument("--clicks", type=int, default=20)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="page-bench-") as tmp:
        project = Path(args.project_site) if args.project_site else None
        if project is None:
            project = Path(tmp) / "project"
            build(None, project)
        compat = Path(args.compat_site) if args.compat_site else None
        if compat is None and (Path(args.compat) / "models").is_dir():
            compat = Path(tmp) / "compat"
            build(Path(args.compat), compat)
        if not (project / "index.html").is_file():
            print(f"no site pages in {project} (index.html missing): nothing to measure")
            return 0

        print("(a) model page weight: HTML + CSS + JS, gzip level 6")
        largest = largest_page(compat) if compat else None
        if largest:
            weight(compat, largest, "largest compat recipe")
        else:
            print("  compat corpus: not available")
        weight(project, LLAMA, "ours")

        print(f"(b) hardware click -> command updated, headless Chromium, {args.clicks} clicks")
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            print("  playwright is not installed: skipped")
            return 0
        servers = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for site, hf_id, label in (
                    (compat, largest, "largest compat recipe"),
                    (project, LLAMA, "ours"),
                ):
                    if site is None or hf_id is None:
                        continue
                    httpd, url = serve(site)
                    servers.append(httpd)
                    click_times(browser, url, hf_id, args.clicks, label)
                    if site is project:
                        print(f"  hardware clicks on the PD view of {PD_MODEL}:")
                        pd_url = f"{PD_MODEL}/{PD_QUERY}"
                        click_times(browser, url, pd_url, args.clicks, "ours, PD view")
                        print(f"(c) prefill node click -> command updated, {args.clicks} clicks")
                        pd_click_times(browser, url, args.clicks)
            finally:
                browser.close()
                for s in servers:
                    s.shutdown()
                    s.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
