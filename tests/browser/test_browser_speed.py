"""The model page's speed panel in headless Chromium: the chart is the build's static SVG symbol
of the picked hardware and variant (the file exists and holds that symbol), and the table and the
TTFT line show the picked command's estimate from its API document, as pages.py writes them."""

from __future__ import annotations

import json

from browser_kit import Picker

from recipes_site.render.pages import speed_range
from recipes_site.render.speed_chart import symbol_id

MODEL = "Qwen/Qwen3-8B"

READ = """() => {
  const S = document.querySelector('[data-speed]'), use = S.querySelector('use');
  return {
    href: use.getAttribute('href'), chartHidden: use.parentNode.hasAttribute('hidden'),
    rows: [...S.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(td => td.textContent)),
    ttft: S.querySelector('[data-speed-ttft]').textContent,
  };
}"""


def _expected(site, page, hw: str, variant: str, strategy: str = "single_node_tp") -> dict:
    doc = json.loads(page.request.get(site(f"/api/v1/models/{MODEL}/hw/{hw}.json")).text())
    r = next(x for x in doc["renderings"] if x["variant"] == variant and x["strategy"] == strategy)
    s = r["speed"]
    return {
        "rows": [
            [f"{c:,}", speed_range(s["user"], i), speed_range(s["total"], i)]
            for i, c in enumerate(s["c"])
        ],
        "ttft": (speed_range(s["ttft_ms"], 0), speed_range(s["ttft_ms"], 1)),
        "symbol": symbol_id(hw, variant) if variant in doc.get("layouts", {}) else None,
    }


def _check(site, page, shown: dict, want: dict) -> None:
    assert shown["rows"] == want["rows"]
    assert all(t in shown["ttft"] for t in want["ttft"]), shown["ttft"]
    assert want["symbol"] is not None and not shown["chartHidden"]
    svg_url, _, symbol = shown["href"].partition("#")
    assert symbol == want["symbol"]
    resp = page.request.get(site(svg_url))
    assert resp.status == 200
    assert f'<symbol id="{symbol}"' in resp.text()


def test_speed_panel_follows_the_picker_and_its_chart_exists(project_site, page):
    # h100 has every speed fact (the RTX 5090 the model opens on lists no BF16 peak: no estimate)
    picker = Picker(page, project_site, MODEL).open("?hardware=h100")
    first = picker.state()
    shown = page.evaluate(READ)
    _check(project_site, page, shown, _expected(project_site, page, first.hardware, first.variant))
    # another hardware: its document (fetched by the picker) has the estimates
    other = next(h for h, _, off in picker.options("hardware") if h != first.hardware and not off)
    picker.choose("hardware", other)
    page.wait_for_function(
        "sym => document.querySelector('[data-speed] use').getAttribute('href').endsWith(sym)",
        arg="#" + symbol_id(other, first.variant),
    )
    _check(
        project_site, page, page.evaluate(READ), _expected(project_site, page, other, first.variant)
    )
    # back on the first hardware with another variant: the page's copy of that document has no
    # estimates, so the panel fetches the API document
    picker.choose("hardware", first.hardware)
    assert page.evaluate(READ) == shown  # the page's own first view again, without a fetch
    variant = next(v for v, _, off in picker.options("variant") if v != first.variant and not off)
    picker.choose("variant", variant)
    want = _expected(project_site, page, first.hardware, variant)
    page.wait_for_function(
        "row => document.querySelector('[data-speed] tbody td:nth-child(2)').textContent === row",
        arg=want["rows"][0][1],
    )
    _check(project_site, page, page.evaluate(READ), want)
