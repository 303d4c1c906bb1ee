"""Issue 27: the model page's KV-offload row. Opening it loads static/kvo.js and
api/v1/kv_offload.json; an option adds its connector line (host tier sized by kv_offload.py
`host_bytes` from the command's plan), its companion tab and its URL parameter; options the
recipe, strategy or layout rule out are disabled with the reason; Mooncake pills pick the
kv-store strategy."""

from __future__ import annotations

import json
import re

from recipes_site.render.kv_offload import host_bytes

MODEL = "Qwen/Qwen3-8B"
COMMAND = "pre[data-command]"


def _options(site) -> dict:
    doc = json.loads((site.out / "api/v1/kv_offload.json").read_text())
    return {o["id"]: o for o in doc["options"]}


def _rendering(site, hw: str, strategy: str) -> dict:
    doc = json.loads((site.out / f"api/v1/models/{MODEL}/hw/{hw}.json").read_text())
    rec = doc["recommended"]
    variant = next(iter(rec.values()))["variant"] if isinstance(rec, dict) else None
    return next(
        r
        for r in doc["renderings"]
        if r["strategy"] == strategy and (variant is None or r["variant"] == variant)
    )


def _open_row(page):
    page.locator("[data-kvo] > summary").click()
    page.wait_for_selector("[data-kvo] [role=radio][data-value=simple]")


def _pill(page, value: str):
    return page.locator(f"[data-kvo] [role=radio][data-value={value}]")


def _command(page) -> str:
    return page.locator(COMMAND).inner_text()


def test_the_row_loads_on_demand_and_simple_offload_joins_the_command(page, project_site):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(project_site(f"/{MODEL}/"))
    page.wait_for_selector(COMMAND)
    assert not any("kvo.js" in u or "kv_offload.json" in u for u in requests)
    before = _command(page)
    assert "--kv-transfer-config" not in before
    _open_row(page)
    assert any("kvo.js" in u for u in requests) and any("kv_offload.json" in u for u in requests)
    assert _pill(page, "off").get_attribute("aria-checked") == "true"
    _pill(page, "simple").click()
    page.wait_for_function(
        "document.querySelector('pre[data-command]').textContent.includes('SimpleCPUOffloadConnector')"
    )
    text = _command(page)
    assert text.startswith(before)  # the connector line comes after everything else
    hw = page.locator("[data-axis=hardware] [aria-checked=true]").get_attribute("data-value")
    r = _rendering(project_site, hw, "single_node_tp")
    plan = r["plan"]["default"]
    want = host_bytes(
        _options(project_site)["simple"]["size"],
        plan["kv_cache_bytes_per_gpu"],
        plan.get("tp", 1) * plan.get("pp", 1),
    )
    assert f'"cpu_bytes_to_use_per_rank":{want},' in text
    assert "kv_offload=simple" in page.url
    assert "GiB per GPU" in page.locator("[data-kvo-note]").inner_text()
    assert page.locator("[data-kvo-state]").inner_text() == "Simple"
    _pill(page, "off").click()
    page.wait_for_function(
        "!document.querySelector('pre[data-command]').textContent.includes('--kv-transfer-config')"
    )
    assert _command(page) == before and "kv_offload" not in page.url


def test_a_shared_url_opens_the_row_with_the_option_applied(page, project_site):
    page.goto(project_site(f"/{MODEL}/?kv_offload=simple"))
    page.wait_for_function(
        "document.querySelector('pre[data-command]').textContent.includes('SimpleCPUOffloadConnector')"
    )
    assert page.locator("[data-kvo]").get_attribute("open") is not None
    page.locator("[data-form=docker]").click()
    text = _command(page)
    assert text.startswith("docker run") and "SimpleCPUOffloadConnector" in text


def test_lmcache_adds_its_server_tab_and_opt_in_options_say_why_they_are_off(page, project_site):
    page.goto(project_site(f"/{MODEL}/"))
    _open_row(page)
    cpu = _pill(page, "offloading_cpu")
    assert cpu.get_attribute("aria-disabled") == "true"
    assert "Opt-in" in (cpu.get_attribute("title") or "")
    _pill(page, "lmcache").click()
    page.wait_for_selector("[role=tab][data-process=kvo]")
    assert "LMCacheMPConnector" in _command(page)
    page.locator("[role=tab][data-process=kvo]").click()
    assert re.search(r"^lmcache server \\$", _command(page), re.M)
    assert "Install first: uv pip install" in page.locator("[data-kvo-note]").inner_text()


def test_a_mooncake_pill_picks_the_kv_store_strategy_and_off_leaves_it(page, project_site):
    page.goto(project_site(f"/{MODEL}/"))
    _open_row(page)
    store = _pill(page, "kv_store_distributed_mooncake")
    assert store.count() == 1
    store.click()
    page.wait_for_selector(
        "[data-axis=strategy] [aria-checked=true][data-value=kv_store_distributed_mooncake]"
    )
    assert "MooncakeStoreConnector" in page.locator("body").inner_text()
    simple = _pill(page, "simple")
    assert simple.get_attribute("aria-disabled") == "true"
    assert "Mooncake" in (simple.get_attribute("title") or "")
    _pill(page, "off").click()
    page.wait_for_selector("[data-axis=strategy] [aria-checked=true][data-value=single_node_tp]")
    assert "strategy=" not in page.url
