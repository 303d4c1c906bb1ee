"""Issue 27: the model page's "More options" row. Opening it loads static/more.js and
api/v1/picker-options.json (nothing before); a KV-offload option adds its connector line (host
tier sized by kv_offload.py `host_bytes` from the command's plan), its companion tab and its URL
parameter; options the recipe, strategy or layout rule out are disabled with the reason;
Mooncake pills pick the kv-store strategy; the image choice changes the docker command;
`--max-model-len auto` replaces the command's length."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

from recipes_site.render.kv_offload import host_bytes

MODEL = "Qwen/Qwen3-8B"
COMMAND = "pre[data-command]"
HAS = "document.querySelector('pre[data-command]').textContent.includes({!r})"
LACKS = "!" + HAS


def _options(site) -> dict:
    doc = json.loads((site.out / "api/v1/picker-options.json").read_text())
    return {o["id"]: o for o in doc["kv_offload"]}


def _rendering(site, hw: str, strategy: str) -> dict:
    doc = json.loads((site.out / f"api/v1/models/{MODEL}/hw/{hw}.json").read_text())
    return next(r for r in doc["renderings"] if r["strategy"] == strategy)


def _open_row(page):
    page.locator("[data-more] > summary").click()
    page.wait_for_selector("[data-more] [role=radio][data-value=simple]")


def _pill(page, axis: str, value: str):
    return page.locator(f'[data-more] [data-axis={axis}] [role=radio][data-value="{value}"]')


def _command(page) -> str:
    return page.locator(COMMAND).inner_text()


def test_the_row_loads_on_demand_and_simple_offload_joins_the_command(page, project_site):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(project_site(f"/{MODEL}/"))
    page.wait_for_selector(COMMAND)
    assert not any("more.js" in u or "picker-options.json" in u for u in requests)
    before = _command(page)
    assert "--kv-transfer-config" not in before
    _open_row(page)
    assert any("more.js" in u for u in requests)
    assert any("picker-options.json" in u for u in requests)
    assert _pill(page, "kvo", "off").get_attribute("aria-checked") == "true"
    _pill(page, "kvo", "simple").click()
    page.wait_for_function(HAS.format("SimpleCPUOffloadConnector"))
    text = _command(page)
    assert text.startswith(before)  # the connector line follows everything else here
    hw = page.locator("[data-axis=hardware] [aria-checked=true]").get_attribute("data-value")
    plan = _rendering(project_site, hw, "single_node_tp")["plan"]["default"]
    want = host_bytes(
        _options(project_site)["simple"]["size"],
        plan["kv_cache_bytes_per_gpu"],
        plan.get("tp", 1) * plan.get("pp", 1),
    )
    assert f'"cpu_bytes_to_use_per_rank":{want},' in text
    assert "kv_offload=simple" in page.url
    assert "GiB per GPU" in page.locator("[data-note=ax-kvo]").inner_text()
    assert page.locator("[data-more-state]").inner_text() == "Simple"
    _pill(page, "kvo", "off").click()
    page.wait_for_function(LACKS.format("--kv-transfer-config"))
    assert _command(page) == before and "kv_offload" not in page.url


def test_a_shared_url_opens_the_row_with_its_options_applied(page, project_site):
    page.goto(project_site(f"/{MODEL}/?kv_offload=simple&max_model_len=auto"))
    page.wait_for_function(HAS.format("SimpleCPUOffloadConnector"))
    assert page.locator("[data-more]").get_attribute("open") is not None
    assert re.search(r"--max-model-len auto$", _command(page))
    page.locator("[data-form=docker]").click()
    text = _command(page)
    assert text.startswith("docker run") and "SimpleCPUOffloadConnector" in text


def test_lmcache_adds_its_server_tab_and_opt_in_options_say_why_they_are_off(page, project_site):
    page.goto(project_site(f"/{MODEL}/"))
    _open_row(page)
    cpu = _pill(page, "kvo", "offloading_cpu")
    assert cpu.get_attribute("aria-disabled") == "true"
    assert "Opt-in" in (cpu.get_attribute("title") or "")
    _pill(page, "kvo", "lmcache").click()
    page.wait_for_selector("[role=tab][data-process=kvo]")
    assert "LMCacheMPConnector" in _command(page)
    page.locator("[role=tab][data-process=kvo]").click()
    assert re.search(r"^lmcache server \\$", _command(page), re.M)
    assert "Install first: uv pip install" in page.locator("[data-note=ax-kvo]").inner_text()


def test_a_mooncake_pill_picks_the_kv_store_strategy_and_off_leaves_it(page, project_site):
    # a datacenter node: the Mooncake stores are offered there (the model opens on one RTX card)
    page.goto(project_site(f"/{MODEL}/?hardware=h200"))
    _open_row(page)
    _pill(page, "kvo", "kv_store_distributed_mooncake").click()
    page.wait_for_selector(
        "[data-axis=strategy] [aria-checked=true][data-value=kv_store_distributed_mooncake]"
    )
    simple = _pill(page, "kvo", "simple")
    assert simple.get_attribute("aria-disabled") == "true"
    assert "Mooncake" in (simple.get_attribute("title") or "")
    _pill(page, "kvo", "off").click()
    page.wait_for_selector("[data-axis=strategy] [aria-checked=true][data-value=single_node_tp]")
    assert "strategy=" not in page.url


def test_the_image_choice_changes_the_docker_command_only(page, project_site):
    page.goto(project_site(f"/{MODEL}/?hardware=h200"))
    _open_row(page)
    serve = _command(page)
    page.locator("[data-form=docker]").click()
    page.wait_for_function(HAS.format("vllm/vllm-openai:latest " + MODEL))
    cu13 = _pill(page, "image", "vllm/vllm-openai:latest")
    assert cu13.get_attribute("aria-checked") == "true" and "CUDA 13" in cu13.inner_text()
    _pill(page, "image", "vllm/vllm-openai:latest-cu129").click()
    page.wait_for_function(HAS.format("vllm/vllm-openai:latest-cu129 " + MODEL))
    assert parse_qs(urlsplit(page.url).query)["image"] == ["vllm/vllm-openai:latest-cu129"]
    replicas = page.locator(
        "[data-plan-cmds] pre"
    ).all_inner_texts()  # the throughput plan's copies
    assert replicas and all(f"vllm/vllm-openai:latest-cu129 {MODEL}" in t for t in replicas)
    page.locator("[data-form=serve]").click()
    assert _command(page) == serve
    # an AMD profile's image is labelled, with no CUDA choice
    page.locator("[data-axis=hardware] [role=radio][data-value=mi300x]").click()
    page.wait_for_selector('[data-axis=image] [aria-checked=true][data-value*="rocm"]')
    assert page.locator("[data-axis=image] [role=radio]").count() == 1
    assert page.locator("[data-axis=image] [role=radio]").inner_text() == "ROCm"


def test_max_model_len_auto_replaces_the_length_the_command_sets(page, project_site):
    page.goto(project_site(f"/{MODEL}/?hardware=h200"))
    _open_row(page)
    page.locator("[data-mml]").check()
    page.wait_for_function(HAS.format("--max-model-len auto"))
    text = _command(page)
    assert len(re.findall(r"--max-model-len", text)) == 1
    assert "max_model_len=auto" in page.url
    page.locator("[data-mml]").uncheck()
    page.wait_for_function(LACKS.format("--max-model-len auto"))


def test_mooncake_instances_set_the_router_tab(page, project_site):
    page.goto(project_site(f"/{MODEL}/?hardware=h200"))
    _open_row(page)
    assert page.locator("[data-axis=inst]").is_hidden()  # only for a kv-store strategy
    _pill(page, "kvo", "kv_store_distributed_mooncake").click()
    page.wait_for_selector("[data-axis=inst] [aria-checked=true][data-value='1']")
    assert page.locator("[role=tab][data-process=router]").count() == 0
    assert "1 instance × 1 node" in page.locator("[data-note=ax-inst]").inner_text()
    _pill(page, "inst", "3").click()
    page.wait_for_selector("[role=tab][data-process=router]")
    assert "kv_instances=3" in page.url
    assert (
        "3 instances × 1 node × 1 GPUs = 3 GPUs" in page.locator("[data-note=ax-inst]").inner_text()
    )
    page.locator("[role=tab][data-process=router]").click()
    text = _command(page)
    assert "--backend-url http://$VLLM_INSTANCE_3:8000" in text
    assert "VLLM_INSTANCE_4" not in text and text.startswith("uv pip install vllm-router\n")
    _pill(page, "inst", "1").click()
    page.wait_for_function("!document.querySelector('[role=tab][data-process=router]')")


def test_the_kubernetes_tab_names_the_options_its_manifests_leave_out(page, project_site):
    """deploy.json's manifests are the rendering's as published: with a KV-offload option and
    --max-model-len auto on, the Kubernetes tab says they leave those out; off again, no note."""
    page.goto(project_site(f"/{MODEL}/"))
    page.wait_for_selector(COMMAND)
    page.locator("#doc-kubernetes > summary").click()
    page.wait_for_selector("#doc-kubernetes pre")
    assert page.locator("#doc-kubernetes [data-more-elsewhere]").count() == 0
    _open_row(page)
    _pill(page, "kvo", "simple").click()
    page.locator("[data-mml]").check()
    note = page.locator("#doc-kubernetes [data-more-elsewhere=kubernetes]")
    note.wait_for()
    label = _options(project_site)["simple"]["label"]
    assert f"without {label}, --max-model-len auto (chosen under More options)" in note.inner_text()
    _pill(page, "kvo", "off").click()
    page.locator("[data-mml]").uncheck()
    page.wait_for_function("!document.querySelector('#doc-kubernetes [data-more-elsewhere]')")
