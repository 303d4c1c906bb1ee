"""Issue 27: the prefill/decode pool controls. A pd_cluster rendering loads static/pd.js (no other
view does), which replaces the Nodes row with per-pool node counts and TP/TEP/DEP modes; a change
updates the pool and worker tabs, the router, the card's header and the memory panel with what
synthesis renders for that topology, is kept in the URL (prefill_nodes, decode_mode, ...) and
undone by Back; a layout whose pool cannot load the model is dimmed with plan.py's reason."""

from __future__ import annotations

import functools
import re
from urllib.parse import parse_qs, urlsplit

from recipes_site.build import synthesis_context
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.pd_topology import topology_rendering
from recipes_site.render.picker import exports
from recipes_site.synthesis import render_choice

MODEL = "deepseek-ai/DeepSeek-V3"
VIEW = f"/{MODEL}/?hardware=h100&strategy=pd_cluster"
COMMAND = "pre[data-command]"


@functools.cache
def _expected(**asked):
    """{tab label: command text} and the router of the topology `asked` as synthesis renders it."""
    catalog, _ = load_catalog(PROJECT_ROOT)
    ctx = synthesis_context(catalog)
    recipe = next(d.data for d in catalog.recipes if d.hf_id == MODEL)
    r = render_choice(ctx, recipe, "default", "h100", "pd_cluster")
    roles = {}
    for key, value in asked.items():
        role, _, what = key.partition("_")
        roles.setdefault(role, {})[what] = value
    if roles:
        r = topology_rendering(ctx, recipe, r, roles)
    tabs = {}
    for role, pool in (("prefill", r.prefill), ("decode", r.decode)):
        for i, p in enumerate((pool.process, *pool.workers), 1):
            tabs[f"{role}-{i}" if i > 1 else role] = exports(p.env) + p.command
    tabs["router"] = r.router.install + "\n" + r.router.command
    return tabs


def _query(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def _pill(page, axis: str, value: str):
    return page.locator(f'[data-pd-row] [data-axis={axis}] [role=radio][data-value="{value}"]')


def _tab_texts(page) -> dict:
    out = {}
    for tab in page.locator("[role=tab][data-process]").all():
        tab.click()
        out[tab.get_attribute("data-process")] = page.locator(COMMAND).inner_text()
    return out


def _open(page, site, url):
    page.goto(site(url))
    page.wait_for_selector("[data-pd-row]:not([hidden]) [data-axis=pd-prefill-nodes]")


def test_pd_js_loads_only_for_a_pd_rendering(page, project_site):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(project_site(f"/{MODEL}/?hardware=h100"))
    page.wait_for_selector(COMMAND)
    assert not any("pd.js" in u or "deploy.json" in u for u in requests)
    page.locator('[data-axis=strategy] [role=radio][data-value="pd_cluster"]').click()
    page.wait_for_selector("[data-pd-row]:not([hidden]) [data-axis=pd-prefill-nodes]")
    assert any("pd.js" in u for u in requests)
    assert page.locator("[data-axis=nodes]").locator("xpath=..").is_hidden()


def test_the_default_topology_shows_every_node_of_each_pool(page, project_site):
    _open(page, project_site, VIEW)
    assert _tab_texts(page) == _expected()
    assert page.locator("[data-summary]").inner_text().startswith("32× H100 on 4 nodes")
    assert _pill(page, "pd-prefill-nodes", "2").get_attribute("aria-checked") == "true"
    one = _pill(page, "pd-prefill-nodes", "1")
    assert one.get_attribute("aria-disabled") == "true"
    assert "cannot load the model" in one.get_attribute("title")
    assert "32 GPUs on 4 nodes" in page.locator("[data-pd-total]").inner_text()
    # a layout that starts is not dimmed
    assert _pill(page, "pd-prefill-mode", "dep").get_attribute("aria-disabled") is None


def test_changing_nodes_and_mode_updates_tabs_router_plan_and_url(page, project_site):
    _open(page, project_site, VIEW)
    _pill(page, "pd-prefill-nodes", "4").click()
    page.wait_for_selector("#tab-prefill-4")
    assert _query(page)["prefill_nodes"] == "4"
    assert page.locator("[data-summary]").inner_text().startswith("48× H100 on 6 nodes")
    _pill(page, "pd-decode-mode", "dep").click()
    page.wait_for_function("location.search.includes('decode_mode=dep')")
    assert _query(page) == {
        "hardware": "h100",
        "strategy": "pd_cluster",
        "prefill_nodes": "4",
        "decode_mode": "dep",
    }
    want = _expected(prefill_nodes=4, decode_mode="dep")
    assert _tab_texts(page) == want
    assert "--data-parallel-start-rank 8" in want["decode-2"]
    assert "--intra-node-data-parallel-size 8" in want["router"]
    # the memory panel shows the decode pool's DEP layout on the whole cluster's GPUs
    sizing = page.locator("[data-sizing]").inner_text()
    assert re.search(r"48 × H100 on 6 nodes", sizing) and "DP 16 + EP" in sizing
    page.go_back()
    page.wait_for_function("!location.search.includes('decode_mode')")
    assert _query(page).get("prefill_nodes") == "4"
    assert "--intra-node-data-parallel-size 1" in page.evaluate(
        "document.querySelector('#tab-router') && (document.querySelector('#tab-router').click(),"
        " document.querySelector('pre[data-command]').textContent)"
    )
    page.go_back()
    page.wait_for_function("!location.search.includes('prefill_nodes')")
    assert page.locator("[data-summary]").inner_text().startswith("32× H100 on 4 nodes")


def test_a_shared_url_opens_its_topology(page, project_site):
    _open(page, project_site, VIEW + "&decode_nodes=4&decode_mode=tep")
    page.wait_for_selector("#tab-decode-4")
    assert _tab_texts(page) == _expected(decode_nodes=4, decode_mode="tep")
    assert _pill(page, "pd-decode-mode", "tep").get_attribute("aria-checked") == "true"
    assert "decode_nodes=4" in page.url and "decode_mode=tep" in page.url


def test_a_feature_that_changes_memory_shows_the_chosen_layouts_plan(page, project_site):
    """The memory panel of a chosen layout follows a feature state with a plan of its own (MTP
    speculative decoding grows the KV bytes per token) as plan.py computes it for that layout."""
    _open(page, project_site, VIEW + "&decode_mode=dep")
    page.wait_for_function("document.querySelector('[data-summary]').textContent.includes('DP=16')")
    facts = page.locator("[data-kv-facts]")
    before = facts.inner_text()
    page.locator('input[data-feature="spec_decoding"]').check()
    page.wait_for_function(
        "document.querySelector('[data-kv-facts]').textContent.includes('71,424 B per GPU')"
    )
    assert "70,272 B per GPU" in before
    assert "decode_mode=dep" in page.url and "spec_decoding" in page.url


def test_panels_of_the_default_pools_say_so_for_another_topology(page, project_site):
    """deploy.json's Kubernetes, Monitoring and Bench parts are written for the default pools: on
    another topology each says so and gives the quoted CLI line that prints it for the chosen
    pools; Tune offers no stale tuning table; the default topology shows no note."""
    _open(page, project_site, VIEW)
    page.locator("#doc-kubernetes > summary").click()
    page.wait_for_selector("#doc-kubernetes pre")
    assert page.locator("#doc-kubernetes [data-pd-elsewhere]").count() == 0
    _pill(page, "pd-decode-mode", "dep").click()
    note = page.locator("#doc-kubernetes [data-pd-elsewhere=kubernetes]")
    note.wait_for()
    assert "default pools (Prefill 2 nodes TP, Decode 2 nodes TP)" in note.inner_text()
    assert note.locator("pre").inner_text() == (
        "recipes-site command deepseek-ai/DeepSeek-V3 --hardware h100 --variant default"
        " --strategy pd_cluster --prefill-nodes 2 --prefill-mode tp --decode-nodes 2"
        " --decode-mode dep --k8s"
    )
    page.locator("#doc-monitoring > summary").click()
    page.locator("#doc-monitoring [data-pd-elsewhere=monitoring] pre").wait_for()
    page.locator("[data-vt=bench]").click()
    bench = page.locator("[data-vt-pop] [data-pd-elsewhere=bench] pre")
    bench.wait_for()
    assert bench.inner_text().endswith("--decode-mode dep --bench")
    page.locator("[data-vt=tune]").click()
    page.locator("[data-vt-pop] [data-pd-elsewhere=tune]").wait_for()
    assert page.locator("[data-vt-pop] select[data-tune]").count() == 0
    page.go_back()
    page.wait_for_function("!location.search.includes('decode_mode')")
    page.wait_for_function("!document.querySelector('#doc-kubernetes [data-pd-elsewhere]')")
