"""The model page's speed chart (render/speed_chart.py): one SVG per model, a symbol per hardware
and variant, accessible and themed by the page."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from recipes_site.render.speed_chart import HEIGHT, WIDTH, speed_svg, symbol_id

NS = "{http://www.w3.org/2000/svg}"


def _layouts(*tps):
    def lay(tp, replicas, scale):
        return {
            "tp": tp,
            "replicas": replicas,
            "c": [1, 8, 32, 128, 400],
            "user": [v * scale for v in (90, 160, 85, 150, 70, 120, 40, 70, 20, 35)],
            "total": [v * scale for v in (90, 160, 680, 1200, 2200, 3800, 5000, 9000, 8000, 14000)],
            "ttft_ms": [30, 55, 270, 500],
        }

    found = [lay(tp, 8 // tp, 1 + tp / 8) for tp in tps]
    return {"min_gpus": tps[0], "replicas_per_node": 8 // tps[0], "layouts": found}


def test_one_symbol_per_hardware_and_variant_with_title_and_desc():
    docs = {
        "h100": {"layouts": {"default": _layouts(1, 2, 4, 8), "fp8": _layouts(1, 8)}},
        "b200": {"layouts": {"default": _layouts(8)}},
        "l4": {"renderings": []},  # no layouts: no symbol
    }
    svg = speed_svg(docs, {"h100": "H100", "b200": "B200"})
    assert svg is not None
    root = ET.fromstring(svg)
    symbols = root.findall(f"{NS}symbol")
    assert [s.get("id") for s in symbols] == [
        symbol_id("h100", "default"),
        symbol_id("h100", "fp8"),
        symbol_id("b200", "default"),
    ]
    for s in symbols:
        assert s.get("viewBox") == f"0 0 {WIDTH} {HEIGHT}"
        title, desc = s.find(f"{NS}title"), s.find(f"{NS}desc")
        assert title is not None and title.text and "on " in title.text
        assert desc is not None and "per request" in desc.text and "in total" in desc.text
    text = svg.decode()
    # themed by the page: axes in currentColor, series in the theme's variables
    assert "currentColor" in text and "var(--accent" in text and "var(--warn" in text
    assert "#fff" not in text and "#000" not in text
    # the table under the plot lists every layout of the node
    first = symbols[0]
    cells = [t.text for t in first.iter(f"{NS}text")]
    for row in ("8 × TP 1", "4 × TP 2", "2 × TP 4", "1 × TP 8"):
        assert row in cells
    # both compared layouts are named in the description
    assert "8 replicas of TP 1" in first.find(f"{NS}desc").text
    assert "one instance, TP 8" in first.find(f"{NS}desc").text


def test_no_file_without_layouts():
    assert speed_svg({"h100": {"renderings": []}}, {}) is None
