"""The static SVG charts: accessible, deterministic, scaled to their data."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from recipes_site.render.plots import Axis, Series, chart, table_rows

SVG = "{http://www.w3.org/2000/svg}"
ESTIMATE = Series(
    "estimate", ((1, 100.0), (8, 700.0), (32, 2000.0)), band=((80, 120), (560, 840), (1600, 2400))
)
MEASURED = Series("measured <h100>", ((1, 95.0), (32, 2100.0)), kind="points")


def _svg(series=(ESTIMATE, MEASURED)) -> ET.Element:
    text = chart(
        "Throughput",
        "tokens/s by concurrency",
        Axis("concurrency", log=True),
        Axis("tokens/s"),
        list(series),
    )
    return ET.fromstring(text)


def test_a_chart_is_well_formed_and_titled_for_screen_readers():
    root = _svg()
    assert root.get("role") == "img"
    assert root.find(f"{SVG}title").text == "Throughput"
    assert root.find(f"{SVG}desc").text == "tokens/s by concurrency"


def test_every_point_is_drawn_with_its_value_and_names_are_escaped():
    root = _svg()
    dots = [c for c in root.iter(f"{SVG}circle") if c.find(f"{SVG}title") is not None]
    titles = [c.find(f"{SVG}title").text for c in dots]
    assert "measured <h100>: 32, 2.1k" in titles
    assert len(dots) == 5
    assert len(list(root.iter(f"{SVG}polygon"))) == 1  # the estimate's range


def test_points_stay_inside_the_plot_area():
    root = _svg()
    for c in root.iter(f"{SVG}circle"):
        assert -1 <= float(c.get("cx")) <= 640 and -1 <= float(c.get("cy")) <= 360


def test_higher_values_are_drawn_higher():
    root = _svg([ESTIMATE])
    ys = [
        float(c.get("cy"))
        for c in root.iter(f"{SVG}circle")
        if c.get("class", "").startswith("mark")
    ]
    assert ys == sorted(ys, reverse=True)


def test_nothing_to_draw_gives_no_chart_and_the_table_has_every_point():
    assert chart("t", "d", Axis("x"), Axis("y"), [Series("empty", ())]) == ""
    rows = table_rows(Axis("x"), Axis("y"), [ESTIMATE, MEASURED])
    assert len(rows) == 5 and ("measured <h100>", "32", "2.1k") in rows


def test_charts_are_deterministic():
    assert ET.tostring(_svg()) == ET.tostring(_svg())
