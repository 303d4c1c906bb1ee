"""Issue 28 points 4 and 5 in the browser: /compare/ shows a model's hardware side by side from
the model document's `compare` block, its cost cell is the reader's price times the published
numbers, its URL round-trips; hardware pages list the fastest first and link to the comparison."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest

MODEL = "Qwen/Qwen3-8B"
QUERY = f"/compare/?model={MODEL}&hw=h100,l40s&price=2"


def block(site) -> dict:
    return json.loads((site.out / f"api/v1/models/{MODEL}.json").read_text())["compare"]


def cost(price: float, gpus: int, tps_per_gpu: float) -> float:
    """Price per million output tokens: price x GPUs / (tokens/s x 3600) x 1e6."""
    return price * gpus / (tps_per_gpu * gpus * 3600) * 1e6


def open_compare(page, site, query: str = QUERY):
    page.goto(site(query))
    page.wait_for_selector("[data-cmp-out] table")


def test_cost_cells_are_the_price_times_the_published_numbers(page, project_site):
    open_compare(page, project_site)
    cols = block(project_site)["variants"]["default"]
    heads = page.eval_on_selector_all(
        "[data-cmp-out] thead th[data-col]", "t => t.map(e => e.dataset.col)"
    )
    assert heads == ["h100:default", "l40s:default"]
    cells = page.eval_on_selector_all(
        "[data-cmp-out] [data-cost]",
        "els => els.map(e => [e.closest('td').cellIndex, e.dataset.cost, e.dataset.value, e.dataset.low, e.dataset.high])",
    )
    seen = set()
    for index, kind, value, low, high in cells:
        e = cols[["h100", "l40s"][index - 1]]
        if kind == "measured":
            m = e["measured"]
            assert float(value) == pytest.approx(cost(2, m["gpus"], m["tps"]), rel=1e-9)
        else:
            assert float(low) == pytest.approx(cost(2, e["gpus"], e["est"][1]), rel=1e-9)
            assert float(high) == pytest.approx(cost(2, e["gpus"], e["est"][0]), rel=1e-9)
        seen.add((index, kind))
    # H100 has a published result, L40S only the estimate
    assert seen == {(1, "measured"), (1, "estimated"), (2, "estimated")}
    text = page.inner_text("[data-cmp-out]")
    assert f"{cols['h100']['kv_tokens']:,} tokens" in text
    assert f"{cols['l40s']['max_concurrency']:,} requests" in text


def test_the_url_round_trips(page, project_site):
    open_compare(page, project_site)
    q = {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert q == {"model": MODEL, "hw": "h100,l40s", "price": "2"}
    page.check("[data-cmp-hw][value=h200]")
    page.fill("[data-cmp-price]", "3.5")
    page.wait_for_function("() => location.search.includes('price=3.5')")
    q = {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert q == {"model": MODEL, "hw": "h100,h200,l40s", "price": "3.5"}
    url = page.url
    page.goto("about:blank")
    page.goto(url)
    page.wait_for_selector("[data-cmp-out] table")
    assert page.input_value("[data-cmp-price]") == "3.5"
    assert page.eval_on_selector_all(
        "[data-cmp-out] thead th[data-col]", "t => t.map(e => e.dataset.col)"
    ) == ["h100:default", "h200:default", "l40s:default"]


def test_lines_not_common_to_all_columns_are_marked(page, project_site):
    open_compare(page, project_site, f"/compare/?model={MODEL}&hw=h100&variants=default,awq")
    b = block(project_site)
    a, w = b["variants"]["default"]["h100"], b["variants"]["awq"]["h100"]
    only = {b["lines"][i] for i in set(a["cmd"]) ^ set(w["cmd"])}
    assert only, "the two variants' commands differ"
    marked = set(
        page.eval_on_selector_all("[data-cmp-out] pre mark", "m => m.map(e => e.textContent)")
    )
    assert marked == only


def test_model_and_hardware_pages_link_to_the_comparison(page, project_site):
    page.goto(project_site(f"/{MODEL}/"))
    href = page.get_attribute("a.cmp-link", "href")
    assert href.startswith("/compare/?model=Qwen/Qwen3-8B&hw=")
    page.goto(project_site("/hardware/h100/"))
    assert page.get_attribute("a[href^='/compare/?hw=h100']", "href") == "/compare/?hw=h100"
    speeds = page.eval_on_selector_all(
        "#fits-h ~ ul.runs > li[data-speed]", "l => l.map(e => parseFloat(e.dataset.speed))"
    )
    assert len(speeds) >= 5 and speeds == sorted(speeds, reverse=True)


def test_the_model_pages_link_opens_its_hardware_column(page, project_site):
    page.goto(project_site(f"/{MODEL}/"))
    page.click("a.cmp-link")
    page.wait_for_selector("[data-cmp-out] table")
    hw = parse_qs(urlparse(page.url).query)["hw"][0]
    cols = page.eval_on_selector_all(
        "[data-cmp-out] thead th[data-col]", "t => t.map(e => e.dataset.col)"
    )
    assert cols == [f"{hw}:default"]
    assert "Add 1–3 more" in page.inner_text("[data-cmp-status]")
